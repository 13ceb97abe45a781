"""The DynamicResources scheduler plugin (upstream ``pkg/scheduler/framework/plugins/dynamicresources``,
Kubernetes 1.37), on kbatch's framework.

* **PreEnqueue**: every claim of the pod exists (a template's claim is named in
  ``status.resourceClaimStatuses``), is not being deleted and, when generated, is owned by the pod;
  otherwise the pod waits, gated, until a ResourceClaim or pod event.
* **PreFilter**: no claims: Skip. Allocated claims restrict the nodes to their allocation's node
  selector (a single-node selector becomes the PreFilter result); a claim reserved for 256 consumers
  cannot take one more; a claim another pod is allocating right now makes this pod wait; every
  request's (or subrequest's) DeviceClass must exist.
* **Filter**: allocated claims must be available on the node ("resourceclaim not available on the
  node"); the unallocated ones are run through the structured allocator
  (:mod:`kbatch.controllers.dra.structured`): no solution is "cannot allocate all claims", invalid
  pools only on this node are "invalid resource pools were encountered"; a fatal allocator error is an
  error status.

Every rejection is UnschedulableAndUnresolvable, as upstream's ``statusUnschedulable`` in 1.37:
preemption does not try nodes this plugin rejected. With ``DRAPreemption`` (KEP-5690,
:mod:`.preemption`) Filter's rejections are Unschedulable and the plugin is a PreFilterExtensions:
DefaultPreemption's what-if releases the claims only its victims hold (node-local devices only), and
its ``NominationExtensions`` hold what a preemption freed for the preemptor until it binds
(:mod:`.nomination`, KEP-5690 "Claim nomination").
* **PodGroup claims** (KEP-5729, ``DRAWorkloadResourceClaims``, :mod:`..podgroupclaims`): a claim a
  pod uses through its PodGroup is reserved for the PodGroup, owned by it when generated, and
  allocated once for the gang (members share an allocation another member holds in flight). When
  the group fails (KEP-5729 "Deallocate", :mod:`.group_release`), Unreserve takes the PodGroup out
  of ``reservedFor`` once no member is scheduled, and the PodGroup cycle's PostFilter
  (``post_filter_pod_group``) deallocates the claims reserved only for the group or for nobody.
* **PostFilter** (:mod:`.postfilter`; before DefaultPreemption's, as upstream's plugin order): an
  allocated claim that was unavailable on some node and is reserved for no other pod is deallocated;
  else a special claim left by an earlier attempt is deleted.
* **Score** (:mod:`.score`): nodes where ``firstAvailable`` requests got earlier subrequests first.
* **Reserve**: the node's allocation is assumed (in flight): later pods see the devices as taken.
  **Unreserve** forgets it, and takes the pod out of ``reservedFor`` of its allocated claims.
* **PreBind**: each claim gets the ``resource.kubernetes.io/delete-protection`` finalizer, then its
  status: the allocation (newly allocated claims), the pod in ``reservedFor`` and, with
  ``DRADeviceBindingConditions``, the ``allocationTimestamp``. When an allocated device has binding
  conditions (KEP-5007, :mod:`.binding`), PreBind records a ``BindingConditionsPending`` event and
  waits (a ``WAIT`` status the scheduler polls every 5 s of virtual time, upstream's
  ``wait.PollUntilContextTimeout``) until every binding condition is True in the claim's
  ``status.devices``; a binding failure condition True, the claim's ``allocationTimestamp`` older
  than ``bindingTimeout`` or the poll's own ``bindingTimeout`` (default 600 s) fail it.

Queueing hints (``EventsToRegister``): a ResourceClaim added or updated queues the pod when the pod's
claims all exist and it was deallocated, or it is one of them and was created or its status changed;
ResourceSlices, DeviceClasses and DeviceTaintRules added
or updated, nodes added or relabelled, and the pod's generated claims recorded queue it too.

Differences from upstream (docs/dra.md): PostFilter picks the first unavailable claim in the pod's
order (upstream: a random one) and reports a failed write as its message, not as an error. A pod
without claims gets no PostFilter message, as upstream since 1.33 (kubernetes#129823).

Extended resources backed by DRA (KEP-5004; :mod:`.extended_claim`): a pod requesting a name a
DeviceClass maps, on a node that does not advertise it, gets a special claim: built per node in
Filter, allocated with the pod's own claims, held in flight by Reserve, created with its allocation
and reservation at PreBind, which then records it in ``status.extendedResourceClaimStatus`` and
waits for its devices' binding conditions as for the pod's own claims; Unreserve deletes a claim
PreBind created, and PostFilter one an earlier attempt left.
"""

from __future__ import annotations

import contextlib
import copy
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from kbatch.api.core_v1 import NodeSelector, Pod
from kbatch.api.cron import go_duration_seconds
from kbatch.api.errors import Conflict, NotFound, StatusError
from kbatch.api.model_copy import shallow_copy
from kbatch.api.resource_v1 import (
    FINALIZER,
    RESERVED_FOR_MAX_SIZE,
    DeviceClass,
    DeviceTaintRule,
    ResourceClaim,
    ResourceClaimConsumerReference,
    ResourceClaimStatus,
    ResourceSlice,
)
from kbatch.api.scheduling_v1beta1 import PodGroup
from kbatch.controllers.dra import podgroupclaims
from kbatch.controllers.dra.dynamicresources.binding import (
    BINDING_TIMEOUT_DEFAULT,
    POLL_INTERVAL,
    TIMEOUT_MESSAGE,
    claim_ready,
    claim_timed_out,
    has_binding_conditions,
)
from kbatch.controllers.dra.dynamicresources.extended_claim import (
    IN_MEMORY_NAME,
    NodeClaim,
    creatable,
    delete_claim,
    find_special_claim,
    in_memory_claim,
    mapped_resources,
    node_claim,
    status_patch,
)
from kbatch.controllers.dra.dynamicresources.extended_totals import device_totals
from kbatch.controllers.dra.dynamicresources.group_release import (
    GROUP_RELEASED,
    group_claim_names,
    holds_group,
    only_for_group,
)
from kbatch.controllers.dra.dynamicresources.nomination import Nomination, Nominations
from kbatch.controllers.dra.dynamicresources.postfilter import STILL_NOT_SCHEDULABLE, Action, act, choose
from kbatch.controllers.dra.dynamicresources.preemption import Simulation
from kbatch.controllers.dra.dynamicresources.score import first_available_score
from kbatch.controllers.dra.dynamicresources.world import World
from kbatch.controllers.dra.podclaims import NOT_CREATED
from kbatch.controllers.dra.podclaims import claim_name as resolve_claim_name
from kbatch.controllers.dra.selection import SelectorCache
from kbatch.controllers.dra.structured import (
    AllocatedState,
    AllocationError,
    Allocator,
    FailedOnNode,
    Features,
    NodeView,
    gather_pools,
    results_fit,
    selector_matches,
)
from kbatch.controllers.dra.taints import device_taints
from kbatch.controllers.scheduler.events import (
    NODE,
    UNSCHEDULED_POD,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    QueueingHint,
)
from kbatch.controllers.scheduler.framework import (
    NODE_NAMES,
    Code,
    CycleState,
    PostFilterResult,
    Status,
    skip_score,
)
from kbatch.controllers.scheduler.observer import ObserveHandler
from kbatch.controllers.scheduler.plugins.normalize import default_normalize
from kbatch.controllers.scheduler.queue import PodKeys
from kbatch.families.dra import BINDING_CONDITIONS, CONSUMABLE_CAPACITY, PARTITIONABLE_DEVICES, PREEMPTION
from kbatch.runtime.events import ObjectRef

