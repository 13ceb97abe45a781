"""Resource pools reachable from a node (upstream ``GatherPools``, ``pools_incubating.go``, 1.37).

1. Slices are picked for the node: a slice with ``sharedCounters`` always (its pool needs it); one
   with ``nodeName``, ``allNodes`` or ``nodeSelector`` when that matches; one with
   ``perDeviceNodeSelection`` when one of its devices matches; others (an unknown future way) never.
2. Per pool (driver, pool name) only the slices of the highest generation count.
3. A pool whose slices seen here are fewer than ``resourceSliceCount`` is looked at in full (slices
   for other nodes included): a newer generation elsewhere makes it obsolete (ignored); still too few
   slices makes it *incomplete*.
4. A complete pool is *invalid* if a device name repeats, a counter set name repeats, or a device
   consumes a counter set or counter that does not exist.

kbatch orders pools by (driver, pool name) where upstream iterates a Go map (random order); slices
keep the order in which they were passed (the caller sorts them by name) and devices their
published order. With PartitionableDevices off, slices with ``sharedCounters`` or
``perDeviceNodeSelection`` are ignored, as upstream.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from kbatch.controllers.dra.structured.nodes import NodeView, node_matches
from kbatch.controllers.dra.structured.state import Features

__all__ = ["Pool", "gather_pools"]


@dataclass(slots=True)
class Pool:
    driver: str
    name: str
    incomplete: bool = False
    invalid: bool = False
    invalid_reason: str = ""
    slices: list[Any] = field(default_factory=list)  # device slices that target the node
    other_slices: list[Any] = field(default_factory=list)  # device slices for other nodes
    counter_sets: dict[str, dict[str, Fraction]] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.driver}/{self.name}"


def _for_node(slice_: Any, node: NodeView, features: Features) -> bool:
    spec = slice_.spec
    if not features.partitionable_devices and (
        spec.per_device_node_selection is not None or spec.shared_counters
    ):
        return False
    if spec.shared_counters:
        return True
    if spec.node_name or spec.all_nodes or spec.node_selector is not None:
        return node_matches(node, spec.node_name or "", bool(spec.all_nodes), spec.node_selector)
    if spec.per_device_node_selection:
        return any(
            node_matches(node, d.node_name or "", bool(d.all_nodes), d.node_selector)
            for d in spec.devices or ()
        )
    return False


def _newest(slices: Sequence[Any]) -> dict[tuple[str, str], list[Any]]:
    pools: dict[tuple[str, str], list[Any]] = {}
    for slice_ in slices:
        spec = slice_.spec
        key = (spec.driver, spec.pool.name)
        have = pools.get(key)
        if have is None or spec.pool.generation > have[0].spec.pool.generation:
            pools[key] = [slice_]
        elif spec.pool.generation == have[0].spec.pool.generation:
            have.append(slice_)
    return pools


def gather_pools(
    slices: Sequence[Any],
    node: NodeView,
    features: Features,
    pool_slices: Callable[[str, str], Sequence[Any]],
) -> list[Pool]:
    """The pools ``node`` can use, in (driver, pool) order. ``slices`` are the candidate slices for
    the node (node-local and shared ones), ``pool_slices(driver, pool)`` all slices of a pool."""
    chosen = [s for s in slices if _for_node(s, node, features)]
    result: list[Pool] = []
    for (driver, name), pool_list in sorted(_newest(chosen).items()):
        wanted = pool_list[0].spec.pool.resource_slice_count
        generation = pool_list[0].spec.pool.generation
        if len(pool_list) == wanted:
            result.append(_build(driver, name, pool_list, features, None))
            continue
        everything = [s for s in pool_slices(driver, name)]
        if any(s.spec.pool.generation > generation for s in everything):
            continue  # obsolete: the driver is replacing this generation
        same = [s for s in everything if s.spec.pool.generation == generation]
        if len(same) != wanted:
            result.append(Pool(driver, name, incomplete=True))
            continue
        result.append(_build(driver, name, pool_list, features, same))
    return result


def _counter_values(counters: Any) -> dict[str, Fraction]:
    return {name: c.value.as_fraction() for name, c in sorted((counters or {}).items())}


def _build(
    driver: str, name: str, slices: list[Any], features: Features, everything: list[Any] | None
) -> Pool:
    if features.partitionable_devices:
        counter_slices = [s for s in slices if s.spec.shared_counters]
        device_slices = [s for s in slices if not s.spec.shared_counters]
    else:
        counter_slices, device_slices = [], slices
    seen: set[str] = set()
    for slice_ in device_slices:
        for device in slice_.spec.devices or ():
            if device.name in seen:
                return Pool(driver, name, invalid=True, invalid_reason=f"duplicate device name {device.name}")
            seen.add(device.name)
    pool = Pool(driver, name, slices=device_slices)
    if not features.partitionable_devices:
        return pool
    for slice_ in counter_slices:
        for counter_set in slice_.spec.shared_counters or ():
            if counter_set.name in pool.counter_sets:
                return Pool(
                    driver,
                    name,
                    invalid=True,
                    invalid_reason=f"duplicate counter set name {counter_set.name}",
                )
            pool.counter_sets[counter_set.name] = _counter_values(counter_set.counters)
    others: list[Any] = []
    if everything is not None and len(everything) != len(slices):
        names = {s.metadata.name for s in slices}
        others = [s for s in everything if s.metadata.name not in names and not s.spec.shared_counters]
    reason = _consumption_error(pool.counter_sets, device_slices) or _consumption_error(
        pool.counter_sets, others
    )
    if reason:
        return Pool(driver, name, invalid=True, invalid_reason=reason)
    pool.other_slices = others
    return pool


def _consumption_error(counter_sets: dict[str, dict[str, Fraction]], slices: list[Any]) -> str:
    for slice_ in slices:
        for device in slice_.spec.devices or ():
            for consumption in device.consumes_counters or ():
                counters = counter_sets.get(consumption.counter_set)
                if counters is None:
                    return f"counter set {consumption.counter_set} not found"
                for counter in sorted(consumption.counters or {}):
                    if counter not in counters:
                        return f"counter {counter} not found in counter set {consumption.counter_set}"
    return ""
