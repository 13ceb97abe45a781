"""The ``node-lifecycle`` and ``taint-eviction-controller`` controllers.

``node-lifecycle`` keeps each node's taints in step with its conditions: the ``NoSchedule`` ones
for ``Ready``, the pressure conditions, ``NetworkUnavailable`` and ``spec.unschedulable`` at once
(:func:`.taints.no_schedule_taints`, TaintNodesByCondition), the not-ready / unreachable
``NoExecute`` ones through its zone's rate-limited queue (:mod:`.zones`, :mod:`.tainter`; none
while every zone is fully disrupted); the zone pass runs as the request ``("", "")``, from a
timer at the instant a zone's counts change (after the other node updates due then) and when a
queue's next token is due. It also times out silent nodes (:mod:`.health`): a node with
a Lease in ``kube-node-lease`` whose heartbeat (Lease ``renewTime`` or ``Ready``
``lastHeartbeatTime``) has not moved for ``node_monitor_grace_period`` (50 s) gets ``Unknown``
conditions, hence the unreachable taints; when that moved ``Ready`` away from ``True`` the node's pods
are marked not ready (:mod:`.pods`, upstream ``MarkPodsNotReady``). A node without a Lease (no
simulated kubelet, e.g. the ``kubelet`` controller is off) is not timed out. The grace timers are
housekeeping (``periodic``), as upstream's ``monitorNodeHealth`` loop runs forever. As upstream, only
the NoSchedule taints and labels follow a node event at once (the node update worker); heartbeats,
timeouts, NoExecute taints, zone counts and node events wait for the next monitor pass, at the
controller's start and every ``node_monitor_period`` (5 s) after (:func:`.health.monitor_tick`). A node the
controller sees for the first time gets a ``Normal`` event ``RegisteredNode`` "Node NAME event:
Registered Node NAME in Controller", a deleted one it knew ``RemovingNode`` "Node NAME event:
Removing Node NAME from Controller" (upstream ``monitorNodeHealth`` on ``classifyNodes``' added and
deleted nodes, through ``RecordNodeEvent`` in ``pkg/controller/util/node/controller_utils.go``: the
reference names the Node by kind, name and uid).

``taint-eviction-controller`` evicts pods from nodes with ``NoExecute`` taints they do not
tolerate (or tolerate only for ``tolerationSeconds``, counted from when it observes them, as
upstream's ``TimedWorkerQueue`` of ``processPodOnNode``: :func:`.taints.plan_eviction`): it adds
``DisruptionTarget=True`` reason
``DeletionByTaintManager`` message "Taint manager: deleting due to NoExecute taint", records a
``TaintManagerEviction`` event and deletes the pod (gracefully; the kubelet finishes it). The API
server's ``DefaultTolerationSeconds`` admission plugin gives pods 300 s not-ready / unreachable
tolerations unless they state their own, so by default a pod leaves a failed node five minutes after
the taint was added.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.base import format_time
from kbatch.api.errors import NotFound
from kbatch.api.pod_generation import with_observed_generation
from kbatch.controllers.nodelifecycle.health import (
    NODE_MONITOR_GRACE_PERIOD,
    NODE_MONITOR_PERIOD,
    PASS_EPSILON,
    Heartbeat,
    monitor_tick,
    observe,
    unknown_conditions,
)
from kbatch.controllers.nodelifecycle.labels import labels_to_reconcile
from kbatch.controllers.nodelifecycle.pods import (
    POD_EVENT,
    condition_patch,
    node_event_message,
    not_ready_patch,
)
from kbatch.controllers.nodelifecycle.tainter import Member, Tainter
from kbatch.controllers.nodelifecycle.taints import (
    Scheduled,
    has_no_execute,
    no_execute_key,
    no_execute_step,
    no_schedule_taints,
    plan_eviction,
    with_no_execute,
)
from kbatch.controllers.nodelifecycle.zones import EXCLUDE_DISRUPTION, EvictionConfig, zone_key
from kbatch.controllers.scheduler.convert import taint_of, toleration_of
from kbatch.controllers.scheduler.types import Taint
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.events import ObjectRef

__all__ = ["ZONE_PASS", "NodeLifecycle", "TaintEviction"]

EVICTION_REASON = "DeletionByTaintManager"
EVICTION_MESSAGE = "Taint manager: deleting due to NoExecute taint"
ZONE_PASS = ("", "")  # the request that runs the zone pass (no node is named "")


def _ready(node: Any) -> str | None:
    return node.condition_status("Ready")  # type: ignore[no-any-return]


class NodeLifecycle:
    def __init__(self, ctx: ControllerContext) -> None:
        from kbatch.api.coordination_v1 import NODE_LEASE_NAMESPACE, Lease
        from kbatch.api.core_v1 import Node

        self.ctx, self.Node, self.Lease, self.lease_namespace = ctx, Node, Lease, NODE_LEASE_NAMESPACE
        self.grace = float(ctx.options.get("node_monitor_grace_period", NODE_MONITOR_GRACE_PERIOD))
        self.period = float(ctx.options.get("node_monitor_period", NODE_MONITOR_PERIOD))
        self.started = ctx.clock.now()  # monitorNodeHealth runs at start, then every period
        self.tainter = Tainter(EvictionConfig.from_options(ctx.options))
        self.controller: Any = None  # set by ``setup``: the zone pass is enqueued on it
        self._seen: dict[str, tuple[Heartbeat, float]] = {}  # node -> (last heartbeat, probe time)
        self._known: dict[str, str] = {}  # node -> uid, for nodes observed at least once (``knownNodeSet``)
        self._pass_at: tuple[float, int] | None = None  # the zone pass's timer (deadline, handle)

    def _timeline(self, when: Any) -> float:
        return (when - self.ctx.clock.to_datetime(0)).total_seconds()

    def reconcile(self, request: Any) -> Any:
        from kbatch.runtime.reconcile import Result

        if request == ZONE_PASS:
            return self._zone_pass()
        now = self.ctx.clock.now()
        tick = monitor_tick(self.started, self.period, now)
        try:
            node = self.ctx.cache.get(self.Node, request.name)
        except NotFound:
            if tick - now > PASS_EPSILON:  # classifyNodes sees the deletion at the next monitor pass
                return Result(requeue_after=tick - now)
            self._seen.pop(request.name, None)
            if request.name in self._known:
                self._node_event(request.name, self._known.pop(request.name), "RemovingNode",
                                 "Removing Node {} from Controller")
            if self.tainter.observe(request.name, None):
                self._schedule_pass(now)
            return None
        self._reconcile_labels(node)
        if tick - now > PASS_EPSILON:  # the node update worker's part now, the rest at the next monitor pass
            self._no_schedule(node, now)
            return Result(requeue_after=tick - now)
        now = tick  # (the timer's float instant, snapped to the pass)
        ready = _ready(node)
        wait = self._monitor(node, ready, now)
        if wait == 0.0:
            return None  # conditions written: the node's update event brings it back for the taints
        self._taints(node, ready, now)
        return Result(requeue_after=wait) if wait is not None else None

    def _taints(self, node: Any, ready: str | None, now: float) -> None:
        """NoSchedule taints at once; NoExecute ones as ``processTaintBaseEviction`` decides
        (:func:`.taints.no_execute_step`); the zone counts updated."""
        name, labels = node.metadata.name, node.metadata.labels or {}
        zone = zone_key(labels)
        current = [taint_of(t, self._timeline) for t in node.spec.taints or ()]
        conditions = [(c.type, c.status) for c in (node.status.conditions if node.status else None) or ()]
        wanted = no_schedule_taints(current, conditions, bool(node.spec.unschedulable), now)
        step = no_execute_step(current, ready)
        if name not in self._known or step == "reachable":
            # markNodeAsReachable: Ready again, or a node the controller observes for the first time
            if name not in self._known:
                uid = self._known[name] = node.metadata.uid or ""
                self._node_event(name, uid, "RegisteredNode", "Registered Node {} in Controller")
            wanted = with_no_execute(wanted, None, now)
            self.tainter.unmark(name, zone)
            step = "queue" if step == "swap" else step
        elif step == "swap":
            wanted = with_no_execute(wanted, no_execute_key(ready), now)
        if wanted != current:
            self._patch_taints(name, wanted)
        key = no_execute_key(ready)
        queued = step == "queue" and key is not None and self.tainter.mark(
            name, zone, has_no_execute(wanted, key), now)
        member = Member(zone, ready, EXCLUDE_DISRUPTION not in labels)
        if self.tainter.observe(name, member) or queued:
            self._schedule_pass(now)

    def _no_schedule(self, node: Any, now: float) -> None:
        """``doNoScheduleTaintingPass`` alone, as the node update worker runs it on every node event."""
        current = [taint_of(t, self._timeline) for t in node.spec.taints or ()]
        conditions = [(c.type, c.status) for c in (node.status.conditions if node.status else None) or ()]
        wanted = no_schedule_taints(current, conditions, bool(node.spec.unschedulable), now)
        if wanted != current:
            self._patch_taints(node.metadata.name, wanted)

    def _reconcile_labels(self, node: Any) -> None:
        """Upstream ``reconcileNodeLabels`` (:mod:`.labels`): the beta OS and arch labels follow the
        stable ones, in one labels patch."""
        wanted = labels_to_reconcile(node.metadata.labels)
        if not wanted:
            return
        try:
            self.ctx.client.patch(self.Node, node.metadata.name, {"metadata": {"labels": wanted}})
        except NotFound:
            return

    def _node_event(self, name: str, uid: str, reason: str, event: str) -> None:
        """Upstream ``RecordNodeEvent``: a ``Normal`` event on the Node named by reference."""
        ref = ObjectRef("Node", "v1", name, None, uid or None)
        self.ctx.recorder.event(ref, "Normal", reason, f"Node {name} event: {event.format(name)}")

    def _patch_taints(self, name: str, taints: list[Taint]) -> bool:
        body = [self._wire(t) for t in taints]
        try:
            self.ctx.client.patch(self.Node, name, {"spec": {"taints": body or None}})
        except NotFound:
            return False
        return True

    # -- the zone pass: handleDisruption, then doNoExecuteTaintingPass ------------------------------
    def _schedule_pass(self, at: float) -> None:
        """Run the zone pass at ``at``: a timer, so every node update due at the same instant is
        seen first (timers fire after the ready work); the earliest request wins."""
        if self._pass_at is not None:
            if self._pass_at[0] <= at:
                return
            self.ctx.timers.cancel(self._pass_at[1])
        self._pass_at = (at, self.ctx.timers.schedule_call(at, self._fire_pass, None, periodic=True))

    def _fire_pass(self, _: Any) -> None:
        from kbatch.runtime.reconcile import Request

        self._pass_at = None
        self.controller.enqueue(Request(*ZONE_PASS))

    def _zone_pass(self) -> None:
        now = self.ctx.clock.now()
        decision = self.tainter.disruption(now)
        if decision.enter_full:
            self._all_reachable(now)
        if decision.exit_full:  # a fresh grace period for every node
            self._seen = {name: (beat, now) for name, (beat, _) in self._seen.items()}
        self.tainter.try_all(now, self._taint)
        wake = self.tainter.wake_at(now)
        if wake is not None:
            self._schedule_pass(wake)

    def _all_reachable(self, now: float) -> None:
        """Master disruption mode: no node keeps a NoExecute condition taint; failed nodes are
        queued again (their zones' rates are 0 until some zone recovers)."""
        for name in sorted(self.tainter.members):
            try:
                node = self.ctx.cache.get(self.Node, name)
            except NotFound:
                continue
            current = [taint_of(t, self._timeline) for t in node.spec.taints or ()]
            wanted = with_no_execute(current, None, now)
            if wanted != current:
                self._patch_taints(name, wanted)
            zone = zone_key(node.metadata.labels)
            self.tainter.unmark(name, zone)
            if no_execute_key(_ready(node)) is not None:
                self.tainter.mark(name, zone, False, now)

    def _taint(self, name: str) -> tuple[bool, float]:
        """The tainting pass's action on a queued node: the NoExecute taint its Ready condition
        calls for, the other one removed (done), or nothing when it is Ready again or gone."""
        try:
            node = self.ctx.cache.get(self.Node, name)
        except NotFound:
            return True, 0.0
        ready = _ready(node)
        if ready is None:
            return False, 0.05  # upstream retries in 50 ms
        key = no_execute_key(ready)
        if key is None:
            return True, 0.0
        current = [taint_of(t, self._timeline) for t in node.spec.taints or ()]
        wanted = with_no_execute(current, key, self.ctx.clock.now())
        if wanted != current:
            self._patch_taints(name, wanted)
        return True, 0.0

    def _monitor(self, node: Any, ready: str | None, now: float) -> float | None:
        """Seconds until the node times out (None: not monitored, or already Unknown); 0.0 when its
        conditions were just set to Unknown."""
        name = node.metadata.name
        try:
            lease = self.ctx.cache.get(self.Lease, name, self.lease_namespace)
        except NotFound:
            self._seen.pop(name, None)
            return None
        conditions = (node.status.conditions if node.status else None) or ()
        beat = next((c.last_heartbeat_time for c in conditions if c.type == "Ready"), None)
        self._seen[name] = seen = observe(self._seen.get(name), (beat, lease.spec.renew_time), now)
        if ready == "Unknown":
            return None
        deadline = seen[1] + self.grace
        if now < deadline:
            return deadline - now
        stamp = format_time(self.ctx.clock.now_datetime())
        items = unknown_conditions(((c.type, c.status) for c in conditions), stamp)
        self.ctx.client.patch_status(self.Node, name, {"status": {"conditions": items}},
                                     patch_type="strategic")
        if ready == "True":
            self._mark_pods_not_ready(node, stamp)
        return 0.0

    def _mark_pods_not_ready(self, node: Any, stamp: str) -> None:
        """Upstream ``RecordNodeStatusChange`` and ``MarkPodsNotReady`` (:mod:`.pods`), in pod key order."""
        from kbatch.api.core_v1 import Pod
        from kbatch.runtime.cache import BY_NODE_NAME

        name = node.metadata.name
        self.ctx.recorder.event(node, "Normal", "NodeNotReady", node_event_message(name))
        pods = self.ctx.cache.list(Pod, index=(BY_NODE_NAME, name))
        for pod in sorted(pods, key=lambda p: (p.metadata.namespace or "", p.metadata.name or "")):
            patch = not_ready_patch(pod, stamp)
            if patch is None or pod.spec.node_name != name:
                continue
            try:
                self.ctx.client.patch_status(Pod, pod.metadata.name or "", patch, pod.metadata.namespace,
                                             patch_type="strategic")
            except NotFound:
                continue  # already deleted: nothing left to do (upstream skips it too)
            self.ctx.recorder.event(pod, *POD_EVENT)

    def _wire(self, taint: Taint) -> dict[str, Any]:
        out: dict[str, Any] = {"key": taint.key, "effect": taint.effect}
        if taint.value:
            out["value"] = taint.value
        if taint.time_added is not None:
            out["timeAdded"] = format_time(self.ctx.clock.to_datetime(taint.time_added))
        return out


class TaintEviction:
    """Per pod, the eviction work upstream's ``TimedWorkerQueue`` holds (``scheduled``: (created,
    fire at)); a request recomputes it (:func:`.taints.plan_eviction`) and comes back when it is due."""

    def __init__(self, ctx: ControllerContext) -> None:
        from kbatch.api.core_v1 import Node, Pod

        self.ctx, self.Node, self.Pod = ctx, Node, Pod
        self.scheduled: dict[tuple[str, str], Scheduled] = {}

    def _timeline(self, when: Any) -> float:
        return (when - self.ctx.clock.to_datetime(0)).total_seconds()

    def reconcile(self, request: Any) -> Any:
        from kbatch.runtime.reconcile import Result

        key = (request.namespace or "", request.name)
        try:
            pod = self.ctx.cache.get(self.Pod, request.name, request.namespace)
        except NotFound:
            self._cancel(key)  # handlePodUpdate: the pod is gone
            return None
        # a finished or terminating pod is evicted too: upstream checks neither phase nor deletion
        now = self.ctx.clock.now()
        work = self.scheduled.get(key)
        try:
            node = self.ctx.cache.get(self.Node, pod.spec.node_name or "")
        except NotFound:
            node = None  # upstream forgets the node's taints but keeps the pod's scheduled work
        if node is not None:
            taints = [taint_of(t, self._timeline) for t in node.spec.taints or ()]
            tolerations = tuple(toleration_of(t) for t in pod.spec.tolerations or ())
            planned = plan_eviction(taints, tolerations, now, work)
            if planned != work:  # upstream cancels the old work (with its event), then adds the new
                self._cancel(key)
                work = planned
                if work is not None:
                    self.scheduled[key] = work
        if work is None:
            return None
        if work[1] > now:
            return Result(requeue_after=work[1] - now)
        self.scheduled.pop(key, None)
        self._evict(pod)
        return None

    def _cancel(self, key: tuple[str, str]) -> None:
        """``cancelWorkWithEvent``: pending work dropped, with a ``Cancelling deletion`` event."""
        if self.scheduled.pop(key, None) is None:
            return
        namespace, name = key
        ref = ObjectRef("Pod", "v1", name, namespace or None, None)
        self.ctx.recorder.event(ref, "Normal", "TaintManagerEviction",
                                f"Cancelling deletion of Pod {namespace}/{name}")

    def _evict(self, pod: Any) -> None:
        """``addConditionAndDeletePod``: ``DisruptionTarget`` written unless already as wanted
        (``UpdatePodCondition``: a pod evicted before is not patched again), then a graceful delete."""
        name, namespace = pod.metadata.name, pod.metadata.namespace
        cond = with_observed_generation(
            {"type": "DisruptionTarget", "status": "True", "reason": EVICTION_REASON,
             "message": EVICTION_MESSAGE, "lastTransitionTime": format_time(self.ctx.clock.now_datetime())},
            pod.metadata.generation)
        try:
            patch = condition_patch(pod, cond)
            if patch is not None:
                self.ctx.client.patch_status(self.Pod, name, patch, namespace, patch_type="strategic")
            self.ctx.recorder.event(pod, "Normal", "TaintManagerEviction",
                                    f"Marking for deletion Pod {namespace}/{name}")
            self.ctx.client.delete(self.Pod, name, namespace)
        except NotFound:
            return
