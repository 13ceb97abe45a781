"""Validation of ResourceSlice and DeviceTaintRule (upstream ``pkg/apis/resource/validation/
validation.go``: ``validateResourceSliceSpec``, ``validateDevice``, ``validateDeviceAttribute``,
``validateRequestPolicy``, ``validateCounterSet``, ``validateDeviceTaintRuleSpec``; Kubernetes 1.37)."""

from __future__ import annotations

from collections.abc import Mapping

from kbatch.api.cel.values import SEMVER_RE
from kbatch.api.errors import FieldError
from kbatch.api.quantity import Quantity
from kbatch.api.resource_v1 import (
    BINDING_CONDITIONS_MAX_SIZE,
    CAPACITY_REQUEST_POLICY_DISCRETE_MAX_OPTIONS,
    DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH,
    DEVICE_TAINTS_MAX_LENGTH,
    MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE,
    MAX_COUNTER_SETS,
    MAX_COUNTERS_PER_COUNTER_SET,
    MAX_COUNTERS_PER_DEVICE_COUNTER_CONSUMPTION,
    MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE,
    MAX_DEVICES,
    MAX_DEVICES_WITH_TAINTS_OR_COUNTERS,
    CapacityRequestPolicy,
    Counter,
    CounterSet,
    Device,
    DeviceAttribute,
    DeviceCounterConsumption,
    DeviceTaintRuleSpec,
    ResourceSliceSpec,
)
from kbatch.api.strategies.core.scheduling_validation import validate_node_selector
from kbatch.api.strategies.resource.common import (
    ATTRIBUTE_KEY_MAX_LENGTH,
    validate_dns_label,
    validate_driver_name,
    validate_map,
    validate_node_name,
    validate_pool_name,
    validate_qualified_name,
    validate_set,
    validate_slice,
    validate_taint,
)
from kbatch.api.validation import FIELD_IMMUTABLE, child, index, validate_label_name

__all__ = ["validate_binding_conditions", "validate_slice_spec", "validate_taint_rule_spec"]

_NODE_FIELDS = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
_DEVICE_NODE_FIELDS = (
    "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
    "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"
)


def validate_slice_spec(
    spec: ResourceSliceSpec, old: ResourceSliceSpec | None = None, path: str = "spec"
) -> list[FieldError]:
    errs = validate_driver_name(spec.driver, child(path, "driver"))
    pool = child(path, "pool")
    errs += validate_pool_name(spec.pool.name, child(pool, "name"))
    if spec.pool.resource_slice_count <= 0:
        errs.append(
            FieldError.invalid(
                child(pool, "resourceSliceCount"), spec.pool.resource_slice_count, "must be greater than zero"
            )
        )
    if spec.pool.generation < 0:
        errs.append(
            FieldError.invalid(
                child(pool, "generation"), spec.pool.generation, "must be greater than or equal to zero"
            )
        )
    if old is not None:
        for name, new_value, old_value in (
            ("pool.name", spec.pool.name, old.pool.name),
            ("driver", spec.driver, old.driver),
            ("nodeName", spec.node_name, old.node_name),
        ):
            if new_value != old_value:
                errs.append(FieldError.invalid(child(path, name), new_value, FIELD_IMMUTABLE))
    errs += _node_fields(spec, path)
    if spec.shared_counters is not None and spec.devices is not None:
        errs.append(FieldError.invalid(path, "", "only one of `sharedCounters` or `devices` is allowed"))
    advanced = any(d.taints or d.consumes_counters for d in spec.devices or ())
    old_devices = {d.name: d for d in (old.devices or ())} if old is not None else {}
    errs += validate_set(
        spec.devices,
        MAX_DEVICES_WITH_TAINTS_OR_COUNTERS if advanced else MAX_DEVICES,
        lambda d, at: _validate_device(d, old_devices.get(d.name), at, bool(spec.per_device_node_selection)),
        lambda d: d.name,
        child(path, "devices"),
    )
    errs += validate_set(
        spec.shared_counters,
        MAX_COUNTER_SETS,
        _validate_counter_set,
        lambda c: c.name,
        child(path, "sharedCounters"),
    )
    return errs


