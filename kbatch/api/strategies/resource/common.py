"""Shared validators of resource.k8s.io: names (driver, pool, device, request, qualified attribute
names), bounded lists and sets, bounded maps, tolerations and taints, selectors (CEL), opaque
configuration. Upstream: ``pkg/apis/resource/validation/validation.go`` (Kubernetes 1.37) and the
core validators it reuses (``ValidateCSIDriverName``, ``ValidateDNS1123Label``/``Subdomain``).

Messages are upstream's. Maps are walked in sorted key order (upstream walks Go maps in random order).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, TypeVar

from kbatch.api.cel import CompileError, compile_selector
from kbatch.api.errors import FieldError
from kbatch.api.resource_v1 import (
    CEL_SELECTOR_EXPRESSION_MAX_COST,
    CEL_SELECTOR_EXPRESSION_MAX_LENGTH,
    DEVICE_MAX_DOMAIN_LENGTH,
    DEVICE_MAX_ID_LENGTH,
    DEVICE_SELECTORS_MAX_SIZE,
    DRIVER_NAME_MAX_LENGTH,
    OPAQUE_PARAMETERS_MAX_LENGTH,
    POOL_NAME_MAX_LENGTH,
    TAINT_EFFECTS,
    TOLERATION_OPERATORS,
    DeviceSelector,
    DeviceTaint,
    DeviceToleration,
    OpaqueDeviceConfiguration,
)
from kbatch.api.validation import (
    _regex_error,
    child,
    index,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_valid_label_value,
    key,
    validate_label_name,
)

__all__ = [
    "ATTRIBUTE_KEY_MAX_LENGTH",
    "validate_driver_name",
    "validate_fully_qualified_name",
    "validate_label_value",
    "validate_map",
    "validate_node_name",
    "validate_opaque",
    "validate_pool_name",
    "validate_qualified_name",
    "validate_selectors",
    "validate_set",
    "validate_slice",
    "validate_taint",
    "validate_toleration",
]

T = TypeVar("T")
ATTRIBUTE_KEY_MAX_LENGTH = DEVICE_MAX_DOMAIN_LENGTH + 1 + DEVICE_MAX_ID_LENGTH
_C_IDENTIFIER_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# apimachinery content.IsCIdentifier: RegexError joins its examples with "',  or '" (two spaces)
_C_IDENTIFIER_MSG = _regex_error(
    "a valid C identifier must start with alphabetic character or '_', followed by a "
    "string of alphanumeric characters or '_'",
    "[A-Za-z_][A-Za-z0-9_]*",
    "my_name",
    "MY_NAME",
    "MyName",
)


def validate_slice(
    items: Sequence[T] | None, max_size: int, item: Callable[[T, str], list[FieldError]], path: str
) -> list[FieldError]:
    """Upstream ``validateSlice``: too many is one error and nothing else (DOS protection)."""
    items = items or ()
    if max_size >= 0 and len(items) > max_size:
        return [FieldError.too_many(path, len(items), max_size)]
    errs: list[FieldError] = []
    for i, value in enumerate(items):
        errs += item(value, index(path, i))
    return errs


def validate_set(
    items: Sequence[T] | None,
    max_size: int,
    item: Callable[[T, str], list[FieldError]],
    item_key: Callable[[T], Hashable],
    path: str,
) -> list[FieldError]:
    """Upstream ``validateSet``: ``validate_slice`` plus a Duplicate for every repeated key."""
    errs = validate_slice(items, max_size, item, path)
    if errs and max_size >= 0 and len(items or ()) > max_size:
        return errs
    seen: set[Hashable] = set()
    for i, value in enumerate(items or ()):
        k = item_key(value)
        if k in seen:
            errs.append(FieldError.duplicate(index(path, i), k))
        seen.add(k)
    return errs


def _truncated(text: str, max_len: int) -> str:
    """Upstream ``truncateIfTooLong``: keys longer than the limit shown with ``...`` in the middle."""
    max_len = max(max_len, 16)
    if len(text) <= max_len:
        return text
    remaining = max_len - 3
    return text[: (remaining + 1) // 2] + "..." + text[len(text) - remaining // 2 :]


def validate_map(
    values: Mapping[str, T] | None,
    max_size: int,
    truncate_key_len: int,
    key_fn: Callable[[str, str], list[FieldError]],
    item: Callable[[T, str], list[FieldError]],
    path: str,
) -> list[FieldError]:
    values = values or {}
    if max_size >= 0 and len(values) > max_size:
        return [FieldError.too_many(path, len(values), max_size)]
    errs: list[FieldError] = []
    for name in sorted(values):
        at = key(path, _truncated(name, truncate_key_len))
        errs += key_fn(name, at)
        errs += item(values[name], at)
    return errs


def validate_driver_name(name: str, path: str) -> list[FieldError]:
    """``ValidateCSIDriverName``: required, at most 63 characters, a DNS subdomain (lower-cased)."""
    if not name:
        return [FieldError.required(path)]
    errs: list[FieldError] = []
    if len(name) > DRIVER_NAME_MAX_LENGTH:
        errs.append(FieldError.too_long(path, DRIVER_NAME_MAX_LENGTH))
    errs += [FieldError.invalid(path, name, m) for m in is_dns1123_subdomain(name.lower())]
    return errs


def validate_pool_name(name: str, path: str) -> list[FieldError]:
    if not name:
        return [FieldError.required(path)]
    errs: list[FieldError] = []
    if len(name) > POOL_NAME_MAX_LENGTH:
        errs.append(FieldError.too_long(path, POOL_NAME_MAX_LENGTH))
    for part in name.split("/"):
        errs += [FieldError.invalid(path, part, m) for m in is_dns1123_subdomain(part)]
    return errs


def validate_label_value(value: str, path: str) -> list[FieldError]:
    return [FieldError.invalid(path, value, m) for m in is_valid_label_value(value)]


def validate_dns_label(value: str, path: str) -> list[FieldError]:
    return [FieldError.invalid(path, value, m) for m in is_dns1123_label(value)]


def validate_node_name(name: str, path: str) -> list[FieldError]:
    return [FieldError.invalid(path, name, m) for m in is_dns1123_subdomain(name)]


def _validate_c_identifier(ident: str, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if len(ident) > DEVICE_MAX_ID_LENGTH:
        errs.append(FieldError.too_long(path, DEVICE_MAX_ID_LENGTH))
    if not _C_IDENTIFIER_RE.fullmatch(ident):
        errs.append(FieldError.invalid(path, ident, _C_IDENTIFIER_MSG))
    return errs


def validate_qualified_name(name: str, path: str) -> list[FieldError]:
    parts = name.split("/")
    if len(parts) == 1:
        return _validate_c_identifier(parts[0], path)
    errs: list[FieldError] = []
    if len(parts) == 2:  # upstream accepts more than one slash (a known TODO there)
        domain, ident = parts
        errs += (
            [FieldError.invalid(path, "", "the domain must not be empty")]
            if not domain
            else validate_driver_name(domain, path)
        )
        errs += (
            [FieldError.invalid(path, "", "the name must not be empty")]
            if not ident
            else _validate_c_identifier(ident, path)
        )
    return errs


def validate_fully_qualified_name(name: str, path: str) -> list[FieldError]:
    errs = validate_qualified_name(name, path)
    if "/" not in name:
        errs.append(
            FieldError.invalid(
                path, name, "a fully qualified name must be a domain and a name separated by a slash"
            )
        )
    return errs


def validate_selectors(selectors: list[DeviceSelector] | None, path: str) -> list[FieldError]:
    return validate_slice(selectors, DEVICE_SELECTORS_MAX_SIZE, _validate_selector, path)


def _validate_selector(selector: DeviceSelector, path: str) -> list[FieldError]:
    if selector.cel is None:
        return [FieldError.required(child(path, "cel"))]
    expression = selector.cel.expression
    at = child(child(path, "cel"), "expression")
    if len(expression) > CEL_SELECTOR_EXPRESSION_MAX_LENGTH:
        return [FieldError.too_long(at, CEL_SELECTOR_EXPRESSION_MAX_LENGTH)]
    try:
        compiled = compile_selector(expression)
    except CompileError as err:
        return [FieldError.invalid(at, expression, err.detail)]
    if compiled.max_cost > CEL_SELECTOR_EXPRESSION_MAX_COST:
        return [FieldError.forbidden(at, "too complex, exceeds cost limit")]
    return []


def validate_opaque(
    config: OpaqueDeviceConfiguration | None, path: str, stored: bool = False
) -> list[FieldError]:
    """``validateDeviceConfiguration`` + ``validateOpaqueConfiguration`` + ``validateRawExtension``."""
    if config is None:
        return [FieldError.required(child(path, "opaque"))]
    path = child(path, "opaque")
    errs = validate_driver_name(config.driver, child(path, "driver"))
    at = child(path, "parameters")
    params = config.parameters
    if params is None:
        errs.append(FieldError.required(at))
    elif not stored and len(json.dumps(params, separators=(",", ":"))) > OPAQUE_PARAMETERS_MAX_LENGTH:
        errs.append(FieldError.too_long(at, OPAQUE_PARAMETERS_MAX_LENGTH))
    elif not isinstance(params, dict):
        errs.append(FieldError.invalid(at, "<value omitted>", "must be a valid JSON object"))
    return errs


def validate_taint(taint: DeviceTaint, path: str, old: DeviceTaint | None = None) -> list[FieldError]:
    errs = (
        validate_label_name(taint.key, child(path, "key"))
        if taint.key
        else [FieldError.required(child(path, "key"))]
    )
    if taint.value:
        errs += validate_label_value(taint.value, child(path, "value"))
    if old is None or old.effect != taint.effect:
        if not taint.effect:
            errs.append(FieldError.required(child(path, "effect")))
        elif taint.effect not in TAINT_EFFECTS:
            errs.append(FieldError.not_supported(child(path, "effect"), taint.effect, TAINT_EFFECTS))
    return errs


def validate_toleration(toleration: DeviceToleration, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if toleration.key:
        errs += validate_label_name(toleration.key, child(path, "key"))
    operator, value = toleration.operator or "", toleration.value or ""
    if operator == "Exists":
        if value:
            errs.append(
                FieldError.invalid(child(path, "value"), value, "must be empty for operator `Exists`")
            )
    elif operator == "Equal":
        errs += validate_label_value(value, child(path, "value"))
    elif operator == "":
        errs.append(FieldError.required(child(path, "operator")))
    else:
        errs.append(FieldError.not_supported(child(path, "operator"), operator, TOLERATION_OPERATORS))
    if toleration.effect and toleration.effect not in TAINT_EFFECTS:
        errs.append(FieldError.not_supported(child(path, "effect"), toleration.effect, TAINT_EFFECTS))
    return errs


def json_size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":")))
