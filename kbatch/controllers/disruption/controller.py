"""The ``disruption`` controller: keeps each PodDisruptionBudget's status current, and resets stale
``DisruptionTarget`` pod conditions (upstream ``pkg/controller/disruption/disruption.go``).

One PDB sync (``trySync``): list the namespace's pods its selector picks; compute expected and desired
counts (:func:`.decisions.expected_pod_count`), the disruptedPods bookkeeping and the healthy count;
write the status (``updatePdbStatus``: skipped when nothing changed, including the DisruptionAllowed
condition) and come back at the earliest disruptedPods deadline. Events, as upstream: ``NoPods``
(Normal, "No matching pods found"), ``UnmanagedPods`` (Warning), ``NotDeleted`` on the pod
(Warning; upstream prints the PDB's namespace twice, so does kbatch) and
``CalculateExpectedPodCountFailed`` (Warning). A failed sync other than a Conflict runs ``failSafe``:
``disruptionsAllowed: 0`` and ``DisruptionAllowed=False`` reason ``SyncFailed`` with the error as
message (the rest of the status as it was), and is not retried until the PDB or a pod changes.

Pod events enqueue the *first* matching PDB (by name; upstream's lister order is arbitrary) and, when
several match, record ``MultiplePodDisruptionBudgets`` on the pod. Event source ``controllermanager``.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.errors import Conflict, NotFound
from kbatch.api.frozen import edit
from kbatch.api.meta import Condition
from kbatch.api.policy_helpers import (
    conditions_up_to_date,
    matching_pdbs,
    pdb_matches,
    pod_is_ready,
    set_status_condition,
    update_disruption_allowed_condition,
)
from kbatch.api.policy_v1 import (
    DISRUPTION_ALLOWED,
    SYNC_FAILED,
    PodDisruptionBudget,
    PodDisruptionBudgetStatus,
)
from kbatch.api.registry import Registry
from kbatch.controllers.disruption.decisions import (
    SyncError,
    build_disrupted_pod_map,
    count_healthy,
    disruptions_allowed,
    expected_pod_count,
    stale_disruption_wait,
)
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.reconcile import Request

__all__ = ["DisruptionController", "StalePodDisruption", "render_selector"]


def render_selector(sel: Any) -> str:
    """Go's ``%v`` of a ``*metav1.LabelSelector`` (its generated ``String()``), for event messages."""
    if sel is None:
        return "nil"
    labels = "".join(f"{k}: {v}," for k, v in sorted((sel.match_labels or {}).items()))
    exprs = "".join(f"LabelSelectorRequirement{{Key:{e.key},Operator:{e.operator},"
                    f"Values:[{' '.join(e.values or ())}],}}," for e in sel.match_expressions or ())
    return (f"&LabelSelector{{MatchLabels:map[string]string{{{labels}}},"
            f"MatchExpressions:[]LabelSelectorRequirement{{{exprs}}},}}")


