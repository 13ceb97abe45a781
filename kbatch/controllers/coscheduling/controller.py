"""The scheduler-plugins PodGroup controller (``pkg/controllers/podgroup_controller.go``): reads
the group and its pods from the cache, decides with :func:`.sync.next_status`, writes the changed
status fields with a merge patch (what ``client.MergeFrom`` sends), records the ``Timeout`` event.

Triggers as upstream's ``SetupWithManager``: any PodGroup event (its own status writes included),
and any event of a pod carrying the group label (mapped to ``<pod namespace>/<label value>``).

The triggers reach the work queue at the end of the virtual instant, once per group
(:class:`~kbatch.runtime.instant_batch.InstantBatch`): upstream's single-worker queue de-duplicates a
key that is added again before a worker takes it, so the eight pod updates of a gang that end together
are one reconcile and one status patch, not eight (docs/gang.md, "Differences from upstream").
"""

from __future__ import annotations

from typing import Any

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import NotFound
from kbatch.api.scheduling_x_v1alpha1 import POD_GROUP_LABEL, PodGroup
from kbatch.controllers.coscheduling.sync import GroupStatus, PodFacts, next_status
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.instant_batch import InstantBatch
from kbatch.runtime.reconcile import Request

__all__ = ["PodGroupController", "group_request", "pod_to_group", "setup"]

_WIRE = {"phase": "phase", "occupied_by": "occupiedBy", "running": "running", "succeeded": "succeeded",
         "failed": "failed"}


def pod_to_group(pod: Any) -> list[Request]:
    """``podToPodGroup``: a labelled pod's group (same namespace)."""
    name = (pod.metadata.labels or {}).get(POD_GROUP_LABEL)
    return [Request(pod.metadata.namespace or "", name)] if name else []


def _status(pg: PodGroup) -> GroupStatus:
    s = pg.status
    if s is None:
        return GroupStatus()
    return GroupStatus(s.phase or "", s.occupied_by or "", s.running or 0, s.succeeded or 0, s.failed or 0)


def _facts(pod: Pod) -> PodFacts:
    owners = tuple(ref.name for ref in pod.metadata.owner_references or ())
    return PodFacts(pod.metadata.namespace or "", (pod.status.phase if pod.status else None) or "", owners)


def status_patch(before: GroupStatus, after: GroupStatus) -> dict[str, Any]:
    """The JSON merge patch from ``before`` to ``after`` (omitempty fields: empty is ``null``)."""
    patch: dict[str, Any] = {}
    for name, wire in _WIRE.items():
        old, new = getattr(before, name), getattr(after, name)
        if old != new:
            patch[wire] = new if new else None
    return patch


def group_request(pg: Any) -> list[Request]:
    """The PodGroup's own request (``For(&PodGroup{})``)."""
    return [Request(pg.metadata.namespace or "", pg.metadata.name or "")]


class PodGroupController:
    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx

    def reconcile(self, request: Request) -> None:
        try:
            pg = self.ctx.cache.get(PodGroup, request.name, request.namespace)
        except NotFound:
            return
        pods = self.ctx.cache.list(Pod, labels={POD_GROUP_LABEL: pg.metadata.name or ""})
        before = _status(pg)
        outcome = next_status(before, pg.min_member, [_facts(p) for p in pods], self._schedule_wait(pg))
        if outcome.event is not None:
            self.ctx.recorder.event(pg, *outcome.event)
        if outcome.status is None:
            return
        patch = status_patch(before, outcome.status)
        if patch:
            try:
                self.ctx.client.patch_status(PodGroup, request.name, {"status": patch}, request.namespace)
            except NotFound:
                return

    @staticmethod
    def _schedule_wait(pg: PodGroup) -> float | None:
        start = pg.status.schedule_start_time if pg.status is not None else None
        created = pg.metadata.creation_timestamp
        if start is None or created is None:
            return None
        return (start - created).total_seconds()


def setup(ctx: ControllerContext) -> PodGroupController:
    controller = PodGroupController(ctx)
    batch = InstantBatch(ctx.clock, ctx.timers)
    what = "keeps scheduler-plugins PodGroups' phase and counts (scheduling.x-k8s.io)"
    queued = (ctx.build().describe(what).watches(PodGroup, batch.mapped(group_request))
              .watches(Pod, batch.mapped(pod_to_group)).complete(controller))
    batch.add = queued.queue.add
    return controller
