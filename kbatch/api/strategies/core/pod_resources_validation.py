"""Pod-level resources validation (KEP-2837, PodLevelResources, beta and on by default since 1.34):
``validatePodResources`` and ``validatePodResourceConsistency`` of kubernetes
``pkg/apis/core/validation/validation.go``, for a defaulted spec (pod-level requests may have been
defaulted from the containers or from pod-level limits, see ``pod_defaults``).
"""

from __future__ import annotations

from kbatch.api.core_v1 import PodSpec, ResourceRequirements
from kbatch.api.errors import FieldError
from kbatch.api.quantity import Quantity
from kbatch.api.strategies.core.pod_defaults import aggregate_container_resources
from kbatch.api.validation import (
    child,
    index,
    is_hugepage_resource_name,
    is_supported_pod_level_resource,
    key,
    validate_resource_requirements,
)

__all__ = ["validate_pod_resources"]

_SUPPORTED = ["cpu", "hugepages-", "memory"]  # SupportedPodLevelResources, sorted as upstream lists it
_NO_CLAIMS = "claims cannot be set for Resources at pod-level"
_AT_LEAST = "must be greater than or equal to"


def validate_pod_resources(spec: PodSpec, path: str) -> list[FieldError]:
    """Pod-level ``spec.resources`` (``validatePodResources``, pkg/apis/core/validation; KEP-2837):
    no claims; only cpu, memory and hugepages, with the container rules for values (non-negative,
    requests <= limits, hugepages need cpu or memory); then ``validatePodResourceConsistency``."""
    res = spec.resources
    if res is None:
        return []
    errs: list[FieldError] = []
    if res.claims:
        errs.append(FieldError.forbidden(child(path, "claims"), _NO_CLAIMS))
    supported: dict[str, dict[str, Quantity]] = {}
    for field in ("limits", "requests"):
        values = getattr(res, field) or {}
        for name in sorted(values):
            if not is_supported_pod_level_resource(name):
                errs.append(FieldError.not_supported(key(child(path, field), name), name, _SUPPORTED))
        supported[field] = {n: q for n, q in values.items() if is_supported_pod_level_resource(n)}
    own = ResourceRequirements.model_construct(limits=supported["limits"], requests=supported["requests"])
    errs += validate_resource_requirements(own, path)
    return errs + _pod_resource_consistency(spec, path)


def _pod_resource_consistency(spec: PodSpec, path: str) -> list[FieldError]:
    """``validatePodResourceConsistency``: a pod-level request covers the containers' total
    (init/sidecar rule) of that resource, a pod-level hugepage limit the containers' total limit,
    and no regular container's limit exceeds the pod-level limit. Resources the pod level does not
    support (extended resources, ephemeral-storage) or does not request are the containers' own
    (kubernetes#130131 / #132551)."""
    res = spec.resources
    requests, limits = res.requests or {}, res.limits or {}  # type: ignore[union-attr]
    errs: list[FieldError] = []
    for name, total in sorted(aggregate_container_resources(spec, "requests").items()):
        pod = requests.get(name)
        if pod is not None and is_supported_pod_level_resource(name) and total.cmp(pod) > 0:
            errs.append(FieldError.invalid(key(child(path, "requests"), name), str(pod),
                                           f"{_AT_LEAST} aggregate container requests of {total}"))
    for name, total in sorted(aggregate_container_resources(spec, "limits").items()):
        pod = limits.get(name)
        if pod is not None and is_hugepage_resource_name(name) and total.cmp(pod) > 0:
            errs.append(FieldError.invalid(key(child(path, "limits"), name), str(pod),
                                           f"{_AT_LEAST} aggregate container limits of {total}"))
    for i, c in enumerate(spec.containers):
        for name, limit in sorted(((c.resources.limits or {}) if c.resources is not None else {}).items()):
            pod = limits.get(name)
            if pod is not None and limit.cmp(pod) > 0:
                at = child(key(index(child(path, "containers"), i), name), "limits")  # upstream's path
                detail = f"must be less than or equal to pod limits of {pod}"
                errs.append(FieldError.invalid(at, str(limit), detail))
    return errs
