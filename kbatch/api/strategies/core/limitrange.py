"""LimitRange strategy and validation.

Upstream (semantics only): kubernetes ``pkg/apis/core/validation/validation.go``
(``ValidateLimitRange``, ``validateLimitRangeTypeName``, ``validateLimitRangeResourceName``) and
``pkg/registry/core/limitrange/strategy.go`` (no status; an update is validated as a create);
defaults from ``pkg/apis/core/v1/defaults.go`` ``SetDefaults_LimitRangeItem``.
Resource names within one item are checked in sorted order (Go's map order is random).
"""

from __future__ import annotations

from kbatch.api.core_v1.quota import LimitRange, LimitRangeItem
from kbatch.api.errors import FieldError
from kbatch.api.meta import Resource
from kbatch.api.quantity import Quantity
from kbatch.api.strategy import DefaultStrategy
from kbatch.api.validation import (
    child,
    index,
    is_overcommit_allowed,
    is_qualified_name,
    key,
    validate_container_resource_name,
    validate_resource_name,
)

__all__ = ["LIMIT_TYPES", "LimitRangeStrategy", "default_limit_range", "validate_limit_range"]

LIMIT_TYPES = ("Pod", "Container", "PersistentVolumeClaim")
_ONE = Quantity(1)
_NOT_FOR_POD = "may not be specified when `type` is 'Pod'"
_WIRE = {"default_request": "defaultRequest", "max_limit_request_ratio": "maxLimitRequestRatio"}


def _type_errors(value: str, path: str) -> list[FieldError]:
    errs = [FieldError.invalid(path, value, m) for m in is_qualified_name(value)]
    if not errs and "/" not in value and value not in LIMIT_TYPES:
        errs.append(FieldError.invalid(path, value, "must be a standard limit type or fully qualified"))
    return errs


def _name_errors(limit_type: str, name: str, path: str) -> list[FieldError]:
    if limit_type in ("Pod", "Container"):
        return validate_container_resource_name(name, path)
    return validate_resource_name(name, path)


def _collect(item: LimitRangeItem, field: str, path: str, errs: list[FieldError]) -> dict[str, Quantity]:
    values: dict[str, Quantity] = dict(getattr(item, field) or {})
    wire = _WIRE.get(field, field)
    for name in sorted(values):
        errs += _name_errors(item.type, name, key(child(path, wire), name))
    return values


def _ratio_limit(ratio: Quantity, lo: Quantity, hi: Quantity) -> tuple[float, float]:
    """(the ratio, max/min) in milli-units when all three fit, as upstream."""
    big = 2 ** 63 // 1000
    if ratio.value() < big and lo.value() < big and hi.value() < big:
        return ratio.milli_value() / 1000, _div(hi.milli_value(), lo.milli_value())
    return float(ratio.value()), _div(hi.value(), lo.value())


def _div(a: int, b: int) -> float:
    """Go's float division: x/0 is +Inf (NaN for 0/0, which no ratio exceeds)."""
    if b:
        return a / b
    return float("nan") if a == 0 else float("inf")


