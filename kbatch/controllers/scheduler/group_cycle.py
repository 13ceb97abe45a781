"""The workload scheduling cycle: a scheduling.k8s.io PodGroup's queued pods placed together (KEP-4671,
Kubernetes 1.37 beta; upstream ``pkg/scheduler/schedule_one_podgroup.go``). Active while the
``GenericWorkload`` gate is on; pods naming no PodGroup never come here.

When one pod of a group is popped, the cycle, in numbered steps:

1. takes the group's other queued pods out of the queue too (they form one queued entity, upstream's
   ``QueuedPodGroupInfo``: those taken out of back-off have left it early at this instant, so the
   group is popped early at most once per instant, as a single pod is; :mod:`.queue`);
2. validates the group: every pod (those already scheduled too) names the same ``schedulerName``,
   has the PodGroup's priority (``spec.priority``, 0 when unset) and the same preemption policy;
   otherwise every pod fails with that error (``PodScheduled=False``/``SchedulerError``, back-off)
   and the PodGroup gets ``PodGroupInitiallyScheduled=False``/``SchedulerError``;
3. orders the pods by priority, then by when the scheduler first saw them; a group with a topology
   constraint (gate ``TopologyAwareWorkloadScheduling``) runs steps 4-6 once per candidate domain
   and keeps the best (:mod:`.group_placements`);
4. asks the ``PlacementFeasible`` plugins (:mod:`.placement`) with the members already scheduled
   and the pods to try; ``Unschedulable`` ends the cycle before any pod is tried;
5. places each pod on the one snapshot (filter, score, assume, Reserve; no per-pod preemption) and
   asks the plugins again after each: ``Unschedulable`` stops early, ``Wait`` goes on;
6. a final ``Wait``, or success with no pod placed, is ``Unschedulable`` ("pod group is
   unschedulable, ..."). On success the placed pods go on to Permit and binding (the others fail
   with their own reasons and return to the queue: they may join later); otherwise every placed pod
   is reverted, and each pod returns to the queue, unschedulable, with the group's message (or its
   own reasons when it fit nowhere) — the same back-off for the whole group;
7. on ``Unschedulable``, the ``PodGroupPostFilterPlugin`` plugins free what the group holds (KEP-5729:
   DynamicResources deallocates the group's claims), then workload-aware preemption may nominate
   the pods and evict victims (:mod:`.group_preemption`);
8. writes ``PodGroupInitiallyScheduled`` (True/``Scheduled``, or False/``Unschedulable`` with the
   group's message) unless that would revert a True: once scheduled, a group stays so.

With the ``CompositePodGroup`` gate, a group that names a parent composite is scheduled with its whole
tree instead (:mod:`.composite_cycle`).

Messages are upstream's, including the framework's ``Status`` composition (a status with the
``pod group is unschedulable`` error lists it before its reasons).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kbatch.api.errors import NotFound
from kbatch.api.gates import gate_on
from kbatch.api.scheduling_v1alpha3 import CompositePodGroup
from kbatch.api.scheduling_v1beta1 import (
    COMPOSITE_POD_GROUP,
    PODGROUP_INITIALLY_SCHEDULED,
    PODGROUP_PREEMPTION_POLICY,
    TOPOLOGY_AWARE_WORKLOAD_SCHEDULING,
    PodGroup,
)
from kbatch.controllers.scheduler.framework import Code, CycleState, PodGroupPostFilterPlugin, Status
from kbatch.controllers.scheduler.placement import (
    GroupInfo,
    PlacementFeasiblePlugin,
    PlacementProgress,
    run_placement_feasible,
)
from kbatch.controllers.scheduler.podgroups import PodGroupIndex
from kbatch.controllers.scheduler.types import PodInfo

if TYPE_CHECKING:
    from kbatch.controllers.scheduler.controller import Scheduler

__all__ = ["POD_GROUP_UNSCHEDULABLE", "GroupCycle", "GroupResult", "group_message", "outcome_condition",
           "set_condition", "write_scheduled_condition"]

POD_GROUP_UNSCHEDULABLE = "pod group is unschedulable"  # upstream errPodGroupUnschedulable


@dataclass(slots=True)
class _Placed:
    pod: PodInfo
    node: str
    state: CycleState


@dataclass(slots=True)
class GroupResult:
    """The outcome of steps 4-6: ``code`` SUCCESS, UNSCHEDULABLE or ERROR, the group's message (and
    the reasons it lists), the placed pods (``reverted`` once taken off the snapshot) and, per pod
    that fit nowhere, its decision."""

    code: Code = Code.UNSCHEDULABLE
    message: str = POD_GROUP_UNSCHEDULABLE
    placed: list[_Placed] = field(default_factory=list)
    failed: dict[str, Any] = field(default_factory=dict)
    reasons: tuple[str, ...] = ()
    reverted: bool = False


def group_message(reasons: tuple[str, ...]) -> str:
    """``Status.Message()`` of a status carrying ``errPodGroupUnschedulable``: the error, then the reasons.

    A placed pod of a rejected group gets this around the group's own message, so it reads "pod group
    is unschedulable, pod group is unschedulable, …": 1.37's ``submitPodGroupAlgorithmResult``
    (``pkg/scheduler/schedule_one_podgroup.go``) builds ``NewStatus(Unschedulable,
    podGroupResult.status.Message()).WithError(errPodGroupUnschedulable)``. The single wrap
    (``podGroupResult.status.Clone()``) came with kubernetes/kubernetes#141253, reviewed after 1.37's
    code freeze (August 2026), so it is 1.38's; checked in session 43, kept."""
    return ", ".join((POD_GROUP_UNSCHEDULABLE, *reasons))


