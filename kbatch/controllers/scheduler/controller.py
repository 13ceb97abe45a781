"""The ``scheduler`` controller: kube-scheduler's loop on kbatch's runtime.

Wiring (``pkg/scheduler/eventhandlers.go`` in spirit): informer handlers on Pods and Nodes keep the
:class:`Snapshot` and the :class:`SchedulingQueue` up to date incrementally and enqueue a single
request, ``scheduler/cycle``. One reconcile of that request drains the active queue: for each pod,
in QueueSort order, it runs the :class:`Algorithm`, then Reserve → Permit → bind, or records the
failure. It returns ``requeue_after`` for the earliest back-off expiry, permit timeout or 5-minute
unschedulable flush, so nothing busy-loops in virtual time.

Effects, all through the client:

* bind: a Bind plugin, or the DefaultBinder: a ``pods/binding`` call through the client
  (``client.bind``: ``spec.nodeName`` and ``PodScheduled=True`` in one write, guarded by the pod's
  uid as upstream's DefaultBinder sends it), and a ``Scheduled`` event;
* failure: ``PodScheduled=False`` with reason ``Unschedulable`` and the FitError message (written
  only when it changes) and a ``FailedScheduling`` event;
* gated pods: ``PodScheduled=False`` reason ``SchedulingGated`` (the API server does this upstream);
* preemption: each victim gets ``DisruptionTarget=True`` reason ``PreemptionByScheduler`` and is
  deleted (gracefully); the preemptor gets ``status.nominatedNodeName``; lower-priority pods
  nominated to that node lose theirs (upstream ``prepareCandidate``);
* no nodes at all: an error (upstream ``ErrNoNodesAvailable``): ``PodScheduled=False`` reason
  ``Unschedulable``, message "no nodes available to schedule pods", the pod's nomination cleared,
  and a retry after back-off without waiting for an event (``handleSchedulingFailure``: no
  rejecting plugin, so ``AddUnschedulableIfNotPresent`` puts it in the back-off queue).

Nominations (upstream ``nominator.go``, ``schedule_one.go``, ``eventhandlers.go``): the snapshot's
nominator follows each pending pod's ``status.nominatedNodeName`` (a nomination made in memory
and not yet seen in the status is kept, ``UpdateNominatedPod``); preemption nominates the
preemptor before writing the status; a pod is un-nominated when it is assumed, and loses its
nomination (status cleared too) when its attempt fails with no preemption candidate, no PostFilter,
an error, or a Reserve/Permit/bind failure (``clearNominatedNode``); an ineligible preemptor keeps
its own. A nomination given up (the pod deleted or bound, or its ``nominatedNodeName`` changed)
is an AssignedPod/Delete of the pod for the pods of lower or equal priority, since they counted
its room as taken.

Cluster events (``eventhandlers.go`` with SchedulerQueueingHints on): a node added (Node/Add),
updated (``NodeSchedulingPropertiesChange``) or deleted (Node/Delete); a pod bound or added bound
(AssignedPod/Add), a bound pod updated (``PodSchedulingPropertiesChange``), deleted or finished
(AssignedPod/Delete; upstream's pod informer excludes terminal pods, so finishing is a delete), an
assumed pod forgotten after a Reserve/Permit failure (AssignedPod/Delete, the pod itself excluded);
each goes to :meth:`SchedulingQueue.move`, which asks the rejecting plugins' queueing hints. An
update of an unschedulable pod itself goes to :meth:`SchedulingQueue.update`. Option
``queueing_hints: False`` turns the hints off (every event moves every unschedulable pod).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import count
from typing import Any

from kbatch.api.base import format_time
from kbatch.api.cron import format_go_duration
from kbatch.api.errors import Conflict, NotFound
from kbatch.api.gates import gate_on
from kbatch.api.pod_generation import with_observed_generation
from kbatch.api.scheduling_v1beta1 import GENERIC_WORKLOAD
from kbatch.apiserver.client import Binder
from kbatch.controllers.scheduler.algorithm import Algorithm
from kbatch.controllers.scheduler.config import parse_config
from kbatch.controllers.scheduler.convert import claim_statuses_of, node_shape, pod_info, tolerations_of
from kbatch.controllers.scheduler.defaults import plugin_registry
from kbatch.controllers.scheduler.events import (
    ASSIGNED_POD_ADD,
    ASSIGNED_POD_DELETE,
    NODE_ADD,
    NODE_DELETE,
    UNSCHEDULED_POD_ADD,
    ClusterEvent,
    HintMap,
    ProfileHints,
    node_update_events,
    pod_update_events,
)
from kbatch.controllers.scheduler.framework import (
    Code,
    CycleState,
    PostFilterResult,
    Profile,
    Status,
    WaitingPreBindPlugin,
    nomination_extensions,
)
from kbatch.controllers.scheduler.group_cycle import GroupCycle
from kbatch.controllers.scheduler.plugins.scheduling_gates import SCHEDULING_GATED, SCHEDULING_GATES
from kbatch.controllers.scheduler.podgroups import pod_group_key
from kbatch.controllers.scheduler.profiles import Handle, build_profiles
from kbatch.controllers.scheduler.queue import SchedulingQueue
from kbatch.controllers.scheduler.services import SchedulerServices
from kbatch.controllers.scheduler.snapshot import Snapshot
from kbatch.controllers.scheduler.types import PodInfo
from kbatch.families.core import SCHEDULER_POP_FROM_BACKOFF_Q, SCHEDULER_QUEUEING_HINTS
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.controller import Controller
from kbatch.runtime.events import ObjectRef
from kbatch.runtime.events_v1 import EventsV1Recorder
from kbatch.runtime.reconcile import Request

__all__ = ["CYCLE_REQUEST", "Scheduler", "WaitingPod"]

NOTE_LENGTH_LIMIT = 1024  # pkg/apis/core/validation/events.go NoteLengthLimit
_TRUNCATED = " ..."

CYCLE_REQUEST = Request("", "scheduler/cycle")  # the one request the scheduler's queue ever holds

GATED_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"
_TERMINAL = ("Succeeded", "Failed")


@dataclass(slots=True)
class WaitingPod:
    """A pod held at Permit (upstream ``waitingPod``): allowed, rejected or timed out later."""

    pod: PodInfo
    node: str
    state: CycleState
    deadline: float
    pending: set[str]
    timeout: float = 0.0  # how long it may wait (the rejection message names it)


@dataclass(slots=True)
class BindingPod:
    """A pod whose binding cycle waits at a PreBind plugin (upstream: the binding goroutine blocked in
    that PreBind, e.g. DynamicResources polling binding conditions): polled at ``poll_at``."""

    pod: PodInfo
    node: str
    state: CycleState
    plugin: int  # index of the waiting plugin among the profile's PreBind plugins
    poll_at: float


class Scheduler:
    """Reconciler plus informer handlers; build it with :func:`kbatch.controllers.scheduler.setup`.

    One scheduling queue and one snapshot serve every profile (``KubeSchedulerConfiguration``
    ``profiles``, :mod:`.profiles`); a pod is scheduled by the profile its ``spec.schedulerName``
    names, and pods naming no profile of this scheduler are left to another scheduler."""

    def __init__(self, ctx: ControllerContext, profile: Profile | None = None) -> None:
        from kbatch.api.core_v1 import Node, Pod

        self.ctx, self.Pod, self.Node = ctx, Pod, Node
        if not isinstance(ctx.client, Binder):
            raise TypeError("the scheduler binds through pods/binding: its client must implement Binder")
        self.binder: Binder = ctx.client
        if profile is not None:
            self.profiles = {profile.scheduler_name: profile}
        else:
            registry = plugin_registry(ctx.composition.scheduler_plugins)
            self.profiles = build_profiles(parse_config(ctx.options.get("config")), registry, self._handle)
        self.snapshot = Snapshot()
        self.snapshot.on_unnominate = self._nomination_dropped
        self.algorithms = {name: Algorithm(p, self.snapshot, ctx.rng) for name, p in self.profiles.items()}
        first = next(iter(self.profiles.values()))
        sort = first.queue_sort.sort_key if first.queue_sort else _arrival_order
        hinted = ctx.features.enabled(SCHEDULER_QUEUEING_HINTS) and ctx.options.get("queueing_hints", True)
        pop_backoff = gate_on(ctx.features, SCHEDULER_POP_FROM_BACKOFF_Q)
        # a real clock never repeats an instant: its early-pop rule counts whole seconds (queue.py)
        instant = 0.0 if ctx.clock.is_virtual else 1.0
        if len(self.profiles) == 1:
            self.queue = SchedulingQueue(sort, first.pre_enqueue, hint_map(first) if hinted else None,
                                         pop_from_backoff=pop_backoff, early_pop_instant=instant)
        else:
            self.queue = SchedulingQueue(
                sort, {n: p.pre_enqueue for n, p in self.profiles.items()},
                ProfileHints({n: hint_map(p) for n, p in self.profiles.items()}) if hinted else None,
                pop_from_backoff=pop_backoff, early_pop_instant=instant)
        self.waiting: dict[str, WaitingPod] = {}
        self.binding: dict[str, BindingPod] = {}  # pods waiting in PreBind
        # scheduling.k8s.io PodGroups: the workload scheduling cycle, with GenericWorkload on
        self.group_cycle: GroupCycle | None = GroupCycle(self) if gate_on(ctx.features, GENERIC_WORKLOAD) \
            else None
        self.record_events = bool(ctx.options.get("events", True))
        self._seq = count()
        self._infos: dict[str, PodInfo] = {}  # last PodInfo per pod key (bound or pending, not finished)
        # each pod's last resourceVersion: an event's regarding reference carries it, as upstream's
        # GetReference of the informer's pod does (a PodInfo is kept across writes it does not track)
        self._versions: dict[str, str] = {}
        self._status_written: dict[str, tuple[str, str]] = {}
        self.cycle: Controller | None = None  # this scheduler's controller (setup sets it)

    @property
    def profile(self) -> Profile:
        """The first profile (``default-scheduler`` unless configured otherwise)."""
        return next(iter(self.profiles.values()))

    @property
    def algorithm(self) -> Algorithm:
        return next(iter(self.algorithms.values()))

    def _handle(self) -> Handle:
        ctx = self.ctx
        return Handle(cache=ctx.cache, client=ctx.client, clock=ctx.clock, features=ctx.features, rng=ctx.rng,
                      on_event=self.cluster_event, scheduler=SchedulerServices(self),
                      recorder=ctx.recorder if ctx.options.get("events", True) else None)

    def cluster_event(self, event: ClusterEvent, old: Any, new: Any,
                      pre_check: Callable[[PodInfo], bool] | None = None) -> None:
        """A cluster event a plugin's informer handler saw (e.g. a ResourceClaim update): move the
        unschedulable (and gated) pods it may help, per their rejecting plugins' hints;
        ``pre_check`` narrows the candidates (upstream ``PreEnqueueCheck``)."""
        self._event_moves(((event, old, new),), pre_check)

    def enqueue(self) -> None:
        """Ask for a scheduling cycle (the one request the controller's queue ever holds)."""
        if self.cycle is not None:
            self.cycle.queue.add(CYCLE_REQUEST)

    # -- informer handlers -------------------------------------------------------------------------
    def _info(self, pod: Any, key: str, old: PodInfo | None) -> PodInfo:
        """Convert ``pod`` (key ``key``, last info ``old``), keeping its place in arrival order."""
        creation = self._on_timeline(pod.metadata.creation_timestamp) or 0.0
        info = pod_info(pod, old.seq if old else next(self._seq), creation, self._start_time(pod))
        self._infos[key] = info
        return info

    def _on_timeline(self, when: Any) -> float | None:
        """A timestamp as seconds on the clock's timeline (None for none)."""
        return (when - self.ctx.clock.to_datetime(0)).total_seconds() if when else None

    def _start_time(self, pod: Any) -> float | None:
        """``status.startTime`` on the clock's timeline (None: not started)."""
        return self._on_timeline(pod.status.start_time if pod.status is not None else None)

    def on_pod(self, pod: Any) -> None:
        meta, status = pod.metadata, pod.status
        key = f"{meta.namespace}/{meta.name}"
        self._versions[key] = meta.resource_version or ""
        if status is not None and status.phase in _TERMINAL:
            self._forget(key)  # a finished pod holds nothing, and its phase is final
            return
        if self.group_cycle is not None and pod.spec.scheduling_group is not None:
            self.group_cycle.index.upsert(key, pod_group_key(pod))  # before PreEnqueue counts it
        old = self._infos.get(key)
        if pod.spec.node_name:
            info = _bound_update(old, pod, self._start_time(pod))
        else:
            info = _pending_update(old, pod)
        if info is old and old is not None:
            return  # most kubelet status writes: nothing the scheduler tracks changed
        if info is None:
            info = self._info(pod, key, old)
        else:
            self._infos[key] = info
        now = self.ctx.clock.now()
        if info.node_name:
            self.queue.delete(info.key)
            self.snapshot.add_pod(info, info.node_name)
            if old is None or not old.node_name:
                if old is not None and (old.nominated_node or self.snapshot.nominated):
                    self._release_nomination(info.key, old)  # upstream: the pending pod's delete
                self._event_moves(((ASSIGNED_POD_ADD, None, info),))
            elif info is not old:
                self._event_moves((event, old, info) for event in pod_update_events(old, info))
            return
        if info.scheduler_name not in self.profiles:
            self.queue.delete(info.key)
            return
        if info.terminating:
            self.queue.delete(info.key)
            return
        if ((info.nominated_node or (old is not None and old.nominated_node) or self.snapshot.nominated)
                and self.snapshot.node_of(info.key) is None):  # an assumed pod's update is skipped upstream
            self._sync_nomination(old, info)
        if info.key in self.waiting or info.key in self.binding:
            return  # assumed, waiting at Permit or PreBind: upstream updatePodInSchedulingQueue
            # skips assumed pods
        entry = self.queue.entry(info.key)
        if entry is None:
            self.queue.add(info, now)
            self.enqueue()
            if entry is None and old is None:  # a pod new to the scheduler (UnscheduledPod/Add)
                self._event_moves(((UNSCHEDULED_POD_ADD, None, info),), lambda other: other.key != info.key)
        elif _relevant_change(entry.pod, info):
            if self.queue.update(info, pod_update_events(entry.pod, info), entry.pod, now):
                self.enqueue()
        else:
            entry.pod = info  # e.g. nominatedNodeName: keep the newest view, without a retry

    def on_pod_delete(self, pod: Any) -> None:
        self._forget(f"{pod.metadata.namespace}/{pod.metadata.name}")

    def _forget(self, key: str) -> None:
        if self.group_cycle is not None:
            self.group_cycle.index.remove(key)
        old = self._infos.pop(key, None)
        self._versions.pop(key, None)
        self._status_written.pop(key, None)
        self.queue.delete(key)
        if (old is not None and old.nominated_node) or self.snapshot.nominated:
            self._release_nomination(key, old)
        self._release(key)

    # -- nominations (upstream nominator) ----------------------------------------------------------
    def _sync_nomination(self, old: PodInfo | None, info: PodInfo) -> None:
        """The nominator follows the pending pod's ``status.nominatedNodeName``, except that a
        nomination made in memory survives an update where neither version names a node yet
        (upstream ``UpdateNominatedPod``). A changed name gives up the old node's room
        (``hasNominatedNodeNameChanged``)."""
        current = self.snapshot.nominated_node(info.key)
        if info.nominated_node or (old is not None and old.nominated_node):
            want = info.nominated_node
        else:
            want = current or ""
        if want:
            self.snapshot.nominate(info, want)
        elif current is not None:
            self.snapshot.unnominate(info.key)
        if old is not None and old.nominated_node and old.nominated_node != info.nominated_node:
            self._gave_up_room(old)

    def _release_nomination(self, key: str, old: PodInfo | None) -> None:
        """``key`` is deleted or bound: it holds no nomination any more (upstream
        ``DeleteNominatedPodIfExists``); if it was pending with one, that room is given up."""
        node = self.snapshot.nominated_node(key)
        if node is not None:
            self.snapshot.unnominate(key)
        if old is None or old.node_name:
            return
        held = old.nominated_node or node
        if held:
            self._gave_up_room(old if old.nominated_node == held else replace(old, nominated_node=held))

    def _gave_up_room(self, old: PodInfo) -> None:
        """Pods of lower or equal priority counted ``old``'s nominated room as taken: upstream
        sends them an AssignedPod/Delete of ``old`` (``eventhandlers.go``, ``getLEPriorityPreCheck``)."""
        priority = old.priority
        self._event_moves(((ASSIGNED_POD_DELETE, old, None),), lambda other: other.priority <= priority)

    def _nomination_dropped(self, pod: PodInfo) -> None:
        """The nominator dropped ``pod``'s nomination (cleared, replaced, or the pod assumed, bound or
        deleted): KEP-5690's ``RemoveNominatedPod`` for the plugins of its profile."""
        profile = self.profiles.get(pod.scheduler_name)
        for ext in nomination_extensions(profile):
            ext.remove_nominated_pod(pod)

    def _clear_nomination(self, pod: PodInfo) -> None:
        """Upstream ``clearNominatedNode``: the nominator forgets the pod, its status too."""
        if self.snapshot.nominated:
            self.snapshot.unnominate(pod.key)
        if pod.nominated_node:
            self._write_nomination(pod, None)

    def _write_nomination(self, pod: PodInfo, node: str | None) -> None:
        try:
            self.ctx.client.patch_status(self.Pod, pod.name, {"status": {"nominatedNodeName": node}},
                                         pod.namespace)
        except NotFound:
            return

    def _release(self, key: str, pre_check: Callable[[PodInfo], bool] | None = None) -> None:
        """Forget where ``key`` runs (or was assumed); its resources are free: AssignedPod/Delete."""
        node = self.snapshot.node_of(key)
        removed = self.snapshot.remove_pod(key)
        if removed is not None:
            if not removed.node_name and node:  # an assumed pod: the event carries its node
                removed = replace(removed, node_name=node)
            self._event_moves(((ASSIGNED_POD_DELETE, removed, None),), pre_check)

    def _event_moves(self, events: Any, pre_check: Callable[[PodInfo], bool] | None = None) -> None:
        """Each (event, old, new) to the queue; a cycle only if some pod was waiting for that."""
        if not self.queue.wants_events():
            return  # the common case on the hot path: nobody waits
        now = self.ctx.clock.now()
        moved = 0
        for event, old, new in events:
            moved += self.queue.move(event, old, new, now, pre_check)
        if moved:
            self.enqueue()

    def on_node(self, node: Any) -> None:
        shape = node_shape(node)
        current = self.snapshot.get(shape.name)
        if current is not None and _same_shape(current.shape, shape):
            return
        before = current.shape if current is not None else None
        self.snapshot.set_node(shape)
        events: list[tuple[ClusterEvent, Any, Any]] = [(NODE_ADD, None, shape)] if before is None else [
            (event, before, shape) for event in node_update_events(before, shape)]
        self._event_moves(events)

    def on_node_delete(self, node: Any) -> None:
        current = self.snapshot.get(node.metadata.name)
        self.snapshot.remove_node(node.metadata.name)
        if current is not None:
            self._event_moves(((NODE_DELETE, current.shape, None),))

    # -- the cycle ---------------------------------------------------------------------------------
    def reconcile(self, request: Any) -> Any:
        from kbatch.runtime.reconcile import Result

        now = self.ctx.clock.now()
        self._expire_waiting(now)
        self._poll_binding(now)
        self._mark_gated()
        while (pod := self.queue.pop(now)) is not None:
            self.schedule_one(pod, now)
        wakeups = [w.deadline for w in self.waiting.values()]
        wakeups.extend(b.poll_at for b in self.binding.values())
        if (queued := self.queue.next_wakeup(now)) is not None:
            wakeups.append(queued)
        return Result(requeue_after=max(min(wakeups) - now, 1e-6)) if wakeups else None

    def schedule_one(self, pod: PodInfo, now: float) -> None:
        if self.group_cycle is not None and self.group_cycle.claims(pod):
            self.group_cycle.run(pod, now)  # a pod of a scheduling.k8s.io PodGroup: its group's cycle
            return
        decision = self.algorithms[pod.scheduler_name].schedule(pod)
        if decision.node is None:
            self._failed(pod, decision, now)
            return
        node, state = decision.node, decision.state
        status = self.assume_and_reserve(pod, node, state)
        if status is None:
            self.permit_and_bind(pod, node, state, now)
        else:
            self._rejected(pod, node, state, status, now)

    # -- the steps of an attempt (schedule_one; a pod group's cycle composes them too) -------------
    def assume_and_reserve(self, pod: PodInfo, node: str, state: CycleState) -> Status | None:
        """Assume ``pod`` on ``node`` and run Reserve; a failing status means the caller must
        :meth:`revert` it."""
        self.algorithms[pod.scheduler_name].assume(pod, node)
        if self.snapshot.nominated:
            self.snapshot.unnominate(pod.key)  # upstream assume: DeleteNominatedPodIfExists
        return self._reserve(state, pod, node)

    def revert(self, pod: PodInfo, node: str, state: CycleState) -> None:
        """Unreserve and forget an assumed pod (upstream ``unreserveAndForget``: no cluster event, as
        nothing of it was bound or seen by others)."""
        for plugin in reversed(self.profiles[pod.scheduler_name].reserve):
            plugin.unreserve(state, pod, node)
        self.snapshot.remove_pod(pod.key)

    def permit_and_bind(self, pod: PodInfo, node: str, state: CycleState, now: float) -> None:
        """Permit, then bind (or hold the pod waiting, or reject it)."""
        status = self._permit(state, pod, node, now)
        if status is None:
            self._bind(state, pod, node, now)
        elif status.code != Code.WAIT:
            self._rejected(pod, node, state, status, now)

    def _rejected(self, pod: PodInfo, node: str, state: CycleState, status: Status, now: float) -> None:
        self._unreserve(state, pod, node)
        self.reject_pod(pod, status.message or "rejected", now, (status.plugin,) if status.plugin else ())

    def reject_pod(self, pod: PodInfo, message: str, now: float, plugins: tuple[str, ...] = (),
                   nominate: str = "") -> None:
        """Back to the unschedulable pool (rejected by ``plugins``), ``PodScheduled=False``/
        ``Unschedulable`` with ``message`` and a FailedScheduling event; its nomination cleared, or
        set to ``nominate`` (a node preemption freed for it)."""
        self.queue.unschedulable(pod, now, plugins)
        if nominate:
            self.snapshot.nominate(pod, nominate)
            if pod.nominated_node != nominate:
                self._write_nomination(pod, nominate)
        else:
            self._clear_nomination(pod)
        self._write_unschedulable(pod, message)

    def evict_for_preemption(self, victim: PodInfo, preemptor: str, node: str, message: str) -> None:
        """A preemption victim: ``DisruptionTarget=True``/``PreemptionByScheduler``, deleted (gracefully),
        a ``Preempted`` event (upstream ``prepareCandidate``)."""
        try:
            self._patch_condition(victim, self._merge_condition(
                victim, "DisruptionTarget", "True", "PreemptionByScheduler", message))
            self.ctx.client.delete(self.Pod, victim.name, victim.namespace)
        except NotFound:
            return
        if self.record_events:
            self._event(victim, "Normal", "Preempted", f"Preempted by {preemptor} on node {node}")

    def error_pod(self, pod: PodInfo, message: str, now: float) -> None:
        """An error, not a rejection: back-off then retry (``PodScheduled=False``/``SchedulerError``)."""
        self.queue.retry_after_error(pod, now)
        self._clear_nomination(pod)
        self._write_condition(pod, "SchedulerError", message)
        if self.record_events:
            self._event(pod, "Warning", "FailedScheduling", message)

    def fail(self, pod: PodInfo, decision: Any, now: float) -> None:
        """A failed attempt (its FitError, preemption or error), as :meth:`schedule_one` handles it."""
        self._failed(pod, decision, now)

    def _reserve(self, state: CycleState, pod: PodInfo, node: str) -> Status | None:
        for plugin in self.profiles[pod.scheduler_name].reserve:
            status = plugin.reserve(state, pod, node)
            if status is not None and not status.ok:
                return status
        return None

    def _unreserve(self, state: CycleState, pod: PodInfo, node: str) -> None:
        """Unreserve, then forget the assumed pod; what it held is free for the others (upstream
        ``schedulingCycle``/``handleBindingCycleError``: AssignedPod/Delete, not for itself)."""
        for plugin in reversed(self.profiles[pod.scheduler_name].reserve):
            plugin.unreserve(state, pod, node)
        self._release(pod.key, lambda other: other.key != pod.key)

    def _permit(self, state: CycleState, pod: PodInfo, node: str, now: float) -> Status | None:
        pending: set[str] = set()
        timeout = 0.0
        for plugin in self.profiles[pod.scheduler_name].permit:
            status = plugin.permit(state, pod, node)
            if status is None or status.ok:
                continue
            if status.code != Code.WAIT:
                return status
            pending.add(plugin.name)
            timeout = max(timeout, status.timeout)
        if pending:
            self.waiting[pod.key] = WaitingPod(pod, node, state, now + timeout, pending, timeout)
            return Status(Code.WAIT)
        return None

    def allow(self, key: str, plugin: str) -> None:
        """A Permit plugin lets a waiting pod go (upstream ``WaitingPod.Allow``)."""
        waiting = self.waiting.get(key)
        if waiting is None:
            return
        waiting.pending.discard(plugin)
        if not waiting.pending:
            del self.waiting[key]
            self._bind(waiting.state, waiting.pod, waiting.node, self.ctx.clock.now())

    def reject(self, key: str, plugin: str, message: str) -> None:
        self.reject_all((key,), plugin, message)

    def reject_all(self, keys: Any, plugin: str, message: str) -> None:
        """Reject these waiting pods (upstream ``WaitingPod.Reject`` on each, in one go: every one is
        rejected before any of them runs Unreserve, as the rejections only signal upstream)."""
        rejected = [w for key in keys if (w := self.waiting.pop(key, None)) is not None]
        for waiting in rejected:
            self._unreserve(waiting.state, waiting.pod, waiting.node)
            self.queue.unschedulable(waiting.pod, self.ctx.clock.now(), (plugin,))
            self._clear_nomination(waiting.pod)
            self._write_unschedulable(waiting.pod, message)
        if rejected:
            self.enqueue()

    def _expire_waiting(self, now: float) -> None:
        for key in sorted(k for k, w in self.waiting.items() if w.deadline <= now):
            waiting = self.waiting.get(key)
            if waiting is None:
                continue  # rejected meanwhile (a plugin's Unreserve rejects its siblings)
            plugin = sorted(waiting.pending)[0]  # upstream waitingPod's timer message
            waited = format_go_duration(waiting.timeout)
            self.reject(key, plugin, f"rejected due to timeout after waiting {waited} at plugin {plugin}")

    def _pre_bind(self, state: CycleState, pod: PodInfo, node: str, now: float, first: int = 0,
                  status: Status | None = None) -> bool:
        """PreBind plugins in order from ``first`` (``status``: that one's answer to a poll); a failure
        unreserves the pod and files it as unschedulable (upstream ``bindingCycle``:
        ``RunPreBindPlugins`` then ``handleBindingCycleError``); a ``WAIT`` parks the pod until its
        poll (:meth:`_poll_binding`)."""
        plugins = self.profiles[pod.scheduler_name].pre_bind
        for index in range(first, len(plugins)):
            if status is None or index != first:
                status = plugins[index].pre_bind(state, pod, node)
            if status is None or status.ok:
                continue
            if status.code == Code.WAIT:
                self.binding[pod.key] = BindingPod(pod, node, state, index, now + status.timeout)
                return False
            self._unreserve(state, pod, node)
            if pod.key not in self._infos:  # deleted while PreBind ran (waited): handleSchedulingFailure
                if self.record_events:  # records the event but does not queue a pod the cache lost
                    self._event(pod, "Warning", "FailedScheduling", status.message or "error")
                return False
            if status.code == Code.ERROR:  # handleSchedulingFailure: back-off, reason SchedulerError
                self.error_pod(pod, status.message or "error", now)
                return False
            self.queue.unschedulable(pod, now, (status.plugin,) if status.plugin else ())
            self._clear_nomination(pod)
            self._write_unschedulable(pod, status.message or "rejected")
            return False
        return True

    def _poll_binding(self, now: float) -> None:
        """Poll the pods waiting in PreBind whose time has come, in key order; a pod ready goes on
        to the next PreBind plugins and binds."""
        for key in sorted(k for k, b in self.binding.items() if b.poll_at <= now):
            waiting = self.binding.pop(key)
            plugin = self.profiles[waiting.pod.scheduler_name].pre_bind[waiting.plugin]
            if isinstance(plugin, WaitingPreBindPlugin):
                status = plugin.pre_bind_poll(waiting.state, waiting.pod, waiting.node)
            else:
                status = Status(Code.ERROR, (f"PreBind plugin {plugin.name} cannot wait",), plugin.name)
            if status is None or status.ok:
                status = Status(Code.SUCCESS)
            self._bind(waiting.state, waiting.pod, waiting.node, now, waiting.plugin, status)

    def _bind(self, state: CycleState, pod: PodInfo, node: str, now: float, first: int = 0,
              status: Status | None = None) -> None:
        if self.profiles[pod.scheduler_name].pre_bind and not self._pre_bind(
                state, pod, node, now, first, status):
            return
        try:
            for plugin in self.profiles[pod.scheduler_name].bind:
                status = plugin.bind(state, pod, node)
                if status is None or status.code != Code.SKIP:
                    break
            else:  # DefaultBinder (pkg/scheduler/framework/plugins/defaultbinder)
                self.binder.bind(pod.name, pod.namespace, node, uid=pod.uid or None)
        except NotFound:
            self.queue.delete(pod.key)
            self._release(pod.key)  # the assumed pod is gone: what it held is free
            return
        except Conflict:
            self._unreserve(state, pod, node)
            self.queue.retry_after_error(pod, now)
            self._clear_nomination(pod)
            return
        self.queue.done(pod.key)
        if self.record_events:
            self._event(pod, "Normal", "Scheduled", f"Successfully assigned {pod.key} to {node}")

    # -- failure -----------------------------------------------------------------------------------
    def _failed(self, pod: PodInfo, decision: Any, now: float) -> None:
        if decision.error:  # upstream ErrNoNodesAvailable: no plugin to blame, back-off and retry
            self.queue.retry_after_error(pod, now)
            self._clear_nomination(pod)
            self._write_unschedulable(pod, decision.error)
            return
        diagnosis = decision.diagnosis
        message = diagnosis.message() if diagnosis is not None else "unschedulable"
        plugins = tuple(p for p in diagnosis.plugins if p) if diagnosis is not None else ()
        self.queue.unschedulable(pod, now, plugins)
        preemption: PostFilterResult | None = decision.preemption
        if preemption is not None and preemption.nominated_node is not None:
            self._preempt(pod, preemption.nominated_node, preemption.victims, decision.state)
        elif (not self.profiles[pod.scheduler_name].post_filter
              or (preemption is not None and preemption.clear_nomination)):
            self._clear_nomination(pod)
        self._write_unschedulable(pod, message)

    def _preempt(self, pod: PodInfo, node: str, victims: tuple[PodInfo, ...], state: CycleState) -> None:
        client, Pod = self.ctx.client, self.Pod
        reason_message = f"{pod.key}: preempting to accommodate a higher priority pod"
        for victim in victims:
            try:
                self._patch_condition(victim, self._merge_condition(
                    victim, "DisruptionTarget", "True", "PreemptionByScheduler", reason_message))
                client.delete(Pod, victim.name, victim.namespace)
            except NotFound:
                continue
            if self.record_events:
                self._event(victim, "Normal", "Preempted", f"Preempted by pod {pod.uid} on node {node}", pod)
        held = self.snapshot.nominated.get(node, {})
        lower = [p for _, p in sorted(held.items()) if p.priority < pod.priority]
        for other in lower:  # upstream prepareCandidate: they may no longer fit there
            self.snapshot.unnominate(other.key)
            self._write_nomination(other, None)
        self.snapshot.nominate(pod, node)  # before the status write, as upstream AddNominatedPod
        node_info = self.snapshot.get(node)
        if node_info is not None:  # KEP-5690: plugins hold what the victims free for the preemptor
            others = self.snapshot.nominated_for(node, pod)
            for ext in nomination_extensions(self.profiles[pod.scheduler_name]):
                ext.add_nominated_pod(state, pod, node_info, victims, others)
        if pod.nominated_node != node:
            self._write_nomination(pod, node)

    def _write_unschedulable(self, pod: PodInfo, message: str) -> None:
        self._write_condition(pod, "Unschedulable", message)
        if self.record_events:
            self._event(pod, "Warning", "FailedScheduling", message)

    def _mark_gated(self) -> None:
        """``SchedulingGated`` for pods held by their scheduling gates (not for other PreEnqueue
        plugins' holds, e.g. DynamicResources waiting for a claim)."""
        for entry in self.queue.gated(SCHEDULING_GATES):
            self._write_condition(entry.pod, SCHEDULING_GATED, GATED_MESSAGE)

    def _write_condition(self, pod: PodInfo, reason: str, message: str) -> None:
        if self._status_written.get(pod.key) == (reason, message):
            return
        try:
            self._patch_condition(pod, self._conditions(pod, "False", reason, message))
        except NotFound:
            return
        self._status_written[pod.key] = (reason, message)

    def _conditions(self, pod: PodInfo, status: str, reason: str | None, message: str | None) -> list[dict]:
        return self._merge_condition(pod, "PodScheduled", status, reason, message)

    def _patch_condition(self, pod: PodInfo, conditions: list[dict], extra: dict | None = None) -> None:
        """A strategic status patch: conditions merge by type, other writers' are untouched."""
        body = {"conditions": conditions, **(extra or {})}
        self.ctx.client.patch_status(self.Pod, pod.name, {"status": body}, pod.namespace,
                                     patch_type="strategic")

    def _merge_condition(
        self, pod: PodInfo, type_: str, status: str, reason: str | None, message: str | None
    ) -> list[dict]:
        """``[condition]``: ``type_`` as it should be, its transition time kept if unchanged."""
        try:
            current = self.ctx.cache.get(self.Pod, pod.name, pod.namespace)
        except NotFound:
            current = None
        have = (current.status.conditions if current is not None and current.status else None) or ()
        conditions = [c.to_dict() for c in have]
        now = format_time(self.ctx.clock.now_datetime())
        new: dict = with_observed_generation({"type": type_, "status": status, "lastTransitionTime": now},
                                             current.metadata.generation if current is not None else None)
        if reason:
            new["reason"] = reason
        if message:
            new["message"] = message
        for cond in conditions:
            if cond.get("type") == type_ and cond.get("status") == status:
                new["lastTransitionTime"] = cond.get("lastTransitionTime", now)
        return [new]

    def pod_reference(self, pod: PodInfo) -> ObjectRef:
        """``pod`` as an event's regarding (or related) object: no Pod model just to name it, its last
        resourceVersion as the informer delivered it (a PodInfo outlives writes it does not track)."""
        return ObjectRef("Pod", "v1", pod.name, pod.namespace, pod.uid, self._versions.get(pod.key) or None)

    def _event(self, pod: PodInfo, type_: str, reason: str, message: str,
               related: PodInfo | None = None) -> None:
        """``fwk.EventRecorder().Eventf``: events.k8s.io/v1 (``SCHEDULER_EVENTS``), with the preemptor
        as the ``related`` object of a victim's ``Preempted`` (``framework/preemption``); a
        ``FailedScheduling`` note cut to the API's 1024 bytes (``schedule_one.go`` ``truncateMessage``)."""
        ref = self.pod_reference(pod)
        if reason == "FailedScheduling" and len(message) > NOTE_LENGTH_LIMIT:
            message = message[:NOTE_LENGTH_LIMIT - len(_TRUNCATED)] + _TRUNCATED
        recorder = self.ctx.recorder
        if related is not None and isinstance(recorder, EventsV1Recorder):
            recorder.eventf(ref, self.pod_reference(related), type_, reason, "Preempting", message)
            return
        recorder.event(ref, type_, reason, message)


def _arrival_order(pod: PodInfo, timestamp: float) -> tuple[int]:
    """The queue order without a QueueSort plugin: arrival."""
    return (pod.seq,)


def hint_map(profile: Profile) -> HintMap:
    """The queueing hints of the plugins that can reject or hold a pod (PreEnqueue, PreFilter,
    Filter, Reserve, Permit), upstream ``frameworkImpl.EnqueueExtensions``."""
    return HintMap.from_plugins([*profile.pre_enqueue, *profile.pre_filter, *profile.filter,
                                 *profile.reserve, *profile.permit])


def _relevant_change(old: PodInfo, new: PodInfo) -> bool:
    """Whether an update of a pending pod may change the scheduling answer (so it is retried)."""
    return (old.signature() != new.signature() or old.scheduling_gates != new.scheduling_gates
            or old.labels != new.labels or old.priority != new.priority
            or old.claim_statuses != new.claim_statuses
            or old.affinity != new.affinity or old.anti_affinity != new.anti_affinity)


def _same_shape(a: Any, b: Any) -> bool:
    return (a.labels == b.labels and a.taints == b.taints and a.unschedulable == b.unschedulable
            and a.allocatable == b.allocatable)


def _pending_update(old: PodInfo | None, pod: Any) -> PodInfo | None:
    """The info of the pending ``pod`` derived from ``old`` when its spec is unchanged (same
    ``metadata.generation``: every spec change bumps it, see :func:`_bound_update`) and so are its
    labels: only the deletion and the status fields the scheduler reads (phase, nominated node,
    ``resourceClaimStatuses``, which the resourceclaim controller writes for every DRA pod before it
    is scheduled) can differ; None when the pod must be converted again."""
    if old is None or old.node_name or old.generation is None:
        return None
    meta, status = pod.metadata, pod.status
    if old.uid != (meta.uid or "") or meta.generation != old.generation or (meta.labels or {}) != old.labels:
        return None
    terminal = (status.phase if status else None) in _TERMINAL
    terminating = meta.deletion_timestamp is not None
    nominated = (status.nominated_node_name if status else None) or ""
    claims = claim_statuses_of(status)
    if (terminal == old.terminal and terminating == old.terminating and nominated == old.nominated_node
            and claims == old.claim_statuses):
        return old
    return replace(old, terminal=terminal, terminating=terminating, nominated_node=nominated,
                   claim_statuses=claims)


def _bound_update(old: PodInfo | None, pod: Any, start_time: float | None = None) -> PodInfo | None:
    """The info of ``pod``, bound to a node, derived from ``old`` (``old`` itself when nothing it
    holds changed); None when it cannot be derived and the pod must be converted again.

    Two cases, both exact:

    * ``old`` is bound to that node already: once a pod is bound, only its labels, added
      tolerations, deletion and status may change (``ValidatePodUpdate``,
      kbatch/api/strategies/core/pod.py);
    * ``old`` is the pending pod and ``pod`` its binding (``pods/binding`` sets ``spec.nodeName``
      and a status condition only): derived when ``metadata.generation`` is unchanged, since every
      other spec change bumps it (the API server's update path, ``strategy.spec_changed``; pod
      generation is KEP-5067, PodObservedGenerationTracking), and labels, deletion and status
      are compared as in the first case.

    Upstream's cache rebuilds the PodInfo on every update (``pkg/scheduler/eventhandlers.go``
    ``updatePodInCache``); the result is the same, without converting the pod again on its
    binding and on each kubelet status write."""
    if old is None:
        return None
    meta, status, node = pod.metadata, pod.status, pod.spec.node_name
    if not node or old.uid != (meta.uid or ""):
        return None  # not bound, or another pod of the same name (a relist can show that)
    if old.node_name != node and (old.node_name or old.generation is None
                                  or old.generation != meta.generation):
        return None  # bound elsewhere, or the spec may have changed since ``old`` was converted
    terminal = (status.phase if status else None) in _TERMINAL
    terminating = meta.deletion_timestamp is not None
    labels = meta.labels or {}
    tolerations = pod.spec.tolerations or ()
    nominated = (status.nominated_node_name if status else None) or ""
    if (old.node_name == node and terminal == old.terminal and terminating == old.terminating
            and labels == old.labels and len(tolerations) == len(old.tolerations)
            and nominated == old.nominated_node and meta.generation == old.generation
            and start_time == old.start_time):
        return old
    if old.spread_constraints and labels != old.labels:
        return None  # matchLabelKeys are merged from the labels at conversion: convert again
    # tolerations can only be added
    kept = old.tolerations if len(tolerations) == len(old.tolerations) else tolerations_of(tolerations)
    return replace(old, node_name=node, labels=old.labels if labels == old.labels else dict(labels),
                   terminal=terminal, terminating=terminating, nominated_node=nominated,
                   generation=meta.generation, tolerations=kept, start_time=start_time)
