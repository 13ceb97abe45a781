"""kueue.x-k8s.io/v1beta1: served, deprecated, converted to and from v1beta2 (the storage version).

Kueue v0.19 still serves v1beta1 (``served: true, storage: false``, ``deprecated: true``, warning
``This version is deprecated. Use v1beta2 instead.``) and converts both ways through its conversion
webhook. The models here are v1beta1's wire shape (for strict decoding of v1beta1 requests); the
conversions (:mod:`.conversion`) work on wire dicts, as a conversion webhook does.
"""

from kbatch.api.kueue_v1beta1.conversion import CONVERSIONS, DEPRECATION_WARNING, Conversion
from kbatch.api.kueue_v1beta1.models import (
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

__all__ = [
    "CONVERSIONS",
    "DEPRECATION_WARNING",
    "AdmissionCheck",
    "ClusterQueue",
    "Cohort",
    "Conversion",
    "LocalQueue",
    "MultiKueueCluster",
    "MultiKueueConfig",
    "ProvisioningRequestConfig",
    "ResourceFlavor",
    "Topology",
    "Workload",
    "WorkloadPriorityClass",
]
