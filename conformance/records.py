"""What each phase of a check tells the report, and how the report folds those records into results.

A check runs in three phases (setup, call, teardown). For each, the process that ran it builds a
:class:`Record` — the check's :class:`~conformance.report.Semantic`, its place in the collection, the
phase's :class:`~conformance.report.Outcome` and the targets the phase built (:class:`Seen`) — and
attaches it to pytest's
report as plain builtins (:func:`to_wire`). The process that writes the report folds the records in
:class:`Aggregate`. Serially both are the same process; under pytest-xdist the workers build the
records and the controller, which runs no check itself, receives them with the reports: pytest
serializes a report's attributes for xdist (``TestReport``: "Reports can contain arbitrary extra
attributes", pytest's ``_pytest/reports.py``; xdist attaches its own ``worker_id`` the same way,
pytest-xdist ``docs/how-to.rst``).

Reports arrive from workers in any order, so the aggregate orders by collection place, which is
the order a serial run executes: the results, the targets' descriptions (the first check that saw
each) and the Kubernetes version (the first that reported one) come out as a serial run's.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from conformance.report import Outcome, Result, Semantic

__all__ = ["Aggregate", "Record", "Seen", "from_wire", "merge", "semantic_from_wire", "to_wire"]


@dataclass(frozen=True)
class Seen:
    """A target one phase of a check built: what the report's header says about targets."""

    description: str
    capabilities: tuple[str, ...] = ()
    kubernetes_version: str | None = None


@dataclass(frozen=True)
class Record:
    position: int
    """The check's place in the session's collection (the order a serial run executes)."""
    phase: Outcome
    """The phase's outcome: ``error`` when setup or teardown failed (the target, not the semantic)."""
    semantic: Semantic | None = None
    """None for a test without a ``semantic`` marker: only its targets count."""
    seen: tuple[Seen, ...] = ()


def to_wire(record: Record) -> dict[str, Any]:
    """``record`` as builtins (dicts, lists, str, numbers, None) that execnet and JSON carry."""
    return asdict(record)


def from_wire(data: dict[str, Any]) -> Record:
    """The :class:`Record` :func:`to_wire` wrote (tuples may come back as lists)."""
    sem = data["semantic"]
    semantic = None if sem is None else semantic_from_wire(sem)
    seen = tuple(Seen(s["description"], tuple(s["capabilities"]), s["kubernetes_version"])
                 for s in data["seen"])
    return Record(position=int(data["position"]), phase=Outcome(**data["phase"]), semantic=semantic,
                  seen=seen)


def semantic_from_wire(data: dict[str, Any]) -> Semantic:
    """The :class:`~conformance.report.Semantic` ``asdict`` wrote."""
    return Semantic(**{**data, "requires": tuple(data["requires"]), "excludes": tuple(data["excludes"])})


def merge(before: Result | None, sem: Semantic, phase: Outcome) -> Result:
    """A check's result after one more phase: the first phase that did not pass decides (a pass says
    nothing more); the durations add up."""
    duration = (before.outcome.duration if before else 0.0) + phase.duration
    if before is not None and before.outcome.status != "passed":
        return replace(before, outcome=replace(before.outcome, duration=duration))
    decided = phase if phase.status != "passed" else Outcome("passed")
    return Result(sem, replace(decided, duration=duration))


class Aggregate:
    """The records of one run, folded: each check's result and every target seen, by position."""

    def __init__(self) -> None:
        self._results: dict[str, tuple[int, Result]] = {}  # by nodeid
        self._seen: list[tuple[int, Seen]] = []

    def fold(self, record: Record) -> None:
        self._seen += [(record.position, s) for s in record.seen]
        if record.semantic is not None:
            nodeid = record.semantic.nodeid
            before = self._results.get(nodeid)
            self._results[nodeid] = (record.position, merge(before[1] if before else None, record.semantic,
                                                            record.phase))

    def fold_more(self, nodeid: str, phase: Outcome) -> None:
        """One more phase of a check already folded, from a report that carries no record (xdist's
        report of a worker that crashed while running it); unknown checks are left out."""
        known = self._results.get(nodeid)
        if known is not None:
            self.fold(Record(known[0], phase, known[1].semantic))

    def results(self) -> list[Result]:
        return [r for _, r in sorted(self._results.values(), key=lambda pr: pr[0])]

    def _targets(self) -> list[Seen]:
        return [s for _, s in sorted(self._seen, key=lambda ps: ps[0])]  # stable: a check's own order

    def descriptions(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s.description for s in self._targets()))

    def capabilities(self) -> tuple[str, ...]:
        return tuple(sorted({c for s in self._seen for c in s[1].capabilities}))

    def kubernetes_version(self) -> str | None:
        return next((s.kubernetes_version for s in self._targets() if s.kubernetes_version), None)