def _pair_errors(name: str, path: str, lo: Quantity | None, hi: Quantity | None,
                 dflt: Quantity | None, dreq: Quantity | None, ratio: Quantity | None) -> list[FieldError]:
    errs: list[FieldError] = []
    inv = FieldError.invalid
    if lo is not None and hi is not None and lo.cmp(hi) > 0:
        errs.append(inv(key(child(path, "min"), name), str(lo),
                        f"min value {lo} is greater than max value {hi}"))
    at_dreq = key(child(path, "defaultRequest"), name)
    if dreq is not None and lo is not None and lo.cmp(dreq) > 0:
        errs.append(inv(at_dreq, str(dreq), f"min value {lo} is greater than default request value {dreq}"))
    if dreq is not None and hi is not None and dreq.cmp(hi) > 0:
        errs.append(inv(at_dreq, str(dreq), f"default request value {dreq} is greater than max value {hi}"))
    if dreq is not None and dflt is not None and dreq.cmp(dflt) > 0:
        errs.append(inv(at_dreq, str(dreq), f"default request value {dreq} is greater than default limit "
                                            f"value {dflt}"))
    at_dflt = key(child(path, "default"), name)
    if dflt is not None and lo is not None and lo.cmp(dflt) > 0:
        errs.append(inv(at_dflt, str(lo), f"min value {lo} is greater than default value {dflt}"))
    if dflt is not None and hi is not None and dflt.cmp(hi) > 0:
        errs.append(inv(at_dflt, str(hi), f"default value {dflt} is greater than max value {hi}"))
    at_ratio = key(child(path, "maxLimitRequestRatio"), name)
    if ratio is not None and ratio.cmp(_ONE) < 0:
        errs.append(inv(at_ratio, str(ratio), f"ratio {ratio} is less than 1"))
    if ratio is not None and lo is not None and hi is not None:
        value, limit = _ratio_limit(ratio, lo, hi)
        if value > limit:
            errs.append(inv(at_ratio, str(ratio), f"ratio {ratio} is greater than max/min = {limit:f}"))
    if not is_overcommit_allowed(name) and dflt is not None and dreq is not None and dflt.cmp(dreq) != 0:
        errs.append(inv(at_dreq, str(dreq), f"default value {dflt} must equal to defaultRequest value {dreq} "
                                            f"in {name}"))
    return errs


def _item_errors(item: LimitRangeItem, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    hi = _collect(item, "max", path, errs)
    lo = _collect(item, "min", path, errs)
    dflt: dict[str, Quantity] = {}
    dreq: dict[str, Quantity] = {}
    if item.type == "Pod":
        if item.default:
            errs.append(FieldError.forbidden(child(path, "default"), _NOT_FOR_POD))
        if item.default_request:
            errs.append(FieldError.forbidden(child(path, "defaultRequest"), _NOT_FOR_POD))
    else:
        dflt = _collect(item, "default", path, errs)
        dreq = _collect(item, "default_request", path, errs)
    if item.type == "PersistentVolumeClaim" and "storage" not in lo and "storage" not in hi:
        errs.append(FieldError.required(child(path, "limits"), "either minimum or maximum storage value is "
                                        "required, but neither was provided"))
    ratio = _collect(item, "max_limit_request_ratio", path, errs)
    for name in sorted({*hi, *lo, *dflt, *dreq, *ratio}):
        errs += _pair_errors(name, path, lo.get(name), hi.get(name), dflt.get(name), dreq.get(name),
                             ratio.get(name))
    return errs


def validate_limit_range(lr: LimitRange) -> list[FieldError]:
    """``ValidateLimitRange`` (the metadata part is the server's)."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, item in enumerate(lr.spec.limits if lr.spec else []):
        path = index("spec.limits", i)
        errs += _type_errors(item.type, child(path, "type"))
        if item.type in seen:
            errs.append(FieldError.duplicate(child(path, "type"), item.type))
        seen.add(item.type)
        errs += _item_errors(item, path)
    return errs


def default_limit_range(lr: LimitRange) -> None:
    """``SetDefaults_LimitRangeItem`` (pkg/apis/core/v1/defaults.go), for ``Container`` items: an
    unset ``default`` takes ``max``; an unset ``defaultRequest`` takes ``default``, else ``min``."""
    for item in lr.spec.limits if lr.spec else ():
        if item.type != "Container":
            continue
        default = dict(item.default or {})
        for name, q in (item.max or {}).items():
            default.setdefault(name, q)
        request = dict(item.default_request or {})
        for name, q in [*default.items(), *(item.min or {}).items()]:
            request.setdefault(name, q)
        item.default, item.default_request = default or item.default, request or item.default_request


class LimitRangeStrategy(DefaultStrategy):
    has_generation = False  # upstream's strategy sets no metadata.generation
    has_status = False

    def default(self, obj: Resource) -> None:
        assert isinstance(obj, LimitRange)
        default_limit_range(obj)

    def validate(self, obj: Resource) -> list[FieldError]:
        assert isinstance(obj, LimitRange)
        return validate_limit_range(obj)
