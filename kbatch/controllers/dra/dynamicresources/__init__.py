"""The DynamicResources scheduler plugin and what it keeps of the cluster (:mod:`.world`)."""

from __future__ import annotations

from kbatch.controllers.dra.dynamicresources.plugin import (
    CANNOT_ALLOCATE,
    NAME,
    NOT_AVAILABLE,
    DynamicResources,
    new,
)
from kbatch.controllers.dra.dynamicresources.world import World

__all__ = ["CANNOT_ALLOCATE", "NAME", "NOT_AVAILABLE", "DynamicResources", "World", "new"]
