"""Resource requests as Kueue counts them: integers per resource, per pod set, per flavor.

Upstream: kubernetes-sigs/kueue ``pkg/resources`` (``Requests``, ``FlavorResource``, ``Amount``) and
``pkg/workload/workload.go`` (``totalRequestsFromPodSets``, ``dropExcludedResources``,
``applyResourceTransformations``). ``cpu`` is in millicores, every other resource in whole units
rounded up (``MilliValue``/``Value``), as the scheduler counts (:mod:`kbatch.controllers.scheduler.
resources`); a pod's requests are ``PodRequests`` (init/sidecar rule, pod-level resources, overhead).
Python integers do not overflow, so upstream's saturating arithmetic and ``Unlimited`` are not needed
(a quota of 2^63 units is just a large number).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from kbatch.api.pod_resources import CPU, ContainerRequests, pod_requests
from kbatch.api.quantity import Format, Quantity
from kbatch.controllers.scheduler.convert import quantity_map

__all__ = [
    "FlavorResource",
    "Usage",
    "add_requests",
    "add_usage",
    "amount",
    "format_amount",
    "pod_spec_requests",
    "scale_requests",
    "set_binary_formatted",
    "transform_requests",
]

FlavorResource = tuple[str, str]
"""``(flavor, resource)``."""
Usage = dict[FlavorResource, int]


def amount(resource: str, quantity: Quantity) -> int:
    """``AmountFromQuantity``: millicores for cpu, whole units (rounded up) otherwise."""
    return quantity.milli_value() if resource == CPU else quantity.value()


_BINARY_FORMATTED: frozenset[str] = frozenset()


def set_binary_formatted(names: frozenset[str]) -> None:
    """``ResourceFormatter.RegisterBinaryFormattedResource``: the DRA counter- and capacity-based
    quota resources, quantities of bytes, print in binary SI too. Set by the Kueue manager when it
    is built or loaded (one formatter per process, as upstream's one per manager)."""
    global _BINARY_FORMATTED
    if names != _BINARY_FORMATTED:
        _BINARY_FORMATTED = names
        format_amount.cache_clear()


@functools.lru_cache(maxsize=4096)
def format_amount(resource: str, value: int) -> str:
    """``ResourceFormatter.ResourceQuantityString``: cpu as a milli quantity, memory,
    ephemeral-storage, hugepages and the registered DRA resources in canonical binary SI (``1Gi``,
    ``1500``), the rest decimal SI. (Pure for a registry, and asked for the same few amounts by
    every queue status: memoised.)"""
    if resource == CPU:
        return str(Quantity.milli(value))
    if (
        resource in ("memory", "ephemeral-storage")
        or resource.startswith("hugepages-")
        or resource in _BINARY_FORMATTED
    ):
        return str(Quantity.parse(str(Quantity.scaled(value, 0, Format.BINARY_SI))))
    return str(Quantity.scaled(value, 0))


def _container(container: Any) -> dict[str, int]:
    res = container.resources
    if res is None:
        return {}
    merged = dict(res.limits or {})  # requests default to limits (core defaulting)
    merged.update(res.requests or {})
    return quantity_map(merged)


def pod_spec_requests(spec: Any) -> dict[str, int]:
    """``resourcehelpers.PodRequests`` of one pod of ``spec`` (a PodSpec)."""
    containers = [_container(c) for c in spec.containers or ()]
    inits = [
        ContainerRequests(_container(c), getattr(c, "restart_policy", None) == "Always")
        for c in spec.init_containers or ()
    ]
    level = spec.resources
    pod_level = quantity_map(level.requests) if level is not None and level.requests else None
    overhead = quantity_map(spec.overhead) if spec.overhead else None
    return pod_requests(containers, inits, pod_level, overhead)


def transform_requests(
    requests: Mapping[str, int], exclude_prefixes: Iterable[str] = (), transformations: Iterable[Any] = ()
) -> dict[str, int]:
    """``dropExcludedResources`` then ``applyResourceTransformations`` (config ``resources``):
    an input resource is replaced (``Replace``) or kept (``Retain``, the default) and its outputs,
    scaled by the input amount (or by ``multiplyBy``'s), are added."""
    prefixes = tuple(exclude_prefixes)
    out = {k: v for k, v in requests.items() if not prefixes or not k.startswith(prefixes)}
    rules = {t.input: t for t in transformations}
    if not rules or not any(k in rules for k in out):
        return out
    retained: dict[str, int] = {}
    generated: dict[str, Fraction] = {}
    for name, value in out.items():
        rule = rules.get(name)
        if rule is None:
            retained[name] = value
            continue
        base = Fraction(value, 1000) if name == CPU else Fraction(value)
        if rule.multiply_by and rule.multiply_by in out:
            other = out[rule.multiply_by]
            base *= Fraction(other, 1000) if rule.multiply_by == CPU else Fraction(other)
        for output, factor in (rule.outputs or {}).items():
            generated[output] = generated.get(output, Fraction(0)) + base * factor.as_fraction()
        if (rule.strategy or "Retain") == "Retain":
            retained[name] = value
    for name, total in generated.items():
        units = total * 1000 if name == CPU else total
        whole = max(0, -(-units.numerator // units.denominator))  # ceil, negatives floored to 0
        retained[name] = retained.get(name, 0) + whole
    return retained


def add_requests(requests: Mapping[str, int], units: Mapping[str, int]) -> dict[str, int]:
    """``requests`` plus whole ``units`` of each resource (DRA device counts: a quantity of ``N``,
    which counts as ``N`` units, or ``N`` cores when the resource is named ``cpu``)."""
    out = dict(requests)
    for name, n in units.items():
        out[name] = out.get(name, 0) + (n * 1000 if name == CPU else n)
    return out


def scale_requests(total: Mapping[str, int], count: int, new_count: int) -> dict[str, int]:
    """``PodSetResources.ScaledTo``: total requests of ``count`` pods rescaled to ``new_count``."""
    if count == 0 or count == new_count:
        return dict(total)
    return {k: v // count * new_count for k, v in total.items()}


def add_usage(into: Usage, other: Mapping[FlavorResource, int], sign: int = 1) -> None:
    for fr, value in other.items():
        into[fr] = into.get(fr, 0) + sign * value
