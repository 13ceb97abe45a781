"""What a check needs from its target, by marker, and why it is skipped where that is missing.

A check names its needs with pytest markers; each marker is one :class:`Requirement` over the
capabilities a target declares (:data:`conformance.target.CAPABILITIES`). The ``target`` fixture
skips a check whose requirements a target does not meet, with every unmet requirement's reason, so a
report never counts "this target cannot do that" as a failure:

==========================  ==========================  ==============================================
marker                      needs / excludes            because
==========================  ==========================  ==============================================
``needs_virtual_clock``     needs ``virtual-clock``     the check jumps time (back-off, schedules)
``runs_pods``               needs ``kubelet``           the container command decides pod outcomes
``plays_kubelet``           excludes ``kubelet``        the check patches pod status itself
``needs_faults``            needs ``faults``            the check injects kbatch faults (node down, …)
``api_validation``          nothing                     refusals only: runs everywhere
==========================  ==========================  ==============================================

A family with needs of its own (a gang scheduler, Kueue's admission) adds its markers with
:func:`register` from its package's ``__init__``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from conformance.target import FAULTS, KUBELET, VIRTUAL_CLOCK

__all__ = ["REQUIREMENTS", "Requirement", "excluded", "needed", "register", "unmet"]


@dataclass(frozen=True)
class Requirement:
    """``needs`` capabilities the target must have, ``excludes`` ones it must not; ``reason`` is the
    skip message where it does not hold; ``doc`` says what the marker means (``pytest --markers``)."""

    needs: frozenset[str] = frozenset()
    excludes: frozenset[str] = frozenset()
    reason: str = ""
    doc: str = ""

    def holds(self, capabilities: frozenset[str]) -> bool:
        return self.needs <= capabilities and not (self.excludes & capabilities)


REQUIREMENTS: dict[str, Requirement] = {
    "needs_virtual_clock": Requirement(
        needs=frozenset({VIRTUAL_CLOCK}),
        reason="needs a virtual clock (the check jumps time); this target's time is real",
        doc="jumps virtual time; skipped on targets without the virtual-clock capability"),
    "runs_pods": Requirement(
        needs=frozenset({KUBELET}),
        reason="needs a scheduler and kubelet to run its pods; this target has none (no Ready node)",
        doc="a kubelet runs the pods; skipped on targets without the kubelet capability"),
    "plays_kubelet": Requirement(
        excludes=frozenset({KUBELET}),
        reason="plays the kubelet (patches pod status), but a kubelet runs this target's pods",
        doc="patches pod status; skipped on targets whose pods a kubelet runs"),
    "needs_faults": Requirement(
        needs=frozenset({FAULTS}),
        reason="needs kbatch's fault commands (node down, fail a container); this target has none",
        doc="injects kbatch faults; skipped on targets without the faults capability"),
    "api_validation": Requirement(doc="creates invalid objects only; runs on every target"),
}


def register(marker: str, requirement: Requirement) -> None:
    """Add a family's own requirement marker (an existing marker may not change meaning)."""
    known = REQUIREMENTS.get(marker)
    if known is not None and known != requirement:
        raise ValueError(f"requirement marker {marker!r} is already registered as {known}")
    REQUIREMENTS[marker] = requirement


def _known(markers: Iterable[str]) -> list[Requirement]:
    return [REQUIREMENTS[m] for m in sorted(set(markers)) if m in REQUIREMENTS]


def unmet(markers: Iterable[str], capabilities: frozenset[str]) -> list[str]:
    """The reasons a target with ``capabilities`` cannot run a check marked ``markers`` (empty: it can)."""
    return [r.reason for r in _known(markers) if not r.holds(capabilities)]


def needed(markers: Iterable[str]) -> list[str]:
    """The capabilities a check marked ``markers`` needs, sorted."""
    return sorted({c for r in _known(markers) for c in r.needs})


def excluded(markers: Iterable[str]) -> list[str]:
    """The capabilities a check marked ``markers`` cannot run with, sorted."""
    return sorted({c for r in _known(markers) for c in r.excludes})
