"""What Kueue's pod integration reads from and writes into a Pod: its labels, annotations,
scheduling gates, finalizer, role hash and group membership.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/pod/constants/constants.go``,
``pkg/controller/jobs/pod/pod_controller.go`` (``podSuspended``, ``isGated``, ``groupTotalCount``,
``isPodRunnableOrSucceeded``, ``prepare``) and ``pkg/util/pod/pod.go`` (``GenerateRoleHash``,
``SpecShape``, ``GetPodGroupName``, ``IsTerminated``).

The role hash groups the pods of a pod group into pod sets: the first 8 hex digits of SHA-256 over
the JSON of the admission-relevant part of the pod spec, encoded as Go's ``encoding/json`` encodes
``map[string]any`` (sorted keys, no spaces, ``null`` for absent values, ``<``/``>``/``&`` escaped);
struct values keep the field order of the Kubernetes types, which kbatch's models declare in the
same order. The upstream example (``pod_controller_test.go``: one container requesting 1 cpu →
``dc85db45``) is a test here.
"""

from __future__ import annotations

import hashlib
from typing import Any

from kbatch.api.core_v1 import Pod, PodSchedulingGate, PodTemplateSpec
from kbatch.api.go_int import NumError, go_parse_int
from kbatch.api.go_marshal import go_marshal
from kbatch.api.jobframework import PodSet, TopologySource
from kbatch.api.kueue_v1beta2.constants import QUEUE_LABEL
from kbatch.api.model_copy import copy_model

__all__ = [
    "ADMISSION_GATE",
    "GROUP_NAME",
    "GROUP_TOTAL_COUNT",
    "IS_GROUP_WORKLOAD",
    "MANAGED_LABEL",
    "POD_FINALIZER",
    "POD_INDEX_LABEL",
    "POD_INDEX_LABEL_ANNOTATION",
    "RETRIABLE_IN_GROUP",
    "ROLE_HASH",
    "SUSPENDED_BY_PARENT",
    "TOPOLOGY_GATE",
    "group_name",
    "group_total_count",
    "is_gated",
    "is_managed",
    "is_ready",
    "is_terminated",
    "pod_set",
    "role_hash",
    "runnable_or_succeeded",
    "suspended",
    "ungate",
]

MANAGED_LABEL = "kueue.x-k8s.io/managed"  # constants.ManagedByKueueLabelKey, value "true"
POD_FINALIZER = MANAGED_LABEL  # podconstants.PodFinalizer
ADMISSION_GATE = "kueue.x-k8s.io/admission"  # podconstants.SchedulingGateName
TOPOLOGY_GATE = "kueue.x-k8s.io/topology"  # kueue.TopologySchedulingGate (gate TopologyAwareScheduling)
POD_INDEX_LABEL = "kueue.x-k8s.io/pod-group-pod-index"  # kueue.PodGroupPodIndexLabel
POD_INDEX_LABEL_ANNOTATION = "kueue.x-k8s.io/pod-group-pod-index-label"  # …PodIndexLabelAnnotation
SUSPENDED_BY_PARENT = "kueue.x-k8s.io/pod-suspending-parent"
GROUP_NAME = "kueue.x-k8s.io/pod-group-name"  # label (and, WorkloadIdentifierAnnotations, annotation)
GROUP_TOTAL_COUNT = "kueue.x-k8s.io/pod-group-total-count"
GROUP_FAST_ADMISSION = "kueue.x-k8s.io/pod-group-fast-admission"
GROUP_SERVING = "kueue.x-k8s.io/pod-group-serving"
ROLE_HASH = "kueue.x-k8s.io/role-hash"
RETRIABLE_IN_GROUP = "kueue.x-k8s.io/retriable-in-group"
IS_GROUP_WORKLOAD = "kueue.x-k8s.io/is-group-workload"


def labels_of(pod: Any) -> dict[str, str]:
    return pod.metadata.labels or {}


def annotations_of(pod: Any) -> dict[str, str]:
    return pod.metadata.annotations or {}


def is_managed(pod: Any) -> bool:
    return labels_of(pod).get(MANAGED_LABEL) == "true"


def queue_of(pod: Any) -> str:
    return labels_of(pod).get(QUEUE_LABEL, "")


def group_name(pod: Any, identifier_annotations: bool = True) -> str:
    """``GetPodGroupName``: the annotation first (gate WorkloadIdentifierAnnotations), then the label."""
    if identifier_annotations:
        name = annotations_of(pod).get(GROUP_NAME, "")
        if name:
            return name
    return labels_of(pod).get(GROUP_NAME, "")


def group_total_count(pod: Any) -> tuple[int | None, str]:
    """``groupTotalCount``: the annotation's value, or ``(None, why)``."""
    text = annotations_of(pod).get(GROUP_TOTAL_COUNT)
    if text is None:
        return None, f"failed to extract '{GROUP_TOTAL_COUNT}' annotation"
    try:  # upstream strconv.Atoi, untrimmed (pkg/controller/jobs/pod/pod_controller.go)
        value = go_parse_int(text, func="Atoi")
    except NumError as err:
        return None, str(err)
    if value < 1:
        return None, (
            f"incorrect annotation value '{GROUP_TOTAL_COUNT}={text}': "
            "group total count should be greater than zero"
        )
    return value, ""