class GroupCycle:
    def __init__(self, scheduler: Scheduler) -> None:
        self.scheduler = scheduler
        self.index = PodGroupIndex()
        self.preempting: dict[str, set[str]] = {}  # group -> the victims it waits for (pod keys)
        self.topology = gate_on(scheduler.ctx.features, TOPOLOGY_AWARE_WORKLOAD_SCHEDULING)
        self.policy_gate = gate_on(scheduler.ctx.features, PODGROUP_PREEMPTION_POLICY)
        self.composite = gate_on(scheduler.ctx.features, COMPOSITE_POD_GROUP)  # trees: composite_cycle

    def claims(self, pod: PodInfo) -> bool:
        return bool(self.index) and bool(self.index.group_of(pod.key))

    def pod_group(self, key: str) -> PodGroup | None:
        namespace, _, name = key.partition("/")
        try:
            return self.scheduler.ctx.cache.get(PodGroup, name, namespace)
        except NotFound:
            return None

    def scheduled_members(self, key: str) -> list[PodInfo]:
        """The group's pods the snapshot holds (bound or assumed), in key order."""
        snapshot, out = self.scheduler.snapshot, []
        for member in self.index.members(key):
            node = snapshot.node_of(member)
            held = snapshot.get(node) if node is not None else None
            info = held.pods.get(member) if held is not None else None
            if info is not None:
                out.append(info)
        return out

    # -- the cycle ---------------------------------------------------------------------------------
    def run(self, first: PodInfo, now: float) -> None:
        s, key = self.scheduler, self.index.group_of(first.key)
        parent = self.parent_of(key)
        if parent:
            from kbatch.controllers.scheduler.composite_cycle import CompositeCycle

            CompositeCycle(self, first, parent, now).run()  # the whole tree under its root composite
            return
        pods = [first]
        for member in self.index.members(key):  # step 1
            if member != first.key and (info := s.queue.pop_specific(member, now)) is not None:
                pods.append(info)
        pg = self.pod_group(key)
        name = key.partition("/")[2]
        error = (f'podgroups.scheduling.k8s.io "{name}" not found' if pg is None
                 else validate_group(pods, self.scheduled_members(key), pg, self.policy_gate))  # step 2
        if error:
            for pod in pods:
                s.error_pod(pod, error, now)
            if pg is not None:
                self.write_condition(pg, "False", "SchedulerError", error)
            return
        assert pg is not None
        pods.sort(key=lambda p: (-p.priority, p.seq))  # step 3
        result = self.place(GroupInfo(key, pg), pods)  # steps 4-6
        if result.code != Code.SUCCESS:
            self.revert(result)
        if result.code == Code.UNSCHEDULABLE:
            self._post_filter(key, pg, pods, result)
        if result.code == Code.UNSCHEDULABLE and self._preempt(GroupInfo(key, pg), pods, result, now):
            return  # step 7: the pods wait for their victims to go
        self.submit(pg, pods, result, now)

    def parent_of(self, key: str) -> str:
        """The group's parent composite ("" without one, or while the CompositePodGroup gate is off)."""
        if not self.composite:
            return ""
        pg = self.pod_group(key)
        return (pg.spec.parent_composite_pod_group_name or "") if pg is not None else ""

    def topology_key(self, pg: PodGroup) -> str:
        """The node label the group must stay within ("" without a constraint or with the gate off)."""
        return pg.topology_key() if self.topology else ""

    def place(self, group: GroupInfo, pods: list[PodInfo]) -> GroupResult:
        """Steps 4-6, within one domain of the group's topology constraint if it has one."""
        key = self.topology_key(group.pod_group)
        if key:
            from kbatch.controllers.scheduler.group_placements import place_in_domains

            return place_in_domains(self, group, pods, key)
        return self.place_default(group, pods)

    def place_default(self, group: GroupInfo, pods: list[PodInfo], scheduler_name: str = "") -> GroupResult:
        """Steps 4-6 over the snapshot; the placed pods stay assumed (the caller binds or reverts).
        ``scheduler_name`` names the profile when ``pods`` is empty (a composite's leaf whose
        members are all scheduled: it succeeds when they meet its ``minCount``)."""
        s = self.scheduler
        profile_name = scheduler_name or pods[0].scheduler_name
        profile = s.profiles[profile_name]
        plugins = [p for p in profile.plugins.values() if isinstance(p, PlacementFeasiblePlugin)]
        progress = PlacementProgress(len(self.scheduled_members(group.key)), len(pods))
        result = GroupResult()
        status = run_placement_feasible(plugins, group, progress)
        if status is not None and status.code == Code.UNSCHEDULABLE:
            result.message, result.reasons = group_message(status.reasons), status.reasons
            return result
        algorithm, any_scheduled = s.algorithms[profile_name], False
        for pod in pods:
            placed = self._place_one(algorithm, pod, result)
            if placed is None:
                return result  # an error: the group fails with it
            progress = PlacementProgress(progress.scheduled + placed, progress.remaining - 1)
            status = run_placement_feasible(plugins, group, progress)
            if status is not None and status.code == Code.UNSCHEDULABLE:
                result.message, result.reasons = group_message(status.reasons), status.reasons
                return result
            any_scheduled = any_scheduled or bool(placed)
        if status is not None and status.code == Code.WAIT:
            result.message, result.reasons = group_message(status.reasons), status.reasons
        elif any_scheduled or (not pods and scheduler_name):
            result.code, result.message = Code.SUCCESS, ""
        return result

    def _place_one(self, algorithm: Any, pod: PodInfo, result: GroupResult) -> int | None:
        """1 when ``pod`` was placed (assumed, reserved), 0 when it fit nowhere, None on an error."""
        decision = algorithm.schedule(pod, post_filter=False)
        if decision.error:
            result.code = Code.ERROR
            result.message = f"failed to schedule other pod from a pod group: {decision.error}"
            result.failed[pod.key] = decision
            return None
        if decision.node is None:
            result.failed[pod.key] = decision
            return 0
        status = self.scheduler.assume_and_reserve(pod, decision.node, decision.state)
        if status is not None:
            self.scheduler.revert(pod, decision.node, decision.state)
            result.failed[pod.key] = status
            return 0
        result.placed.append(_Placed(pod, decision.node, decision.state))
        return 1

    def revert(self, result: GroupResult) -> None:
        """Take the result's placed pods off the snapshot (once)."""
        if result.reverted:
            return
        result.reverted = True
        for placed in reversed(result.placed):
            self.scheduler.revert(placed.pod, placed.node, placed.state)

    def reassume(self, result: GroupResult) -> GroupResult:
        """Assume and reserve a reverted result's pods again where it placed them (the snapshot is
        as it was when they were placed there). Should Reserve now reject one, the group fails with
        that plugin's message, nothing held."""
        for i, placed in enumerate(result.placed):
            status = self.scheduler.assume_and_reserve(placed.pod, placed.node, placed.state)
            if status is not None:
                self.scheduler.revert(placed.pod, placed.node, placed.state)
                for earlier in reversed(result.placed[:i]):
                    self.scheduler.revert(earlier.pod, earlier.node, earlier.state)
                result.code, result.reasons = Code.UNSCHEDULABLE, (status.message,)
                result.message = group_message(result.reasons)
                return result
        result.reverted = False
        return result

    def _post_filter(self, key: str, pg: PodGroup, pods: list[PodInfo], result: GroupResult) -> None:
        """The PodGroup cycle's PostFilter (KEP-5729 "Deallocate"): plugins free what the failed
        group holds, before workload-aware preemption (DynamicResources precedes it, as per pod);
        their reasons join the group's message, as the pod-level PostFilter's do."""
        for plugin in self.scheduler.profiles[pods[0].scheduler_name].plugins.values():
            if isinstance(plugin, PodGroupPostFilterPlugin):
                status = plugin.post_filter_pod_group(key, pg)
                if status is not None and status.reasons:
                    result.reasons = (*result.reasons, *status.reasons)
                    result.message = group_message(result.reasons)

    def _preempt(self, group: GroupInfo, pods: list[PodInfo], result: GroupResult, now: float) -> bool:
        from kbatch.controllers.scheduler.group_preemption import preempt_for_group

        return preempt_for_group(self, group, pods, result, now)

    # -- step 6/8: effects ---------------------------------------------------------------------------
    def submit(self, pg: PodGroup, pods: list[PodInfo], result: GroupResult, now: float) -> None:
        s = self.scheduler
        placed = {p.pod.key: p for p in result.placed}
        for pod in pods:
            failure = result.failed.get(pod.key)
            if result.code == Code.ERROR:
                s.error_pod(pod, result.message, now)
            elif pod.key in placed and result.code == Code.SUCCESS:
                entry = placed[pod.key]
                s.permit_and_bind(pod, entry.node, entry.state, now)
            elif pod.key in placed:  # a placed pod of a rejected group: the group's status
                s.reject_pod(pod, group_message((result.message,)), now)
            elif isinstance(failure, Status):  # Reserve rejected it
                s.reject_pod(pod, failure.message, now, (failure.plugin,) if failure.plugin else ())
            elif failure is not None:
                s.fail(pod, failure, now)
            else:  # never tried: the cycle stopped before it
                s.reject_pod(pod, result.message, now)
        if result.code == Code.SUCCESS:
            self.preempting.pop(f"{pg.metadata.namespace}/{pg.metadata.name}", None)
        self.write_condition(pg, *outcome_condition(result.code, result.message))

    def write_condition(self, pg: PodGroup, status: str, reason: str, message: str) -> None:
        """``updatePodGroupCondition``: never revert a True ``PodGroupInitiallyScheduled``; no write
        when nothing changes (``SetStatusCondition``)."""
        name, namespace = pg.metadata.name or "", pg.metadata.namespace or ""
        write_scheduled_condition(self.scheduler, PodGroup, PODGROUP_INITIALLY_SCHEDULED, name, namespace,
                                  (status, reason, message))


