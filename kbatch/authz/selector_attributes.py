"""Validation of the ``fieldSelector`` and ``labelSelector`` of a review's ``resourceAttributes``
(the AuthorizeWithSelectors feature, GA and always on in Kubernetes 1.37):
``pkg/apis/authorization/validation/validation.go`` ``validateResourceAttributes``, with k8s.io/apimachinery
``pkg/apis/meta/v1/validation`` ``ValidateFieldSelectorRequirement`` and
``ValidateLabelSelectorRequirement`` as reviews call them (an operator the server does not know is
accepted, so that newer clients can be authorized).

Each selector is a ``rawSelector`` or ``requirements``, not both and not neither. RBAC does not read
them (it allows or not whatever the selector); the review echoes them in its ``spec``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kbatch.api.errors import FieldError
from kbatch.api.validation import child, index, is_valid_label_value, validate_label_name

__all__ = ["selector_errors"]


def _operator_errors(req: Mapping[str, Any], path: str) -> list[FieldError]:
    operator, values = req.get("operator") or "", list(req.get("values") or ())
    if operator in ("In", "NotIn") and not values:
        return [FieldError.required(child(path, "values"),
                                    "must be specified when `operator` is 'In' or 'NotIn'")]
    if operator in ("Exists", "DoesNotExist") and values:
        return [FieldError.forbidden(child(path, "values"),
                                     "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")]
    return []


def _field_requirement(req: Mapping[str, Any], path: str) -> list[FieldError]:
    errs = [] if req.get("key") else [FieldError.required(child(path, "key"), "must be specified")]
    return errs + _operator_errors(req, path)


def _label_requirement(req: Mapping[str, Any], path: str) -> list[FieldError]:
    errs = _operator_errors(req, path) + validate_label_name(req.get("key") or "", child(path, "key"))
    for i, value in enumerate(req.get("values") or ()):
        errs += [FieldError.invalid(index(child(path, "values"), i), value, m)
                 for m in is_valid_label_value(value)]
    return errs


def _selector(selector: Any, path: str, requirement: Any) -> list[FieldError]:
    if selector is None:
        return []
    raw, requirements = selector.get("rawSelector") or "", list(selector.get("requirements") or ())
    errs: list[FieldError] = []
    if raw and requirements:
        errs.append(FieldError.invalid(child(path, "rawSelector"), raw,
                                       "may not specified at the same time as requirements"))
    if not raw and not requirements:
        errs.append(FieldError.required(child(path, "requirements"),
                                        f"when {path} is specified, requirements or rawSelector is required"))
    for i, req in enumerate(requirements):
        errs += requirement(req, index(child(path, "requirements"), i))
    return errs


def selector_errors(resource_attributes: Mapping[str, Any] | None, path: str) -> list[FieldError]:
    """``validateResourceAttributes``: the errors of ``resource_attributes``' selectors at ``path``."""
    if resource_attributes is None:
        return []
    fields = _selector(resource_attributes.get("fieldSelector"), child(path, "fieldSelector"),
                       _field_requirement)
    return fields + _selector(resource_attributes.get("labelSelector"), child(path, "labelSelector"),
                              _label_requirement)
