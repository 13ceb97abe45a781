"""The scheduler-plugins PodGroup as kube-apiserver serves a CustomResourceDefinition: the CRD's
OpenAPI schema checks (``config/crd/bases/scheduling.x-k8s.io_podgroups.yaml``: ``minMember`` an
int32 of at least 1, ``scheduleTimeoutSeconds`` an int32, the status counts int32s), the ``status``
subresource (main writes keep the stored status, status writes keep the rest), generation bumped
on spec changes. Messages are the apiextensions-apiserver's schema errors
(``<path> in body should be greater than or equal to 1``)."""

from __future__ import annotations

from kbatch.api.errors import FieldError
from kbatch.api.scheduling_x_v1alpha1 import PodGroup
from kbatch.api.strategy import CUSTOM_RESOURCE_STATUS_KEPT_META, DefaultStrategy

__all__ = ["PodGroupStrategy", "validate_pod_group"]

_INT32 = (-(2**31), 2**31 - 1)


def _int32(value: int | None, path: str) -> list[FieldError]:
    if value is not None and not _INT32[0] <= value <= _INT32[1]:
        return [FieldError.invalid(path, value, f"{path} in body must be of type int32: \"integer\"")]
    return []


def validate_pod_group(pg: PodGroup) -> list[FieldError]:
    spec = pg.spec
    errs = _int32(spec.min_member, "spec.minMember") + _int32(spec.schedule_timeout_seconds,
                                                            "spec.scheduleTimeoutSeconds")
    if not errs and spec.min_member is not None and spec.min_member < 1:
        errs.append(FieldError.invalid("spec.minMember", spec.min_member,
                                       "spec.minMember in body should be greater than or equal to 1"))
    return errs


def _validate_status(pg: PodGroup) -> list[FieldError]:
    status = pg.status
    if status is None:
        return []
    errs: list[FieldError] = []
    for name, wire in (("running", "running"), ("succeeded", "succeeded"), ("failed", "failed")):
        errs += _int32(getattr(status, name), f"status.{wire}")
    return errs


class PodGroupStrategy(DefaultStrategy):
    status_kept_meta = CUSTOM_RESOURCE_STATUS_KEPT_META  # a CRD's status strategy

    def validate(self, obj: PodGroup) -> list[FieldError]:  # type: ignore[override]
        return validate_pod_group(obj) + _validate_status(obj)

    def validate_update(self, new: PodGroup, old: PodGroup) -> list[FieldError]:  # type: ignore[override]
        return self.validate(new)

    def validate_status_update(self, new: PodGroup, old: PodGroup) -> list[FieldError]:  # type: ignore[override]
        return self.validate(new)
