"""What the DynamicResources plugin knows of the cluster, kept current by informer events
(upstream: the scheduler's claim assume cache, ``allocateddevices.go`` and the ResourceSlice and
DeviceClass listers).

* claims by ``namespace/name``, and the allocations this scheduler made that the informer has not
  shown yet (in flight, upstream ``inFlightAllocations``): both count in :attr:`allocated`;
* slices indexed by node name, shared (no node name), and by (driver, pool);
* the special claims of extended resources by their pod's uid;
* device classes by name; device taint rules by name;
* ``generation``: bumped when something happened that can make an unschedulable pod schedulable
  (devices freed, slices, classes or rules changed).
"""

from __future__ import annotations

from typing import Any

from kbatch.api.resource_v1.constants import EXTENDED_RESOURCE_CLAIM_ANNOTATION
from kbatch.controllers.dra.extended import ExtendedIndex
from kbatch.controllers.dra.structured import AllocatedState, claim_devices

__all__ = ["World"]


def _key(obj: Any) -> str:
    meta = obj.metadata
    return f"{meta.namespace}/{meta.name}" if meta.namespace else meta.name or ""


def _older(new: Any, have: Any) -> bool:
    """Upstream's assume cache keeps a newer object than the informer's: resourceVersions of one
    object only grow (kbatch's are store revisions)."""
    try:
        return int(new.metadata.resource_version or 0) < int(have.metadata.resource_version or 0)
    except ValueError:
        return False


def _names_node(slice_: Any, device_name: str) -> bool:
    spec = slice_.spec
    for device in spec.devices or ():
        if device.name == device_name:
            return bool(spec.node_name) or bool(spec.per_device_node_selection and device.node_name)
    return False


