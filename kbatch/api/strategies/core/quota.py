"""ResourceQuota strategy and validation.

Upstream (semantics only): kubernetes ``pkg/apis/core/validation/validation.go``
(``ValidateResourceQuota``, ``ValidateResourceQuotaSpec``, ``validateResourceQuotaScopes``,
``validateScopedResourceSelectorRequirement``, ``ValidateResourceQuotaUpdate``,
``ValidateResourceQuotaStatusUpdate``), ``pkg/apis/core/helper/helpers.go`` (standard quota
resources and scopes, ``IsResourceQuotaScopeValidForResource``) and
``pkg/registry/core/resourcequota/strategy.go`` (status reset on create, kept on spec updates).
Map entries are checked in sorted order (Go's map order is random; upstream's tests compare sets).
"""

from __future__ import annotations

from kbatch.api.core_v1.quota import ResourceQuota, ResourceQuotaSpec, ResourceQuotaStatus
from kbatch.api.errors import FieldError
from kbatch.api.meta import Resource
from kbatch.api.quantity import Quantity
from kbatch.api.strategy import DefaultStrategy
from kbatch.api.validation import FIELD_IMMUTABLE, child, is_qualified_name, key, validate_quantity_value

__all__ = [
    "POD_COMPUTE_RESOURCES",
    "STANDARD_SCOPES",
    "ResourceQuotaStrategy",
    "is_standard_quota_resource",
    "validate_quota_resource_name",
    "validate_resource_quota",
]

STANDARD_QUOTA_RESOURCES = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods",
    "services", "replicationcontrollers", "resourcequotas", "secrets", "persistentvolumeclaims",
    "configmaps", "services.nodeports", "services.loadbalancers",
})
STANDARD_SCOPES = ("Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass",
                   "CrossNamespacePodAffinity", "VolumeAttributesClass")
POD_COMPUTE_RESOURCES = frozenset({"cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu",
                                   "requests.memory"})
