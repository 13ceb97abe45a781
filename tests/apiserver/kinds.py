"""Small test-only kinds: a namespaced Widget (core group), a CRD-like Gadget, a Namespace and a
pod-shaped Pod, enough to exercise every server behaviour without the real core/v1 models."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo, KubeModel
from kbatch.api.errors import FieldError
from kbatch.api.meta import Condition, Resource
from kbatch.api.registry import Registry
from kbatch.api.strategy import DefaultStrategy


class Port(KubeModel):
    name: str | None = None
    container_port: int


class Env(KubeModel):
    name: str
    value: str | None = None


class Container(KubeModel):
    name: str
    image: str | None = None
    ports: list[Port] | None = None
    env: list[Env] | None = None


class WidgetSpec(KubeModel):
    size: int | None = None
    color: str | None = None
    containers: list[Container] | None = None
    tags: list[str] | None = None


class WidgetStatus(KubeModel):
    phase: str | None = None
    count: int | None = None
    conditions: list[Condition] | None = None


class Widget(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo("", "v1", "Widget", "widgets", True, short_names=("wd",))
    spec: WidgetSpec | None = None
    status: WidgetStatus | None = None


class WidgetStrategy(DefaultStrategy):
    def default(self, obj: Widget) -> None:  # type: ignore[override]
        if obj.spec is not None and obj.spec.color is None:
            obj.spec.color = "blue"

    def validate(self, obj: Widget) -> list[FieldError]:  # type: ignore[override]
        errs = []
        if obj.spec is not None and obj.spec.size is not None and obj.spec.size < 0:
            errs.append(FieldError.invalid("spec.size", obj.spec.size, "must be greater than or equal to 0"))
        return errs

    def validate_update(self, new: Widget, old: Widget) -> list[FieldError]:  # type: ignore[override]
        if (new.spec and new.spec.color) != (old.spec and old.spec.color):
            return [FieldError.invalid("spec.color", new.spec and new.spec.color, "field is immutable")]
        return []


class Gadget(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo("example.kbatch.io", "v1", "Gadget", "gadgets", True)
    spec: WidgetSpec | None = None
    status: WidgetStatus | None = None


class NamespaceStatus(KubeModel):
    phase: str | None = None


class Namespace(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo("", "v1", "Namespace", "namespaces", False, short_names=("ns",))
    status: NamespaceStatus | None = None


class NamespaceStrategy(DefaultStrategy):
    def prepare_for_create(self, obj: Namespace) -> None:  # type: ignore[override]
        obj.status = NamespaceStatus(phase="Active")


class PodSpec(KubeModel):
    node_name: str | None = None
    termination_grace_period_seconds: int | None = None
    containers: list[Container] | None = None


class PodStatus(KubeModel):
    phase: str | None = None
    pod_ip: str | None = Field(default=None, alias="podIP")


class Pod(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo("", "v1", "Pod", "pods", True, short_names=("po",))
    spec: PodSpec | None = None
    status: PodStatus | None = None


def make_registry(*, namespaces: bool = True) -> Registry:
    registry = Registry()
    if namespaces:
        registry.register(Namespace, NamespaceStrategy())
    registry.register(Widget, WidgetStrategy())
    registry.register(Gadget)
    registry.register(Pod)
    return registry
