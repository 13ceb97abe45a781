"""Parts several Kueue kinds share: quotas, resource groups, usage, fair sharing, the wire types.

Upstream: kubernetes-sigs/kueue ``apis/kueue/v1beta2/clusterqueue_types.go`` (``ResourceGroup``,
``FlavorQuotas``, ``ResourceQuota``, ``FlavorUsage``, ``ResourceUsage``) and
``fairsharing_types.go`` (``FairSharing``, ``FairSharingStatus``, ``AdmissionScope``), v0.19.2.
Enum-like fields are plain ``str`` so that any value decodes; the strategies reject bad ones with
the CRD's messages (:mod:`kbatch.api.strategies.kueue`).
"""

from __future__ import annotations

from kbatch.api.base import KubeModel
from kbatch.api.gotypes import Bool, Int32, Int64  # Go's scalar types, decoded strictly
from kbatch.api.quantity import Quantity

__all__ = [
    "GROUP",
    "VERSION",
    "AdmissionScope",
    "Bool",
    "FairSharing",
    "FairSharingStatus",
    "FlavorQuotas",
    "FlavorUsage",
    "Int32",
    "Int64",
    "ResourceGroup",
    "ResourceQuota",
    "ResourceUsage",
]

GROUP = "kueue.x-k8s.io"
VERSION = "v1beta2"


class ResourceQuota(KubeModel):
    """The quota of one resource of one flavor: ``nominalQuota``, optional borrowing/lending limits."""

    name: str | None = None
    nominal_quota: Quantity | None = None
    borrowing_limit: Quantity | None = None
    lending_limit: Quantity | None = None


class FlavorQuotas(KubeModel):
    name: str | None = None
    resources: list[ResourceQuota] | None = None


class ResourceGroup(KubeModel):
    """Resources covered together and the flavors providing them, in order of preference."""

    covered_resources: list[str] | None = None
    flavors: list[FlavorQuotas] | None = None


class ResourceUsage(KubeModel):
    name: str | None = None
    total: Quantity | None = None
    borrowed: Quantity | None = None


class FlavorUsage(KubeModel):
    name: str | None = None
    resources: list[ResourceUsage] | None = None


class FairSharing(KubeModel):
    """``weight`` (default 1; 0 means an infinite share)."""

    weight: Quantity | None = None


class FairSharingStatus(KubeModel):
    weighted_share: Int64 | None = None


class AdmissionScope(KubeModel):
    admission_mode: str | None = None  # UsageBasedAdmissionFairSharing | NoAdmissionFairSharing