def outcome_condition(code: Code, message: str) -> tuple[str, str, str]:
    """(status, reason, message) of the InitiallyScheduled condition for a group's outcome."""
    if code == Code.SUCCESS:
        return "True", "Scheduled", ""
    return "False", "Unschedulable" if code == Code.UNSCHEDULABLE else "SchedulerError", message


def write_scheduled_condition(s: Scheduler, kind: type[PodGroup] | type[CompositePodGroup], type_: str,
                              name: str, namespace: str, condition: tuple[str, str, str]) -> None:
    """Patch ``type_`` on a (Composite)PodGroup's status from the cache's copy: never back from True,
    no write when nothing changes; a group deleted meanwhile is left alone."""
    try:
        current = s.ctx.cache.get(kind, name, namespace)
    except NotFound:
        return
    conditions = [c.to_dict() for c in (current.status.conditions if current.status else None) or ()]
    status, reason, message = condition
    if not set_condition(conditions, type_, status, reason, message, current.metadata.generation,
                         s.ctx.clock.now_datetime()):
        return
    try:
        s.ctx.client.patch_status(kind, name, {"status": {"conditions": conditions}}, namespace)
    except NotFound:
        return


def set_condition(conditions: list[dict[str, Any]], type_: str, status: str, reason: str, message: str,
                  generation: int | None, now: Any) -> bool:
    """apimachinery ``meta.SetStatusCondition`` on wire dicts (the transition time moves only when
    the status does), with the scheduler's rule that a True never goes back; returns whether
    ``conditions`` changed."""
    from kbatch.api.base import format_time

    wanted = {"type": type_, "status": status, "observedGeneration": generation, "reason": reason,
              "message": message}  # metav1.Condition: message always present, "" when none
    for i, cond in enumerate(conditions):
        if cond.get("type") != type_:
            continue
        if cond.get("status") == "True" and status != "True":
            return False
        merged = {**cond, **wanted}
        if cond.get("status") != status:
            merged["lastTransitionTime"] = format_time(now)
        merged = {k: v for k, v in merged.items() if v is not None}
        if merged == cond:
            return False
        conditions[i] = merged
        return True
    wanted["lastTransitionTime"] = format_time(now)
    conditions.append({k: v for k, v in wanted.items() if v is not None})
    return True


