"""How many devices back an extended resource on a node, and how many of them are taken: what
NodeResourcesFit and NodeResourcesBalancedAllocation score a DRA-backed extended resource with on a
node that does not advertise it (KEP-5004, ``DRAExtendedResource``).

Upstream ``pkg/scheduler/framework/plugins/noderesources/resource_allocation.go``
(``calculateDRAResourceTotals``, ``deviceMatchesClass``), as of 1.37:

* every ResourceSlice is looked at (all generations, as upstream's slice lister returns them); one
  with ``perDeviceNodeSelection`` contributes its devices whose ``allNodes``, ``nodeName`` or
  ``nodeSelector`` takes the node, any other slice all its devices when its ``allNodes``,
  ``nodeName`` or ``nodeSelector`` takes the node, or when it names no node at all;
* a device counts when every CEL selector of the DeviceClass the resource maps to matches it;
* it is taken when allocated, exclusively or in part (upstream ``IsDeviceAllocated``: a shared
  device with one share allocated counts whole), including allocations in flight;
* a selector that fails to compile or evaluate makes the totals (0, 0), as upstream's error path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from kbatch.api.cel import CompileError, SelectorRuntimeError
from kbatch.controllers.dra.structured import AllocatedState, DeviceID, NodeView
from kbatch.controllers.dra.structured.nodes import node_matches

__all__ = ["device_totals"]

# (CEL expression, a candidate with .pool.driver, .slice, .index, .device) -> bool
Matcher = Callable[[str, Any], bool]


class _Pool:
    __slots__ = ("driver", "name")

    def __init__(self, driver: str, name: str) -> None:
        self.driver, self.name = driver, name


class _Device:
    """A device as the selector cache reads it (the allocator's ``Candidate`` shape)."""

    __slots__ = ("device", "index", "pool", "slice")

    def __init__(self, pool: _Pool, slice_: Any, index: int, device: Any) -> None:
        self.pool, self.slice, self.index, self.device = pool, slice_, index, device


def _node_devices(slice_: Any, node: NodeView) -> Iterator[tuple[int, Any]]:
    spec = slice_.spec
    devices = spec.devices or ()
    if spec.per_device_node_selection:
        for index, device in enumerate(devices):
            if node_matches(node, device.node_name or "", bool(device.all_nodes), device.node_selector):
                yield index, device
        return
    named = spec.node_name or spec.all_nodes or spec.node_selector is not None
    if not named or node_matches(node, spec.node_name or "", bool(spec.all_nodes), spec.node_selector):
        yield from enumerate(devices)


def device_totals(
    slices: Iterable[Any], node: NodeView, device_class: Any, matches: Matcher, allocated: AllocatedState,
) -> tuple[int, int]:
    """(devices of ``device_class`` on ``node``, how many of them are allocated)."""
    expressions = [s.cel.expression for s in device_class.spec.selectors or () if s.cel is not None]
    capacity = taken = 0
    try:
        for slice_ in slices:
            pool = _Pool(slice_.spec.driver, slice_.spec.pool.name)
            for index, device in _node_devices(slice_, node):
                candidate = _Device(pool, slice_, index, device)
                if all(matches(expression, candidate) for expression in expressions):
                    capacity += 1
                    taken += allocated.is_allocated(DeviceID(pool.driver, pool.name, device.name))
    except (CompileError, SelectorRuntimeError):
        return 0, 0
    return capacity, taken
