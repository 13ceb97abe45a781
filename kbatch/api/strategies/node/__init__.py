"""RuntimeClass strategy: validation and the update rules of upstream (docs/runtimeclass.md).

Upstream (Kubernetes 1.37): ``pkg/registry/node/runtimeclass/strategy.go`` (cluster-scoped, no status,
no generation, no defaulting; ``AllowUnconditionalUpdate`` false; ``ValidateUpdate`` is the create
validation plus the update rules) and ``pkg/apis/node/validation/validation.go``
(``ValidateRuntimeClass``: ``handler`` a DNS label; ``overhead.podFixed`` checked as a container's
``limits`` by ``ValidateResourceRequirements``, so its errors sit under ``overhead.limits``;
``scheduling.nodeSelector`` as labels; ``scheduling.tolerations`` as a pod's;
``ValidateRuntimeClassUpdate``: ``handler`` is immutable). Messages are upstream's.
"""

from __future__ import annotations

from kbatch.api.core_v1.common import ResourceRequirements
from kbatch.api.errors import FieldError
from kbatch.api.node_v1 import RuntimeClass, Scheduling
from kbatch.api.strategies.core.scheduling_validation import validate_tolerations
from kbatch.api.strategy import DefaultStrategy
from kbatch.api.validation import (
    child,
    is_dns1123_label,
    validate_immutable,
    validate_labels,
    validate_resource_requirements,
)

__all__ = ["RuntimeClassStrategy", "validate_runtime_class"]


def _scheduling_errors(scheduling: Scheduling, path: str) -> list[FieldError]:
    errs = validate_labels(scheduling.node_selector, child(path, "nodeSelector"))
    return errs + validate_tolerations(scheduling.tolerations, child(path, "tolerations"))


def validate_runtime_class(rc: RuntimeClass) -> list[FieldError]:
    """``ValidateRuntimeClass`` without the metadata checks (the API server runs those)."""
    errs = [FieldError.invalid("handler", rc.handler, m) for m in is_dns1123_label(rc.handler)]
    if rc.overhead is not None:
        limits = ResourceRequirements(limits=rc.overhead.pod_fixed)
        errs += validate_resource_requirements(limits, "overhead")
    if rc.scheduling is not None:
        errs += _scheduling_errors(rc.scheduling, "scheduling")
    return errs


class RuntimeClassStrategy(DefaultStrategy):
    has_status = False
    has_generation = False
    allow_unconditional_update = False

    def validate(self, obj: RuntimeClass) -> list[FieldError]:  # type: ignore[override]
        return validate_runtime_class(obj)

    def validate_update(self, new: RuntimeClass,  # type: ignore[override]
                        old: RuntimeClass) -> list[FieldError]:
        return validate_immutable(new.handler, old.handler, "handler")

    def spec_changed(self, new: RuntimeClass, old: RuntimeClass) -> bool:  # type: ignore[override]
        return False
