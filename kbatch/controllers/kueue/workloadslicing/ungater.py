"""The ElasticJobUngater: lets an elastic job's gated pods run, as many as its active slice admits.

Upstream: kubernetes-sigs/kueue ``pkg/controller/elasticjobs/elastic_job_ungater.go`` (v0.19.2). An
elastic Job's template carries the ``kueue.x-k8s.io/elastic-job`` scheduling gate (the job webhook
adds it), so every pod it creates waits. The reconciler works on the job's *active slice*
(:func:`~.slices.find_latest_active`: the newest live slice holding a reservation and not being
evicted, and only once it is ``Admitted``): per pod set, the room is the slice's count less the pods
of the chain (same ``kueue.x-k8s.io/workload-slice-name`` annotation) already ungated and not
terminated; that many gated pods, lowest names first, lose the gate. A scale-up's extra pods thus
wait until the new slice is admitted; a scale-down needs nothing (the Job controller deletes pods).

Workload events (an elastic, admitted, unfinished slice) and pod events (a pod naming a slice chain)
enqueue the owner's active slice. A pod is ungated with the active slice's admission check updates
(:mod:`.admission_refresh`: ProvisioningRequest annotations, node selectors); a gated pod whose
values for them differ stays gated. Not modelled: the expectations store (the loop is
single-threaded; a stale read conflicts and is retried by the pod's next event).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from functools import partial
from typing import Any

from kbatch.api import edit
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Conflict, NotFound
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.kueue_v1beta2.constants import (
    ELASTIC_JOB_SCHEDULING_GATE,
    POD_SET_LABEL,
    WORKLOAD_SLICE_NAME_ANNOTATION,
    Cond,
)
from kbatch.api.meta import OwnerReference
from kbatch.controllers.kueue.manager import BY_OWNER, owner_key
from kbatch.controllers.kueue.metrics import record_gate_removal
from kbatch.controllers.kueue.workloadslicing.admission_refresh import (
    AdmissionUpdate,
    compatible,
    refresh,
    update_for_pod_set,
)
from kbatch.controllers.kueue.workloadslicing.slices import (
    _true,
    enabled,
    evicted,
    find_latest_active,
    pod_set_counts,
    slice_name,
)
from kbatch.runtime.reconcile import Request, Result

__all__ = ["ActiveSlice", "ElasticJobUngater", "pods_to_ungate"]


def _gated(pod: Pod) -> bool:
    return any(g.name == ELASTIC_JOB_SCHEDULING_GATE for g in pod.spec.scheduling_gates or ())


def _terminated(pod: Pod) -> bool:
    return pod.status is not None and pod.status.phase in ("Succeeded", "Failed")


def _admitted(wl: Workload) -> bool:
    return _true(wl.status, Cond.ADMITTED)


def pods_to_ungate(granted: dict[str, int], pods: list[Pod],
                   updates: Callable[[str], AdmissionUpdate] | None = None) -> list[Pod]:
    """``podsToUngate``: per pod set, the gated pods that fit in the room the granted count leaves
    beside the ungated live ones, lowest names first (pod sets in name order). With ``updates`` (the
    checks' updates of a pod set), a gated pod they are not :func:`compatible` with is left out."""
    gated: dict[str, list[Pod]] = {}
    running: dict[str, int] = {}
    for pod in pods:
        if _terminated(pod):
            continue
        ps = (pod.metadata.labels or {}).get(POD_SET_LABEL, "")
        if _gated(pod):
            if updates is None or compatible(pod, updates(ps)):
                gated.setdefault(ps, []).append(pod)
        else:
            running[ps] = running.get(ps, 0) + 1
    out: list[Pod] = []
    for ps in sorted(gated):
        room = granted.get(ps, 0) - running.get(ps, 0)
        if room > 0:
            out += sorted(gated[ps], key=lambda p: p.metadata.name or "")[:room]
    return out


class ActiveSlice:
    """Workload or pod events → the owner's active, admitted slice (``latestActiveSliceForOwner``)."""

    __slots__ = ("cache", "gate_on")
    maps_old_on_update = False

    def __init__(self, cache: Any, gate_on: bool) -> None:
        self.cache, self.gate_on = cache, gate_on

    def __call__(self, obj: Any) -> list[Request]:
        if isinstance(obj, Workload):
            if not self.gate_on or not enabled(obj, True):
                return []
            owner = obj.metadata.controller_ref()
        elif WORKLOAD_SLICE_NAME_ANNOTATION in (obj.metadata.annotations or {}):
            owner = obj.metadata.controller_ref()
        else:
            return []
        if owner is None:
            return []
        active = self.active(obj.metadata.namespace or "", owner)
        if active is None:
            return []
        return [Request(active.metadata.namespace or "", active.metadata.name or "")]

    def active(self, namespace: str, owner: OwnerReference) -> Workload | None:
        """``latestActiveSliceForOwner``: the owner's Workloads by its apiVersion and kind."""
        wls = self.cache.list(Workload, index=(BY_OWNER, owner_key(owner.api_version, owner.kind,
                                                                   namespace, owner.name)))
        found = find_latest_active(wls)
        return found if found is not None and _admitted(found) else None

    def __getstate__(self) -> Any:
        return self.cache, self.gate_on

    def __setstate__(self, state: Any) -> None:
        self.cache, self.gate_on = state


class ElasticJobUngater:
    """The ``kueue-elastic-job-ungater`` reconciler."""

    def __init__(self, ctx: Any, slices: ActiveSlice) -> None:
        self.ctx, self.slices = ctx, slices

    def reconcile(self, request: Request) -> Result | None:
        cache = self.ctx.cache
        try:
            wl = cache.get(Workload, request.name, request.namespace)
        except NotFound:
            return None
        if _true(wl.status, Cond.FINISHED) or not _admitted(wl) or evicted(wl):
            owner = wl.metadata.controller_ref()  # the request was a snapshot: redirect
            redirected = self.slices.active(request.namespace, owner) if owner else None
            if redirected is None or redirected.metadata.name == wl.metadata.name:
                return None
            wl = redirected
        chain = slice_name(wl)
        pods = [
            p
            for p in cache.list(Pod, request.namespace)
            if (p.metadata.annotations or {}).get(WORKLOAD_SLICE_NAME_ANNOTATION) == chain
        ]
        granted = pod_set_counts(wl.spec.pod_sets if wl.spec else None)
        # each pod set's update computed once; a conflict between checks raises: the reconcile is retried
        updates = functools.cache(partial(update_for_pod_set, wl))
        for pod in pods_to_ungate(granted, pods, updates):
            fresh = edit(pod)
            refresh(fresh, updates((pod.metadata.labels or {}).get(POD_SET_LABEL, "")))
            fresh.spec.scheduling_gates = [
                g for g in fresh.spec.scheduling_gates or () if g.name != ELASTIC_JOB_SCHEDULING_GATE
            ] or None
            try:
                self.ctx.client.update(fresh)
            except (Conflict, NotFound):
                continue  # the pod's next event brings the slice back
            now = self.ctx.clock.now_datetime()  # ``RecordPodSchedulingGateRemovalSeconds``, never a group
            record_gate_removal(self.ctx.metrics, ELASTIC_JOB_SCHEDULING_GATE, wl, False, now)
        return None
