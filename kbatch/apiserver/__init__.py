"""The API server layer: kube-apiserver semantics (create/get/list/update/patch/delete/watch,
admission, finalizers, garbage collection) for every registered kind, on top of a ``KV`` store.

Build one with ``APIServer(store, registry, now=clock.now, rng=random.Random(seed))`` and talk to it
through ``server.client()`` (the :class:`Client` protocol) or, with wire dicts, ``server.unstructured``.
"""

from kbatch.apiserver.admission import Admission, AdmissionHook, AdmissionRequest
from kbatch.apiserver.binding import Binding
from kbatch.apiserver.client import (
    Binder,
    Client,
    PatchType,
    Preconditions,
    PropagationPolicy,
    Reader,
    StatusWriter,
    Watcher,
    WatchEvent,
    WatchEventType,
    WatchStream,
    Writer,
)
from kbatch.apiserver.decoding import FieldValidation
from kbatch.apiserver.gc import GarbageCollector
from kbatch.apiserver.local import LocalClient
from kbatch.apiserver.server import APIServer
from kbatch.apiserver.unstructured import Unstructured
from kbatch.apiserver.watch import TypedWatch

__all__ = [
    "APIServer",
    "Admission",
    "AdmissionHook",
    "AdmissionRequest",
    "Binder",
    "Binding",
    "Client",
    "FieldValidation",
    "GarbageCollector",
    "LocalClient",
    "PatchType",
    "Preconditions",
    "PropagationPolicy",
    "Reader",
    "StatusWriter",
    "TypedWatch",
    "Unstructured",
    "WatchEvent",
    "WatchEventType",
    "WatchStream",
    "Watcher",
    "Writer",
]
