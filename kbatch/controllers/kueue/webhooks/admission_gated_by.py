"""The ``kueue.x-k8s.io/admission-gated-by`` annotation's rules, shared by Kueue's webhooks.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/util/webhook/validation_admissiongatedby.go``
(``ValidateAdmissionGatedByAnnotationOn{Create,Update}``), called with the ``AdmissionGatedBy`` gate
on by the Workload webhook (``pkg/webhooks/workload_webhook.go``) and, for every job integration,
by ``jobframework.ValidateJobOn{Create,Update}`` (``pkg/controller/jobframework/validation.go``).
On update no gate may be added after creation, nor a new one to the list; the value is a
comma-separated list of distinct domain-prefixed paths of at most 63 characters each.
"""

from __future__ import annotations

from collections.abc import Mapping

from kbatch.api.errors import FieldError
from kbatch.api.validation import validate_domain_prefixed_path
from kbatch.controllers.kueue.jobframework.construct import ADMISSION_GATED_BY

__all__ = ["MAX_GATE_NAME_LENGTH", "admission_gated_by_errors"]

PATH = f"metadata.annotations[{ADMISSION_GATED_BY}]"
MAX_GATE_NAME_LENGTH = 63  # as a Job's spec.managedBy


def _csv(value: str) -> list[str]:
    """``csv.Parse``: comma-separated names, blanks around each trimmed; nothing for a blank value."""
    return [] if not value.strip() else [part.strip() for part in value.split(",")]


def admission_gated_by_errors(
    annotations: Mapping[str, str] | None, old_annotations: Mapping[str, str] | None = None, *, update: bool
) -> list[FieldError]:
    """The rules for an object's annotations (``update``: against the stored object's)."""
    value = (annotations or {}).get(ADMISSION_GATED_BY, "")
    errs: list[FieldError] = []
    if update:
        before = (old_annotations or {}).get(ADMISSION_GATED_BY, "")
        if not before and value:
            errs.append(FieldError.forbidden(PATH, "cannot add admission gate after creation"))
        if before and value and any(g not in _csv(before) for g in _csv(value)):
            errs.append(FieldError.forbidden(PATH, "can only remove gates, not add new ones"))
    return errs + _format_errors(value)


def _format_errors(value: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for gate in _csv(value):
        if not gate:
            errs.append(FieldError.invalid(PATH, value, "cannot contain empty gate names"))
            continue
        if gate in seen:
            errs.append(FieldError.invalid(PATH, value, f"duplicate gate name: {gate}"))
            continue
        seen.add(gate)
        errs += validate_domain_prefixed_path(gate, PATH)
        if len(gate) > MAX_GATE_NAME_LENGTH:
            errs.append(FieldError.too_long(PATH, MAX_GATE_NAME_LENGTH))
    return errs