def validate_group(pods: list[PodInfo], scheduled: list[PodInfo], pg: PodGroup | CompositePodGroup,
                   policy_gate: bool = False) -> str:
    """Upstream ``validatePodGroup``: the error message, or "" when the group is consistent. With
    ``PodGroupPreemptionPolicy`` every pod's preemption policy must be the group's
    (``podGroupPreemptionPolicy``: unset is PreemptLowerPriority); without it, the first pod's."""
    first = pods[0]
    priority = pg.spec.priority or 0
    group_policy = (pg.spec.preemption_policy or "PreemptLowerPriority") if policy_gate else ""
    for pod in (*pods, *scheduled):
        if pod.scheduler_name != first.scheduler_name:
            return ("all pods in a single pod group should have the same .spec.schedulerName set, got: "
                    f'"{pod.scheduler_name}" and "{first.scheduler_name}"')
        if pod.priority != priority:
            return ("all pods in a single pod group should have the same priority as the pod group's "
                    f"priority, got {pod.priority} and {priority}")
        if group_policy and pod.preemption_policy != group_policy:
            return ("all pods in a single pod group should have the same preemption policy as the pod "
                    f"group's preemption policy, got {pod.preemption_policy} and {group_policy}")
        if not group_policy and pod.preemption_policy != first.preemption_policy:
            return ("all pods in a single pod group should have the same preemption policy, got "
                    f"{pod.preemption_policy} and {first.preemption_policy}")
    return ""
