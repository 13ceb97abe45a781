"""The structured allocator: devices for a pod's unallocated claims on one node.

Upstream: ``structured/internal/incubating/allocator_incubating.go`` (the variant 1.37 uses with its
default gates: admin access, prioritized lists, device taints, partitionable devices, consumable
capacity and binding conditions all on). :meth:`Allocator.allocate` returns one
:class:`~kbatch.api.resource_v1.AllocationResult` per claim, ``None`` when the claims cannot be
allocated on the node, and raises :class:`AllocationError` for a fatal problem (a missing class, a
selector failing at run time, "all" devices from an incomplete pool), which stops scheduling the pod.

The search, as upstream's ``allocateOne``:

1. Each request is checked first: its class must exist; ``ExactCount`` needs ``count`` devices,
   ``All`` every matching device of the node's pools (none of them incomplete or invalid); a
   ``firstAvailable`` request contributes its smallest subrequest; more than 32 devices per claim is
   an error ("exceeds the claim limit").
2. Depth first, claims in order, requests in order, one device at a time: candidates are walked pool
   by pool (driver, pool order), slice by slice, device by device; within one request only devices
   after the previous pick are tried (combinations, not permutations). A candidate is skipped when
   it is in use (allocated or being allocated; admin access may reuse a device, except twice in one
   claim), its class's or request's selectors do not all match, its capacity does not fit, its
   counters would be oversubscribed, it has a NoSchedule/NoExecute taint the request does not
   tolerate, or a constraint fails. A dead end undoes the last pick and tries the next device.
3. Subrequests of a ``firstAvailable`` request are tried in listed order; the first that leads to a
   complete solution wins. The first complete solution is the answer (no scoring).
4. Results name ``<request>`` or ``<request>/<subrequest>``; a device that allows multiple
   allocations gets a ``shareID`` and its ``consumedCapacity``; ``devices.config`` lists each used
   class's configuration once (``FromClass``, the requests using the class) and then the claim's
   (``FromClaim``); a config naming every request names none. The node selector pins the node when a
   device is node-local (or binds to its node); else it merges the slices' node selectors; else none.

Determinism: pools in (driver, pool) order where upstream iterates a map; ``shareID`` values come from
the caller's seeded generator, where upstream draws random UUIDs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from kbatch.api.cel import CompileError, SelectorRuntimeError
from kbatch.api.core_v1 import NodeSelector, NodeSelectorRequirement, NodeSelectorTerm
from kbatch.api.resource_v1 import (
    ALLOCATION_MODE_ALL,
    ALLOCATION_MODE_EXACT_COUNT,
    ALLOCATION_RESULTS_MAX_SIZE,
    CONFIG_SOURCE_CLAIM,
    CONFIG_SOURCE_CLASS,
    TAINT_EFFECT_NO_EXECUTE,
    TAINT_EFFECT_NO_SCHEDULE,
    AllocationResult,
    DeviceAllocationConfiguration,
    DeviceAllocationResult,
    DeviceRequestAllocationResult,
)
from kbatch.controllers.dra.structured.capacity import consumed_from_request, fits
from kbatch.controllers.dra.structured.constraints import DistinctAttribute, MatchAttribute
from kbatch.controllers.dra.structured.nodes import NodeView, node_matches
from kbatch.controllers.dra.structured.pools import Pool
from kbatch.controllers.dra.structured.requests import RequestData, tolerates
from kbatch.controllers.dra.structured.state import AllocatedState, DeviceID, Features
from kbatch.controllers.dra.structured.verify import counters_left

__all__ = ["AllocationError", "Allocator", "Candidate", "FailedOnNode", "MatchFn"]


class AllocationError(Exception):
    """A fatal problem: scheduling of the pod stops with this message (upstream: Allocate's error)."""


class FailedOnNode(AllocationError):
    """Upstream ``ErrFailedAllocationOnNode``: a problem of this node's pools only (invalid pools),
    which the scheduler reports for the node while other nodes may still fit."""


class _TooMany(Exception):
    """Upstream ``errAllocationResultMaxSizeExceeded``: backtrack harder."""


class Candidate:
    """One device of a pool slice, with where it is (upstream ``deviceWithID``)."""

    __slots__ = ("device", "id", "index", "pool", "slice")

    def __init__(self, pool: Pool, slice_: Any, index: int, device: Any) -> None:
        self.pool, self.slice, self.index, self.device = pool, slice_, index, device
        self.id = DeviceID(pool.driver, pool.name, device.name)


# (CEL expression, candidate) -> bool; raises SelectorRuntimeError or CompileError
MatchFn = Callable[[Any, Candidate], bool]
TaintFn = Callable[[Candidate], Sequence[Any]]


class Allocator:
    """One allocation attempt (upstream ``allocator``): built per node and call, used once."""

    def __init__(
        self,
        claims: Sequence[Any],
        node: NodeView,
        pools: Sequence[Pool],
        allocated: AllocatedState,
        classes: Callable[[str], Any],
        features: Features,
        match: MatchFn,
        taints: TaintFn,
        share_id: Callable[[], str],
    ) -> None:
        self.claims, self.node, self.pools, self.allocated = list(claims), node, list(pools), allocated
        self.classes, self.features, self.match, self.taints, self.share_id = (
            classes,
            features,
            match,
            taints,
            share_id,
        )
        self.requests: dict[tuple[int, int, int], RequestData] = {}
        self.constraints: list[list[Any]] = []
        self.allocating: dict[DeviceID, set[int]] = {}
        self.allocating_capacity: dict[DeviceID, dict[str, Fraction]] = {}
        self.consumed_counters: dict[str, dict[str, dict[str, Fraction]]] = {}
        self.available_counters: dict[str, dict[str, dict[str, Fraction]]] = {}
        self.results: list[list[dict[str, Any]]] = [[] for _ in self.claims]
        self._match_cache: dict[tuple[DeviceID, tuple[int, int, int]], bool] = {}
        self.steps = 0  # upstream NumAllocateOneInvocations

    # -- the entry point -------------------------------------------------------------------------
    def allocate(self) -> list[AllocationResult] | None:
        for ci, claim in enumerate(self.claims):
            minimum = 0
            for ri, request in enumerate(claim.spec.devices.requests or ()):
                minimum += self._prepare_request(ci, ri, claim, request)
            if minimum > ALLOCATION_RESULTS_MAX_SIZE:
                raise AllocationError(
                    f"claim {_key(claim)}: number of requested devices {minimum} exceeds "
                    f"the claim limit of {ALLOCATION_RESULTS_MAX_SIZE}"
                )
            self.constraints.append(
                [self._constraint(claim, i, c) for i, c in enumerate(claim.spec.devices.constraints or ())]
            )
        try:
            done = self._allocate_one(0, 0, 0, 0, False, (0, 0, 0))
        except _TooMany:
            done = False
        if not done:
            if any(p.invalid for p in self.pools):
                raise FailedOnNode("invalid resource pools were encountered")
            return None
        return [self._result(ci, claim) for ci, claim in enumerate(self.claims)]

    def _constraint(self, claim: Any, i: int, constraint: Any) -> Any:
        if constraint.match_attribute is not None:
            return MatchAttribute(constraint.requests, constraint.match_attribute)
        if constraint.distinct_attribute is not None:
            return DistinctAttribute(constraint.requests, constraint.distinct_attribute)
        raise AllocationError(
            f"claim {_key(claim)}, constraint #{i}: empty constraint (unsupported constraint type?)"
        )

    # -- step 1: check every request -------------------------------------------------------------
    def _prepare_request(self, ci: int, ri: int, claim: Any, request: Any) -> int:
        if request.first_available:
            smallest = None
            for si, sub in enumerate(request.first_available):
                data = self._request_data(ci, ri, si, claim, sub, request.name, False)
                smallest = data.num_devices if smallest is None else min(smallest, data.num_devices)
            return smallest or 0
        if request.exactly is None:
            raise AllocationError(
                f"claim {_key(claim)}, request {request.name}: missing device class name "
                "(unsupported request type?)"
            )
        return self._request_data(ci, ri, 0, claim, request.exactly, "", True, request.name).num_devices

    def _request_data(
        self, ci: int, ri: int, si: int, claim: Any, spec: Any, parent: str, exact: bool, name: str = ""
    ) -> RequestData:
        name = name or spec.name
        # upstream's messages name a subrequest by its own name (deviceSubRequestAccessor.name)
        shown = name
        for i, selector in enumerate(spec.selectors or ()):
            if selector.cel is None:
                raise AllocationError(
                    f"claim {_key(claim)}, request {shown}, selector #{i}: CEL expression "
                    "empty (unsupported selector type?)"
                )
        if not spec.device_class_name:
            raise AllocationError(
                f"claim {_key(claim)}, request {shown}: missing device class name (unsupported request type?)"
            )
        device_class = self.classes(spec.device_class_name)
        if device_class is None:
            raise AllocationError(
                f"claim {_key(claim)}, request {shown}: could not retrieve device class "
                f"{spec.device_class_name}: deviceclass.resource.k8s.io "
                f'"{spec.device_class_name}" not found'
            )
        capacity = spec.capacity.requests if spec.capacity is not None else None
        if capacity and not self.features.consumable_capacity:
            raise AllocationError(
                f"claim {_key(claim)}, {'subrequest' if parent else 'request'} {shown}: has capacity "
                "requests, but the DRAConsumableCapacity feature is disabled"
            )
        mode = spec.allocation_mode or ALLOCATION_MODE_EXACT_COUNT
        data = RequestData(
            ci,
            ri,
            si,
            name,
            parent,
            device_class,
            list(spec.selectors or ()),
            mode,
            spec.count or 0,
            bool(exact and spec.admin_access),
            list(spec.tolerations or ()),
            dict(capacity) if capacity else None,
        )
        self.requests[(ci, ri, si)] = data
        if mode == ALLOCATION_MODE_EXACT_COUNT:
            data.num_devices = data.count
        elif mode == ALLOCATION_MODE_ALL:
            self._all_devices(data, claim)
        else:
            raise AllocationError(f"claim {_key(claim)}, request {shown}: unsupported count mode {mode}")
        return data

    def _all_devices(self, data: RequestData, claim: Any) -> None:
        for pool in self.pools:
            if pool.incomplete:
                raise AllocationError(
                    f"claim {_key(claim)}, request {data.name}: asks for all devices, "
                    f"but resource pool {pool.id} is currently being updated"
                )
            if pool.invalid:
                raise AllocationError(
                    f"claim {_key(claim)}, request {data.name}: asks for all devices, "
                    f"but resource pool {pool.id} is currently invalid"
                )
            for slice_ in pool.slices:
                for index, device in enumerate(slice_.spec.devices or ()):
                    candidate = Candidate(pool, slice_, index, device)
                    if self._selectable(data, candidate) and self._capacity_fits(data, candidate):
                        data.all_devices.append(candidate)
        data.num_devices = len(data.all_devices)

    # -- step 2: the search ----------------------------------------------------------------------
    def _allocate_one(
        self, ci: int, ri: int, si: int, di: int, in_sub: bool, start: tuple[int, int, int]
    ) -> bool:
        self.steps += 1
        if ci >= len(self.claims):
            return True
        requests = self.claims[ci].spec.devices.requests or ()
        if ri >= len(requests):
            try:
                return self._allocate_one(ci + 1, 0, 0, 0, False, (0, 0, 0))
            except _TooMany:
                return False
        data = self.requests[(ci, ri, si)]
        if not in_sub and data.parent:
            return self._first_available(ci, ri, data)
        if data.mode == ALLOCATION_MODE_ALL and not data.all_devices:
            return False
        if di >= data.num_devices:
            return self._allocate_one(ci, ri + 1, 0, 0, False, (0, 0, 0))
        if len(self.results[ci]) + data.num_devices - di > ALLOCATION_RESULTS_MAX_SIZE:
            raise _TooMany
        if data.mode == ALLOCATION_MODE_ALL:
            undo = self._allocate_device(data, data.all_devices[di], must=True)
            if undo is None:
                return False
            try:
                if self._allocate_one(ci, ri, si, di + 1, in_sub, (0, 0, 0)):
                    return True
            except _TooMany:  # upstream deallocates on an error too, then returns it
                undo()
                raise
            undo()
            return False
        return self._search(data, ci, ri, si, di, in_sub, start)

    def _first_available(self, ci: int, ri: int, data: RequestData) -> bool:
        all_too_many = True
        si = 0
        while (ci, ri, si) in self.requests:
            try:
                if self._allocate_one(ci, ri, si, 0, True, (0, 0, 0)):
                    data.selected_sub = si
                    return True
                all_too_many = False
            except _TooMany:
                pass
            si += 1
        if all_too_many:
            raise _TooMany
        return False

    def _search(
        self, data: RequestData, ci: int, ri: int, si: int, di: int, in_sub: bool, start: tuple[int, int, int]
    ) -> bool:
        for pi in range(start[0], len(self.pools)):
            pool = self.pools[pi]
            if pool.incomplete or pool.invalid:
                continue
            first_slice = start[1] if pi == start[0] else 0
            for sli in range(first_slice, len(pool.slices)):
                slice_ = pool.slices[sli]
                devices = slice_.spec.devices or ()
                first_device = start[2] if (pi, sli) == start[:2] else 0
                for dvi in range(first_device, len(devices)):
                    candidate = Candidate(pool, slice_, dvi, devices[dvi])
                    if self._in_use(data, candidate) or not self._selectable(data, candidate):
                        continue
                    if not self._capacity_fits(data, candidate):
                        continue
                    undo = self._allocate_device(data, candidate, must=False)
                    if undo is None:
                        continue
                    try:
                        if self._allocate_one(ci, ri, si, di + 1, in_sub, (pi, sli, dvi + 1)):
                            return True
                    except _TooMany:
                        undo()
                        raise
                    undo()
        return False

    def _in_use(self, data: RequestData, candidate: Candidate) -> bool:
        if data.admin_access:
            return data.claim_index in self.allocating.get(candidate.id, ())
        return candidate.id in self.allocated.devices or bool(self.allocating.get(candidate.id))

    def _selectable(self, data: RequestData, candidate: Candidate) -> bool:
        device = candidate.device
        if not self.features.binding_conditions and device.binding_conditions:
            return False
        key = (candidate.id, (data.claim_index, data.request_index, data.sub_index))
        known = self._match_cache.get(key)
        if known is not None:
            return known
        ok = self._matches(data, candidate)
        if ok and candidate.slice.spec.per_device_node_selection:
            ok = node_matches(self.node, device.node_name or "", bool(device.all_nodes), device.node_selector)
        self._match_cache[key] = ok
        return ok

    def _matches(self, data: RequestData, candidate: Candidate) -> bool:
        """Class selectors, then the request's (upstream ``selectorsMatch``); a CEL runtime error is
        fatal, in upstream's words."""
        device_class = data.device_class
        for owner, selectors in (
            (f"class {device_class.metadata.name}", device_class.spec.selectors or ()),
            (f"claim {_key(self.claims[data.claim_index])}", data.selectors),
        ):
            for i, selector in enumerate(selectors):
                try:
                    if not self.match(selector.cel.expression, candidate):
                        return False
                except SelectorRuntimeError as err:
                    raise AllocationError(
                        f"{owner}: selector #{i} on device {candidate.id}: CEL runtime error: {err}"
                    ) from None
                except CompileError as err:
                    raise AllocationError(
                        f"{owner}: selector #{i}: CEL compile error: {err.detail}"
                    ) from None
        return True

    def _capacity_fits(self, data: RequestData, candidate: Candidate) -> bool:
        if not self.features.consumable_capacity:
            return True
        return fits(
            data.capacity_requests,
            candidate.device.capacity and {n: c for n, c in candidate.device.capacity.items()},
            self.allocated.capacity.get(candidate.id),
            self.allocating_capacity.get(candidate.id),
        )

    # -- one device ------------------------------------------------------------------------------
    def _allocate_device(
        self, data: RequestData, candidate: Candidate, must: bool
    ) -> Callable[[], None] | None:
        device, ci = candidate.device, data.claim_index
        multiple = self.features.consumable_capacity and bool(device.allow_multiple_allocations)
        if not multiple and data.admin_access and ci in self.allocating.get(candidate.id, ()):
            return None
        if not data.admin_access and (
            candidate.id in self.allocated.devices or self.allocating.get(candidate.id)
        ):
            return None
        if not self.features.partitionable_devices and device.consumes_counters:
            return None
        counted = False
        shared_in_use = multiple and (
            candidate.id in self.allocated.capacity or candidate.id in self.allocating_capacity
        )
        if device.consumes_counters and not shared_in_use:
            if not self._take_counters(candidate):
                return None
            counted = True
        if self._untolerated_taint(data, candidate):
            if counted:
                self._release_counters(candidate)
            return None
        added: list[Any] = []
        for constraint in self.constraints[ci]:
            if not constraint.add(data.base_name, data.sub_name, device, candidate.pool.driver):
                self._back_out(data, candidate, added, counted)
                if must:
                    raise AllocationError(
                        f"claim {_key(self.claims[ci])}, request {data.name}: cannot add "
                        f"device {candidate.id} because a claim constraint would not be satisfied"
                    )
                return None
            added.append(constraint)
        if must and not self._capacity_fits(data, candidate):
            # upstream allocateDevice checks the capacity again: an "all" request's devices were
            # chosen before anything was being allocated (the search checks just before this call)
            self._back_out(data, candidate, added, counted)
            return None
        holders = self.allocating.setdefault(candidate.id, set())
        if not multiple:
            holders.add(ci)
        result: dict[str, Any] = {"data": data, "candidate": candidate, "share": None, "consumed": None}
        if multiple:
            consumed = consumed_from_request(data.capacity_requests, device.capacity or {})
            result["consumed"], result["share"] = consumed, self.share_id()
            total = self.allocating_capacity.setdefault(candidate.id, {})
            for name, quantity in consumed.items():
                total[name] = total.get(name, Fraction(0)) + quantity.as_fraction()
        self.results[ci].append(result)

        def undo() -> None:
            for constraint in self.constraints[ci]:
                constraint.remove(data.base_name, data.sub_name, device, candidate.pool.driver)
            holders.discard(ci)
            if not holders:
                self.allocating.pop(candidate.id, None)
            if result["consumed"] is not None:
                total = self.allocating_capacity[candidate.id]
                for name, quantity in result["consumed"].items():
                    total[name] -= quantity.as_fraction()
                if not any(total.values()):
                    self.allocating_capacity.pop(candidate.id, None)
            if counted:
                self._release_counters(candidate)
            self.results[ci].remove(result)

        return undo

    def _untolerated_taint(self, data: RequestData, candidate: Candidate) -> bool:
        for taint in self.taints(candidate):
            if taint.effect in (TAINT_EFFECT_NO_SCHEDULE, TAINT_EFFECT_NO_EXECUTE) and not any(
                tolerates(t, taint) for t in data.tolerations
            ):
                return True
        return False

    # -- counters (partitionable devices) --------------------------------------------------------
    def _available(self, pool: Pool) -> dict[str, dict[str, Fraction]]:
        """The pool's counters minus what already allocated devices consume (computed once)."""
        have = self.available_counters.get(pool.id)
        if have is not None:
            return have
        have = counters_left(pool, self.allocated)
        self.available_counters[pool.id] = have
        return have

    def _take_counters(self, candidate: Candidate) -> bool:
        available = self._available(candidate.pool)
        consumed = self.consumed_counters.setdefault(candidate.pool.id, {})
        for consumption in candidate.device.consumes_counters or ():
            counters = consumed.setdefault(consumption.counter_set, {})
            for name, counter in (consumption.counters or {}).items():
                counters[name] = counters.get(name, Fraction(0)) + counter.value.as_fraction()
        for set_name, counters in available.items():
            used = consumed.get(set_name, {})
            if any(value < used.get(name, Fraction(0)) for name, value in counters.items()):
                self._release_counters(candidate)
                return False
        return True

    def _back_out(self, data: RequestData, candidate: Candidate, added: list[Any], counted: bool) -> None:
        """Undo what a refused device attempt took: the constraints it joined, its counters."""
        for constraint in added:
            constraint.remove(data.base_name, data.sub_name, candidate.device, candidate.pool.driver)
        if counted:
            self._release_counters(candidate)

    def _release_counters(self, candidate: Candidate) -> None:
        consumed = self.consumed_counters.get(candidate.pool.id, {})
        for consumption in candidate.device.consumes_counters or ():
            counters = consumed.get(consumption.counter_set, {})
            for name, counter in (consumption.counters or {}).items():
                counters[name] = counters.get(name, Fraction(0)) - counter.value.as_fraction()

    # -- step 4: results -------------------------------------------------------------------------
    def _result(self, ci: int, claim: Any) -> AllocationResult:
        results = []
        for entry in self.results[ci]:
            data, candidate = entry["data"], entry["candidate"]
            device = candidate.device
            item = DeviceRequestAllocationResult(
                request=data.full_name,
                driver=candidate.pool.driver,
                pool=candidate.pool.name,
                device=device.name,
                admin_access=True if data.admin_access else None,
                tolerations=list(data.tolerations) or None,
                share_id=entry["share"],
                consumed_capacity=dict(entry["consumed"]) if entry["consumed"] else None,
            )
            if self.features.binding_conditions and device.binding_conditions:
                item.binding_conditions = list(device.binding_conditions)
                item.binding_failure_conditions = list(device.binding_failure_conditions or ())
            results.append(item)
        config = self._configs(ci, claim)
        return AllocationResult(
            devices=DeviceAllocationResult(results=results or None, config=config or None),
            node_selector=self._node_selector(self.results[ci]),
        )

    def _chosen(self, ci: int, ri: int) -> RequestData:
        data = self.requests[(ci, ri, 0)]
        return self.requests[(ci, ri, data.selected_sub)] if data.parent else data

    def _configs(self, ci: int, claim: Any) -> list[DeviceAllocationConfiguration]:
        requests = claim.spec.devices.requests or ()
        out: list[DeviceAllocationConfiguration] = []
        by_class: dict[str, list[DeviceAllocationConfiguration]] = {}
        for ri in range(len(requests)):
            data = self._chosen(ci, ri)
            name = data.device_class.metadata.name
            if name in by_class:
                for item in by_class[name]:
                    item.requests = [*(item.requests or []), data.full_name]
                continue
            by_class[name] = [
                DeviceAllocationConfiguration(
                    source=CONFIG_SOURCE_CLASS, requests=[data.full_name], opaque=c.opaque
                )
                for c in data.device_class.spec.config or ()
            ]
            out += by_class[name]
        for config in claim.spec.devices.config or ():
            wanted = config.requests or []
            if not wanted:
                out.append(
                    DeviceAllocationConfiguration(
                        source=CONFIG_SOURCE_CLAIM, requests=None, opaque=config.opaque
                    )
                )
                continue
            # once, when it names any request or the chosen subrequest (upstream breaks at the first)
            if any(self._names(ci, ri, request, wanted) for ri, request in enumerate(requests)):
                out.append(
                    DeviceAllocationConfiguration(
                        source=CONFIG_SOURCE_CLAIM, requests=list(wanted), opaque=config.opaque
                    )
                )
        for item in out:
            # upstream clears a config's requests when every request is named (itself or through its
            # chosen subrequest), not when the counts agree
            if item.requests is not None and all(
                self._names(ci, ri, request, item.requests) for ri, request in enumerate(requests)
            ):
                item.requests = None
        return out

    def _names(self, ci: int, ri: int, request: Any, wanted: Sequence[str]) -> bool:
        """Whether a config's ``wanted`` requests cover request ``ri``: by its name, or by the
        ``<request>/<subrequest>`` of the subrequest chosen for it."""
        if request.name in wanted:
            return True
        data = self._chosen(ci, ri)
        return bool(data.parent) and data.full_name in wanted

    def _node_selector(self, results: list[dict[str, Any]]) -> NodeSelector | None:
        fields: list[NodeSelectorRequirement] = []
        expressions: list[NodeSelectorRequirement] = []
        for entry in results:
            candidate = entry["candidate"]
            device, spec = candidate.device, candidate.slice.spec
            per_device = bool(spec.per_device_node_selection)
            node_name = device.node_name if per_device else spec.node_name
            selector = device.node_selector if per_device else spec.node_selector
            if node_name or device.binds_to_node:
                return NodeSelector(
                    node_selector_terms=[
                        NodeSelectorTerm(
                            match_fields=[
                                NodeSelectorRequirement(
                                    key="metadata.name", operator="In", values=[self.node.name]
                                )
                            ]
                        )
                    ]
                )
            terms = (selector.node_selector_terms or []) if selector is not None else []
            if len(terms) > 1:
                raise AllocationError(f"unsupported ResourceSlice.NodeSelector with {len(terms)} terms")
            if terms:
                _merge(terms[0].match_fields or [], fields)
                _merge(terms[0].match_expressions or [], expressions)
        if not fields and not expressions:
            return None
        return NodeSelector(
            node_selector_terms=[
                NodeSelectorTerm(match_fields=fields or None, match_expressions=expressions or None)
            ]
        )


def _merge(source: list[Any], into: list[Any]) -> None:
    for req in source:
        if not any(
            r.key == req.key and r.operator == req.operator and set(r.values or ()) == set(req.values or ())
            for r in into
        ):
            into.append(req)


def _key(claim: Any) -> str:
    return f"{claim.metadata.namespace}/{claim.metadata.name}"
