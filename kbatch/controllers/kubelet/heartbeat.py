"""The kubelet's node heartbeat: one ``coordination.k8s.io/v1`` Lease per node, renewed in virtual time.

Upstream KEP-589 ("Efficient node heartbeats") and ``pkg/kubelet/nodelease`` (with
``k8s.io/component-helpers/apimachinery/lease``): each kubelet owns the Lease named after its node in
``kube-node-lease`` (holder = the node name, ``leaseDurationSeconds`` = ``nodeLeaseDurationSeconds``,
40 by default, owner reference = the Node, so the garbage collector deletes it with the node) and
sets its ``renewTime`` every renew interval, 25 % of the duration: 10 s. The node lifecycle
controller reads ``renewTime`` to tell a silent node.

The renewal is housekeeping (the controller is ``periodic``): it goes on forever, as upstream, but
does not keep ``advance --until-idle`` from ending.

A stopped kubelet (the Node annotation ``sim.kbatch.io/kubelet: stopped``, written by
:func:`kbatch.sim.faults.stop_kubelet`) renews nothing and runs no pod (the pod controller checks the
same annotation). When it starts again (:func:`kbatch.sim.faults.start_kubelet`) it renews at once
and, as a starting kubelet's first node status update, posts ``Ready=True`` reason ``KubeletReady``
with a fresh ``lastHeartbeatTime`` if the node is not Ready.

kube-node-lease is created when missing: upstream kube-apiserver's system-namespaces controller
creates it; kbatch's API server bootstraps only ``default`` and ``kube-system``.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.base import format_micro_time, format_time
from kbatch.api.errors import AlreadyExists, NotFound
from kbatch.sim.faults import KUBELET_ANNOTATION

__all__ = ["KUBELET_ANNOTATION", "NODE_LEASE_DURATION", "NodeHeartbeat", "kubelet_stopped"]

NODE_LEASE_DURATION = 40  # KubeletConfiguration nodeLeaseDurationSeconds
RENEW_FRACTION = 0.25  # pkg/kubelet/nodelease: renewInterval = 25% of the lease duration
HEALTHY_CONDITIONS = (  # type, status, reason, message (pkg/kubelet/nodestatus/setters.go)
    ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
)


def kubelet_stopped(node: Any) -> bool:
    return (node.metadata.annotations or {}).get(KUBELET_ANNOTATION) == "stopped"


class NodeHeartbeat:
    def __init__(self, ctx: Any) -> None:
        from kbatch.api.coordination_v1 import NODE_LEASE_NAMESPACE, Lease
        from kbatch.api.core_v1 import Node

        self.ctx, self.Node, self.Lease, self.namespace = ctx, Node, Lease, NODE_LEASE_NAMESPACE
        self.duration = int(ctx.options.get("node_lease_duration_seconds", NODE_LEASE_DURATION))
        self.renew_interval = self.duration * RENEW_FRACTION
        self._leases: set[str] = set()  # nodes whose Lease this kubelet created or renewed
        self._down: set[str] = set()  # nodes whose kubelet was seen stopped

    def reconcile(self, request: Any) -> Any:
        from kbatch.runtime.reconcile import Result

        try:
            node = self.ctx.cache.get(self.Node, request.name, readonly=True)
        except NotFound:
            self._leases.discard(request.name)
            self._down.discard(request.name)
            return None
        if kubelet_stopped(node):
            self._down.add(request.name)
            return None  # a stopped kubelet renews nothing: no timer either
        if request.name in self._down:
            self._down.discard(request.name)
            self._post_ready(node)
        self._renew(node)
        return Result(requeue_after=self.renew_interval)

    def _renew(self, node: Any) -> None:
        name, stamp = node.metadata.name, format_micro_time(self.ctx.clock.now_datetime())
        if name in self._leases:
            try:
                self.ctx.client.patch(self.Lease, name, {"spec": {"renewTime": stamp}}, self.namespace)
                return
            except NotFound:
                self._leases.discard(name)
        self._create(node, stamp)
        self._leases.add(name)

    def _create(self, node: Any, stamp: str) -> None:
        meta = node.metadata
        lease = self.Lease.model_validate({
            "metadata": {"name": meta.name, "namespace": self.namespace, "ownerReferences": [
                {"apiVersion": "v1", "kind": "Node", "name": meta.name, "uid": meta.uid}]},
            "spec": {"holderIdentity": meta.name, "leaseDurationSeconds": self.duration, "renewTime": stamp},
        })
        try:
            self.ctx.client.create(lease)
        except AlreadyExists:  # created before this kubelet (re)started: take it over
            self.ctx.client.patch(self.Lease, meta.name, {"spec": {"renewTime": stamp}}, self.namespace)
        except NotFound:  # no kube-node-lease namespace yet
            self._create_namespace()
            self.ctx.client.create(lease)

    def _create_namespace(self) -> None:
        from kbatch.api.core_v1 import Namespace

        try:
            self.ctx.client.create(Namespace.model_validate({"metadata": {"name": self.namespace}}))
        except AlreadyExists:
            return

    def _post_ready(self, node: Any) -> None:
        """A (re)started kubelet's first node status: ``Ready`` and the pressure conditions the node
        carries, as a healthy kubelet posts them (``pkg/kubelet/nodestatus/setters.go``)."""
        have = {c.type: c.status for c in (node.status.conditions if node.status else None) or ()}
        now = format_time(self.ctx.clock.now_datetime())
        items = [{"type": type_, "status": status, "reason": reason, "message": message,
                  "lastHeartbeatTime": now, "lastTransitionTime": now}
                 for type_, status, reason, message in HEALTHY_CONDITIONS
                 if have.get(type_) != status and (type_ == "Ready" or type_ in have)]
        if items:
            self.ctx.client.patch_status(self.Node, node.metadata.name, {"status": {"conditions": items}},
                                         patch_type="strategic")
