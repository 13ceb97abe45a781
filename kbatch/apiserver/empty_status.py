"""The status kube-apiserver always serializes, even for an object that never had one.

In k8s.io/api every built-in kind with a status declares it as a struct, not a pointer
(``Status JobStatus `json:"status,omitempty"```), and Go's encoding/json never omits a struct, even
with ``omitempty``. So a Job created without a status reads back with ``"status": {}``, and a JSON
patch ``add /status/conditions`` works on it. The same holds for struct-typed fields *inside* a status:

* ``ServiceStatus.LoadBalancer LoadBalancerStatus`` → ``"status": {"loadBalancer": {}}``;
* ``NodeStatus.DaemonEndpoints NodeDaemonEndpoints`` (whose ``KubeletEndpoint DaemonEndpoint`` has
  ``Port int32 `json:"Port"```) and ``NodeStatus.NodeInfo NodeSystemInfo`` (ten strings without
  ``omitempty``) → ``{"daemonEndpoints": {"kubeletEndpoint": {"Port": 0}}, "nodeInfo": {"machineID":
  "", ...}}``.

kbatch's models keep an absent status absent (a client-side manifest round-trips as written); the API
server fills it in after the strategy ran on create and update (:func:`fill_status`), so what it
stores — and therefore every read, typed or raw — has upstream's shape. Pod and Namespace strategies
already set a status on create (phase ``Pending`` / ``Active``); Event and PriorityClass have none.
A strategy may provide ``fill_empty_status(obj)`` to do this for another kind. A filler changes no
status in place (it may be the stored object's, carried over by a main-resource update): it sets a
missing status, or fills a copy.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from kbatch.api.batch_v1 import CronJobStatus, JobStatus
from kbatch.api.core_v1 import (
    DaemonEndpoint,
    LoadBalancerStatus,
    NamespaceStatus,
    NodeDaemonEndpoints,
    NodeStatus,
    NodeSystemInfo,
    PodStatus,
    ServiceStatus,
)
from kbatch.api.meta import Resource
from kbatch.api.model_copy import alternatives, copy_model
from kbatch.api.policy_v1 import PodDisruptionBudgetStatus
from kbatch.apiserver.kinds import Kind

__all__ = ["STRUCT_STATUS_KINDS", "fill_status"]

Filler = Callable[[Any], None]


def _status_of(factory: type[Any]) -> Filler:
    """An empty status of the model's own status class (``factory`` names the built-in one)."""
    def fill(obj: Any) -> None:
        if obj.status is None:
            # (mypy does not see type[Any] as Hashable, as lru_cache wants)
            obj.status = _status_class(type(obj), factory)()  # type: ignore[arg-type]
    return fill


@functools.lru_cache(maxsize=256)
def _status_class(model: type[Any], default: type[Any]) -> type[Any]:
    alts = [a for a in alternatives(model.__pydantic_fields__["status"].annotation) if a is not type(None)]
    return alts[0] if len(alts) == 1 and isinstance(alts[0], type) else default


def _fill_service(obj: Any) -> None:
    if obj.status is None:
        obj.status = ServiceStatus()
    if obj.status.load_balancer is None:
        obj.status = copy_model(obj.status)  # it may be the stored object's (update.prepare_update)
        obj.status.load_balancer = LoadBalancerStatus()


def _fill_node(obj: Any) -> None:
    if obj.status is None:
        obj.status = NodeStatus()
    endpoints = obj.status.daemon_endpoints
    if endpoints is None or endpoints.kubelet_endpoint is None or obj.status.node_info is None:
        status = obj.status = copy_model(obj.status)  # it may be the stored object's (update.prepare_update)
        if status.daemon_endpoints is None:
            status.daemon_endpoints = NodeDaemonEndpoints()
        if status.daemon_endpoints.kubelet_endpoint is None:
            status.daemon_endpoints.kubelet_endpoint = DaemonEndpoint()
        if status.node_info is None:
            status.node_info = NodeSystemInfo()


# group_kind → filler, for the built-in kinds whose Go type has a struct-typed status.
_FILLERS: dict[str, Filler] = {
    "Pod": _status_of(PodStatus),
    "Namespace": _status_of(NamespaceStatus),
    "Node": _fill_node,
    "Service": _fill_service,
    "Job.batch": _status_of(JobStatus),
    "CronJob.batch": _status_of(CronJobStatus),
    "PodDisruptionBudget.policy": _status_of(PodDisruptionBudgetStatus),  # four counters without omitempty
}

STRUCT_STATUS_KINDS = frozenset(_FILLERS)


# Kind -> (its filler, whether the strategy declared it), resolved once per Kind (by identity; the
# Kind is kept so its id stays its own). Process-wide and bounded: APIServers come and go (tests
# make thousands), their Kinds with them.
_RESOLVED: dict[int, tuple[Kind, Filler | None, bool]] = {}
_MAX_RESOLVED = 512


def _filler_of(kind: Kind) -> tuple[Kind, Filler | None, bool]:
    hit = _RESOLVED.get(id(kind))
    if hit is not None and hit[0] is kind:
        return hit
    declared = getattr(kind.strategy, "fill_empty_status", None)
    filler = declared if declared is not None else _FILLERS.get(kind.info.group_kind)
    if len(_RESOLVED) >= _MAX_RESOLVED:
        _RESOLVED.clear()
    resolved = _RESOLVED[id(kind)] = (kind, filler, declared is not None)
    return resolved


def fill_status(kind: Kind, obj: Resource) -> None:
    """Give ``obj`` (in place) the status upstream would serialize for it, if its kind has one (a
    strategy's own ``fill_empty_status`` first; the table applies only to a model with a status)."""
    _, filler, declared = _filler_of(kind)
    if filler is not None and (declared or "status" in type(obj).__pydantic_fields__):
        filler(obj)