class DisruptionController:
    def __init__(self, ctx: ControllerContext, registry: Registry) -> None:
        from kbatch.api.core_v1 import Pod

        self.ctx, self.Pod, self.registry = ctx, Pod, registry

    # -- mapping pods to PDBs (getPdbForPod) -------------------------------------------------------
    def pdbs_for_pod(self, pod: Any) -> list[Any]:
        namespace = pod.metadata.namespace or ""
        in_namespace = self.ctx.cache.list(PodDisruptionBudget, namespace)
        if not in_namespace:  # most pods' namespaces hold no PDB: nothing to match them against
            return []
        pdbs = matching_pdbs(in_namespace, namespace, pod.metadata.labels)
        if not pdbs:
            return []
        if len(pdbs) > 1:
            self.ctx.recorder.event(pod, "Warning", "MultiplePodDisruptionBudgets",
                                    f'Pod "{namespace}"/"{pod.metadata.name}" matches multiple '
                                    f'PodDisruptionBudgets.  Chose "{pdbs[0].metadata.name}" arbitrarily.')
        return [Request(namespace, pdbs[0].metadata.name or "")]

    # -- scale of a pod's controller (finders + getScaleController) ---------------------------------
    def find_scale(self, ref: Any, namespace: str) -> tuple[str, int] | None:
        specs = [s for s in self.registry if s.info.group == ref.group and s.info.kind == ref.kind]
        if not specs:
            raise SyncError(f'no matches for kind "{ref.kind}" in version "{ref.api_version}"')
        info = specs[0].info
        # No kbatch kind serves a ``scale`` subresource, so upstream's discovery check fails for each.
        raise SyncError(f"{info.group_resource} does not implement the scale subresource")

    # -- the sync ----------------------------------------------------------------------------------
    def reconcile(self, request: Any) -> Any:
        from kbatch.runtime.reconcile import Result

        try:
            pdb = self.ctx.cache.get(PodDisruptionBudget, request.name, request.namespace)
        except NotFound:
            return None
        try:
            recheck = self._try_sync(pdb)
        except Conflict:
            raise  # requeued with back-off, without failSafe
        except SyncError as err:
            self._fail_safe(pdb, str(err))
            return None
        return Result(requeue_after=recheck) if recheck else None

    def _pods(self, pdb: Any) -> list[Any]:
        namespace = pdb.metadata.namespace or ""
        return [p for p in self.ctx.cache.list(self.Pod, namespace)
                if pdb_matches(pdb, p.metadata.labels)]

    def _try_sync(self, pdb: Any) -> float | None:
        recorder = self.ctx.recorder
        pods = self._pods(pdb)
        if not pods:
            recorder.event(pdb, "Normal", "NoPods", "No matching pods found")
        try:
            expected, desired, unmanaged = expected_pod_count(pdb.spec, pods, self.find_scale)
        except SyncError as err:
            recorder.event(pdb, "Warning", "CalculateExpectedPodCountFailed",
                           f"Failed to calculate the number of expected pods: {err}")
            raise
        if unmanaged:
            recorder.event(pdb, "Warning", "UnmanagedPods", (
                f"Pods selected by this PodDisruptionBudget (selector: {render_selector(pdb.spec.selector)}) "
                "were found to be unmanaged. As a result, the status of the PDB cannot be calculated "
                "correctly, which may result in undefined behavior. To account for these pods please set "
                "\".spec.minAvailable\" field of the PDB to an integer value."))
        now = self.ctx.clock.now_datetime()
        status = pdb.status or PodDisruptionBudgetStatus()
        disrupted = build_disrupted_pod_map(pods, status.disrupted_pods, now)
        namespace = pdb.metadata.namespace or ""
        by_name = {p.metadata.name: p for p in pods}
        for name in disrupted.expired:
            recorder.event(by_name[name], "Warning", "NotDeleted",
                           f"Pod was expected by PDB {namespace}/{namespace} to be deleted but it wasn't")
        healthy = count_healthy(pods, disrupted.kept, now, pod_is_ready)
        self._update_status(pdb, healthy, desired, expected, disrupted.kept)
        if disrupted.recheck is None:
            return None
        return (disrupted.recheck - now).total_seconds()

    def _update_status(self, pdb: Any, healthy: int, desired: int, expected: int,
                       disrupted: dict[str, Any]) -> None:
        allowed = disruptions_allowed(healthy, desired, expected)
        old = pdb.status or PodDisruptionBudgetStatus()
        if ((old.current_healthy, old.desired_healthy, old.expected_pods, old.disruptions_allowed)
                == (healthy, desired, expected, allowed) and (old.disrupted_pods or {}) == disrupted
                and old.observed_generation == pdb.metadata.generation and conditions_up_to_date(pdb)):
            return
        status = PodDisruptionBudgetStatus(
            current_healthy=healthy, desired_healthy=desired, expected_pods=expected,
            disruptions_allowed=allowed, disrupted_pods=disrupted or None,
            observed_generation=pdb.metadata.generation, conditions=old.conditions)
        status = edit(status)  # its conditions are the cached object's: the condition update copies
        update_disruption_allowed_condition(status, self.ctx.clock.now_datetime().replace(microsecond=0))
        pdb = edit(pdb)
        pdb.status = status
        self.ctx.client.update_status(pdb)

    def _fail_safe(self, pdb: Any, message: str) -> None:
        status = (pdb.status or PodDisruptionBudgetStatus()).model_copy(deep=True)
        status.disruptions_allowed = 0
        cond = Condition(type=DISRUPTION_ALLOWED, status="False", reason=SYNC_FAILED, message=message,
                         observed_generation=status.observed_generation)
        now = self.ctx.clock.now_datetime().replace(microsecond=0)
        status.conditions = set_status_condition(list(status.conditions or ()), cond, now)
        pdb = edit(pdb)
        pdb.status = status
        self.ctx.client.update_status(pdb)


class StalePodDisruption:
    """``syncStalePodDisruption``: reset a stale ``DisruptionTarget=True`` to False (reason and message
    cleared, ``lastTransitionTime`` now, as ``UpdatePodCondition`` replaces the condition)."""

    def __init__(self, ctx: ControllerContext) -> None:
        from kbatch.api.core_v1 import Pod

        self.ctx, self.Pod = ctx, Pod

    def reconcile(self, request: Any) -> Any:
        from kbatch.api.core_v1 import PodCondition
        from kbatch.runtime.reconcile import Result

        try:
            pod = self.ctx.cache.get(self.Pod, request.name, request.namespace)
        except NotFound:
            return None
        now = self.ctx.clock.now_datetime().replace(microsecond=0)
        wait = stale_disruption_wait(pod, now)
        if wait is None:
            return None
        if wait > 0:
            return Result(requeue_after=wait)
        pod = edit(pod)
        status = pod.status
        assert status is not None  # stale_disruption_wait found a DisruptionTarget condition in it
        conditions = list(status.conditions or ())
        for i, cond in enumerate(conditions):
            if cond.type == "DisruptionTarget":
                conditions[i] = PodCondition(type="DisruptionTarget", status="False",
                                             last_transition_time=now,
                                             observed_generation=pod.metadata.generation)
        status.conditions = conditions
        self.ctx.client.update_status(pod)
        return None
