"""DRA device requests as Kueue counts them against quota (``KueueDRAIntegration``).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/dra/claims.go`` (``countDevicesPerClass``,
``GetResourceRequestsForResourceClaimTemplates``), ``pkg/dra/mapper.go`` (``ResourceMapper``: the
first mapping that names a DeviceClass wins) and ``pkg/workload/workload.go`` (``HasDRA``,
``HasResourceClaim``; ``totalRequestsFromPodSets`` adds the per-pod logical quantities to each pod
set's requests before multiplying by the pod count).

Only ResourceClaimTemplates count: a pod set naming a ResourceClaim directly makes the Workload
inadmissible (decided by the caller, :data:`CLAIMS_UNSUPPORTED`). In a template, every request must
be ``exactly`` with ``allocationMode: ExactCount``; its ``count`` devices of ``deviceClassName``
count as that many units of the DeviceClass's mapped resource. ``firstAvailable``, ``adminAccess``
and ``allocationMode: All`` are refused with upstream's field errors; a DeviceClass no mapping
names is refused (``Not found``). A template that cannot be read is an internal error (retried).
Between a template's request checks and its mapping, the caller's ``check`` matches its CEL
selectors against the cluster's devices (:mod:`.dra_devices`); extended resources backed by
DeviceClasses are :mod:`.dra_extended`'s. Everything here is pure: the caller passes the lookups.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from kbatch.api.core_v1 import PodResourceClaim
from kbatch.api.errors import FieldError, FieldErrorType
from kbatch.api.kueue_config_dra import DeviceClassMapping
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.resource_v1.claim import DeviceRequest, ResourceClaimSpec

__all__ = [
    "CLAIMS_REFUSED",
    "CLAIMS_UNSUPPORTED",
    "CLAIMS_UNSUPPORTED_REQUEUED",
    "DRA_DISABLED",
    "DRA_DISABLED_REFUSED",
    "DeviceCheck",
    "DraOutcome",
    "TemplateLookup",
    "count_devices_per_class",
    "has_dra",
    "has_resource_claim",
    "mapper",
    "requests_for_templates",
]

CLAIMS_UNSUPPORTED = "KueueDRAIntegration feature does not support use of resource claims"
CLAIMS_UNSUPPORTED_REQUEUED = "DRA resource claims not supported"
# KueueDRARejectWorkloadsWhenDRADisabled: the same sentence in both conditions
DRA_DISABLED = "Workload uses DRA resources but the KueueDRAIntegration feature gate is not enabled"

TemplateLookup = Callable[[str, str], "ResourceClaimSpec | None"]
"""``(namespace, name)`` → the template's claim spec, or ``None`` when there is no such template."""

DeviceCheck = Callable[[ResourceClaimSpec, str], "list[FieldError]"]
"""``(claim spec, pod claim path)`` → ``validateCELSelectorsAgainstDevices``' errors
(:mod:`kbatch.controllers.kueue.model.dra_devices`)."""

TEMPLATES = "resourceclaimtemplates.resource.k8s.io"


@dataclass(frozen=True, slots=True)
class DraOutcome:
    """What the DRA path makes of a Workload: per pod set name the logical resources one pod adds
    (``requests``) and the extended resource names those replace (``replaced``,
    :mod:`.dra_extended`), or why it is inadmissible: a ``refusal`` (the QuotaReserved and the Requeued
    messages: a ResourceClaim named directly, the gate off) or field ``errors`` (``retry`` when one
    is an internal error, which upstream retries with back-off)."""

    requests: dict[str, dict[str, int]] = field(default_factory=dict)
    errors: tuple[FieldError, ...] = ()
    refusal: tuple[str, str] | None = None
    replaced: dict[str, frozenset[str]] = field(default_factory=dict)  # extended resources

    @property
    def inadmissible(self) -> bool:
        return self.refusal is not None or bool(self.errors)

    @property
    def retry(self) -> bool:
        return any(e.type is FieldErrorType.INTERNAL for e in self.errors)

    @property
    def message(self) -> str:
        """The QuotaReserved message: ``ErrorList.ToAggregate().Error()`` (one error bare, several
        in brackets), or upstream's sentence for a ResourceClaim."""
        if self.refusal is not None:
            return self.refusal[0]
        texts = [str(e) for e in self.errors]
        return texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"

    @property
    def requeued_message(self) -> str:
        return self.refusal[1] if self.refusal is not None else self.message


CLAIMS_REFUSED = DraOutcome(refusal=(CLAIMS_UNSUPPORTED, CLAIMS_UNSUPPORTED_REQUEUED))
DRA_DISABLED_REFUSED = DraOutcome(refusal=(DRA_DISABLED, DRA_DISABLED))


def _claims(wl: Workload) -> Iterator[tuple[int, str, int, PodResourceClaim]]:
    for i, ps in enumerate((wl.spec.pod_sets if wl.spec else None) or ()):
        spec = ps.template.spec if ps.template else None
        for j, prc in enumerate((spec.resource_claims if spec else None) or ()):
            yield i, ps.name or "main", j, prc


def has_resource_claim(wl: Workload) -> bool:
    """``HasResourceClaim``: a pod set names a ResourceClaim directly."""
    return any(prc.resource_claim_name is not None for *_, prc in _claims(wl))


