"""policy/v1: PodDisruptionBudget and Eviction (k8s.io/api ``policy/v1/types.go``).

A PodDisruptionBudget limits how many of the pods its ``selector`` picks may be down at once because
of *voluntary* disruptions (the eviction API, ``kubectl drain``, scheduler preemption prefers to spare
them). ``minAvailable`` and ``maxUnavailable`` are an int or a percent string and mutually exclusive
(validation: :mod:`kbatch.api.strategies.policy`). In policy/v1 an empty selector (``{}``) selects
every pod of the namespace; a missing one selects none (``LabelSelectorAsSelector``).

The status is written by the disruption controller (``kbatch.controllers.disruption``) and, for one
field (``disruptedPods``) and one decrement (``disruptionsAllowed``), by the eviction subresource.
Its four counters have no ``omitempty`` upstream, so they are plain ints that always serialize.

``Eviction`` is the body POSTed to ``pods/{name}/eviction``: it is not a stored kind, so it is not
registered (like ``Binding``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo, KubeModel, Time
from kbatch.api.core_v1 import IntOrString
from kbatch.api.meta import Condition, LabelSelector, Resource

if TYPE_CHECKING:
    pass

__all__ = [
    "ALWAYS_ALLOW",
    "DISRUPTION_ALLOWED",
    "DISRUPTION_BUDGET_CAUSE",
    "IF_HEALTHY_BUDGET",
    "INSUFFICIENT_PODS",
    "SUFFICIENT_PODS",
    "SYNC_FAILED",
    "UNHEALTHY_POD_EVICTION_POLICIES",
    "DeleteOptions",
    "DeletePreconditions",
    "Eviction",
    "PodDisruptionBudget",
    "PodDisruptionBudgetSpec",
    "PodDisruptionBudgetStatus",
]

# UnhealthyPodEvictionPolicyType (KEP-3017, GA in 1.31).
IF_HEALTHY_BUDGET = "IfHealthyBudget"
ALWAYS_ALLOW = "AlwaysAllow"
UNHEALTHY_POD_EVICTION_POLICIES = [ALWAYS_ALLOW, IF_HEALTHY_BUDGET]  # sorted, as validation lists them

# The status condition and its reasons (policy/v1 types.go constants).
DISRUPTION_ALLOWED = "DisruptionAllowed"
SYNC_FAILED = "SyncFailed"
SUFFICIENT_PODS = "SufficientPods"
INSUFFICIENT_PODS = "InsufficientPods"

# policyv1.DisruptionBudgetCause: the StatusCause type of a 429 from the eviction subresource.
DISRUPTION_BUDGET_CAUSE = "DisruptionBudget"


class PodDisruptionBudgetSpec(KubeModel):
    min_available: IntOrString | None = None
    selector: LabelSelector | None = None
    max_unavailable: IntOrString | None = None
    unhealthy_pod_eviction_policy: str | None = None  # IfHealthyBudget | AlwaysAllow; None = IfHealthyBudget


class PodDisruptionBudgetStatus(KubeModel):
    observed_generation: int | None = None
    disrupted_pods: dict[str, Time] | None = None
    disruptions_allowed: int = 0
    current_healthy: int = 0
    desired_healthy: int = 0
    expected_pods: int = 0
    conditions: list[Condition] | None = None


class PodDisruptionBudget(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="policy", version="v1", kind="PodDisruptionBudget", plural="poddisruptionbudgets",
        namespaced=True, short_names=("pdb",), singular="poddisruptionbudget", subresources=("status",),
    )

    spec: PodDisruptionBudgetSpec = Field(default_factory=PodDisruptionBudgetSpec)
    status: PodDisruptionBudgetStatus | None = None


class DeletePreconditions(KubeModel):
    uid: str | None = None
    resource_version: str | None = None


class DeleteOptions(KubeModel):
    """metav1.DeleteOptions as an Eviction carries it."""

    api_version: str | None = None
    kind: str | None = None
    grace_period_seconds: int | None = None
    preconditions: DeletePreconditions | None = None
    orphan_dependents: bool | None = None
    propagation_policy: str | None = None
    dry_run: list[str] | None = None
    ignore_store_read_error_with_cluster_breaking_potential: bool | None = None


class Eviction(Resource):
    """policy/v1 Eviction: ``metadata`` names the pod, ``deleteOptions`` is passed to the delete."""

    api_info: ClassVar[ApiInfo] = ApiInfo(group="policy", version="v1", kind="Eviction", plural="evictions",
                                          namespaced=True, subresources=())

    delete_options: DeleteOptions | None = None
