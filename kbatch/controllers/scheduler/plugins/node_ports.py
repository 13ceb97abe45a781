"""NodePorts (PreFilter + Filter): a pod's host ports must be free on the node.

Upstream ``pkg/scheduler/framework/plugins/nodeports/node_ports.go`` and ``HostPortInfo`` in
``pkg/scheduler/framework/types.go``:

* the ports considered are those with ``hostPort > 0`` of the containers and of sidecars (init
  containers with ``restartPolicy: Always``), ``pkg/scheduler/util`` ``GetHostPorts``; an empty
  hostIP means ``0.0.0.0`` and an empty protocol ``TCP`` (sanitized in :mod:`..convert`);
* PreFilter returns Skip for a pod without host ports (its Filter then never runs);
* a wanted (ip, protocol, port) conflicts with a used one of the same protocol and port when
  either ip is ``0.0.0.0`` or both are equal (``CheckConflict``);
* reason "node(s) didn't have free ports for the requested pod ports", code Unschedulable (so
  preemption may free the port).

Used ports are read from the pods on the node (assumed pods included), so what-if nodes built
for preemption need no extra bookkeeping.

Queueing hints (``EventsToRegister``, KEP-4247; host ports are immutable, so no Pod update): a
deleted bound pod whose host ports conflicted with the pod's (Pod Delete); any node added (Node
Add, no hint).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kbatch.controllers.scheduler.config import plugin_args
from kbatch.controllers.scheduler.events import (
    QUEUE,
    QUEUE_SKIP,
    ActionType,
    ClusterEventWithHint,
    QueueingHint,
    on_node,
    on_pod,
)
from kbatch.controllers.scheduler.framework import Code, CycleState, Status
from kbatch.controllers.scheduler.snapshot import NodeInfo, Snapshot
from kbatch.controllers.scheduler.types import HostPort, PodInfo

__all__ = ["ERR_PORTS", "NodePorts", "new", "ports_conflict"]

ERR_PORTS = "node(s) didn't have free ports for the requested pod ports"
BIND_ALL = "0.0.0.0"

_SKIP = Status(Code.SKIP, plugin="NodePorts")


def ports_conflict(want: HostPort, used: Iterable[HostPort]) -> bool:
    """Whether ``want`` collides with any of ``used`` (upstream ``HostPortInfo.CheckConflict``)."""
    for have in used:
        if have.port != want.port or have.protocol != want.protocol:
            continue
        if want.ip == BIND_ALL or have.ip == BIND_ALL or have.ip == want.ip:
            return True
    return False


class NodePorts:
    name = "NodePorts"
    node_static = False

    def pre_filter(self, state: CycleState, pod: PodInfo, snapshot: Snapshot) -> Status | None:
        return None if pod.host_ports else _SKIP

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        if not pod.host_ports:
            return None
        used = [port for other in node.pods.values() if other.key != pod.key for port in other.host_ports]
        if used and any(ports_conflict(want, used) for want in pod.host_ports):
            return Status.unschedulable(self.name, ERR_PORTS)
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            on_pod(ActionType.DELETE, after_pod_deleted),
            on_node(ActionType.ADD),
        ]


def after_pod_deleted(pod: PodInfo, old: PodInfo, new: None) -> QueueingHint:
    """Upstream ``isSchedulableAfterPodDeleted``: the deleted pod was bound and held a host port
    that conflicts with one the pod wants."""
    if not old.node_name or not old.host_ports:
        return QUEUE_SKIP
    return QUEUE if any(ports_conflict(want, old.host_ports) for want in pod.host_ports) else QUEUE_SKIP


def new(args: Mapping[str, Any], handle: Any) -> NodePorts:
    """The registry's factory: NodePorts takes no args."""
    plugin_args("NodePorts", args)
    return NodePorts()
