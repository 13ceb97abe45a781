"""Device taint eviction decisions (upstream ``pkg/controller/devicetainteviction``, KEP-5055): a pod
using an allocated device with a ``NoExecute`` taint that the allocation's tolerations do not tolerate
is evicted; a toleration with ``tolerationSeconds`` delays the eviction by that long after the taint's
``timeAdded`` (the shortest such delay wins); a tolerated taint without seconds never evicts."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from kbatch.api.resource_v1 import TAINT_EFFECT_NO_EXECUTE
from kbatch.controllers.dra.structured import tolerates

__all__ = ["eviction_time"]


def eviction_time(taints: Iterable[tuple[Any, float | None]], tolerations: Sequence[Any]) -> float | None:
    """When the pod must go (seconds on the clock's timeline): ``taints`` are (taint, timeAdded)
    pairs of its devices; None when no NoExecute taint requires it."""
    earliest: float | None = None
    for taint, added in taints:
        if taint.effect != TAINT_EFFECT_NO_EXECUTE:
            continue
        matching = [t for t in tolerations if tolerates(t, taint)]
        if not matching:
            return added if added is not None else 0.0
        seconds = [t.toleration_seconds for t in matching]
        if any(s is None for s in seconds):
            continue  # tolerated forever
        when = (added or 0.0) + max(0, min(s for s in seconds if s is not None))
        earliest = when if earliest is None else min(earliest, when)
    return earliest
