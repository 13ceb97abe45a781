"""Target factories for tests of the suite's capability scheme (``KBATCH_CONFORMANCE_TARGET=...``)."""

from __future__ import annotations

from conformance.kbatch_target import KbatchTarget
from conformance.target import VIRTUAL_CLOCK

__all__ = ["without_virtual_clock"]


def without_virtual_clock() -> KbatchTarget:
    """In-process kbatch that does not declare its virtual clock: what the suite sees of a target whose
    time is real, without waiting in real time (checks that need the clock must be skipped)."""
    target = KbatchTarget()
    target.capabilities = target.capabilities - {VIRTUAL_CLOCK}
    target.description = "kbatch in-process, virtual clock not declared"
    return target
