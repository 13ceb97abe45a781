"""Scheduling constraints in core/v1: node/pod (anti-)affinity and topology spread.

Upstream: k8s.io/api ``core/v1/types.go`` (Affinity, NodeAffinity, PodAffinityTerm,
TopologySpreadConstraint). Operators are plain strings, checked by validation. Scalars that Go
serializes without ``omitempty`` default to their zero value (``""``/``0``), as Go prints them, so a
missing one is reported by validation ("Required value") rather than by decoding.
"""

from __future__ import annotations

from kbatch.api.base import KubeModel
from kbatch.api.meta import LabelSelector

__all__ = [
    "Affinity",
    "NodeAffinity",
    "NodeSelector",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "PodAffinity",
    "PodAffinityTerm",
    "PodAntiAffinity",
    "PreferredSchedulingTerm",
    "TopologySpreadConstraint",
    "WeightedPodAffinityTerm",
]


class NodeSelectorRequirement(KubeModel):
    key: str = ""
    operator: str = ""  # In, NotIn, Exists, DoesNotExist, Gt, Lt
    values: list[str] | None = None


class NodeSelectorTerm(KubeModel):
    match_expressions: list[NodeSelectorRequirement] | None = None
    match_fields: list[NodeSelectorRequirement] | None = None


class NodeSelector(KubeModel):
    node_selector_terms: list[NodeSelectorTerm] | None = None


class PreferredSchedulingTerm(KubeModel):
    weight: int = 0
    preference: NodeSelectorTerm


class NodeAffinity(KubeModel):
    required_during_scheduling_ignored_during_execution: NodeSelector | None = None
    preferred_during_scheduling_ignored_during_execution: list[PreferredSchedulingTerm] | None = None


class PodAffinityTerm(KubeModel):
    label_selector: LabelSelector | None = None
    namespaces: list[str] | None = None
    topology_key: str = ""
    namespace_selector: LabelSelector | None = None
    match_label_keys: list[str] | None = None
    mismatch_label_keys: list[str] | None = None


class WeightedPodAffinityTerm(KubeModel):
    weight: int = 0
    pod_affinity_term: PodAffinityTerm


class PodAffinity(KubeModel):
    required_during_scheduling_ignored_during_execution: list[PodAffinityTerm] | None = None
    preferred_during_scheduling_ignored_during_execution: list[WeightedPodAffinityTerm] | None = None


class PodAntiAffinity(KubeModel):
    required_during_scheduling_ignored_during_execution: list[PodAffinityTerm] | None = None
    preferred_during_scheduling_ignored_during_execution: list[WeightedPodAffinityTerm] | None = None


class Affinity(KubeModel):
    node_affinity: NodeAffinity | None = None
    pod_affinity: PodAffinity | None = None
    pod_anti_affinity: PodAntiAffinity | None = None


class TopologySpreadConstraint(KubeModel):
    max_skew: int = 0
    topology_key: str = ""
    when_unsatisfiable: str = ""  # DoNotSchedule | ScheduleAnyway
    label_selector: LabelSelector | None = None
    min_domains: int | None = None
    node_affinity_policy: str | None = None  # Honor | Ignore
    node_taints_policy: str | None = None
    match_label_keys: list[str] | None = None