__all__ = ["NAME", "DynamicResources", "new"]

NAME = "DynamicResources"
KEY = NAME  # cycle-state key
CANNOT_ALLOCATE = "cannot allocate all claims"
NOT_AVAILABLE = "resourceclaim not available on the node"
# KEP-5690 gives no wording (1.37 has none): kbatch's, after DefaultPreemption's terminating-pod one
NOT_ELIGIBLE = "preemption: not eligible due to a resource claim being deallocated on the nominated node."
CLAIM, SLICE, CLASS, RULE = "ResourceClaim", "ResourceSlice", "DeviceClass", "DeviceTaintRule"
_CONFLICT_STEPS = 5  # client-go retry.DefaultRetry


class BindError(Exception):
    """A claim PreBind could not write, worded as upstream's ``bindClaim`` errors; ``cause`` is the
    API error, if any (a conflict is retried)."""

    def __init__(self, message: str, cause: StatusError | None = None) -> None:
        super().__init__(message)
        self.message, self.cause = message, cause


class _PodState:
    """The pod's claims for one attempt (upstream ``stateData``)."""

    __slots__ = ("adopted", "allocated", "claims", "created", "deadline", "extended", "flight_key", "group",
                 "node_allocations", "node_extended", "origin", "pass_one", "pending", "resources",
                 "simulation", "unavailable")

    def __init__(self, claims: list[Any], group: Any = None, adopted: dict[str, Any] | None = None) -> None:
        self.claims = claims
        # KEP-5729: the claims reserved for the pod's PodGroup (uid -> the group's reservedFor entry)
        # and, of those, the ones another pod of the group allocated in flight (uid -> allocation)
        self.group: dict[str, Any] = group or {}
        self.adopted: dict[str, Any] = adopted or {}
        self.pending = [c for c in claims if not _allocated(c)]
        self.allocated = [c for c in claims if _allocated(c)]
        self.node_allocations: dict[str, list[Any]] = {}
        self.unavailable: set[str] = set()  # uids of allocated claims some node could not use (PostFilter)
        self.deadline = 0.0  # PreBind's wait for binding conditions ends then (virtual seconds)
        # extended resources backed by DRA (:mod:`.extended_claim`): the special claim (found or in
        # memory), the mapped requests, each node's variant of it, the one PreBind created
        self.extended: Any = None
        self.resources: dict[str, int] = {}
        self.node_extended: dict[str, NodeClaim] = {}
        self.created: Any = None
        self.flight_key = ""
        self.simulation: Simulation | None = None  # preemption's what-if (DRAPreemption, :mod:`.preemption`)
        # KEP-5690: the state this one is a what-if copy of, and, per node, the allocation found in
        # the first pass with nominated pods that the second pass, without them, must accept as is
        self.origin: _PodState | None = None
        self.pass_one: dict[str, list[Any]] = {}

    def what_if(self) -> _PodState:
        """A copy for one node of preemption's what-if (upstream ``stateData.Clone``): what Filter
        and the simulation write is private to it; the claims are shared, read only."""
        other = copy.copy(self)
        other.node_allocations = dict(self.node_allocations)
        other.unavailable = set(self.unavailable)
        other.node_extended = dict(self.node_extended)
        other.simulation = self.simulation.copy() if self.simulation is not None else None
        other.origin, other.pass_one = self, {}
        return other

    def bound(self) -> list[Any]:
        """The claims PreBind wrote: the pod's own, then the special claim it created, if any."""
        return self.claims if self.created is None else [*self.claims, self.created]

    def node_pending(self, node_name: str) -> list[Any]:
        """The claims to allocate on the node: the pod's own, then the node's special claim."""
        extended = self.node_extended.get(node_name)
        return self.pending if extended is None else [*self.pending, extended[0]]


def _allocated(claim: Any) -> bool:
    return claim.status is not None and claim.status.allocation is not None


