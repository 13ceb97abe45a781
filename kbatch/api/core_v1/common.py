"""Small core/v1 types shared by several kinds (k8s.io/api ``core/v1/types.go``).

Enum-like fields are plain ``str``: bad values are reported by the strategies as upstream's
``Unsupported value`` field errors, not as decode errors. Scalars that Go serializes without
``omitempty`` default to their zero value (``""``, ``0``, ``false``) exactly as Go prints them, so a
missing one is a validation error.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from kbatch.api.base import KubeModel, Time
from kbatch.api.quantity import Quantity

__all__ = [
    "IntOrString",
    "LocalObjectReference",
    "ObjectReference",
    "ResourceClaim",
    "ResourceList",
    "ResourceRequirements",
    "Taint",
    "Toleration",
    "TypedLocalObjectReference",
]

# intstr.IntOrString: JSON int stays int, JSON string stays string.
IntOrString = Annotated[int | str, Field(union_mode="left_to_right")]
# core/v1 ResourceList: resource name -> quantity.
ResourceList = dict[str, Quantity]


class ObjectReference(KubeModel):
    kind: str | None = None
    namespace: str | None = None
    name: str | None = None
    uid: str | None = None
    api_version: str | None = None
    resource_version: str | None = None
    field_path: str | None = None


class LocalObjectReference(KubeModel):
    name: str | None = None


class TypedLocalObjectReference(KubeModel):
    api_group: str | None = None
    kind: str
    name: str


class ResourceClaim(KubeModel):
    """A container's reference to one of the pod's ``resourceClaims`` (DRA)."""

    name: str = ""
    request: str | None = None


class ResourceRequirements(KubeModel):
    limits: ResourceList | None = None
    requests: ResourceList | None = None
    claims: list[ResourceClaim] | None = None


class Toleration(KubeModel):
    key: str | None = None
    operator: str | None = None  # Exists | Equal
    value: str | None = None
    effect: str | None = None  # NoSchedule | PreferNoSchedule | NoExecute
    toleration_seconds: int | None = None


class Taint(KubeModel):
    key: str = ""
    value: str | None = None
    effect: str = ""
    time_added: Time | None = None
