"""From API models to the scheduler's values: :class:`PodInfo` and :class:`NodeShape`, built once
per observed object version (the scheduler's only contact with pydantic models on its hot path).

Requests are upstream's ``PodRequests`` (:func:`~kbatch.api.pod_resources.pod_requests`):
containers by the init/sidecar rule, pod-level ``spec.resources.requests`` (KEP-2837) replacing cpu,
memory and hugepages, pod ``overhead`` added (``computePodResourceRequest`` in noderesources/fit.go).

Quantities become integers: ``cpu`` in millicores (rounded up), everything else in whole units
(rounded up), as upstream's ``framework.Resource`` does (``MilliValue`` / ``Value``).

Equal request maps and toleration tuples are shared between PodInfos (:func:`_shared`): a
PodInfo's maps are read only, and 100,000 pods of one template then hold one copy, not 100,000.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kbatch.api.pod_resources import CPU, ContainerRequests, effective_requests, pod_requests
from kbatch.api.selectors import node_requirement_parses
from kbatch.controllers.scheduler.types import (
    HostPort,
    LabelSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    NodeShape,
    PodAffinityTerm,
    PodInfo,
    SpreadConstraint,
    Taint,
    Toleration,
    WeightedPodAffinityTerm,
    WeightedTerm,
)

__all__ = ["node_selector_term", "node_shape", "pod_info", "pvc_volumes_of", "quantity_map", "taint_of",
           "toleration_of", "tolerations_of"]

_SHARED_LIMIT = 4096  # distinct values kept; the table starts again when full (values are immutable)
_shared_values: dict[object, Any] = {}
_NO_LABELS: Mapping[str, str] = {}  # shared by every PodInfo without labels: never mutated


def _shared(key: object, value: Any) -> Any:
    """The value already kept for ``key`` (equal to ``value``), else ``value``, now kept."""
    kept = _shared_values.get(key)
    if kept is None:
        if len(_shared_values) >= _SHARED_LIMIT:
            _shared_values.clear()
        kept = _shared_values[key] = value
    return kept


def _shared_map(values: dict[str, int]) -> dict[str, int]:
    return _shared(("map", *values.items()), values)  # items in order: iteration order is kept too


def quantity_map(resources: Mapping[str, Any] | None) -> dict[str, int]:
    out: dict[str, int] = {}
    for name, quantity in (resources or {}).items():
        out[name] = quantity.milli_value() if name == CPU else quantity.value()
    return out


def _container_requests(container: Any) -> dict[str, int]:
    res = container.resources
    if res is None:
        return {}
    # upstream defaulting: requests default to limits when only limits are given
    merged = dict(res.limits or {})
    merged.update(res.requests or {})
    return quantity_map(merged)


def _requirement(r: Any) -> NodeSelectorRequirement:
    return NodeSelectorRequirement(r.key, r.operator, tuple(r.values or ()))


def _term(t: Any) -> NodeSelectorTerm:
    exprs = t.match_expressions or ()
    return NodeSelectorTerm(
        tuple(_requirement(r) for r in exprs),
        tuple(_requirement(r) for r in t.match_fields or ()),
        unparseable=not all(node_requirement_parses(r.key, r.operator, r.values or ()) for r in exprs),
    )


def _selector(s: Any) -> LabelSelector | None:
    if s is None:
        return None
    return LabelSelector(
        tuple(sorted((s.match_labels or {}).items())),
        tuple(_requirement(r) for r in s.match_expressions or ()),
    )


node_selector_term = _term  # public: NodeAffinityArgs.addedAffinity is converted the same way


def _pod_term(t: Any) -> PodAffinityTerm:
    return PodAffinityTerm(_selector(t.label_selector), t.topology_key, tuple(t.namespaces or ()),
                           _selector(t.namespace_selector))


def _weighted_pod_terms(terms: Any) -> tuple[WeightedPodAffinityTerm, ...]:
    if not terms:
        return ()
    return tuple(WeightedPodAffinityTerm(t.weight, _pod_term(t.pod_affinity_term)) for t in terms or ())


def _spread_constraint(c: Any, labels: Mapping[str, str]) -> SpreadConstraint:
    """Upstream 1.34 merges ``matchLabelKeys`` into ``labelSelector`` in kube-apiserver at pod
    creation (KEP-3243, gate MatchLabelKeysInPodTopologySpreadSelectorMerge); kbatch's API server
    does too (``kbatch.api.strategies.core.pod_label_keys``); this covers pods stored before it
    did, and skips keys the selector already constrains, so a merged selector is not doubled. Keys
    the pod lacks are skipped; with no labelSelector there is nothing to merge into."""
    selector = _selector(c.label_selector)
    present = {r.key for r in selector.match_expressions} if selector is not None else set()
    extra = tuple(NodeSelectorRequirement(k, "In", (labels[k],)) for k in c.match_label_keys or ()
                  if k in labels and k not in present)
    if selector is not None and extra:
        selector = LabelSelector(selector.match_labels, selector.match_expressions + extra)
    return SpreadConstraint(
        max_skew=c.max_skew, topology_key=c.topology_key, when_unsatisfiable=c.when_unsatisfiable,
        selector=selector, min_domains=c.min_domains if c.min_domains is not None else 1,
        node_affinity_policy=c.node_affinity_policy or "Honor",
        node_taints_policy=c.node_taints_policy or "Ignore",
    )


def _host_ports(spec: Any) -> tuple[HostPort, ...]:
    """Ports with a hostPort > 0 of the containers and of sidecars (init containers with
    ``restartPolicy: Always``), as upstream ``pkg/scheduler/util`` ``GetHostPorts``."""
    inits = spec.init_containers
    if not inits and not any(c.ports for c in spec.containers):
        return ()
    sidecars = [c for c in inits or () if getattr(c, "restart_policy", None) == "Always"]
    return tuple(
        HostPort(p.host_ip or "0.0.0.0", p.protocol or "TCP", p.host_port)
        for c in [*sidecars, *spec.containers] for p in c.ports or () if (p.host_port or 0) > 0
    )


def toleration_of(t: Any) -> Toleration:
    return Toleration(t.key or "", t.operator or "Equal", t.value or "", t.effect or "", t.toleration_seconds)


def tolerations_of(items: Sequence[Any]) -> tuple[Toleration, ...]:
    key = tuple((t.key, t.operator, t.value, t.effect, t.toleration_seconds) for t in items)
    kept = _shared_values.get(key)
    return kept if kept is not None else _shared(key, tuple(map(toleration_of, items)))


def taint_of(t: Any, to_timeline: Any = None) -> Taint:
    added = to_timeline(t.time_added) if (to_timeline is not None and t.time_added is not None) else None
    return Taint(t.key, t.effect, t.value or "", added)


def _requests(spec: Any, containers: list[dict[str, int]],
              inits: list[ContainerRequests]) -> tuple[dict[str, int], dict[str, int]]:
    """The pod's requests and its scoring (non-zero) requests, shared (:func:`_shared_map`)."""
    level = spec.resources  # pod-level resources (KEP-2837)
    overhead = spec.overhead
    if level is None and not overhead:  # the usual pod: the containers alone
        return (_shared_map(effective_requests(containers, inits)),
                _shared_map(effective_requests(containers, inits, nonzero=True)))
    pod_level = quantity_map(level.requests) if level is not None and level.requests else None
    extra = quantity_map(overhead) if overhead else None
    return (_shared_map(pod_requests(containers, inits, pod_level, extra)),
            _shared_map(pod_requests(containers, inits, pod_level, extra, nonzero=True)))


