"""Informers and the cache controllers read from: list+watch per kind into an indexed local store,
event handlers, relist on ``Expired``, and a Reader that hands out the shared, read-only objects.
"""

from kbatch.runtime.cache.cache import Cache
from kbatch.runtime.cache.indexer import (
    BY_CONTROLLER_UID,
    BY_LABEL,
    BY_NAMESPACE,
    BY_NODE_NAME,
    BY_OWNER_UID,
    DEFAULT_INDEXERS,
    Indexer,
    IndexFunc,
    object_key,
)
from kbatch.runtime.cache.informer import EventHandler, SharedInformer

__all__ = [
    "BY_CONTROLLER_UID",
    "BY_LABEL",
    "BY_NAMESPACE",
    "BY_NODE_NAME",
    "BY_OWNER_UID",
    "DEFAULT_INDEXERS",
    "Cache",
    "EventHandler",
    "IndexFunc",
    "Indexer",
    "SharedInformer",
    "object_key",
]