class DynamicResources:
    name = NAME
    node_static = False
    per_node_score = False
    weight = 1  # upstream's default profile gives it no weight: the framework's 1

    def __init__(self, handle: Any, binding_timeout: float = BINDING_TIMEOUT_DEFAULT) -> None:
        self.handle = handle
        self.binding_timeout = binding_timeout
        self.features = Features(
            partitionable_devices=_gate(handle, PARTITIONABLE_DEVICES),
            consumable_capacity=_gate(handle, CONSUMABLE_CAPACITY),
            binding_conditions=_gate(handle, BINDING_CONDITIONS),
        )
        # KEP-5690 (``DRAPreemption``, not in 1.37): victims' claims are released in preemption's
        # what-if, and a node Filter rejects is one preemption may help (Unschedulable)
        self.preemption = _gate(handle, PREEMPTION, default=False)
        features = getattr(handle, "features", None)
        self.groups = podgroupclaims.enabled(features)  # KEP-5729: PodGroup claims
        self._reject = Status.unschedulable if self.preemption else Status.unresolvable
        self.world = World()
        self.nominations = Nominations()  # KEP-5690 claim nominations (:mod:`.nomination`)
        self.selectors = SelectorCache()
        self._seen_generation = -1
        # claims some pod waits for (``namespace/name``): only their events, and events that free
        # devices, can help a waiting pod, so only those are reported to the scheduler's queue (the
        # hints would skip the others; this spares the queue a scan of every waiting pod per event)
        self._awaited: dict[str, set[str]] = {}  # claim key -> keys of the pods waiting for it
        self._pools: dict[str, tuple[int, tuple[tuple[str, str], ...], list[Any]]] = {}
        if hasattr(handle, "device_class_resolver"):
            handle.device_class_resolver = self.world.extended_class  # NodeResourcesFit's rule
            handle.dra_extended_totals = self.extended_totals  # the noderesources scorers' counts

    def extended_totals(self, name: str, node: Any) -> tuple[int, int]:
        """The devices of the class ``name`` maps to on ``node`` and how many are allocated
        (:mod:`.extended_totals`); (0, 0) when no class maps it."""
        device_class = self.world.extended_class(name)
        if device_class is None:
            return 0, 0
        view = NodeView(node.name, node.shape.labels)
        world = self.world
        return device_totals(world.slices.values(), view, device_class, self.selectors, world.allocated)

    # -- claims of a pod -------------------------------------------------------------------------
    def _group(self, pod: Any) -> tuple[Any, frozenset[str]]:
        """KEP-5729 (PodGroup claims on): the pod's PodGroup (None: none, or not found) and the names
        of the pod's entries that use the group's claims (upstream ``getPodGroup``)."""
        if not self.groups or not pod.pod_group:
            return None, frozenset()
        try:
            group = self.handle.cache.get(PodGroup, pod.pod_group, pod.namespace)
        except NotFound:
            return None, frozenset()
        group_entries = podgroupclaims.entries(group.spec.resource_claims)
        return group, frozenset(podgroupclaims.shared_entries(pod.resource_claims, group_entries))

    def _claims(self, pod: Any) -> tuple[list[Any], str]:
        """The pod's claims, in ``spec.resourceClaims`` order, or the reason some is not usable."""
        claims, reason, _ = self._claims_and_bindings(pod)
        return claims, reason

    def _claims_and_bindings(self, pod: Any) -> tuple[list[Any], str, dict[str, Any]]:
        """:meth:`_claims`, and the claims reserved for the pod's PodGroup rather than the pod (uid ->
        the group's ``reservedFor`` entry; upstream ``podResourceClaimBindings``)."""
        statuses = dict(pod.claim_statuses)
        group, shared = self._group(pod)
        bindings: dict[str, Any] = {}
        claims = []
        for name, direct, template in pod.resource_claims:
            claim_name = resolve_claim_name(direct, template, name, statuses)
            if claim_name is NOT_CREATED:
                return [], f'pod "{pod.namespace}/{pod.name}": ResourceClaim not created yet', {}
            if not claim_name:
                continue  # the status records that no claim was needed
            claim = self.world.claim(pod.namespace, claim_name)
            if claim is None:
                self._await(f"{pod.namespace}/{claim_name}", pod)
                return [], f'resourceclaim "{claim_name}" not found', {}
            if claim.metadata.deletion_timestamp is not None:
                self._await(f"{pod.namespace}/{claim_name}", pod)
                return [], f'resourceclaim "{claim_name}" is being deleted', {}
            if name in shared:
                if template and not _owned_by(claim, group.metadata.uid):
                    return [], (
                        f"ResourceClaim {pod.namespace}/{claim_name} was not created for PodGroup "
                        f"{pod.namespace}/{pod.pod_group} (PodGroup is not owner)"
                    ), {}
                bindings[claim.metadata.uid] = podgroupclaims.consumer(group)
            elif template and not _owned_by(claim, pod.uid):
                return [], (
                    f"ResourceClaim {pod.namespace}/{claim_name} was not created for Pod "
                    f"{pod.namespace}/{pod.name} (Pod is not owner)"
                ), {}
            claims.append(claim)
        return claims, "", bindings

    def _await(self, claim_key: str, pod: Any) -> None:
        self._awaited.setdefault(claim_key, set()).add(pod.key)

    # -- PreEnqueue ------------------------------------------------------------------------------
    def pre_enqueue(self, pod: Any) -> Status | None:
        if not pod.resource_claims:
            return None
        _, reason = self._claims(pod)
        return Status.unresolvable(NAME, reason) if reason else None

    # -- PreFilter -------------------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: Any, snapshot: Any) -> Status | None:
        resources = mapped_resources(pod, self.world.extended_class) if pod.extended_containers else {}
        if not pod.resource_claims and not resources:
            skip_score(state, NAME)
            return Status(Code.SKIP, (), NAME)
        if self.world.generation != self._seen_generation:
            self._seen_generation = self.world.generation
            snapshot.generation += 1  # devices may have been freed: cached failures no longer hold
        claims, reason, bindings = self._claims_and_bindings(pod)
        if reason:
            return Status.unresolvable(NAME, reason)
        adopted = self._adopt(claims, bindings) if bindings else {}
        if adopted:
            claims = [_with_allocation(c, adopted[c.metadata.uid]) if c.metadata.uid in adopted else c
                      for c in claims]
        data = _PodState(claims, bindings, adopted)
        if resources:
            data.resources = resources
            data.extended = find_special_claim(self.world.special, pod) or in_memory_claim(pod)
            data.flight_key = f"{pod.namespace}/{IN_MEMORY_NAME}{pod.uid}"
        nodes: set[str] | None = None
        for claim in data.allocated:
            reserved = claim.status.reserved_for or ()
            mine = data.group[claim.metadata.uid].uid if claim.metadata.uid in data.group else pod.uid
            if len(reserved) >= RESERVED_FOR_MAX_SIZE and not any(r.uid == mine for r in reserved):
                return Status.unresolvable(NAME, "resourceclaim in use")  # upstream's words
            only = _single_node(claim.status.allocation.node_selector)
            if only is not None:
                nodes = {only} if nodes is None else nodes & {only}
        for claim in data.pending:
            if f"{claim.metadata.namespace}/{claim.metadata.name}" in self.world.in_flight:
                self._await(f"{claim.metadata.namespace}/{claim.metadata.name}", pod)
                return Status.unresolvable(
                    NAME,
                    f"resource claim {claim.metadata.namespace}/"
                    f"{claim.metadata.name} is in the process of being allocated",
                )
            reason = self._missing_class(claim)
            if reason:
                return Status.unresolvable(NAME, reason)
        if nodes is not None:
            state[NODE_NAMES] = nodes
        state[KEY] = data
        if not any(r.first_available for c in data.pending for r in c.spec.devices.requests or ()):
            # Score would give every node 0 (no claim to allocate has a ``firstAvailable`` request):
            # skipped, as a PreScore Skip would be; the scores are the same, and the pod stays batchable
            skip_score(state, NAME)
        return None

    def _missing_class(self, claim: Any) -> str:
        """Upstream PreFilter's ``validateDeviceClass``: every request's (or subrequest's) class
        must exist, else the pod waits for a DeviceClass event."""
        for request in claim.spec.devices.requests or ():
            if request.exactly is not None:
                wanted = [(request.name, request.exactly.device_class_name)]
            elif request.first_available:
                wanted = [(f"{request.name}/{s.name}", s.device_class_name) for s in request.first_available]
            else:
                return (
                    f"resource claim {claim.metadata.namespace}/{claim.metadata.name}, "
                    f"request {request.name}: unknown request type"
                )
            for name, class_name in wanted:
                if class_name and self.world.classes.get(class_name) is None:
                    return f"request {name}: device class {class_name} does not exist"
        return ""

    # -- Filter ----------------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Any, node: Any) -> Status | None:
        data: _PodState | None = state.get(KEY)
        if data is None:
            return None
        view = NodeView(node.name, node.shape.labels)
        if data.extended is not None:
            extended, reason = node_claim(data.extended, pod, data.resources, node.shape.allocatable,
                                          self.world.extended_class)
            if reason:
                return self._reject(NAME, reason)
            if extended is not None:
                data.node_extended[node.name] = extended
            else:
                data.node_extended.pop(node.name, None)
        pending = data.pending if data.extended is None else data.node_pending(node.name)
        allocated, held = data.allocated, self.world.allocated
        simulation = data.simulation
        if simulation is not None and simulation.active():  # preemption's what-if released claims
            pending = simulation.to_allocate(pending, allocated)
            allocated = [c for c in allocated if c.metadata.uid not in simulation.released]
            held = simulation.allocated or held
        unavailable = [c.metadata.uid for c in allocated if not self._available(c, view)]
        pinned = data.pass_one.pop(node.name, None) if data.pass_one else None
        results: list[Any] | Status | None
        if pinned is not None:  # KEP-5690: the first pass's allocation, valid here too, or nothing
            results = self._still_fits(pinned, view, held)
        else:
            results = self._allocate(pending, view, held) if pending else None
        if isinstance(results, Status):
            return results
        if unavailable:  # upstream: remembered for PostFilter, which may deallocate one
            data.unavailable.update(unavailable)
            return self._reject(NAME, NOT_AVAILABLE)
        if results is not None:
            data.node_allocations[node.name] = results
            if simulation is not None and simulation.nominated and data.origin is not None:
                data.origin.pass_one[node.name] = results
        return None

    def _still_fits(self, results: list[Any], view: NodeView, held: AllocatedState) -> list[Any] | Status:
        """The first pass's allocation when it also fits without the nominated pods (KEP-5690: one
        allocation valid in both passes), else "cannot allocate all claims"."""
        devices = [r for allocation in results for r in (allocation.devices.results or ())]
        if results_fit(devices, self._node_pools(view), held):
            return results
        return self._reject(NAME, CANNOT_ALLOCATE)

    def _available(self, claim: Any, view: NodeView) -> bool:
        """Upstream Filter for an allocated claim: its node selector matches the node and, with
        ``DRADeviceBindingConditions``, its binding has neither failed nor timed out unready."""
        selector = claim.status.allocation.node_selector
        if selector is not None and not selector_matches(selector, view):
            return False
        return not (self.features.binding_conditions and self._binding_failed(claim))

    def _allocate(self, pending: list[Any], view: NodeView, held: AllocatedState) -> list[Any] | Status:
        """The structured allocator on the node, ``held`` the devices in use: the results, in
        ``pending`` order, or the node's status ("cannot allocate all claims", invalid pools, or a
        fatal error)."""
        allocator = Allocator(
            pending,
            view,
            self._node_pools(view),
            held,
            self.world.classes.get,
            self.features,
            self.selectors,
            self._taints,
            self._share_id,
        )
        try:
            results = allocator.allocate()
        except FailedOnNode as err:  # upstream: ErrFailedAllocationOnNode, for this node only
            return self._reject(NAME, str(err))
        except AllocationError as err:
            return Status(Code.ERROR, (str(err),), NAME)
        if results is None:
            return self._reject(NAME, CANNOT_ALLOCATE)
        return results

    # -- PreFilterExtensions (preemption's what-if; :mod:`.preemption`) -----------------------------
    def copy_state(self, state: CycleState) -> None:
        data: _PodState | None = state.get(KEY)
        if data is not None and self.preemption:
            data.pass_one.clear()  # a first pass that another filter failed left nothing to check
            state[KEY] = data.what_if()

    def remove_pod(self, state: CycleState, pod: Any, removed: Any, node: Any) -> None:
        """Upstream ``RemovePod`` (``DRAPreemption``): the victim's claims no one else holds are
        released in this what-if."""
        data: _PodState | None = state.get(KEY)
        if data is None or not self.preemption or not removed.resource_claims:
            return
        if data.simulation is None:
            data.simulation = Simulation()
        data.simulation.remove_pod(removed, self.world.claim, self.world.allocated, self.world.node_local)

    def add_pod(self, state: CycleState, pod: Any, added: Any, node: Any) -> None:
        """Upstream ``AddPod``: a pod given back holds its claims' devices again; a pod nominated to
        the node holds what its nomination recorded there, in place of its victims' claims still
        allocated (KEP-5690, :mod:`.nomination`)."""
        data: _PodState | None = state.get(KEY)
        if data is None or not added.resource_claims:
            return
        nomination = self.nominations.get(added.uid) if self.preemption else None
        if nomination is not None and nomination.node == node.name:
            if data.simulation is None:
                data.simulation = Simulation()
            victims = self.nominations.victim_claims(node.name, self._allocated_claim)
            data.simulation.add_nominated(nomination.results(), victims, self.world.allocated)
        elif data.simulation is not None:
            data.simulation.add_pod(added, self.world.claim)

    # -- NominationExtensions (KEP-5690 claim nomination; :mod:`.nomination`) ------------------------
    def add_nominated_pod(self, state: CycleState, pod: Any, node: Any, victims: Any, nominated: Any) -> None:
        """Preemption chose ``node`` and ``victims`` for ``pod``: record the victims' claims the
        eviction releases there and the allocation ``pod`` gets with them gone (the pods already
        nominated there with at least its priority holding theirs)."""
        data: _PodState | None = state.get(KEY)
        if data is None or not self.preemption:
            return
        simulation = Simulation()
        for victim in victims:  # KEP-5690: a claim's consumers already terminating count as victims
            simulation.remove_pod(victim, self.world.claim, self.world.allocated, self.world.node_local,
                                  self._terminating)
        released = [(uid, key) for uid, key in self._claim_keys(victims) if uid in simulation.released]
        base = self.world.allocated
        for other in nominated:
            held = self.nominations.get(other.uid)
            if held is not None and held.node == node.name:
                claims = self.nominations.victim_claims(node.name, self._allocated_claim)
                simulation.add_nominated(held.results(), claims, base)
        pending = data.node_pending(node.name)
        if simulation.active():
            pending = simulation.to_allocate(pending, data.allocated)
        view = NodeView(node.name, node.shape.labels)
        results = self._allocate(pending, view, simulation.allocated or base)
        allocations = tuple(results) if isinstance(results, list) else ()
        self.nominations.add(pod.uid, Nomination(node.name, allocations, tuple(released)))

    def _terminating(self, namespace: str, consumer: Any) -> bool:
        """The reserving pod is being deleted, or already gone (its reservation is about to be
        dropped), in the scheduler's informer cache."""
        cache = self.handle.cache
        if cache is None:
            return False
        try:
            pod = cache.get(Pod, consumer.name, namespace)
        except NotFound:
            return True
        return pod.metadata.uid != consumer.uid or pod.metadata.deletion_timestamp is not None

    def remove_nominated_pod(self, pod: Any) -> None:
        """The pod's nomination is gone: its held devices are free. When its node's victim claims are
        all deallocated already, no claim event will come, so a synthetic one (a claim deallocated)
        wakes the pods the held devices kept out, as KEP-5690 specifies."""
        nomination = self.nominations.remove(pod.uid)
        if nomination is None or not nomination.allocations:
            return
        if self.nominations.settling(nomination.node, self._still_allocated):
            return  # the real deallocation event will come
        notify = self.handle.on_event
        if notify is not None:
            held = ResourceClaim.model_validate({
                "metadata": {"name": f"{pod.name}-nominated", "namespace": pod.namespace},
                "status": {"allocation": nomination.allocations[0]},
            })
            freed = shallow_copy(held)
            freed.status = None
            self.world.generation += 1  # cached failures counted the held devices
            notify(ClusterEvent(CLAIM, ActionType.UPDATE), held, freed, None)

    def pod_eligible_to_preempt(self, pod: Any, node_name: str) -> tuple[bool, str]:
        """KEP-5690 ``PodEligibleToPreempt``: not while a victim claim of an earlier preemption on
        ``node_name`` is still allocated (the resourceclaim controller has not deallocated it)."""
        if not self.preemption or not self.nominations.settling(node_name, self._still_allocated):
            return True, ""
        return False, NOT_ELIGIBLE

    def _allocated_claim(self, uid: str, key: str) -> Any:
        claim = self.world.claims.get(key)
        return claim if claim is not None and claim.metadata.uid == uid and _allocated(claim) else None

    def _still_allocated(self, uid: str, key: str) -> bool:
        return self._allocated_claim(uid, key) is not None

    def _claim_keys(self, pods: Any) -> list[tuple[str, str]]:
        """(uid, ``namespace/name``) of the stored claims the pods name, in the pods' order."""
        keys: dict[str, str] = {}
        for pod in pods:
            statuses = dict(pod.claim_statuses)
            for entry, direct, template in pod.resource_claims:
                name = resolve_claim_name(direct, template, entry, statuses)
                claim = self.world.claim(pod.namespace, name) if name and name is not NOT_CREATED else None
                if claim is not None:
                    keys.setdefault(claim.metadata.uid, f"{pod.namespace}/{name}")
        return list(keys.items())

    # -- PostFilter ------------------------------------------------------------------------------
    def post_filter(self, state: CycleState, pod: Any, snapshot: Any, statuses: Mapping[str, Status],
                    ) -> PostFilterResult:
        """Upstream PostFilter (:mod:`.postfilter`): deallocate an unavailable claim only this pod
        uses, else delete a special claim left by an earlier attempt. A failed write is the
        result's message (upstream: an error status, and a retry after back-off)."""
        data: _PodState | None = state.get(KEY)
        if data is None:
            return PostFilterResult(None)
        action = choose(data.claims, data.unavailable, data.extended, pod.uid)
        if action is None:
            return PostFilterResult(None, message=STILL_NOT_SCHEDULABLE)
        try:
            message = act(self.handle.client, action)
        except StatusError as err:
            return PostFilterResult(None, message=err.message)
        if action.verb == "delete":
            data.extended = None
        return PostFilterResult(None, message=message)

    # -- Score ---------------------------------------------------------------------------------
    def score(self, state: CycleState, pod: Any, node: Any) -> int:
        """Upstream Score: prefer nodes where earlier ``firstAvailable`` subrequests fit."""
        data: _PodState | None = state.get(KEY)
        if data is None:
            return 0
        allocations = data.node_allocations.get(node.name)
        return first_available_score(data.pending, allocations[: len(data.pending)]) if allocations else 0

    def normalize(self, scores: list[int]) -> list[int]:
        return default_normalize(scores, reverse=False)

    def _node_pools(self, node: NodeView) -> list[Any]:
        labels = tuple(sorted(node.labels.items()))
        cached = self._pools.get(node.name)
        if cached is not None and cached[0] == self.world.slice_generation and cached[1] == labels:
            return cached[2]
        pools = gather_pools(self.world.slices_for(node.name), node, self.features, self.world.pool_slices)
        self._pools[node.name] = (self.world.slice_generation, labels, pools)
        return pools

    def _taints(self, candidate: Any) -> list[Any]:
        if not self.world.rules:
            return list(candidate.device.taints or ())
        return device_taints(candidate.device, candidate.pool.driver, candidate.pool.name, self.world.rules)

    def _share_id(self) -> str:
        rng = self.handle.rng
        bits = rng.getrandbits(128) if rng is not None else 0
        return str(uuid.UUID(int=bits, version=4))

    # -- Reserve / Unreserve ---------------------------------------------------------------------
    def reserve(self, state: CycleState, pod: Any, node_name: str) -> Status | None:
        data: _PodState | None = state.get(KEY)
        if data is None:
            return None
        pending = data.node_pending(node_name)
        if not pending:
            return None
        results = data.node_allocations.get(node_name)
        if results is None:  # Filter did not run for this node in this attempt
            return Status(Code.ERROR, (f"claims were not allocated for node {node_name}",), NAME)
        for claim, allocation in zip(data.pending, results, strict=False):
            self.world.assume(claim, allocation)
        if len(pending) > len(data.pending):  # the special claim: in flight under its temporary key
            self.world.assume(pending[-1], results[-1], key=data.flight_key)
        return None

    def unreserve(self, state: CycleState, pod: Any, node_name: str) -> None:
        """Upstream ``Unreserve``: the in-flight allocations are forgotten, and the pod is taken out
        of ``reservedFor`` of each claim that is allocated and reserved for it (PreBind may have
        written it before the binding failed); a failed write is left for the next attempt."""
        data: _PodState | None = state.get(KEY)
        if data is None:
            return
        for claim in data.pending:
            self.world.forget(claim)
        if data.flight_key:
            self.world.forget(data.extended, key=data.flight_key)
        if data.created is not None:
            # upstream unreserveExtendedResourceClaim: a claim PreBind created is deleted (its
            # finalizer removed first), so no orphan holds the devices; a failure is only logged
            with contextlib.suppress(StatusError):
                delete_claim(self.handle.client, data.created)
            data.created = None
        for claim in data.claims:
            if _allocated(claim) and any(r.uid == pod.uid for r in claim.status.reserved_for or ()):
                # a failed write: upstream logs it ("we will get here again when pod scheduling is
                # retried")
                with contextlib.suppress(NotFound, Conflict):
                    self._release(self.handle.client, claim, pod.uid)
        if data.group:
            self._unreserve_group(data, pod)

    def _unreserve_group(self, data: _PodState, pod: Any) -> None:
        """KEP-5729 "Deallocate" (:mod:`.group_release`): the PodGroup leaves ``reservedFor`` of its
        claims once no other member of the group is scheduled in the scheduler's view."""
        group_key = f"{pod.namespace}/{pod.pod_group}"
        if any(key != pod.key for key in self._scheduled_members(group_key)):
            return
        for claim in data.claims:
            ref = data.group.get(claim.metadata.uid)
            known = self.world.claim(claim.metadata.namespace, claim.metadata.name) or claim
            if ref is not None and (holds_group(known, ref.uid) or holds_group(claim, ref.uid)):
                with contextlib.suppress(NotFound, Conflict):
                    self._release(self.handle.client, claim, ref.uid)

    def _scheduled_members(self, group_key: str) -> list[str]:
        services = getattr(self.handle, "scheduler", None)
        return services.pod_group_scheduled(group_key) if services is not None else []

    # -- PostFilter of a PodGroup cycle (KEP-5729) -----------------------------------------------
    def post_filter_pod_group(self, group_key: str, pod_group: PodGroup) -> Status | None:
        """The group failed: deallocate and unreserve each of its claims reserved only for it or for
        nobody, when no member is scheduled (:mod:`.group_release`); a failed write is left for the
        next failure, as the pod-level PostFilter's. Once a claim was freed, upstream's status
        (:data:`.group_release.GROUP_RELEASED`), whose reason joins the group's message."""
        if not self.groups or self._scheduled_members(group_key):
            return None
        namespace, uid = pod_group.metadata.namespace or "", pod_group.metadata.uid or ""
        freed = False
        for name in group_claim_names(pod_group):
            claim = self.world.claim(namespace, name)
            if claim is None or claim.metadata.deletion_timestamp is not None:
                continue
            if not only_for_group(claim, uid):
                continue
            with contextlib.suppress(StatusError):
                act(self.handle.client, Action("deallocate", claim))
                freed = True
        return Status(Code.UNSCHEDULABLE, (GROUP_RELEASED,), NAME) if freed else None

    def _release(self, client: Any, claim: Any, consumer_uid: str) -> None:
        """Remove the consumer (a pod, or a PodGroup) from the claim's ``reservedFor`` (upstream: a
        strategic merge patch deleting the entry by uid, with the claim's uid as precondition; here
        a read and a status update)."""
        meta = claim.metadata
        for attempt in range(_CONFLICT_STEPS):
            current = client.get(ResourceClaim, meta.name, meta.namespace)
            status = current.status
            if current.metadata.uid != meta.uid or status is None:
                return
            kept = [r for r in status.reserved_for or () if r.uid != consumer_uid]
            if len(kept) == len(status.reserved_for or ()):
                return
            request = shallow_copy(current)
            request.status = shallow_copy(status)
            request.status.reserved_for = kept or None
            try:
                client.update_status(request)
                return
            except Conflict:
                if attempt == _CONFLICT_STEPS - 1:
                    raise

    # -- PreBind ---------------------------------------------------------------------------------
    def pre_bind(self, state: CycleState, pod: Any, node_name: str) -> Status | None:
        data: _PodState | None = state.get(KEY)
        if data is None:
            return None
        allocations = dict(
            zip((id(c) for c in data.pending), data.node_allocations.get(node_name, ()), strict=False)
        )
        client = self.handle.client
        for index, claim in enumerate(data.claims):
            uid = claim.metadata.uid
            allocation = allocations.get(id(claim)) or data.adopted.get(uid)
            try:
                data.claims[index] = self._write(client, claim, allocation, pod, data.group.get(uid))
            except BindError as err:
                return Status(Code.ERROR, (err.message,), NAME)
        extended = data.node_extended.get(node_name)
        if extended is not None:
            failure = self._bind_extended(client, data, extended, data.node_allocations[node_name][-1], pod)
            if failure:
                return Status(Code.ERROR, (failure,), NAME)
        if not self.features.binding_conditions or not has_binding_conditions(data.bound()):
            return None
        recorder = getattr(self.handle, "recorder", None)
        if recorder is not None:
            recorder.event(
                self._pod_ref(pod), "Normal", "BindingConditionsPending",
                f"waiting for binding conditions for device on node {node_name}",
            )
        data.deadline = self._now() + self.binding_timeout
        return self._binding_status(data)  # the poll's immediate first check

    def _bind_extended(
        self, client: Any, data: _PodState, extended: NodeClaim, allocation: Any, pod: Any,
    ) -> str:
        """Upstream PreBind for the special claim: create it (``createExtendedResourceClaimInAPI``),
        write its allocation and reservation as any claim's (``bindClaim``), then record it in
        ``pod.status.extendedResourceClaimStatus`` (``patchPodExtendedResourceClaimStatus``).
        Returns the failure ("" on success); Unreserve deletes a claim created here."""
        variant, mappings = extended
        try:
            created = client.create(creatable(variant))
        except StatusError as err:
            what = f"{pod.namespace}/{variant.metadata.generate_name}"
            return f"create claim for extended resources {what}: {err.message}"
        data.created = created
        try:
            data.created = self._write(client, created, allocation, pod)
        except BindError as err:
            return err.message
        self.world.forget(variant, key=data.flight_key, freed=False)  # the stored claim holds them now
        if not mappings:
            return (f"nil or empty request mappings, no update of pod {pod.namespace}/{pod.name} "
                    "ExtendedResourceClaimStatus")
        body = status_patch(created.metadata.name or "", mappings)
        try:
            client.patch_status(Pod, pod.name, body, pod.namespace, patch_type="strategic")
        except StatusError as err:
            return f"update pod {pod.namespace}/{pod.name} ExtendedResourceClaimStatus: {err.message}"
        # ``created`` stays: the claim's devices may have binding conditions to wait for, and a later
        # failure (binding conditions, Bind) makes Unreserve delete it, as upstream's Unreserve does
        # with a special claim that has a real name
        return ""

    def pre_bind_poll(self, state: CycleState, pod: Any, node_name: str) -> Status | None:
        """The scheduler polls a pod PreBind left waiting (``WAIT``): ``None`` once every binding
        condition holds, ``WAIT`` to poll again in 5 s, an error when binding failed or timed out."""
        data: _PodState | None = state.get(KEY)
        if data is None:
            return None
        if self._now() >= data.deadline:
            return Status(Code.ERROR, (TIMEOUT_MESSAGE,), NAME)
        return self._binding_status(data)

    def _binding_status(self, data: _PodState) -> Status | None:
        """Upstream ``isPodReadyForBinding`` on the claims as the scheduler knows them now: the pod's
        own and the special claim PreBind created (upstream's ``state.claims`` holds both)."""
        for index, claim in enumerate(data.bound()):
            meta = claim.metadata
            current = self.world.claim(meta.namespace, meta.name)
            if current is None:
                missing = f'resourceclaim.resource.k8s.io "{meta.name}" not found'
                return Status(Code.ERROR, (missing,), NAME)
            if index < len(data.claims):
                data.claims[index] = current
            else:
                data.created = current
            ready, error = claim_ready(current)
            if error:
                return Status(Code.ERROR, (error,), NAME)
            if not ready:
                if claim_timed_out(current, self.binding_timeout, self._now_datetime()):
                    return Status(Code.ERROR, (f"claim {meta.name} binding timeout",), NAME)
                return Status(Code.WAIT, (), NAME, timeout=POLL_INTERVAL)
        return None

    def _binding_failed(self, claim: Any) -> bool:
        """Upstream Filter: an allocated claim whose binding failed, or timed out while not ready, is
        not available on any node."""
        ready, error = claim_ready(claim)
        if error:
            return True
        return not ready and claim_timed_out(claim, self.binding_timeout, self._now_datetime())

    def _pod_ref(self, pod: Any) -> ObjectRef:
        """``fh.EventRecorder().Eventf(pod, ...)``'s regarding: the scheduler's reference (the pod's
        resourceVersion included), or the plain one without a running scheduler."""
        scheduler = getattr(self.handle, "scheduler", None)
        return scheduler.pod_reference(pod) if scheduler is not None else _plain_pod_ref(pod)

    def _now(self) -> float:
        clock = self.handle.clock
        return float(clock.now()) if clock is not None else 0.0

    def _now_datetime(self) -> datetime:
        clock = self.handle.clock
        return clock.now_datetime() if clock is not None else datetime(1970, 1, 1, tzinfo=UTC)

    def _write(self, client: Any, claim: Any, allocation: Any, pod: Any, group: Any = None) -> Any:
        """Upstream ``bindClaim``: the first attempt writes over the claim the scheduler knows (its
        assume cache, here the world), with no read; a conflict reads the claim and tries again
        (``retry.RetryOnConflict`` with ``retry.DefaultRetry``, 5 steps). A claim being deleted, or
        allocated by someone else when this attempt allocates it, is an error, as upstream's.
        :class:`BindError` carries upstream's wording. ``group``: the PodGroup's ``reservedFor`` entry
        when the claim is the pod's group's (KEP-5729): the group is reserved, and an allocation a
        pod of the group wrote first is the one this pod shares."""
        meta = claim.metadata
        key = f"{meta.namespace}/{meta.name}"
        known = self.world.claim(meta.namespace, meta.name)
        current = known if known is not None and known.metadata.uid == meta.uid else None
        for attempt in range(_CONFLICT_STEPS):
            if current is None:
                current = self._reread(client, meta, key)
            if current.metadata.deletion_timestamp is not None:
                raise BindError(f"claim {key} got deleted in the meantime")
            if allocation is not None and current.status is not None and current.status.allocation:
                if group is None:
                    raise BindError(f"claim {key} got allocated elsewhere in the meantime")
                allocation = None  # another pod of the group wrote the shared allocation first
            ref = group or ResourceClaimConsumerReference(resource="pods", name=pod.name, uid=pod.uid)
            try:
                return self._write_once(client, current, allocation, ref, key)
            except BindError as err:
                if not isinstance(err.cause, Conflict) or attempt == _CONFLICT_STEPS - 1:
                    raise
                current = None
        raise AssertionError("unreachable")  # the last attempt returned or raised

    @staticmethod
    def _reread(client: Any, meta: Any, key: str) -> Any:
        """The claim after a conflict; kbatch's difference: one of the same name with another uid
        (the claim was replaced) is not found, where upstream would write the new claim."""
        prefix = f"get updated claim {key} after conflict: "
        try:
            current = client.get(ResourceClaim, meta.name, meta.namespace)
        except StatusError as err:
            raise BindError(prefix + err.message, err) from None
        if current.metadata.uid != meta.uid:
            missing = NotFound(f'resourceclaims.resource.k8s.io "{meta.name}" not found')
            raise BindError(prefix + missing.message, missing)
        return current

    def _write_once(self, client: Any, current: Any, allocation: Any, ref: Any, key: str) -> Any:
        """The finalizer (a normal update) when allocating, then the status: the allocation and the
        consumer ``ref`` (the pod, or its PodGroup) in ``reservedFor``.

        The request objects are new only where they change (metadata, status); the rest is the read
        only claim's own, which the client copies as it reads the request (as a body sent over the
        wire): a deep :func:`~kbatch.api.edit` of the whole claim per write would be copied again."""
        if allocation is not None and FINALIZER not in (current.metadata.finalizers or ()):
            request = shallow_copy(current)
            request.metadata = shallow_copy(current.metadata)
            request.metadata.finalizers = [*(current.metadata.finalizers or ()), FINALIZER]
            try:
                current = client.update(request)
            except StatusError as err:
                raise BindError(f"add finalizer to claim {key}: {err.message}", err) from None
        status = current.status
        reserved = list(status.reserved_for or ()) if status is not None else []
        if allocation is None and any(r.uid == ref.uid for r in reserved):
            return current
        request = shallow_copy(current)
        request.status = shallow_copy(status) if status is not None else ResourceClaimStatus()
        if allocation is not None:
            request.status.allocation = allocation
        stamped = request.status.allocation
        gate = self.features.binding_conditions
        if gate and allocation is not None and allocation.allocation_timestamp is None:
            # upstream bindClaim: with DRADeviceBindingConditions (and the GA DRAResourceClaimDeviceStatus)
            # on, the allocation it writes records when, whether or not its devices have binding
            # conditions (isClaimTimeout reads it for those that do). Upstream also stamps an
            # allocation someone else wrote without one; kbatch does not, since its validation, as
            # upstream's, keeps a written allocation immutable (docs/dra.md, "Differences")
            stamped = shallow_copy(stamped)
            stamped.allocation_timestamp = self._now_datetime()
            request.status.allocation = stamped
        if not any(r.uid == ref.uid for r in reserved):
            reserved.append(ref)
        request.status.reserved_for = reserved
        try:
            stored = client.update_status(request)
        except StatusError as err:
            what = "allocation and reservation" if allocation is not None else "reservation"
            raise BindError(f"add {what} to claim {key}: {err.message}", err) from None
        self.world.set_claim(stored)
        return stored

    # -- events ----------------------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        update = ActionType.ADD | ActionType.UPDATE
        return [
            ClusterEventWithHint(ClusterEvent(CLAIM, update), self._claim_hint),
            ClusterEventWithHint(ClusterEvent(SLICE, update)),
            ClusterEventWithHint(ClusterEvent(CLASS, update)),
            ClusterEventWithHint(ClusterEvent(RULE, ActionType.ALL)),
            ClusterEventWithHint(
                ClusterEvent(
                    NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT
                )
            ),
            ClusterEventWithHint(
                ClusterEvent(UNSCHEDULED_POD, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM),
                self._pod_hint,
            ),
        ]

    def _pod_hint(self, pod: Any, old: Any, new: Any) -> QueueingHint:
        """Upstream ``isSchedulableAfterPodChange``: the pod itself recorded its generated claims and
        every claim it names now exists, is not being deleted and is its own."""
        if new is None or new.uid != pod.uid:
            return QueueingHint.QUEUE_SKIP
        _, reason = self._claims(new)
        return QueueingHint.QUEUE_SKIP if reason else QueueingHint.QUEUE

    def _adopt(self, claims: list[Any], bindings: dict[str, Any]) -> dict[str, Any]:
        """The group's unallocated claims another pod of the group is allocating (in flight, between
        its Reserve and PreBind): this pod shares that allocation (upstream PreFilter's "reusing
        pending allocation" of a PodGroup cycle)."""
        adopted = {}
        for claim in claims:
            uid = claim.metadata.uid
            key = f"{claim.metadata.namespace}/{claim.metadata.name}"
            if uid in bindings and not _allocated(claim) and key in self.world.in_flight:
                adopted[uid] = self.world.in_flight[key]
        return adopted

    def _claim_hint(self, pod: Any, old: Any, new: Any) -> QueueingHint:
        """Upstream ``isSchedulableAfterClaimChange`` (registered for claim adds and updates only):
        nothing while some claim of the pod is missing, being deleted or not the pod's; any waiting
        pod when a claim was deallocated (its devices are free again); the pod when one of its own
        claims was created or its status changed (not for a finalizer or label only)."""
        if new is None:
            return QueueingHint.QUEUE_SKIP
        claims, reason = self._claims(pod)
        if reason:
            return QueueingHint.QUEUE_SKIP
        if old is not None and _allocated(old) and not _allocated(new):
            return QueueingHint.QUEUE_SKIP if self._still_settling(pod, new) else QueueingHint.QUEUE
        if all(c.metadata.uid != new.metadata.uid for c in claims):
            return QueueingHint.QUEUE_SKIP
        if old is None or old.status != new.status:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def _still_settling(self, pod: Any, freed: Any) -> bool:
        """KEP-5690 "Deferring further preemption": the deallocated claim is a victim claim tracked
        on the pod's nominated node and another victim claim there is still allocated, so the
        preemptor's attempt would fail (the last deallocation wakes it)."""
        if not self.preemption:
            return False
        nomination = self.nominations.get(pod.uid)
        if nomination is None:
            return False
        return self.nominations.others_settling(nomination.node, freed.metadata.uid, self._still_allocated)

    def _may_help(self, old: Any, new: Any) -> tuple[bool, Any]:
        """Whether a claim event can make some waiting pod schedulable, and which pods: any, when
        devices were freed (deallocated, or deleted while allocated); else those waiting for it."""
        claim = new if new is not None else old
        waiting = self._awaited.pop(f"{claim.metadata.namespace}/{claim.metadata.name}", None)
        if old is not None and _allocated(old) and (new is None or not _allocated(new)):
            return True, None
        return waiting is not None, PodKeys(frozenset(waiting)) if waiting else None

    def event_handlers(self) -> Mapping[type, Any]:
        return {
            ResourceClaim: ObserveHandler(self, CLAIM),
            ResourceSlice: ObserveHandler(self, SLICE),
            DeviceClass: ObserveHandler(self, CLASS),
            DeviceTaintRule: ObserveHandler(self, RULE),
        }

    def observe(self, kind: str, old: Any, new: Any) -> None:
        """An informer event: update the world, then tell the scheduler."""
        world = self.world
        if kind == CLAIM:
            if new is None:
                world.remove_claim(old)
            else:
                old, new = world.set_claim(new)
            helps, pre_check = self._may_help(old, new)
            if not helps:
                return
            notify = self.handle.on_event
            if notify is not None:
                action = (
                    ActionType.ADD if old is None else ActionType.DELETE if new is None else ActionType.UPDATE
                )
                notify(ClusterEvent(kind, action), old, new, pre_check)
            return
        elif kind == SLICE:
            world.set_slice(new) if new is not None else world.remove_slice(old)
        elif kind == CLASS:
            world.set_class(new) if new is not None else world.remove_class(old)
        else:
            world.set_rule(new) if new is not None else world.remove_rule(old)
        notify = self.handle.on_event
        if notify is not None:
            action = (
                ActionType.ADD if old is None else ActionType.DELETE if new is None else ActionType.UPDATE
            )
            notify(ClusterEvent(kind, action), old, new)