def pod_info(pod: Any, seq: int = 0, creation: float = 0.0, start_time: float | None = None) -> PodInfo:
    spec, meta, status = pod.spec, pod.metadata, pod.status
    containers = [_container_requests(c) for c in spec.containers]
    inits = [ContainerRequests(_container_requests(c), getattr(c, "restart_policy", None) == "Always")
             for c in spec.init_containers or ()]
    requests, nonzero = _requests(spec, containers, inits)
    affinity = spec.affinity
    node_aff = affinity.node_affinity if affinity else None
    required = node_aff.required_during_scheduling_ignored_during_execution if node_aff else None
    preferred = node_aff.preferred_during_scheduling_ignored_during_execution if node_aff else None
    pod_aff = affinity.pod_affinity if affinity else None
    anti = affinity.pod_anti_affinity if affinity else None
    phase = status.phase if status else None
    labels = dict(meta.labels) if meta.labels else _NO_LABELS
    return PodInfo(
        namespace=meta.namespace or "",
        name=meta.name or "",
        uid=meta.uid or "",
        priority=spec.priority or 0,
        creation=creation,
        seq=seq,
        labels=labels,
        requests=requests,
        nonzero_requests=nonzero,
        node_name=spec.node_name or "",
        node_selector=tuple(sorted((spec.node_selector or {}).items())),
        required_terms=tuple(_term(t) for t in required.node_selector_terms or ()) if required else None,
        preferred_terms=tuple(WeightedTerm(p.weight, _term(p.preference)) for p in preferred or ()),
        tolerations=tolerations_of(spec.tolerations) if spec.tolerations else (),
        affinity=tuple(_pod_term(t) for t in (pod_aff.required_during_scheduling_ignored_during_execution
                                              if pod_aff else None) or ()),
        anti_affinity=tuple(_pod_term(t) for t in (anti.required_during_scheduling_ignored_during_execution
                                                   if anti else None) or ()),
        preferred_affinity=_weighted_pod_terms(
            pod_aff.preferred_during_scheduling_ignored_during_execution if pod_aff else None),
        preferred_anti_affinity=_weighted_pod_terms(
            anti.preferred_during_scheduling_ignored_during_execution if anti else None),
        spread_constraints=tuple(_spread_constraint(c, labels) for c in spec.topology_spread_constraints)
        if spec.topology_spread_constraints else (),
        host_ports=_host_ports(spec),
        scheduling_gates=tuple(g.name for g in spec.scheduling_gates or ()),
        preemption_policy=spec.preemption_policy or "PreemptLowerPriority",
        scheduler_name=spec.scheduler_name or "default-scheduler",
        terminal=phase in ("Succeeded", "Failed"),
        terminating=meta.deletion_timestamp is not None,
        nominated_node=(status.nominated_node_name if status else None) or "",
        generation=meta.generation,
        resource_claims=tuple((c.name, c.resource_claim_name or "", c.resource_claim_template_name or "")
                              for c in spec.resource_claims) if spec.resource_claims else (),
        claim_statuses=claim_statuses_of(status),
        pod_group=_claims_group(spec) if spec.resource_claims else "",
        pvc_volumes=pvc_volumes_of(meta.name or "", spec.volumes) if spec.volumes else (),
        start_time=start_time,
        extended_containers=_extended_containers(spec, containers, inits)
        if not requests.keys() <= _UNPREFIXED and any("/" in name for name in requests) else (),
    )