def phase(pod: Any) -> str:
    return (pod.status.phase if pod.status else None) or ""


def is_terminated(pod: Any) -> bool:
    return phase(pod) in ("Succeeded", "Failed")


def is_gated(pod: Any) -> bool:
    return any(g.name == ADMISSION_GATE for g in pod.spec.scheduling_gates or ())


def suspended(pod: Any) -> bool:
    """``podSuspended``: terminated, or still carrying Kueue's admission gate."""
    return is_terminated(pod) or is_gated(pod)


def is_ready(pod: Any) -> bool:
    """``hasPodReadyTrue``."""
    for c in (pod.status.conditions if pod.status else None) or ():
        if c.type == "Ready":
            return c.status == "True"
    return False


def runnable_or_succeeded(pod: Any) -> bool:
    """``isPodRunnableOrSucceeded``: not Failed, and not deleted before it reached a node."""
    if pod.metadata.deletion_timestamp is not None and not pod.spec.node_name:
        return False
    return phase(pod) != "Failed"


def pod_set(name: str, count: int, pod: Pod) -> PodSet:
    """``constructPodSet``: the pod's spec as the template; with TopologyAwareScheduling the topology
    request is read from the pod's own annotations, ranked by ``kueue.x-k8s.io/pod-group-pod-index``
    (pkg/controller/jobs/pod/pod_controller.go)."""
    source = TopologySource(annotations=dict(pod.metadata.annotations or {}), pod_index_label=POD_INDEX_LABEL)
    return PodSet(name, count, PodTemplateSpec(spec=copy_model(pod.spec)), topology=source)


def gate(pod: Pod, topology: bool) -> None:
    """Add Kueue's admission gate (and, with TopologyAwareScheduling, the topology gate)."""
    gates = list(pod.spec.scheduling_gates or ())
    names = {g.name for g in gates}
    for name in (ADMISSION_GATE, TOPOLOGY_GATE) if topology else (ADMISSION_GATE,):
        if name not in names:
            gates.append(PodSchedulingGate(name=name))
    pod.spec.scheduling_gates = gates


def ungate(pod: Pod, keep: tuple[str, ...]) -> None:
    """``prepare``'s gate removal: the admission gate, and the topology gate unless admission asked
    for it (``keep``: the pod set info's scheduling gates)."""
    drop = {ADMISSION_GATE} | ({TOPOLOGY_GATE} if TOPOLOGY_GATE not in keep else set())
    pod.spec.scheduling_gates = [g for g in pod.spec.scheduling_gates or () if g.name not in drop] or None


# --- role hash ---------------------------------------------------------------------------------------


def _containers_shape(containers: Any) -> list[dict[str, Any]] | None:
    if not containers:
        return None
    out = []
    for c in containers:
        requests = c.resources.requests if c.resources is not None else None
        out.append(
            {
                "ports": [p.to_dict() for p in c.ports] if c.ports else None,
                "resources": {"requests": _quantities(requests)},
            }
        )
    return out


def _dump(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, list):
        return [_dump(v) for v in value] if value else None
    if isinstance(value, dict):
        return dict(sorted(value.items())) or None
    return value.to_dict() if hasattr(value, "to_dict") else value


def _quantities(values: Any) -> dict[str, str] | None:
    return {k: values[k].canonical() for k in sorted(values)} if values else None


def spec_shape(spec: Any) -> dict[str, Any]:
    """``SpecShape``, keys sorted as Go sorts a map's (struct values keep their field order; label
    maps nested in structs keep their order, so hashes match upstream's for the common fields)."""
    shape: dict[str, Any] = {
        "initContainers": _containers_shape(spec.init_containers),
        "containers": _containers_shape(spec.containers),
        "nodeSelector": _dump(spec.node_selector),
        "affinity": _dump(spec.affinity),
        "tolerations": _dump(spec.tolerations),
        "runtimeClassName": spec.runtime_class_name,
        "priority": spec.priority,
        "topologySpreadConstraints": _dump(spec.topology_spread_constraints),
        "overhead": _quantities(spec.overhead),
        "resourceClaims": _dump(spec.resource_claims),
    }
    resources = getattr(spec, "resources", None)
    if resources is not None:
        shape["resources"] = _quantities(resources.requests)
    return dict(sorted(shape.items()))


def role_hash(pod: Any) -> str:
    """``getRoleHash``: the ``kueue.x-k8s.io/role-hash`` annotation, else ``GenerateRoleHash``."""
    given = annotations_of(pod).get(ROLE_HASH)
    if given:
        return given
    return hashlib.sha256(go_marshal({"spec": spec_shape(pod.spec)}).encode()).hexdigest()[:8]
