"""Strategies for the core/v1 kinds (ConfigMap's in ``configmap.py``) and scheduling.k8s.io/v1 PriorityClass.

Workload kinds build on three functions: :func:`default_pod_spec` (pod template defaulting),
:func:`validate_pod_spec` and :func:`validate_pod_template_spec` (pod template validation).
"""

from __future__ import annotations

from kbatch.api.strategies.core.claim import PersistentVolumeClaimStrategy, validate_claim_spec
from kbatch.api.strategies.core.configmap import ConfigMapStrategy
from kbatch.api.strategies.core.kinds import (
    EventStrategy,
    NamespaceFinalizeStrategy,
    NamespaceStrategy,
    NodeStrategy,
    PriorityClassStrategy,
    ServiceStrategy,
)
from kbatch.api.strategies.core.pod import (
    PodStrategy,
    pod_qos_class,
    validate_pod_spec_update,
    validate_pod_status_update,
)
from kbatch.api.strategies.core.pod_defaults import (
    default_container,
    default_pod,
    default_pod_spec,
    image_pull_policy_for,
)
from kbatch.api.strategies.core.pod_validation import (
    validate_pod_spec,
    validate_pod_template_spec,
    validate_volumes,
)
from kbatch.api.strategies.core.podtemplate import PodTemplateStrategy
from kbatch.api.strategies.core.scheduling_validation import (
    validate_affinity,
    validate_taints,
    validate_tolerations,
    validate_topology_spread_constraints,
)
from kbatch.api.strategies.core.secret import SecretStrategy
from kbatch.api.strategies.core.serviceaccount import ServiceAccountStrategy

__all__ = [
    "ConfigMapStrategy",
    "EventStrategy",
    "NamespaceFinalizeStrategy",
    "NamespaceStrategy",
    "NodeStrategy",
    "PersistentVolumeClaimStrategy",
    "PodStrategy",
    "PodTemplateStrategy",
    "PriorityClassStrategy",
    "SecretStrategy",
    "ServiceAccountStrategy",
    "ServiceStrategy",
    "default_container",
    "default_pod",
    "default_pod_spec",
    "image_pull_policy_for",
    "pod_qos_class",
    "validate_affinity",
    "validate_claim_spec",
    "validate_pod_spec",
    "validate_pod_spec_update",
    "validate_pod_status_update",
    "validate_pod_template_spec",
    "validate_taints",
    "validate_tolerations",
    "validate_topology_spread_constraints",
    "validate_volumes",
]
