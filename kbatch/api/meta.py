"""Shared object metadata (k8s.io/apimachinery ``pkg/apis/meta/v1/types.go``) and the Resource base.

``ObjectMeta`` is what every object carries; ``Resource`` is the base of every top-level kind and
``ResourceList`` the ``<Kind>List`` envelope returned by list calls.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, ClassVar, Generic, TypeVar

from pydantic import Field, field_validator

from kbatch.api.base import ApiInfo, KubeModel, Time
from kbatch.api.gotypes import GoType

__all__ = [
    "Condition",
    "LabelSelector",
    "LabelSelectorRequirement",
    "ListMeta",
    "ManagedFieldsEntry",
    "ObjectMeta",
    "OwnerReference",
    "Resource",
    "ResourceList",
]


class OwnerReference(KubeModel):
    api_version: str
    kind: str
    name: str
    uid: str
    controller: bool | None = None
    block_owner_deletion: bool | None = None

    @property
    def group(self) -> str:
        """The API group of ``api_version`` (``batch/v1`` → ``batch``, ``v1`` → the core group ``""``),
        as apimachinery's ``schema.ParseGroupVersion`` reads it; the version is not part of it."""
        head, sep, _ = self.api_version.rpartition("/")
        return head if sep else ""


class ManagedFieldsEntry(KubeModel):
    manager: str | None = None
    operation: str | None = None
    api_version: str | None = None
    time: Time | None = None
    fields_type: str | None = None
    fields_v1: dict[str, Any] | None = Field(default=None, alias="fieldsV1")
    subresource: str | None = None


class ObjectMeta(KubeModel):
    name: str | None = None
    generate_name: str | None = None
    namespace: str | None = None
    self_link: str | None = None
    uid: str | None = None
    resource_version: str | None = None
    generation: int | None = None
    creation_timestamp: Time | None = None
    deletion_timestamp: Time | None = None
    deletion_grace_period_seconds: int | None = None
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None
    owner_references: list[OwnerReference] | None = None
    finalizers: list[str] | None = None
    managed_fields: list[ManagedFieldsEntry] | None = None

    def controller_ref(self) -> OwnerReference | None:
        """The owner reference with ``controller: true``, if any."""
        for ref in self.owner_references or ():
            if ref.controller:
                return ref
        return None


class ListMeta(KubeModel):
    self_link: str | None = None
    resource_version: str | None = None
    continue_: str | None = Field(default=None, alias="continue")
    remaining_item_count: int | None = None


class Condition(KubeModel):
    """metav1.Condition, the standard condition shape (KEP-1623).

    ``reason`` and ``message`` carry no ``omitempty`` upstream (apimachinery's
    ``pkg/apis/meta/v1/types.go``), so every condition is written with both, ``""`` when empty; the
    official Python client refuses a condition without ``message``. A ``null`` reads as ``""``, as
    Go's decoder leaves the string at its zero value.
    """

    type: str
    status: str  # "True" | "False" | "Unknown"
    observed_generation: int | None = None
    last_transition_time: Time | None = None
    reason: str = ""
    message: str = ""

    @field_validator("reason", "message", mode="before")
    @classmethod
    def _null_is_empty(cls, value: Any) -> Any:
        return "" if value is None else value


class LabelSelectorRequirement(KubeModel):
    go_type: ClassVar[GoType] = GoType("LabelSelectorRequirement", "v1")

    key: str
    # In, NotIn, Exists, DoesNotExist (checked by validation, not decoding)
    operator: Annotated[str, GoType("LabelSelectorOperator", "v1")]
    values: list[str] | None = None


class LabelSelector(KubeModel):
    """metav1.LabelSelector; matching lives in ``kbatch.api.selectors``."""

    go_type: ClassVar[GoType] = GoType("LabelSelector", "v1")
    match_labels: dict[str, str] | None = None
    match_expressions: list[LabelSelectorRequirement] | None = None


class Resource(KubeModel):
    """A top-level API object: ``apiVersion``, ``kind``, ``metadata`` plus the kind's own fields.

    Subclasses set ``api_info``; ``apiVersion`` and ``kind`` default from it.
    """

    api_info: ClassVar[ApiInfo]
    # a custom resource: paths its shared models have that its CRD's schema lacks (kbatch.api.crd_absent)
    crd_absent: ClassVar[tuple[str, ...]] = ()

    api_version: str = ""
    kind: str = ""
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)

    def model_post_init(self, context: Any, /) -> None:
        values = self.__dict__
        if values["api_version"] and values["kind"]:
            return  # every stored object: decoding pays one Python call, no more
        info = getattr(type(self), "api_info", None)
        if info is None:
            return
        if not self.api_version:
            self.api_version = info.api_version
        if not self.kind:
            self.kind = info.kind

    @property
    def name(self) -> str:
        return self.metadata.name or ""

    @property
    def namespace(self) -> str | None:
        return self.metadata.namespace

    @property
    def creation_time(self) -> datetime | None:
        return self.metadata.creation_timestamp


T = TypeVar("T", bound=Resource)


class ResourceList(KubeModel, Generic[T]):
    """``<Kind>List``: ``metadata`` (resourceVersion, continue) and ``items``."""

    api_version: str = "v1"
    kind: str = "List"
    metadata: ListMeta = Field(default_factory=ListMeta)
    items: list[T] = Field(default_factory=list)
