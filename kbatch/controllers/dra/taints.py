"""Device taints: a device's own (``ResourceSlice`` ``devices[].taints``) plus those DeviceTaintRules
add to it (KEP-5055: a rule's ``deviceSelector`` picks devices by driver, pool and device name; an
empty selector picks every device). Upstream applies the rules in
``k8s.io/dynamic-resource-allocation/resourceslice/tracker``; rules are taken in name order.

A rule without a selector: the tracker (the scheduler's view) reads it as the empty selector, every
device; the eviction controller's ``ruleMatchesDevice`` matches no device, as the API documents it
(``k8s.io/api/resource/v1`` ``DeviceTaintRuleSpec``: "Without a selector, no devices are matched").
:func:`rule_selects` is the tracker's reading, :func:`rule_evicts_device` the controller's."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["device_taints", "rule_evicts_device", "rule_selects"]


def rule_selects(rule: Any, driver: str, pool: str, device: str) -> bool:
    selector = rule.spec.device_selector
    if selector is None:
        return True
    return (
        (selector.driver is None or selector.driver == driver)
        and (selector.pool is None or selector.pool == pool)
        and (selector.device is None or selector.device == device)
    )


def rule_evicts_device(rule: Any, driver: str, pool: str, device: str) -> bool:
    """Upstream ``ruleMatchesDevice`` (``pkg/controller/devicetainteviction``): no selector, no device."""
    return rule.spec.device_selector is not None and rule_selects(rule, driver, pool, device)


def device_taints(device: Any, driver: str, pool: str, rules: Mapping[str, Any] | Iterable[Any]) -> list[Any]:
    taints = list(device.taints or ())
    values = [rules[n] for n in sorted(rules)] if isinstance(rules, Mapping) else list(rules)
    for rule in values:
        if rule_selects(rule, driver, pool, device.name):
            taints.append(rule.spec.taint)
    return taints
