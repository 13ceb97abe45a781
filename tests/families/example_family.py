"""A small family written the way a new one is: its kind (model, strategy, printer, describer, GC
policy), a create-only review (a virtual resource: answered by a handler, never stored), an admission
plugin, a controller, a scheduler plugin and a feature gate, in one
:class:`~kbatch.families.Family` value. ``tests/families/test_new_family.py`` adds it to a control plane
with one registration, and checks that every part is live."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar

from kbatch.api.base import ApiInfo, KubeModel
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import FieldError, NotFound
from kbatch.api.features import FeatureSpec, Stage
from kbatch.api.meta import Resource
from kbatch.api.printing import AGE, NAME, Column, Obj, Printer, at, creation_age, name_of
from kbatch.api.strategy import DefaultStrategy
from kbatch.families import (
    AdmissionPlugin,
    ControllerSpec,
    Family,
    KindEntry,
    SchedulerPlugin,
    VirtualResource,
)

GATE = "ExampleAvoidance"


class GizmoSpec(KubeModel):
    avoid_node: str | None = None
    size: int | None = None


class GizmoStatus(KubeModel):
    seen: bool | None = None


class Gizmo(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo("example.kbatch.io", "v1", "Gizmo", "gizmos", True,
                                          short_names=("gz",))
    spec: GizmoSpec | None = None
    status: GizmoStatus | None = None


class GizmoStrategy(DefaultStrategy):
    def validate(self, obj: Gizmo) -> list[FieldError]:  # type: ignore[override]
        size = obj.spec.size if obj.spec else None
        return [FieldError.invalid("spec.size", size, "must be positive")] if size is not None and size <= 0 \
            else []


def _cells(obj: Obj, now: datetime) -> list[Any]:
    return [name_of(obj), at(obj, "spec", "avoidNode") or "<none>", creation_age(obj, now)]


PRINTER = Printer((NAME, Column("Avoid"), AGE), _cells)


def describe_gizmo(obj: Obj) -> list[tuple[str, str]]:
    return [("Avoid Node", at(obj, "spec", "avoidNode") or "<none>")]


def review_gizmo(call: Any) -> Obj:
    """The handler of ``GizmoReview`` (``kbatch.server.virtual.VirtualCall``): does the gizmo the
    review names exist in the review's namespace? The review comes back with its ``status``, as an
    upstream access review does (``pkg/registry/authorization/*/rest.go``)."""
    from kbatch.api.errors import BadRequest

    body = call.body if isinstance(call.body, dict) else {}
    name = (body.get("spec") or {}).get("name")
    if not isinstance(name, str) or not name:
        raise BadRequest("spec.name is required")
    info = call.backend.registry.for_model(Gizmo).info
    try:
        call.backend.get(info, call.namespace, name)
        exists = True
    except NotFound:
        exists = False
    return {**body, "status": {"exists": exists, "askedBy": call.user.name}}


REVIEW = VirtualResource("example.kbatch.io", "v1", "gizmoreviews", "GizmoReview", review_gizmo,
                         namespaced=True)


def install_labels(server: Any) -> None:
    """Admission: every Gizmo is labelled ``example.kbatch.io/admitted``."""
    def hook(request: Any) -> None:
        meta = request.obj.metadata
        meta.labels = {**(meta.labels or {}), "example.kbatch.io/admitted": "true"}

    server.admission.add_mutating(Gizmo, hook)


def setup_controller(ctx: Any) -> Any:
    """A controller that marks every Gizmo seen."""
    def reconcile(request: Any) -> None:
        try:
            gizmo = ctx.cache.get(Gizmo, request.name, request.namespace)
        except NotFound:
            return
        if not (gizmo.status and gizmo.status.seen):
            ctx.client.patch_status(Gizmo, request.name, {"status": {"seen": True}}, request.namespace)

    return ctx.build().for_(Gizmo).complete(reconcile)


class AvoidNode:
    """A Filter: pods labelled ``avoid=<node>`` do not go to that node (while the gate is on)."""

    name = "ExampleAvoidNode"
    node_static = True

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def filter(self, state: Any, pod: Any, node: Any) -> Any:
        from kbatch.controllers.scheduler import Status

        if self.enabled and pod.labels.get("avoid") == node.name:
            return Status.unresolvable(self.name, "node(s) avoided")
        return None


def new_avoid_node(args: Mapping[str, Any], handle: Any) -> AvoidNode:
    return AvoidNode(handle.features.enabled(GATE))


EXAMPLE = Family(
    name="example",
    description="a test family: Gizmo kind, GizmoReview, admission, controller, scheduler plugin, gate",
    kinds=(KindEntry(Gizmo, GizmoStrategy(), PRINTER, describe_gizmo, gc_policy="Foreground"),),
    virtual=(REVIEW,),
    admission=(AdmissionPlugin("GizmoLabels", install_labels),),
    controllers=(ControllerSpec("gizmo", "marks gizmos seen", setup_controller),),
    scheduler_plugins=(SchedulerPlugin("ExampleAvoidNode", new_avoid_node, multi_point=True),),
    feature_gates=(FeatureSpec(GATE, False, Stage.ALPHA),),
)

__all__ = ["EXAMPLE", "GATE", "REVIEW", "Gizmo", "Pod"]
