"""The cluster as TAS sees it at a cycle's start: TAS flavors, their nodes, non-TAS and TAS usage.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/cache/scheduler/{tas_cache,tas_flavor,
tas_nodes_cache,tas_non_tas_pod_cache}.go`` and ``pkg/controller/tas/non_tas_usage_controller.go``:

* a TAS flavor is a ResourceFlavor with ``spec.topologyName`` whose Topology exists;
* its nodes carry the flavor's ``nodeLabels`` and a label for every Topology level
  (``NodeMatchesFlavor``); nodes not Ready or unschedulable are left out (the nodes cache drops them
  while ``SchedulerLibraryIntegration`` — alpha, off — is off);
* a node's free capacity is its allocatable less the requests of the pods bound to it that are not
  TAS pods (``belongsToNonTASCache``: a node name, not terminated, no topology annotation), one
  ``pods`` each;
* the TAS usage is that of the workloads holding quota with a topology assignment: per domain, the
  pod set's one-pod requests times the domain's count (``TASUsage``).

Upstream keeps these caches incrementally; kbatch reads them from the informers when a cycle first
needs a TAS flavor, so a cycle with no TAS flavor pays nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import Any

from kbatch.api.core_v1 import Node, Pod
from kbatch.api.errors import NotFound
from kbatch.api.kueue_v1beta1.topology import slices_to_domains
from kbatch.api.kueue_v1beta2 import ResourceFlavor, Topology, Workload
from kbatch.controllers.kueue.model.requests import pod_spec_requests
from kbatch.controllers.kueue.tas.request import is_tas_pod
from kbatch.controllers.kueue.tas.snapshot import TASFlavorSnapshot, TASNode
from kbatch.controllers.scheduler.convert import quantity_map

__all__ = [
    "assigned_pod_sets",
    "assignment_domains",
    "build_snapshot",
    "tas_flavor_levels",
    "workload_tas_usage",
]

# a pod set's TAS usage: its assignment's (values, count) domains and one pod's requests
PodSetUsage = tuple[list[tuple[tuple[str, ...], int]], dict[str, int]]


def tas_flavor_levels(cache: Any, flavor: ResourceFlavor | None) -> tuple[str, tuple[str, ...]] | None:
    """The flavor's Topology name and levels, when it is a TAS flavor whose Topology exists."""
    name = flavor.spec.topology_name if flavor is not None and flavor.spec is not None else None
    if not name:
        return None
    try:
        topology = cache.get(Topology, name)
    except NotFound:
        return None
    levels = topology.spec.levels if topology is not None and topology.spec is not None else None
    if not levels:
        return None
    return name, tuple(level.node_label or "" for level in levels)


def _ready(node: Node) -> bool:
    if node.spec is not None and node.spec.unschedulable:
        return False
    conditions = (node.status.conditions if node.status else None) or ()
    return any(c.type == "Ready" and c.status == "True" for c in conditions)


def _non_tas_usage(pods: Iterable[Pod]) -> dict[str, dict[str, int]]:
    """``nonTasUsageCache``: per node, the bound, running non-TAS pods' requests (and count)."""
    usage: dict[str, dict[str, int]] = {}
    for pod in pods:
        node = pod.spec.node_name if pod.spec else None
        phase = pod.status.phase if pod.status else None
        if not node or phase in ("Succeeded", "Failed") or is_tas_pod(pod):
            continue
        have = usage.setdefault(node, {})
        for res, q in {**pod_spec_requests(pod.spec), "pods": 1}.items():
            have[res] = have.get(res, 0) + q
    return usage


def build_snapshot(
    cache: Any, flavor: ResourceFlavor, topology: str, levels: tuple[str, ...]
) -> TASFlavorSnapshot:
    """The flavor's snapshot without TAS usage (:mod:`.admitted` adds it)."""
    labels = (flavor.spec.node_labels if flavor.spec else None) or {}
    nodes = []
    usage: dict[str, dict[str, int]] | None = None
    for node in cache.list(Node):
        node_labels = node.metadata.labels or {}
        if any(node_labels.get(k) != v for k, v in labels.items()) or any(
            k not in node_labels for k in levels
        ):
            continue
        if not _ready(node):
            continue
        if usage is None:
            usage = _non_tas_usage(cache.list(Pod))
        free = quantity_map((node.status.allocatable if node.status else None) or {})
        for res, q in usage.get(node.metadata.name or "", {}).items():
            free[res] = free.get(res, 0) - q
        taints = tuple(
            (t.key or "", t.value or "", t.effect or "")
            for t in (node.spec.taints if node.spec else None) or ()
        )
        nodes.append(TASNode(node.metadata.name or "", dict(node_labels), free, taints))
    tolerations = tuple(
        (t.key or "", t.operator or "Equal", t.value or "", t.effect or "")
        for t in (flavor.spec.tolerations if flavor.spec else None) or ()
    )
    return TASFlavorSnapshot(topology, levels, nodes, tolerations)


def assignment_domains(ta: Any) -> tuple[tuple[str, ...], list[tuple[tuple[str, ...], int]]]:
    """A v1beta2 ``topologyAssignment`` (model) as its levels and (values, count) domains."""
    decoded = slices_to_domains(ta.to_dict())
    return tuple(decoded["levels"]), [(tuple(d["values"]), int(d["count"] or 0)) for d in decoded["domains"]]


def workload_tas_usage(wl: Workload, flavor: str) -> list[PodSetUsage]:
    """Each pod set of ``wl`` admitted on ``flavor`` with a topology assignment: its domains and one
    pod's requests."""
    return [usage() for on, usage in assigned_pod_sets(wl) if flavor in on]


def assigned_pod_sets(wl: Workload) -> Iterator[tuple[tuple[str, ...], Callable[[], PodSetUsage]]]:
    """Each pod set of ``wl`` admitted with a topology assignment: its flavors (as named by the
    admission, resource by resource) and how to read its domains and one pod's requests (decoded
    only when asked)."""
    admission = wl.status.admission if wl.status else None
    spec_sets = (wl.spec.pod_sets if wl.spec else None) or []
    for i, psa in enumerate((admission.pod_set_assignments if admission else None) or ()):
        if psa.topology_assignment is None or i >= len(spec_sets):
            continue
        read = partial(_usage, psa.topology_assignment, spec_sets[i].template)
        yield tuple((psa.flavors or {}).values()), read


def _usage(ta: Any, template: Any) -> PodSetUsage:
    one = pod_spec_requests(template.spec) if template is not None and template.spec is not None else {}
    return assignment_domains(ta)[1], one
