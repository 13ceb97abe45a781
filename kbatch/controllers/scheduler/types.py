"""The scheduler's own view of pods and nodes: small, immutable-ish values built once per object.

The plugins never look at API models: :mod:`kbatch.controllers.scheduler.convert` turns a Pod or
Node into a :class:`PodInfo` / :class:`NodeShape` once, and the hot path works on these (upstream
keeps ``framework.PodInfo`` and ``framework.NodeInfo`` for the same reason:
``pkg/scheduler/framework/types.go``).

Matching rules follow upstream:

* node selector requirements: ``k8s.io/component-helpers/scheduling/corev1/nodeaffinity``
  (In, NotIn, Exists, DoesNotExist, Gt, Lt; ``matchFields`` only on ``metadata.name``);
* tolerations: ``k8s.io/api/core/v1/toleration.go`` ``ToleratesTaint`` (empty key with Exists
  matches every key; empty effect matches every effect);
* label selectors: ``k8s.io/apimachinery/pkg/apis/meta/v1`` ``LabelSelectorAsSelector``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kbatch.api.go_int import parse_int
from kbatch.api.tolerations import tolerates

__all__ = [
    "HostPort",
    "LabelSelector",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "NodeShape",
    "PodAffinityTerm",
    "PodInfo",
    "SpreadConstraint",
    "Taint",
    "Toleration",
    "WeightedPodAffinityTerm",
    "WeightedTerm",
    "match_node_selector_terms",
]


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    effect: str
    value: str = ""
    time_added: float | None = None  # seconds on the clock's timeline (for tolerationSeconds)

    def __str__(self) -> str:  # upstream v1.Taint.ToString: "key=value:effect" / "key:effect"
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    def tolerates(self, taint: Taint) -> bool:
        return tolerates(self, taint)


@dataclass(frozen=True, slots=True)
class NodeSelectorRequirement:
    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, values: Mapping[str, str]) -> bool:
        op, present = self.operator, self.key in values
        if op == "In":
            return present and values[self.key] in self.values
        if op == "NotIn":
            return not present or values[self.key] not in self.values
        if op == "Exists":
            return present
        if op == "DoesNotExist":
            return not present
        if op in ("Gt", "Lt") and present and len(self.values) == 1:
            # labels.Requirement.Matches: both sides as strconv.ParseInt(v, 10, 64) reads them
            have, bound = parse_int(values[self.key]), parse_int(self.values[0])
            if have is None or bound is None:
                return False
            return have > bound if op == "Gt" else have < bound
        return False


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm:
    """Requirements ANDed; a term with no requirements matches nothing (upstream), nor does one with
    an expression ``labels.NewRequirement`` refuses (``unparseable``: nodeaffinity's ``parseErrs``)."""

    match_expressions: tuple[NodeSelectorRequirement, ...] = ()
    match_fields: tuple[NodeSelectorRequirement, ...] = ()
    unparseable: bool = False

    def matches(self, labels: Mapping[str, str], node_name: str) -> bool:
        if self.unparseable or (not self.match_expressions and not self.match_fields):
            return False
        if not all(r.matches(labels) for r in self.match_expressions):
            return False
        fields = {"metadata.name": node_name}
        return all(r.key == "metadata.name" and r.matches(fields) for r in self.match_fields)


def match_node_selector_terms(
    terms: tuple[NodeSelectorTerm, ...], labels: Mapping[str, str], name: str
) -> bool:
    """Terms are ORed."""
    return any(t.matches(labels, name) for t in terms)


@dataclass(frozen=True, slots=True)
class WeightedTerm:
    weight: int
    term: NodeSelectorTerm


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """metav1.LabelSelector; ``None`` (absent) selects nothing in affinity terms, ``{}`` everything."""

    match_labels: tuple[tuple[str, str], ...] = ()
    match_expressions: tuple[NodeSelectorRequirement, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        if any(labels.get(k) != v for k, v in self.match_labels):
            return False
        return all(r.matches(labels) for r in self.match_expressions)


@dataclass(frozen=True, slots=True)
class PodAffinityTerm:
    """A required (anti-)affinity term; ``namespaces`` empty means the pod's own namespace."""

    selector: LabelSelector | None
    topology_key: str
    namespaces: tuple[str, ...] = ()
    namespace_selector: LabelSelector | None = None

    def selects(self, owner_namespace: str, pod: PodInfo) -> bool:
        if self.selector is None:
            return False
        if self.namespace_selector is not None:
            # kbatch has no Namespace labels in the snapshot: an empty selector means all namespaces.
            selector = self.namespace_selector
            everything = not selector.match_labels and not selector.match_expressions
            in_ns = everything or pod.namespace in self.namespaces
        else:
            in_ns = pod.namespace in (self.namespaces or (owner_namespace,))
        return in_ns and self.selector.matches(pod.labels)


@dataclass(frozen=True, slots=True)
class WeightedPodAffinityTerm:
    """A preferred (weighted) pod affinity or anti-affinity term."""

    weight: int
    term: PodAffinityTerm


@dataclass(frozen=True, slots=True)
class SpreadConstraint:
    """A topologySpreadConstraint with upstream's defaults resolved (``podtopologyspread/common.go``:
    nil minDomains is 1, nil nodeAffinityPolicy is Honor, nil nodeTaintsPolicy is Ignore) and
    ``matchLabelKeys`` already merged into ``selector``."""

    max_skew: int
    topology_key: str
    when_unsatisfiable: str
    selector: LabelSelector | None
    min_domains: int = 1
    node_affinity_policy: str = "Honor"
    node_taints_policy: str = "Ignore"


@dataclass(frozen=True, slots=True)
class HostPort:
    """A container port with a hostPort, sanitized as upstream's ``HostPortInfo``: empty hostIP is
    ``0.0.0.0``, empty protocol is ``TCP``."""

    ip: str
    protocol: str
    port: int


@dataclass(slots=True, eq=False)
class PodInfo:
    """Everything the scheduler needs from a pod. ``requests`` is the effective request (max
    rule), ``nonzero_requests`` the same with scoring defaults; ``seq`` orders equal-priority
    pods by arrival (creationTimestamp has only second precision)."""

    namespace: str
    name: str
    uid: str = ""
    priority: int = 0
    creation: float = 0.0
    seq: int = 0
    labels: Mapping[str, str] = field(default_factory=dict)
    requests: Mapping[str, int] = field(default_factory=dict)
    nonzero_requests: Mapping[str, int] = field(default_factory=dict)
    node_name: str = ""
    node_selector: tuple[tuple[str, str], ...] = ()
    required_terms: tuple[NodeSelectorTerm, ...] | None = None
    preferred_terms: tuple[WeightedTerm, ...] = ()
    tolerations: tuple[Toleration, ...] = ()
    affinity: tuple[PodAffinityTerm, ...] = ()
    anti_affinity: tuple[PodAffinityTerm, ...] = ()
    preferred_affinity: tuple[WeightedPodAffinityTerm, ...] = ()
    preferred_anti_affinity: tuple[WeightedPodAffinityTerm, ...] = ()
    spread_constraints: tuple[SpreadConstraint, ...] = ()
    host_ports: tuple[HostPort, ...] = ()
    scheduling_gates: tuple[str, ...] = ()
    preemption_policy: str = "PreemptLowerPriority"
    scheduler_name: str = "default-scheduler"
    terminal: bool = False
    terminating: bool = False
    nominated_node: str = ""
    generation: int | None = None  # metadata.generation of the converted pod (spec changes bump it)
    # spec.resourceClaims as (name, resourceClaimName, resourceClaimTemplateName) and the claims
    # generated for the template ones (status.resourceClaimStatuses, (name, resourceClaimName)):
    # DRA; the first is part of the signature, the second is not (generated names differ per pod)
    resource_claims: tuple[tuple[str, str, str], ...] = ()
    claim_statuses: tuple[tuple[str, str], ...] = ()
    # spec.schedulingGroup.podGroupName of a pod with claims (PodGroup claims, KEP-5729); "" otherwise
    pod_group: str = ""
    # the claims the pod's volumes name, in volume order, as (claim name, generic ephemeral): a
    # ``persistentVolumeClaim`` volume's claimName, or ``<pod>-<volume>`` for an ``ephemeral`` one
    # (upstream ``ephemeral.VolumeClaimName``); VolumeBinding's input
    pvc_volumes: tuple[tuple[str, bool], ...] = ()
    # status.startTime on the clock's timeline (None: not started); preemption prefers evicting the
    # pods that started last (upstream ``util.GetPodStartTime``, ``MoreImportantPod``)
    start_time: float | None = None
    # only for a pod requesting some prefixed (extended) resource: its containers, init then regular,
    # as (name, short-lived init container, requests sorted by name); DynamicResources builds the
    # special claim of extended resources backed by DRA from them (KEP-5004)
    extended_containers: tuple[tuple[str, bool, tuple[tuple[str, int], ...]], ...] = ()
    # signature() computed once: the fields it reads are never reassigned after conversion
    _signature: object = field(default=..., init=False, repr=False)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def signature(self) -> tuple[object, ...] | None:
        """Pods with equal signatures get equal answers from every node-static plugin (upstream
        KEP-5598 "opportunistic batching" pod signatures); None when the pod has inter-pod
        terms or topology spread constraints, whose answers depend on other pods, or claims."""
        cached = self._signature
        if cached is not ...:
            return cached  # type: ignore[return-value]
        self._signature = signature = self._compute_signature()
        return signature

    def _compute_signature(self) -> tuple[object, ...] | None:
        if self.affinity or self.anti_affinity or self.spread_constraints or self.pvc_volumes:
            return None  # PVC volumes: VolumeBinding's answer depends on the claims and volumes
        return (
            tuple(sorted(self.requests.items())),
            tuple(sorted(self.nonzero_requests.items())),
            self.node_name,
            self.node_selector,
            self.required_terms,
            self.preferred_terms,
            self.tolerations,
            self.host_ports,
            self.preferred_affinity,
            self.preferred_anti_affinity,
            self.resource_claims,
        )


@dataclass(slots=True, eq=False)
class NodeShape:
    """The parts of a Node the scheduler reads: identity, labels, taints, capacity, readiness."""

    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    allocatable: Mapping[str, int] = field(default_factory=dict)