_EXISTS_ONLY = ("Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "CrossNamespacePodAffinity")
_EXISTS_ONLY_MSG = ("must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, "
                    "ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, "
                    "ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity")
_POD_SCOPES = ("Terminating", "NotTerminating", "NotBestEffort", "PriorityClass", "CrossNamespacePodAffinity")
_NOT_FOR_RESOURCE = "unsupported scope applied to resource"
_BAD_OPERATOR = "not a valid selector operator"
_CONFLICTS = (("BestEffort", "NotBestEffort"), ("Terminating", "NotTerminating"))
_CLASS_STORAGE = ".storageclass.storage.k8s.io/requests.storage"
_PVC_RESOURCES = frozenset({"persistentvolumeclaims", "requests.storage"})


def is_standard_quota_resource(name: str) -> bool:
    """``IsStandardQuotaResourceName``: the standard names and hugepages quotas."""
    return (name in STANDARD_QUOTA_RESOURCES or name.startswith("hugepages-")
            or name.startswith("requests.hugepages-"))


def scope_valid_for_resource(scope: str, resource: str) -> bool:
    """``IsResourceQuotaScopeValidForResource``."""
    if scope in _POD_SCOPES:
        return resource == "pods" or resource in POD_COMPUTE_RESOURCES
    if scope == "BestEffort":
        return resource == "pods"
    if scope == "VolumeAttributesClass":
        return resource in _PVC_RESOURCES or resource.endswith(_CLASS_STORAGE)
    return True


def validate_quota_resource_name(name: str, path: str) -> list[FieldError]:
    """``ValidateResourceQuotaResourceName``."""
    errs = [FieldError.invalid(path, name, m) for m in is_qualified_name(name)]
    if not errs and "/" not in name and not is_standard_quota_resource(name):
        errs.append(FieldError.invalid(path, name, "must be a standard resource for quota"))
    return errs


def _validate_list(values: dict | None, path: str) -> list[FieldError]:  # type: ignore[type-arg]
    errs: list[FieldError] = []
    for name in sorted(values or {}):
        errs += validate_quota_resource_name(name, key(path, name))
        errs += validate_quantity_value(name, values[name], key(path, name))  # type: ignore[index]
    return errs


def _validate_scopes(spec: ResourceQuotaSpec, path: str) -> list[FieldError]:
    scopes = spec.scopes or []
    if not scopes:
        return []
    errs: list[FieldError] = []
    at = child(path, "scopes")
    hard = sorted(spec.hard or {})
    for scope in scopes:
        if scope not in STANDARD_SCOPES:
            errs.append(FieldError.invalid(at, scopes, "unsupported scope"))
        for name in hard:
            if is_standard_quota_resource(name) and not scope_valid_for_resource(scope, name):
                errs.append(FieldError.invalid(at, scopes, _NOT_FOR_RESOURCE))
    for pair in _CONFLICTS:
        if all(s in scopes for s in pair):
            errs.append(FieldError.invalid(at, scopes, "conflicting scopes"))
    return errs


def _validate_scope_selector(spec: ResourceQuotaSpec, path: str) -> list[FieldError]:
    if spec.scope_selector is None:
        return []
    errs: list[FieldError] = []
    at = child(child(path, "scopeSelector"), "matchExpressions")
    hard = sorted(spec.hard or {})
    seen: set[str] = set()
    for req in spec.scope_selector.match_expressions or []:
        if req.scope_name not in STANDARD_SCOPES:
            errs.append(FieldError.invalid(child(at, "scopeName"), req.scope_name, "unsupported scope"))
        for name in hard:
            if is_standard_quota_resource(name) and not scope_valid_for_resource(req.scope_name, name):
                errs.append(FieldError.invalid(at, spec.scope_selector, _NOT_FOR_RESOURCE))
        if req.scope_name in _EXISTS_ONLY and req.operator != "Exists":
            errs.append(FieldError.invalid(child(at, "operator"), req.operator, _EXISTS_ONLY_MSG))
        if req.operator in ("In", "NotIn"):
            if not req.values:
                errs.append(FieldError.required(child(at, "values"), "must be at least one value when "
                                                "`operator` is 'In' or 'NotIn' for scope selector"))
        elif req.operator in ("Exists", "DoesNotExist"):
            if req.values:
                errs.append(FieldError.invalid(child(at, "values"), req.values, "must be no value when "
                                               "`operator` is 'Exist' or 'DoesNotExist' for scope selector"))
        else:
            errs.append(FieldError.invalid(child(at, "operator"), req.operator, _BAD_OPERATOR))
        seen.add(req.scope_name)
    for pair in _CONFLICTS:
        if all(s in seen for s in pair):
            errs.append(FieldError.invalid(at, spec.scopes, "conflicting scopes"))
    return errs


def validate_quota_spec(spec: ResourceQuotaSpec | None, path: str = "spec") -> list[FieldError]:
    """``ValidateResourceQuotaSpec``."""
    spec = spec or ResourceQuotaSpec()
    return (_validate_list(spec.hard, child(path, "hard")) + _validate_scopes(spec, path)
            + _validate_scope_selector(spec, path))


def validate_quota_status(status: ResourceQuotaStatus | None, path: str = "status") -> list[FieldError]:
    """``ValidateResourceQuotaStatus``: the names and values of ``hard`` and ``used``."""
    if status is None:
        return []
    return _validate_list(status.hard, child(path, "hard")) + _validate_list(status.used, child(path, "used"))


def validate_resource_quota(rq: ResourceQuota) -> list[FieldError]:
    return validate_quota_spec(rq.spec) + validate_quota_status(rq.status)


_CHECKED_FOR_LIMITS = ("cpu", "memory", "storage", "ephemeral-storage")


def request_over_limit_warnings(hard: dict[str, Quantity]) -> list[str]:
    """The strategy's ``WarningsOnCreate``: for cpu, memory, storage and ephemeral-storage, a
    ``requests.X`` (for cpu and memory also the bare name) above ``limits.X`` is warned about, not
    refused."""
    out = []
    for name in _CHECKED_FOR_LIMITS:
        request_name = f"requests.{name}"
        request = hard.get(request_name)
        if request is None and name in ("cpu", "memory") and name in hard:
            request_name, request = name, hard[name]
        limit = hard.get(f"limits.{name}")
        if request is not None and limit is not None and request.cmp(limit) > 0:
            out.append(f"ResourceQuota {request_name} ({request}) should be less than "
                       f"limits.{name} ({limit})")
    return out


class ResourceQuotaStrategy(DefaultStrategy):
    """``pkg/registry/core/resourcequota/strategy.go``: create clears status, a spec update keeps
    it, a status write keeps the spec; scopes are immutable; no ``metadata.generation``."""

    has_generation = False

    def fill_empty_status(self, obj: Resource) -> None:
        """``Status ResourceQuotaStatus`` is a struct: Go serializes ``"status": {}`` (empty_status)."""
        assert isinstance(obj, ResourceQuota)
        if obj.status is None:
            obj.status = ResourceQuotaStatus()

    def validate(self, obj: Resource) -> list[FieldError]:
        assert isinstance(obj, ResourceQuota)
        return validate_resource_quota(obj)

    def warnings_on_create(self, obj: Resource) -> list[str]:
        assert isinstance(obj, ResourceQuota)
        return request_over_limit_warnings((obj.spec.hard if obj.spec else None) or {})

    def validate_update(self, new: Resource, old: Resource) -> list[FieldError]:
        assert isinstance(new, ResourceQuota) and isinstance(old, ResourceQuota)
        new_scopes = set((new.spec.scopes if new.spec else None) or [])
        old_scopes = set((old.spec.scopes if old.spec else None) or [])
        if new_scopes != old_scopes:
            return [FieldError.invalid("spec.scopes", (new.spec.scopes if new.spec else None) or [],
                                       FIELD_IMMUTABLE)]
        return []

    def validate_status_update(self, new: Resource, old: Resource) -> list[FieldError]:
        assert isinstance(new, ResourceQuota)
        return validate_quota_status(new.status)