def _gate(handle: Any, name: str, default: bool = True) -> bool:
    """The gate's value; ``default`` (its 1.37 default) for a handle built without the DRA family's
    gates."""
    try:
        return bool(handle.features.enabled(name))
    except KeyError:
        return default


def _with_allocation(claim: Any, allocation: Any) -> Any:
    """A read-only view of ``claim`` allocated with ``allocation`` (a pending allocation it shares)."""
    view = shallow_copy(claim)
    view.status = shallow_copy(claim.status) if claim.status is not None else ResourceClaimStatus()
    view.status.allocation = allocation
    return view


def _owned_by(claim: Any, uid: str) -> bool:
    return any(ref.controller and ref.uid == uid for ref in claim.metadata.owner_references or ())


def _single_node(selector: NodeSelector | None) -> str | None:
    """The node of a selector that is exactly ``metadata.name In [node]`` (the allocator's pin)."""
    terms = selector.node_selector_terms if selector is not None else None
    if not terms or len(terms) != 1:
        return None
    term = terms[0]
    fields = term.match_fields or []
    if term.match_expressions or len(fields) != 1:
        return None
    req = fields[0]
    if req.key == "metadata.name" and req.operator == "In" and req.values and len(req.values) == 1:
        return req.values[0]
    return None


def _plain_pod_ref(pod: Any) -> ObjectRef:
    return ObjectRef("Pod", "v1", pod.name, pod.namespace, pod.uid)


def new(args: Mapping[str, Any], handle: Any) -> DynamicResources:
    """Plugin factory. Of upstream's ``DynamicResourcesArgs``, ``bindingTimeout`` (a duration,
    default 600s) is modelled; ``filterTimeout`` is not (kbatch's Filter takes no wall time)."""
    timeout = args.get("bindingTimeout") if args else None
    if timeout is None:
        return DynamicResources(handle)
    seconds = go_duration_seconds(timeout) if isinstance(timeout, str) else float(timeout)
    if seconds <= 0:
        raise ValueError(f"bindingTimeout: Invalid value: {timeout!r}: must be positive")
    return DynamicResources(handle, seconds)