_UNPREFIXED = frozenset((CPU, "memory", "ephemeral-storage", "pods"))


def _extended_containers(
    spec: Any, containers: list[dict[str, int]], inits: list[ContainerRequests],
) -> tuple[tuple[str, bool, tuple[tuple[str, int], ...]], ...]:
    """The containers of a pod that requests a prefixed resource, as the DRA extended-resource
    mapping reads them (``PodInfo.extended_containers``)."""
    named = [(c.name or "", not i.restartable, i.requests) for c, i in zip(spec.init_containers or (), inits,
                                                                            strict=True)]
    named += [(c.name or "", False, r) for c, r in zip(spec.containers, containers, strict=True)]
    return tuple((name, short, tuple(sorted(reqs.items()))) for name, short, reqs in named)


def pvc_volumes_of(pod_name: str, volumes: Sequence[Any]) -> tuple[tuple[str, bool], ...]:
    """The claims a pod's volumes name: ``(claimName, False)`` for a ``persistentVolumeClaim``
    volume, ``(<pod>-<volume>, True)`` for a generic ephemeral one (``ephemeral.VolumeClaimName``)."""
    out = []
    for volume in volumes:
        if volume.persistent_volume_claim is not None:
            out.append((volume.persistent_volume_claim.claim_name or "", False))
        elif volume.ephemeral is not None:
            out.append((f"{pod_name}-{volume.name}", True))
    return tuple(out)


def claim_statuses_of(status: Any) -> tuple[tuple[str, str], ...]:
    """``status.resourceClaimStatuses`` as (claim name, ResourceClaim name) pairs."""
    if status is None or not status.resource_claim_statuses:
        return ()
    return tuple((c.name, c.resource_claim_name or "") for c in status.resource_claim_statuses)


def node_shape(node: Any) -> NodeShape:
    status = node.status
    allocatable = (status.allocatable or status.capacity) if status else None
    return NodeShape(
        name=node.metadata.name or "",
        labels=dict(node.metadata.labels or {}),
        taints=tuple(taint_of(t) for t in node.spec.taints or ()),
        unschedulable=bool(node.spec.unschedulable),
        allocatable=quantity_map(allocatable),
    )


def _claims_group(spec: Any) -> str:
    """The PodGroup of a pod with claims (``spec.schedulingGroup.podGroupName``): DynamicResources
    reads the group's claims (KEP-5729)."""
    group = spec.scheduling_group
    return (group.pod_group_name or "") if group is not None else ""