def has_dra(wl: Workload) -> bool:
    """``HasDRA``: a pod set names a ResourceClaim or a ResourceClaimTemplate. (Asked for every
    pending Workload the queues read: plain loops, no generator.)"""
    for ps in (wl.spec.pod_sets if wl.spec else None) or ():
        spec = ps.template.spec if ps.template else None
        if spec is not None and spec.resource_claims:
            for prc in spec.resource_claims:
                if prc.resource_claim_name is not None or prc.resource_claim_template_name is not None:
                    return True
    return False


def mapper(mappings: Iterable[DeviceClassMapping]) -> dict[str, str]:
    """``ResourceMapper.PopulateFromConfiguration``: DeviceClass → resource (first mapping wins)."""
    out: dict[str, str] = {}
    for m in mappings:
        for dc in m.device_class_names:
            out.setdefault(dc, m.name)
    return out


def _request_error(i: int, req: DeviceRequest) -> FieldError | None:
    path = f"devices.requests[{i}]"
    exactly = req.exactly
    if req.first_available is not None:
        return FieldError.invalid(path, None, "FirstAvailable device selection is not supported")
    if exactly is None:
        return FieldError.invalid(path, None, "Exactly must be set if FirstAvailable is nil")
    mode = exactly.allocation_mode or "ExactCount"  # the API default
    if exactly.admin_access:
        return FieldError.invalid(f"{path}.exactly.adminAccess", None, "AdminAccess is not supported")
    if mode == "All":
        return FieldError.invalid(
            f"{path}.exactly.allocationMode", "All", "AllocationMode 'All' is not supported"
        )
    if mode != "ExactCount":
        return FieldError.invalid(
            f"{path}.exactly.allocationMode", mode, f"unsupported allocation mode: {mode}"
        )
    return None


def count_devices_per_class(spec: ResourceClaimSpec | None) -> tuple[dict[str, int], FieldError | None]:
    """``countDevicesPerClass``: devices per DeviceClass in one claim spec, or the first request's
    error (relative to the claim spec: ``devices.requests[i]...``)."""
    out: dict[str, int] = {}
    for i, req in enumerate((spec.devices.requests if spec is not None else None) or ()):
        err = _request_error(i, req)
        if err is not None:
            return {}, err
        assert req.exactly is not None  # _request_error refused the rest
        dc = req.exactly.device_class_name
        if dc:
            count = req.exactly.count if req.exactly.count is not None else 1  # the API default
            out[dc] = out.get(dc, 0) + count
    return out, None


def _claim_path(i: int, j: int) -> str:
    return f"spec.podSets[{i}].template.spec.resourceClaims[{j}]"


def requests_for_templates(
    wl: Workload,
    lookup: TemplateLookup,
    mapping: dict[str, str],
    check: DeviceCheck | None = None,
    sourced: Callable[[str], bool] | None = None,
) -> DraOutcome:
    """``GetResourceRequestsForResourceClaimTemplates``: per pod set, the mapped resources of its
    templates' devices (summed over templates), or the first template's errors: its requests',
    then ``check``'s (its CEL selectors against the cluster's devices), then an unmapped class.
    A mapped class that is ``sourced`` (counter or capacity sources, their gate on) counts no
    devices here: :mod:`.dra_counters` and :mod:`.dra_capacity` charge it. DeviceClasses are
    checked in name order (upstream walks a map: which unmapped class it names first is random)."""
    namespace = wl.metadata.namespace or ""
    per_pod_set: dict[str, dict[str, int]] = {}
    for i, ps_name, j, prc in _claims(wl):
        name = prc.resource_claim_template_name
        if name is None:
            continue
        spec = lookup(namespace, name)
        if spec is None:
            detail = (
                f"failed to get claim spec for ResourceClaimTemplate {name} in podset {ps_name}: "
                f'{TEMPLATES} "{name}" not found'
            )
            return DraOutcome(errors=(FieldError(FieldErrorType.INTERNAL, _claim_path(i, j), detail),))
        counts, err = count_devices_per_class(spec)
        if err is not None:
            return DraOutcome(errors=(_in_template(err, i, j, name),))
        device_errs = check(spec, _claim_path(i, j)) if check is not None else []
        if device_errs:
            return DraOutcome(errors=tuple(_named(e, name) for e in device_errs))
        aggregated = per_pod_set.setdefault(ps_name, {})
        for dc in sorted(counts):
            resource = mapping.get(dc)
            if resource is None:
                path = f"{_claim_path(i, j)}.resourceClaimTemplateName"
                detail = f"DeviceClass {dc} is not mapped in DRA configuration for podset {ps_name}"
                return DraOutcome(errors=(FieldError.not_found(path, detail),))
            if sourced is not None and sourced(dc):
                continue
            aggregated[resource] = aggregated.get(resource, 0) + counts[dc]
    return DraOutcome({k: v for k, v in per_pod_set.items() if v})


def _named(err: FieldError, name: str) -> FieldError:
    return FieldError(err.type, err.field, f"ResourceClaimTemplate {name}: {err.detail}", err.bad_value)


def _in_template(err: FieldError, i: int, j: int, name: str) -> FieldError:
    return FieldError(
        err.type,
        f"{_claim_path(i, j)}.{err.field}",
        f"ResourceClaimTemplate {name}: {err.detail}",
        err.bad_value,
    )