def _node_fields(spec: ResourceSliceSpec, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    chosen: list[str] = []
    if spec.node_name is not None:
        if spec.node_name:
            chosen.append("`nodeName`")
            errs += validate_node_name(spec.node_name, child(path, "nodeName"))
        else:
            errs.append(
                FieldError.invalid(
                    child(path, "nodeName"), "", "must be either unset or set to a non-empty string"
                )
            )
    if spec.node_selector is not None:
        chosen.append("`nodeSelector`")
        errs += validate_node_selector(spec.node_selector, child(path, "nodeSelector"))
        terms = spec.node_selector.node_selector_terms or []
        if len(terms) != 1:
            errs.append(
                FieldError.invalid(
                    child(child(path, "nodeSelector"), "nodeSelectorTerms"),
                    [t.to_dict() for t in terms],
                    "must have exactly one node selector term",
                )
            )
    for name, value in (
        ("allNodes", spec.all_nodes),
        ("perDeviceNodeSelection", spec.per_device_node_selection),
    ):
        if value is None:
            continue
        if value:
            chosen.append(f"`{name}`")
        else:
            errs.append(FieldError.invalid(child(path, name), False, "must be either unset or set to true"))
    if not chosen:
        errs.append(FieldError.required(path, _NODE_FIELDS))
    elif len(chosen) > 1:
        errs.append(
            FieldError.invalid(
                path, "{" + ", ".join(chosen) + "}", _NODE_FIELDS + ", but multiple fields are set"
            )
        )
    return errs


def _validate_device(device: Device, old: Device | None, path: str, per_device: bool) -> list[FieldError]:
    errs = validate_dns_label(device.name, child(path, "name"))
    total = len(device.attributes or {}) + len(device.capacity or {})
    if total > MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE:
        errs.append(
            FieldError.invalid(
                path,
                total,
                "the total number of attributes and capacities must not "
                f"exceed {MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE}",
            )
        )
    errs += validate_map(
        device.attributes,
        -1,
        ATTRIBUTE_KEY_MAX_LENGTH,
        validate_qualified_name,
        _validate_attribute,
        child(path, "attributes"),
    )
    multiple = bool(device.allow_multiple_allocations)
    errs += validate_map(
        device.capacity,
        -1,
        ATTRIBUTE_KEY_MAX_LENGTH,
        validate_qualified_name,
        lambda c, at: _validate_capacity(c.value, c.request_policy, at, multiple),
        child(path, "capacity"),
    )
    if old is None or old.taints != device.taints:
        errs += validate_slice(
            device.taints,
            DEVICE_TAINTS_MAX_LENGTH,
            lambda t, at: validate_taint(t, at),
            child(path, "taints"),
        )
    errs += validate_set(
        device.consumes_counters,
        MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE,
        _validate_consumption,
        lambda c: c.counter_set,
        child(path, "consumesCounters"),
    )
    errs += _device_node_fields(device, path, per_device)
    errs += validate_binding_conditions(device.binding_conditions, device.binding_failure_conditions, path)
    return errs


def _device_node_fields(device: Device, path: str, per_device: bool) -> list[FieldError]:
    if not per_device:
        if device.node_name is not None or device.node_selector is not None or device.all_nodes is not None:
            return [
                FieldError.invalid(
                    path,
                    None,
                    "`nodeName`, `nodeSelector` and `allNodes` can only be set "
                    "if `perDeviceNodeSelection` is set to true in the "
                    "ResourceSlice spec",
                )
            ]
        return []
    errs: list[FieldError] = []
    chosen: list[str] = []
    if device.node_name is not None:
        if device.node_name:
            chosen.append("`nodeName`")
            errs += validate_node_name(device.node_name, child(path, "nodeName"))
        else:
            errs.append(FieldError.invalid(child(path, "nodeName"), "", "must not be empty"))
    if device.node_selector is not None:
        chosen.append("`nodeSelector`")
        errs += validate_node_selector(device.node_selector, child(path, "nodeSelector"))
    if device.all_nodes is not None:
        if device.all_nodes:
            chosen.append("`allNodes`")
        else:
            errs.append(
                FieldError.invalid(child(path, "allNodes"), False, "must be either unset or set to true")
            )
    if not chosen:
        errs.append(FieldError.required(path, _DEVICE_NODE_FIELDS))
    elif len(chosen) > 1:
        errs.append(FieldError.invalid(path, "{" + ", ".join(chosen) + "}", _DEVICE_NODE_FIELDS))
    return errs


def _validate_attribute(attribute: DeviceAttribute, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    values = [
        v for v in (attribute.bool_, attribute.int_, attribute.string, attribute.version) if v is not None
    ]
    if attribute.string is not None and len(attribute.string) > DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH:
        errs.append(FieldError.too_long(child(path, "string"), DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH))
    if attribute.version is not None:
        if not SEMVER_RE.fullmatch(attribute.version):  # semver.Parse refuses a trailing "\n"
            errs.append(
                FieldError.invalid(
                    child(path, "version"),
                    attribute.version,
                    "must be a string compatible with semver.org spec 2.0.0",
                )
            )
        if len(attribute.version) > DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH:
            errs.append(FieldError.too_long(child(path, "version"), DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH))
    if not values:
        errs.append(FieldError.invalid(path, "", "exactly one value must be specified"))
    elif len(values) > 1:
        errs.append(FieldError.invalid(path, attribute.to_dict(), "exactly one value must be specified"))
    return errs


def _validate_capacity(
    value: Quantity, policy: CapacityRequestPolicy | None, path: str, multiple: bool
) -> list[FieldError]:
    if policy is None:
        return []
    at = child(path, "requestPolicy")
    if not multiple:
        return [FieldError.forbidden(at, "allowMultipleAllocations must be true")]
    if policy.valid_values and policy.valid_range is not None:
        return [
            FieldError.forbidden(
                at,
                'exactly one policy can be specified, cannot specify "validValues" '
                'and "validRange" at the same time',
            )
        ]
    if policy.valid_values:
        if policy.default is None:
            return [FieldError.required(child(at, "default"), "required when validValues is defined")]
        return _valid_values(policy.default, value, policy.valid_values, child(at, "validValues"))
    if policy.valid_range is not None:
        if policy.default is None:
            return [FieldError.required(child(at, "default"), "required when validRange is defined")]
        return _valid_range(policy.default, value, policy, child(at, "validRange"))
    return []


def _valid_values(
    default: Quantity, capacity: Quantity, values: list[Quantity], path: str
) -> list[FieldError]:
    errs = [
        FieldError.invalid(index(path, i + 1), str(values[i + 1]), "values must be sorted in ascending order")
        for i in range(len(values) - 1)
        if values[i].cmp(values[i + 1]) > 0
    ]
    errs += validate_set(
        values,
        CAPACITY_REQUEST_POLICY_DISCRETE_MAX_OPTIONS,
        lambda q, at: (
            [FieldError.invalid(at, str(q), f"option is larger than capacity value: {capacity}")]
            if q.cmp(capacity) > 0
            else []
        ),
        lambda q: q.value(),
        path,
    )
    if not any(v.cmp(default) == 0 for v in values):
        errs.append(
            FieldError.invalid(
                path, str(default), "default value is not valid according to the requestPolicy"
            )
        )
    return errs


def _valid_range(
    default: Quantity, capacity: Quantity, policy: CapacityRequestPolicy, path: str
) -> list[FieldError]:
    rng = policy.valid_range
    assert rng is not None
    if rng.min is None:
        return [FieldError.required(child(path, "min"), "required when validRange is defined")]
    errs: list[FieldError] = []
    low = rng.min
    if low.cmp(capacity) > 0:
        errs.append(
            FieldError.invalid(child(path, "min"), str(low), f"min is larger than capacity value: {capacity}")
        )
    if default.cmp(low) < 0:
        errs.append(FieldError.invalid(child(path, "min"), str(default), f"default is less than min: {low}"))
    if rng.max is not None:
        if low.cmp(rng.max) > 0:
            errs.append(
                FieldError.invalid(child(path, "max"), str(low), f"min is larger than max: {rng.max}")
            )
        if rng.max.cmp(capacity) > 0:
            errs.append(
                FieldError.invalid(
                    child(path, "max"), str(rng.max), f"max is larger than capacity value: {capacity}"
                )
            )
        if default.cmp(rng.max) > 0:
            errs.append(
                FieldError.invalid(child(path, "max"), str(default), f"default is more than max: {rng.max}")
            )
    if rng.step is not None:
        added = low.add(rng.step)
        if added.cmp(capacity) > 0:
            errs.append(
                FieldError.invalid(
                    child(path, "step"),
                    str(rng.step),
                    f"one step {added} is larger than capacity value: {capacity}",
                )
            )
        for checked in (default, rng.max):
            if (
                checked is not None
                and rng.step.value()
                and (checked.value() - low.value()) % rng.step.value()
            ):
                errs.append(
                    FieldError.invalid(
                        child(path, "step"),
                        str(checked),
                        f"value is not a multiple of a given step ({rng.step}) from ({low})",
                    )
                )
    return errs


def _no_counter_errors(counter: object, path: str) -> list[FieldError]:
    return []  # any parsed quantity is valid


def _validate_counter_set(counter_set: CounterSet, path: str) -> list[FieldError]:
    return _validate_named_counters(
        counter_set.name, "name", counter_set.counters, MAX_COUNTERS_PER_COUNTER_SET, path
    )


def _validate_consumption(consumption: DeviceCounterConsumption, path: str) -> list[FieldError]:
    return _validate_named_counters(
        consumption.counter_set,
        "counterSet",
        consumption.counters,
        MAX_COUNTERS_PER_DEVICE_COUNTER_CONSUMPTION,
        path,
    )


def _validate_named_counters(
    name: str, name_field: str, counters: Mapping[str, Counter] | None, most: int, path: str
) -> list[FieldError]:
    """A counter set and a device's consumption of one: a DNS-label name, then 1..``most`` counters
    keyed by DNS labels (upstream ``validateCounterSet``, ``validateDeviceCounterConsumption``)."""
    errs = (
        [FieldError.required(child(path, name_field))]
        if not name
        else validate_dns_label(name, child(path, name_field))
    )
    if not counters:
        errs.append(FieldError.required(child(path, "counters")))
    else:
        errs += validate_map(
            counters, most, 63, validate_dns_label, _no_counter_errors, child(path, "counters")
        )
    return errs


def validate_binding_conditions(
    conditions: list[str] | None, failures: list[str] | None, path: str
) -> list[FieldError]:
    conditions, failures = conditions or [], failures or []
    errs = validate_slice(
        conditions, BINDING_CONDITIONS_MAX_SIZE, validate_label_name, child(path, "bindingConditions")
    )
    errs += validate_slice(
        failures, BINDING_CONDITIONS_MAX_SIZE, validate_label_name, child(path, "bindingFailureConditions")
    )
    seen: set[str] = set()
    for i, name in enumerate(conditions):
        if name in seen:
            errs.append(FieldError.duplicate(index(child(path, "bindingConditions"), i), name))
        seen.add(name)
    seen_failures: set[str] = set()
    for i, name in enumerate(failures):
        at = index(child(path, "bindingFailureConditions"), i)
        if name in seen_failures:
            errs.append(FieldError.duplicate(at, name))
        seen_failures.add(name)
        if name in conditions:
            errs.append(
                FieldError.invalid(
                    at, name, "bindingFailureConditions must not overlap with bindingConditions"
                )
            )
    if not conditions and failures:
        errs.append(
            FieldError.invalid(
                child(path, "bindingConditions"),
                conditions,
                "bindingConditions are required to use bindingFailureConditions",
            )
        )
    if not failures and conditions:
        errs.append(
            FieldError.invalid(
                child(path, "bindingFailureConditions"),
                failures,
                "bindingFailureConditions are required to use bindingConditions",
            )
        )
    return errs


def validate_taint_rule_spec(
    spec: DeviceTaintRuleSpec, old: DeviceTaintRuleSpec | None = None, path: str = "spec"
) -> list[FieldError]:
    errs: list[FieldError] = []
    selector = spec.device_selector
    at = child(path, "deviceSelector")
    if selector is not None:
        if selector.driver is not None:
            errs += validate_driver_name(selector.driver, child(at, "driver"))
        if selector.pool is not None:
            errs += validate_pool_name(selector.pool, child(at, "pool"))
        if selector.device is not None:
            errs += validate_dns_label(selector.device, child(at, "device"))
    errs += validate_taint(spec.taint, child(path, "taint"), old.taint if old is not None else None)
    return errs
