"""The TAS half of the preemptor's fit test: would the preemptor's pod sets find their domains once
the candidates removed so far are gone?

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/preemption/preemption.go`` (``GetTargets``
takes ``assignment.WorkloadsTopologyRequests``; ``workloadFits`` ends with
``FindTopologyAssignmentsForWorkload`` over them; ``Snapshot.RemoveWorkload``/``AddWorkload`` move a
candidate's TAS usage with its quota, ``ClusterQueueSnapshot.RemoveUsage`` → ``updateTASUsage``) and
``pkg/cache/scheduler/tas_flavor_snapshot.go`` (``removeTASUsage``).

The cycle's TAS flavor snapshots (:class:`~.snapshot.TASFlavorSnapshot`) are shared by every head
of the cycle, so a removal here changes them in place and :meth:`TopologyRemoval.restore` puts every
removed usage back before the preemptor returns (integer usage: a removal and its return cancel
exactly). Only the flavors the preemptor's pod sets are searched on are touched: a removal elsewhere
could not change the answer. Their snapshots are built before the first removal, so a snapshot read
later from the admitted workloads never sees a removal it would then get back twice.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from kbatch.controllers.kueue.model.info import WorkloadInfo
from kbatch.controllers.kueue.tas.cluster import workload_tas_usage
from kbatch.controllers.kueue.tas.snapshot import TASFlavorSnapshot

__all__ = ["TopologyRemoval"]

_Usage = list[tuple[TASFlavorSnapshot, list[tuple[tuple[str, ...], int]], Mapping[str, int]]]


class TopologyRemoval:
    """:class:`~kbatch.controllers.kueue.scheduling.preemption.classical.TopologyFit` over the
    flavors ``flavors`` (built snapshots) and the search ``search`` (the preemptor's TAS requests:
    ``True`` when every pod set is placed)."""

    def __init__(
        self, snapshots: Sequence[tuple[str, TASFlavorSnapshot]], search: Callable[[], bool]
    ) -> None:
        self._snapshots = tuple(snapshots)
        self._search = search
        self._removed: dict[str, _Usage] = {}  # workload key -> what was taken off, in order
        self._usage: dict[str, _Usage] = {}  # each candidate's TAS usage, decoded once

    def _usage_of(self, info: WorkloadInfo) -> _Usage:
        got = self._usage.get(info.key)
        if got is None:
            got = [
                (snap, domains, one)
                for flavor, snap in self._snapshots
                for domains, one in workload_tas_usage(info.obj, flavor)
            ]
            self._usage[info.key] = got
        return got

    def remove(self, info: WorkloadInfo) -> None:
        if info.key in self._removed:
            return
        usage = self._usage_of(info)
        for snap, domains, one in usage:
            snap.add_usage(domains, one, -1)
        self._removed[info.key] = usage

    def add(self, info: WorkloadInfo) -> None:
        usage = self._removed.pop(info.key, None)
        for snap, domains, one in usage or ():
            snap.add_usage(domains, one)

    def restore(self) -> None:
        for key in list(self._removed):
            for snap, domains, one in self._removed.pop(key):
                snap.add_usage(domains, one)

    def fits(self) -> bool:
        return self._search()
