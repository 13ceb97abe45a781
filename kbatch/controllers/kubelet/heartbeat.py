"""The kubelet's node heartbeat: one ``coordination.k8s.io/v1`` Lease per node, renewed in virtual time.

Upstream KEP-589 ("Efficient node heartbeats") and ``pkg/kubelet/nodelease`` (with
``k8s.io/component-helpers/apimachinery/lease``): each kubelet owns the Lease named after its node in
``kube-node-lease`` (holder = the node name, ``leaseDurationSeconds`` = ``nodeLeaseDurationSeconds``,
40 by default, owner reference = the Node, so the garbage collector deletes it with the node) and
sets its ``renewTime`` every renew interval, 25 % of the duration: 10 s. The node lifecycle
controller reads ``renewTime`` to tell a silent node.

The same controller posts the node status (:mod:`.nodestatus`, ``pkg/kubelet/kubelet_node_status.go``):
every ``nodeStatusUpdateFrequency`` (10 s, the renewal instants by default) it computes the node's
conditions and PATCHes them when they changed or when ``nodeStatusReportFrequency`` (5 min, plus a
one-time seeded jitter after a change or a start) has passed, refreshing their ``lastHeartbeatTime``.
Both run on their own clocks: a reconcile caused by a Node update (the kubelet's own post, another
writer's change) renews and posts nothing that is not due.

Renewals and reports are housekeeping (the controller is ``periodic``): they go on forever, as
upstream, but do not keep ``advance --until-idle`` from ending.

A stopped kubelet (the Node annotation ``sim.kbatch.io/kubelet: stopped``, written by
:func:`kbatch.sim.faults.stop_kubelet`) renews and posts nothing and runs no pod (the pod controller
checks the same annotation). When it starts again (:func:`kbatch.sim.faults.start_kubelet`) it renews
at once and posts its first node status: ``Ready=True`` reason ``KubeletReady`` and the pressure
conditions the node carries healthy, each with a fresh ``lastHeartbeatTime``.

The kubelet never creates kube-node-lease: the API server does (kube-apiserver's system-namespaces
controller, :meth:`kbatch.apiserver.namespaces.NamespaceLifecycle.ensure_system_namespaces`). While
it is missing the Lease create fails and is tried again at the next renewal, as upstream's lease
controller retries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kbatch.api.base import format_micro_time, format_time
from kbatch.api.errors import AlreadyExists, Forbidden, NotFound
from kbatch.controllers.kubelet.identity import NodeClients
from kbatch.controllers.kubelet.nodestatus import (
    EPSILON,
    HEALTHY,
    Reporting,
    frequencies,
    kubelet_view,
    report_due,
    status_items,
    transition_event,
)
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.events import ObjectRef
from kbatch.runtime.rng import derive
from kbatch.sim.faults import KUBELET_ANNOTATION

__all__ = ["KUBELET_ANNOTATION", "NODE_LEASE_DURATION", "NodeHeartbeat", "NodeRunChanged", "kubelet_stopped"]

NODE_LEASE_DURATION = 40  # KubeletConfiguration nodeLeaseDurationSeconds
RENEW_FRACTION = 0.25  # pkg/kubelet/nodelease: renewInterval = 25% of the lease duration


def kubelet_stopped(node: Any) -> bool:
    return (node.metadata.annotations or {}).get(KUBELET_ANNOTATION) == "stopped"


class NodeRunChanged:
    """Which Node events the pod controller needs (it reads a node's kubelet switch and ``Ready``
    status only): a heartbeat-only status post does not re-check every pod on the node."""

    def create(self, obj: Any) -> bool:
        return True

    def delete(self, obj: Any) -> bool:
        return True

    def update(self, old: Any, new: Any) -> bool:
        return (old.metadata.annotations != new.metadata.annotations
                or old.condition_status("Ready") != new.condition_status("Ready"))


@dataclass(slots=True)
class _Beat:
    """A running kubelet's clocks: the next Lease renewal and its node status reporting."""

    next_renew: float
    status: Reporting
    draws: int = 0  # jitter draws so far (each from its own derived stream)
    settled: str | None = None  # the node version last found to match the kubelet's view


