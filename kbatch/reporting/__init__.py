"""What happened in a run, as numbers and pictures: ``kbatch report`` and :func:`report`.

The numbers come from object time stamps and conditions only, so a report works on a state
directory, on ``kbatch serve`` and on ``kubectl get -o json`` output of a real cluster. Layers:
:mod:`wire` (reading dicts) → :mod:`pods`, :mod:`kinds` (the workload-kind registry) →
:mod:`workloads` (timelines) → :mod:`series`, :mod:`metrics` → :mod:`report` (:class:`Report`) →
:mod:`records`, :mod:`render`, :mod:`plots`, :mod:`html`. See docs/report.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from kbatch.reporting.kinds import AdmissionSource, KindRegistry, SelfFacts, WorkloadKind, default_kinds
from kbatch.reporting.report import Report, build_report
from kbatch.reporting.workloads import WorkloadRecord

__all__ = [
    "AdmissionSource",
    "KindRegistry",
    "Report",
    "SelfFacts",
    "WorkloadKind",
    "WorkloadRecord",
    "build_report",
    "default_kinds",
    "report",
]


def report(source: Any, *, by: str | None = None, end: datetime | None = None,
           kinds: KindRegistry | None = None, node_group: str | None = None,
           namespace: str | None = None, history: Iterable[Any] | None = None) -> Report:
    """The report of ``source``: a ``ControlPlane``, a backend (``kbatch.server`` ``Backend``), or an
    iterable of object dicts. ``report(cp).to_dict()`` gives plain records; ``by`` groups the
    aggregates (``namespace``, ``queue``, ``kind``, ``label=KEY``); ``end`` closes open intervals
    (default: the control plane's now, or the latest time stamp among the objects); ``node_group`` a
    node label to break utilisation down by; ``namespace`` keeps that namespace's objects (and the
    cluster-scoped ones); ``history``: earlier versions of ResourceClaims, oldest first (default: a
    control plane's trace, :mod:`~kbatch.reporting.claim_history`), for the devices of finished pods
    whose claims were deleted."""
    from kbatch.reporting import sources

    kinds = kinds or default_kinds()
    if hasattr(source, "run_until_idle") and hasattr(source, "clock"):
        objects, now = sources.from_control_plane(source, kinds)
        if history is None:
            history = sources.claim_history_of(source)
    elif hasattr(source, "registry") and hasattr(source, "list"):
        objects, now = sources.from_backend(source, kinds)
    elif isinstance(source, Iterable):
        objects, now = list(source), None
    else:
        raise TypeError(f"cannot report on a {type(source).__name__}: "
                        "give a ControlPlane, a backend or objects")
    objects = sources.in_namespace(objects, namespace)
    return build_report(objects, end=end or now, by=by, kinds=kinds, node_group=node_group,
                        history=sources.in_namespace(list(history or ()), namespace))
