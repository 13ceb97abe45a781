"""The VolumeBinding scheduler plugin (:mod:`.plugin`), its assume caches (:mod:`.cache`) and the pure
claim/volume matching it decides with (:mod:`.matching`)."""

from __future__ import annotations

from kbatch.controllers.scheduler.plugins.volume_binding.plugin import (
    BIND_CONFLICT,
    NAME,
    NODE_CONFLICT,
    PV_NOT_EXIST,
    UNBOUND_IMMEDIATE,
    VolumeBinding,
    new,
)

__all__ = ["BIND_CONFLICT", "NAME", "NODE_CONFLICT", "PV_NOT_EXIST", "UNBOUND_IMMEDIATE", "VolumeBinding",
           "new"]