class World:
    def __init__(self) -> None:
        self.claims: dict[str, Any] = {}
        # the special claims of extended resources (annotated, KEP-5004) by their controlling pod's uid
        self.special: dict[str, Any] = {}
        self.in_flight: dict[str, Any] = {}  # claim key -> AllocationResult assumed by Reserve
        self.allocated = AllocatedState()
        self.slices: dict[str, Any] = {}
        self.by_node: dict[str, dict[str, Any]] = {}
        self.shared: dict[str, Any] = {}
        self.by_pool: dict[tuple[str, str], dict[str, Any]] = {}
        self.classes: dict[str, Any] = {}
        self._extended: ExtendedIndex | None = None  # rebuilt after a class change
        self.rules: dict[str, Any] = {}
        self.generation = 0
        self.slice_generation = 0

    # -- claims ----------------------------------------------------------------------------------
    def claim(self, namespace: str, name: str) -> Any:
        return self.claims.get(f"{namespace}/{name}")

    def set_claim(self, claim: Any) -> tuple[Any, Any]:
        """Store ``claim``; returns (old, new). Its allocation replaces an in-flight one."""
        key = _key(claim)
        old = self.claims.get(key)
        if old is not None and _older(claim, old):
            return old, old  # an informer event older than the scheduler's own write (assume cache)
        self.claims[key] = claim
        self._index_special(old, None)
        self._index_special(claim, claim)
        self._account(old, -1)
        self._account(claim, 1)
        assumed = self.in_flight.get(key)
        if assumed is not None and claim.status is not None and claim.status.allocation is not None:
            del self.in_flight[key]
            self.allocated.add(assumed.devices.results or (), -1)
        if old is not None and claim_devices(old) and not claim_devices(claim):
            self.generation += 1  # deallocated: devices freed
        return old, claim

    def remove_claim(self, claim: Any) -> Any:
        key = _key(claim)
        old = self.claims.pop(key, None)
        self._index_special(old, None)
        self._account(old, -1)
        if old is not None and claim_devices(old):
            self.generation += 1
        return old

    def _index_special(self, claim: Any, value: Any) -> None:
        """Index (``value`` the claim) or unindex (None) an annotated special claim by its pod's uid."""
        meta = claim.metadata if claim is not None else None
        annotations = meta.annotations if meta is not None else None
        if meta is None or not annotations or annotations.get(EXTENDED_RESOURCE_CLAIM_ANNOTATION) != "true":
            return
        for ref in meta.owner_references or ():
            if ref.controller:
                if value is not None:
                    self.special[ref.uid] = value
                elif self.special.get(ref.uid) is claim:
                    del self.special[ref.uid]

    def _account(self, claim: Any, sign: int) -> None:
        if claim is not None:
            self.allocated.add(claim_devices(claim), sign)

    def assume(self, claim: Any, allocation: Any, key: str = "") -> None:
        """``key``: the in-flight entry's key when the claim has no name yet (a pod's special
        extended-resource claim, upstream's temporary UID)."""
        self.in_flight[key or _key(claim)] = allocation
        self.allocated.add(allocation.devices.results or (), 1)

    def forget(self, claim: Any, key: str = "", freed: bool = True) -> None:
        """``freed``: False when the devices stay taken (the claim now holds them itself)."""
        assumed = self.in_flight.pop(key or _key(claim), None)
        if assumed is not None:
            self.allocated.add(assumed.devices.results or (), -1)
            if freed:
                self.generation += 1

    def extended_class(self, name: str) -> Any:
        """The DeviceClass an extended resource name maps to (None: not backed by DRA)."""
        index = self._extended
        if index is None:
            index = self._extended = ExtendedIndex(self.classes[n] for n in sorted(self.classes))
        return index.resolve(name) if index else None

    # -- slices, classes, rules ------------------------------------------------------------------
    def set_slice(self, slice_: Any) -> None:
        self.remove_slice(slice_, bump=False)
        name = slice_.metadata.name
        self.slices[name] = slice_
        node = slice_.spec.node_name
        if node:
            self.by_node.setdefault(node, {})[name] = slice_
        else:
            self.shared[name] = slice_
        self.by_pool.setdefault((slice_.spec.driver, slice_.spec.pool.name), {})[name] = slice_
        self._changed()

    def remove_slice(self, slice_: Any, bump: bool = True) -> None:
        old = self.slices.pop(slice_.metadata.name, None)
        if old is None:
            return
        name = old.metadata.name
        if old.spec.node_name:
            self.by_node.get(old.spec.node_name, {}).pop(name, None)
        else:
            self.shared.pop(name, None)
        self.by_pool.get((old.spec.driver, old.spec.pool.name), {}).pop(name, None)
        if bump:
            self._changed()

    def _changed(self) -> None:
        self.generation += 1
        self.slice_generation += 1

    def slices_for(self, node: str) -> list[Any]:
        """Candidate slices for ``node``, by name (node-local first, then shared)."""
        local = self.by_node.get(node, {})
        return [local[n] for n in sorted(local)] + [self.shared[n] for n in sorted(self.shared)]

    def pool_slices(self, driver: str, pool: str) -> list[Any]:
        found = self.by_pool.get((driver, pool), {})
        return [found[n] for n in sorted(found)]

    def node_local(self, claim: Any) -> bool:
        """Every device of the claim's allocation is published with a ``nodeName``: by its slice, or
        by itself in a slice with ``perDeviceNodeSelection`` (KEP-5690's scope: DRA preemption only
        frees node-local devices). A device no slice publishes any more does not count as local."""
        for result in claim_devices(claim):
            if not any(_names_node(s, result.device) for s in self.pool_slices(result.driver, result.pool)):
                return False
        return True

    def set_class(self, obj: Any) -> None:
        self.classes[obj.metadata.name] = obj
        self._extended = None
        self.generation += 1

    def remove_class(self, obj: Any) -> None:
        self.classes.pop(obj.metadata.name, None)
        self._extended = None

    def set_rule(self, obj: Any) -> None:
        self.rules[obj.metadata.name] = obj
        self._changed()

    def remove_rule(self, obj: Any) -> None:
        self.rules.pop(obj.metadata.name, None)
        self._changed()
