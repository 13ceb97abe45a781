"""A shared claim's devices per instant: at each moment, ``1/k`` to each of the ``k`` pods using it then.

One ResourceClaim may be reserved for up to 256 consumers at once (k8s.io/api ``resource/v1/types.go``
``ResourceClaimReservedForMaxSize``), and pods come and go while it stays allocated. A pod is in the
claim's ``status.reservedFor`` from before it starts (the scheduler's ``dynamicresources`` plugin
reserves in ``PreBind``) until it is done (the resourceclaim controller then removes it, kubernetes
``pkg/controller/resourceclaim/controller.go``; a pod the claim is not reserved for is not started,
``ResourceClaimStatus.ReservedFor`` in ``resource/v1/types.go``), so among the pods known to have
reserved an allocation, those *reserving and using* it at an instant are those running then. The
devices are held while at least one of them runs (the device's busy time) and, over that time, the
shares of the pods running add up to one: summed over pods, the attribution is the busy time,
counted once (a hypothesis property in ``tests/reporting/test_sharing.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise

from kbatch.reporting.devices import SharedUse
from kbatch.reporting.pods import PodFacts
from kbatch.reporting.series import Interval

__all__ = ["Run", "Share", "attribute", "pod_run", "shared_intervals"]


@dataclass(frozen=True, slots=True)
class Run:
    """A pod's run: it holds its share from ``start`` to ``end`` (``end > start``; the caller closes an
    open run at the report's end)."""

    pod: str
    start: datetime
    end: datetime


@dataclass(frozen=True, slots=True)
class Share:
    """The pod holds ``fraction`` of the allocation from ``start`` to ``end``."""

    pod: str
    start: datetime
    end: datetime
    fraction: float


def _segments(runs: Sequence[Run]) -> list[tuple[datetime, datetime, tuple[str, ...]]]:
    """The instants where the set of running pods changes, as (from, to, pods running) segments."""
    cuts = sorted({t for r in runs for t in (r.start, r.end)})
    out = []
    for a, b in pairwise(cuts):
        running = tuple(sorted({r.pod for r in runs if r.start <= a and r.end >= b}))
        if running:
            out.append((a, b, running))
    return out


def attribute(runs: Sequence[Run]) -> list[Share]:
    """Each pod's share of one allocation over time, consecutive equal shares merged; ordered by pod,
    then time. A pod with several runs (it is listed once per run) is one consumer while they overlap."""
    open_shares: dict[str, Share] = {}
    out: list[Share] = []
    for a, b, running in _segments([r for r in runs if r.end > r.start]):
        fraction = 1.0 / len(running)
        for pod in running:
            last = open_shares.get(pod)
            if last is not None and last.end == a and last.fraction == fraction:
                open_shares[pod] = Share(pod, last.start, b, fraction)
                continue
            if last is not None:
                out.append(last)
            open_shares[pod] = Share(pod, a, b, fraction)
    out += open_shares.values()
    return sorted(out, key=lambda s: (s.pod, s.start))


def pod_run(pod: PodFacts, end: datetime) -> Run | None:
    """The pod's run on its node, closed at ``end`` (the report's); ``None`` if it never ran by then."""
    if not pod.node or pod.started is None or pod.started >= end:
        return None
    stop = pod.finished if pod.finished is not None and pod.finished < end else end
    return Run(pod.uid or f"{pod.namespace}/{pod.name}", pod.started, stop) if stop > pod.started else None


def shared_intervals(shared: Sequence[SharedUse], pods: Mapping[str, PodFacts],
                     end: datetime) -> list[tuple[str, str, Interval]]:
    """(node, pod uid, interval holding its share of the devices) for every shared allocation."""
    out = []
    for use in shared:
        runs = [r for r in (pod_run(pods[p], end) for p in use.pods if p in pods) if r is not None]
        for share in attribute(runs):
            node = pods[share.pod].node
            assert node is not None  # pod_run: only pods on a node
            amounts = {r: n * share.fraction for r, n in use.held.items()}
            out.append((node, share.pod, Interval(share.start, share.end, amounts)))
    return out
