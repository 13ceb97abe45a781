"""Checks of a write's options (``CreateOptions``, ``UpdateOptions``, ``PatchOptions``,
``DeleteOptions``), as kube-apiserver's handlers make them before anything else.

Upstream: k8s.io/apimachinery ``pkg/apis/meta/v1/validation`` ``ValidateCreateOptions``,
``ValidateUpdateOptions``, ``ValidatePatchOptions``, ``ValidateDeleteOptions`` (with
``ValidateFieldManager`` (:mod:`kbatch.apiserver.field_manager`), ``ValidateDryRun``,
``ValidateFieldValidation``), each failure list
answered by the handler (k8s.io/apiserver ``pkg/endpoints/handlers/{create,update,patch,delete}.go``)
as one 422 ``Invalid`` of ``<Kind>.meta.k8s.io ""``.
"""

from __future__ import annotations

from kbatch.api.errors import FieldError, Invalid
from kbatch.apiserver.field_manager import field_manager_errors

__all__ = ["check_delete_options", "check_write_options", "delete_option_errors", "write_option_errors"]

_DRY_RUN = ["All"]
_FIELD_VALIDATION = ["", "Ignore", "Strict", "Warn"]  # sets.List order
_PROPAGATION = ("Foreground", "Background", "Orphan")


def _dry_run(values: list[str]) -> list[FieldError]:
    if any(v not in _DRY_RUN for v in values):
        return [FieldError.not_supported("dryRun", values, _DRY_RUN)]
    return []


def write_option_errors(dry_run: list[str], field_validation: str, field_manager: str,
                        patch_type: str | None = None, force: bool = False) -> list[FieldError]:
    """The errors of a create, update (``patch_type`` None) or patch (``"apply"`` for server-side apply)."""
    errors = []
    if patch_type == "apply" and not field_manager:
        errors.append(FieldError.required("fieldManager", "is required for apply patch"))
    elif patch_type is not None and patch_type != "apply" and force:
        errors.append(FieldError.forbidden("force", "may not be specified for non-apply patch"))
    errors += field_manager_errors(field_manager)
    errors += _dry_run(dry_run)
    if field_validation not in _FIELD_VALIDATION:
        errors.append(FieldError.not_supported("fieldValidation", field_validation, _FIELD_VALIDATION))
    return errors


def delete_option_errors(dry_run: list[str], propagation: str | None, orphan_set: bool) -> list[FieldError]:
    errors = []
    if orphan_set and propagation is not None:
        errors.append(FieldError.invalid("propagationPolicy", propagation,
                                         "orphanDependents and deletionPropagation cannot be both set"))
    if propagation is not None and propagation not in _PROPAGATION:
        errors.append(FieldError.not_supported("propagationPolicy", propagation, [*_PROPAGATION, "nil"]))
    return errors + _dry_run(dry_run)


def check_write_options(kind: str, errors: list[FieldError]) -> None:
    """Raise the handler's ``Invalid`` for ``kind`` (``CreateOptions``, ``UpdateOptions``, ...)."""
    if errors:
        raise Invalid.of(f"{kind}.meta.k8s.io", "", errors)


def check_delete_options(errors: list[FieldError]) -> None:
    check_write_options("DeleteOptions", errors)
