"""kueue.x-k8s.io strategies: what the API server does for Kueue's custom resources.

Kueue's kinds are CRDs, so the API server's part is the CRD's: structural defaulting, schema and
CEL validation (:mod:`.schema`, :mod:`.schemas`), the status subresource (a main-resource write keeps
the stored status, a status write keeps everything else) and ``metadata.generation`` (bumped by any
change but metadata, and status for kinds with a status subresource). Kueue's *webhooks*
(finalizers, the cross-field rules with ``pkg/webhooks`` messages) are admission plugins of the kueue
family (:mod:`kbatch.controllers.kueue.webhooks`), which run whatever controllers run.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.autoscaling_x_v1 import ProvisioningRequest
from kbatch.api.errors import FieldError
from kbatch.api.kueue_v1beta2 import (
    AdmissionCheck,
    ClusterQueue,
    Cohort,
    LocalQueue,
    MultiKueueCluster,
    MultiKueueConfig,
    ProvisioningRequestConfig,
    ResourceFlavor,
    Topology,
    Workload,
    WorkloadPriorityClass,
)
from kbatch.api.meta import Resource
from kbatch.api.multicluster_v1alpha1 import ClusterProfile
from kbatch.api.strategies.kueue import cluster_profile_schemas, provisioning_schemas, schemas
from kbatch.api.strategies.kueue.schema import Node, apply_defaults, validate, validate_transitions
from kbatch.api.strategy import CUSTOM_RESOURCE_STATUS_KEPT_META, DefaultStrategy

__all__ = ["KUEUE_STRATEGIES", "CRDStrategy", "strategy_for"]


class CRDStrategy(DefaultStrategy):
    """A custom resource's API strategy from its structural schema."""

    # kube-apiextensions-apiserver stores and serves unstructured JSON: a status never written is
    # absent (no Go struct to serialise as ``"status": {}``, unlike the built-in kinds)
    custom_resource = True
    status_kept_meta = CUSTOM_RESOURCE_STATUS_KEPT_META

    def __init__(self, schema: Node, has_status: bool = True) -> None:
        self.schema = schema
        self.has_status = has_status
        self._root_rules = Node("object", rules=schema.rules)  # the whole object's rules alone

    def default(self, obj: Resource) -> None:
        apply_defaults(self.schema, obj)

    def validate(self, obj: Resource) -> list[FieldError]:
        return validate(self.schema, obj)

    def validate_update(self, new: Resource, old: Resource) -> list[FieldError]:
        return validate_transitions(self.schema, new, old)

    def validate_status_update(self, new: Resource, old: Resource) -> list[FieldError]:
        """The status subtree and the rules on the whole object (which may read the status)."""
        status_node = self.schema.props.get("status")
        errs: list[FieldError] = []
        if status_node is not None:
            # ratcheted against the stored status (which passed the same schema when written):
            # what a status write did not change is not walked again
            errs += validate(
                status_node,
                getattr(new, "status", None),
                getattr(old, "status", None),
                path="status",
                has_old=True,
                ratchet=True,
            )
            errs += validate_transitions(
                status_node, getattr(new, "status", None), getattr(old, "status", None), "status"
            )
        root_only = self._root_rules
        errs += validate(root_only, new) + validate_transitions(root_only, new, old)
        return errs

    def __reduce__(self) -> tuple[Any, ...]:
        """A strategy is configuration, not state: a pickled control plane refers to it by its kind
        (the schemas hold predicates that pickle does not)."""
        for model, strategy in KUEUE_STRATEGIES.items():
            if strategy is self:
                return strategy_for, (model,)
        raise TypeError("only the registered Kueue strategies pickle")

    def spec_changed(self, new: Resource, old: Resource) -> bool:
        """CRDs bump the generation on any change outside metadata (and outside status when the kind
        has a status subresource)."""
        skip = {"metadata", "status"} if self.has_status else {"metadata"}
        skip |= {"api_version", "kind"}
        return any(
            getattr(new, name) != getattr(old, name) for name in type(new).model_fields if name not in skip
        )


KUEUE_STRATEGIES: dict[type[Resource], CRDStrategy] = {
    ResourceFlavor: CRDStrategy(schemas.RESOURCE_FLAVOR, has_status=False),
    ClusterQueue: CRDStrategy(schemas.CLUSTER_QUEUE),
    LocalQueue: CRDStrategy(schemas.LOCAL_QUEUE),
    Cohort: CRDStrategy(schemas.COHORT),
    Workload: CRDStrategy(schemas.WORKLOAD),
    WorkloadPriorityClass: CRDStrategy(schemas.WORKLOAD_PRIORITY_CLASS, has_status=False),
    AdmissionCheck: CRDStrategy(schemas.ADMISSION_CHECK),
    Topology: CRDStrategy(schemas.TOPOLOGY, has_status=False),
    ProvisioningRequestConfig: CRDStrategy(
        provisioning_schemas.PROVISIONING_REQUEST_CONFIG, has_status=False
    ),
    # not Kueue's: the cluster-autoscaler's CRD, served by kbatch's autoscaling family; a CRD all the same
    ProvisioningRequest: CRDStrategy(provisioning_schemas.PROVISIONING_REQUEST),
    MultiKueueCluster: CRDStrategy(schemas.MULTIKUEUE_CLUSTER),
    MultiKueueConfig: CRDStrategy(schemas.MULTIKUEUE_CONFIG, has_status=False),
    # the cluster inventory's CRD (kbatch's multicluster family), read by MultiKueue
    ClusterProfile: CRDStrategy(cluster_profile_schemas.CLUSTER_PROFILE),
}


def strategy_for(model: type[Resource]) -> Any:
    return KUEUE_STRATEGIES[model]