class NodeHeartbeat:
    def __init__(self, ctx: ControllerContext) -> None:
        from kbatch.api.coordination_v1 import NODE_LEASE_NAMESPACE, Lease
        from kbatch.api.core_v1 import Node

        self.ctx, self.Node, self.Lease, self.namespace = ctx, Node, Lease, NODE_LEASE_NAMESPACE
        self.clients = NodeClients(ctx)  # each node's status and Lease are its kubelet's writes
        self.duration = int(ctx.options.get("node_lease_duration_seconds", NODE_LEASE_DURATION))
        self.renew_interval = self.duration * RENEW_FRACTION
        self.update_every, self.report_every = frequencies(ctx.options)
        # dicts used as ordered sets: a set of names would reach a saved image in hash-seed order
        self._leases: dict[str, None] = {}  # nodes whose Lease this kubelet created or renewed
        self._beats: dict[str, _Beat] = {}  # nodes whose kubelet runs
        self._down: dict[str, None] = {}  # nodes whose kubelet was seen stopped

    def reconcile(self, request: Any) -> Any:
        from kbatch.runtime.reconcile import Result

        name = request.name
        try:
            node = self.ctx.cache.get(self.Node, name)
        except NotFound:
            self._leases.pop(name, None)
            self._beats.pop(name, None)
            self._down.pop(name, None)
            return None
        if kubelet_stopped(node):
            self._down[name] = None
            self._beats.pop(name, None)
            return None  # a stopped kubelet renews and posts nothing: no timer either
        now = self.ctx.clock.now()
        beat = self._beats.get(name)
        if beat is None:
            beat = self._start(node, now)
        if now >= beat.next_renew - EPSILON:
            self._renew(node)
            beat.next_renew = now + self.renew_interval
        if now >= beat.status.next_sync - EPSILON:
            self._sync_status(node, beat, now)
            beat.status.next_sync = now + self.update_every
        return Result(requeue_after=max(min(beat.next_renew, beat.status.next_sync) - now, EPSILON))

    def _start(self, node: Any, now: float) -> _Beat:
        """A kubelet starts for ``node``: at the first sight of the node its registration counts as
        the first report; after a stop it posts its status at once (``lastStatusReportTime`` is
        zero in a new kubelet process)."""
        name = node.metadata.name
        beat = self._beats[name] = _Beat(now, Reporting(now + self.update_every, now))
        if name in self._down:
            self._down.pop(name, None)
            self._sync_status(node, beat, now, restarted=True)
        else:
            beat.status.delay = self._jitter(name, beat)
        return beat

    def _jitter(self, name: str, beat: _Beat) -> float:
        """``delayAfterNodeStatusChange``: uniform in [-0.5, 0.5] x the report frequency, from a
        stream of the node's own (seeded; independent of the order nodes are handled in)."""
        beat.draws += 1
        return self.report_every * (derive(self.ctx.rng, f"{name}/{beat.draws}").random() - 0.5)

    def _sync_status(self, node: Any, beat: _Beat, now: float, restarted: bool = False) -> None:
        """``tryUpdateNodeStatus``: post when the kubelet's view differs, after a start, or when the
        report is due."""
        reporting, version = beat.status, node.metadata.resource_version
        due = report_due(reporting, now, self.report_every)
        if version == beat.settled and not (due or restarted):
            return  # the node has not changed since it last matched the kubelet's view
        conditions = (node.status.conditions if node.status else None) or ()
        current = [(c.type, c.status, c.reason or "", c.message or "")
                   for c in conditions if c.type in HEALTHY]
        view = kubelet_view(current, restarted)
        # compared as sets: the kubelet's order (HEALTHY's) need not be the node's (KWOK posts Ready first)
        changed = restarted or set(view) != set(current)
        if not view or not (changed or due):
            beat.settled = version
            return
        stamp = format_time(self.ctx.clock.now_datetime())
        name = node.metadata.name
        patch = {"status": {"conditions": status_items(current, view, stamp)}}
        posted = self.clients(name).patch_status(self.Node, name, patch, patch_type="strategic")
        beat.settled = posted.metadata.resource_version  # it now carries the kubelet's view
        reporting.last_report = now
        reporting.delay = self._jitter(name, beat) if changed else 0.0
        self._record_transitions(name, current, view)

    def _record_transitions(self, name: str, current: list[Any], view: list[Any]) -> None:
        """``recordNodeStatusEvent``: "Node N status is now: E" on the node (upstream's node
        reference: kind Node, the node name as name and uid)."""
        before = {v[0]: v[1] for v in current}
        events = [e for v in view if (e := transition_event(before.get(v[0]), v)) is not None]
        if not events:
            return
        recorder = self.clients.recorder(name, host=name)
        ref = ObjectRef("Node", "", name, uid=name)
        for event in events:
            recorder.event(ref, "Normal", event, f"Node {name} status is now: {event}")

    def _renew(self, node: Any) -> None:
        name, stamp = node.metadata.name, format_micro_time(self.ctx.clock.now_datetime())
        if name in self._leases:
            try:
                self.clients(name).patch(self.Lease, name, {"spec": {"renewTime": stamp}}, self.namespace)
                return
            except NotFound:
                self._leases.pop(name, None)
        if self._create(node, stamp):
            self._leases[name] = None

    def _create(self, node: Any, stamp: str) -> bool:
        """Whether the node's Lease now exists (created or taken over)."""
        meta = node.metadata
        lease = self.Lease.model_validate({
            "metadata": {"name": meta.name, "namespace": self.namespace, "ownerReferences": [
                {"apiVersion": "v1", "kind": "Node", "name": meta.name, "uid": meta.uid}]},
            "spec": {"holderIdentity": meta.name, "leaseDurationSeconds": self.duration, "renewTime": stamp},
        })
        client = self.clients(meta.name)
        try:
            client.create(lease)
        except AlreadyExists:  # created before this kubelet (re)started: take it over
            client.patch(self.Lease, meta.name, {"spec": {"renewTime": stamp}}, self.namespace)
        except (NotFound, Forbidden):  # kube-node-lease missing or terminating: tried again next renewal
            return False
        return True
