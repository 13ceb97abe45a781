"""The VolumeBinding scheduler plugin (upstream ``pkg/scheduler/framework/plugins/volumebinding``:
``volume_binding.go``, ``binder.go``; Kubernetes 1.37 semantics), on kbatch's framework.

* **PreFilter**: a pod without claim volumes (``persistentVolumeClaim`` or generic ``ephemeral``) is
  skipped. Every claim must exist (``persistentvolumeclaim "x" not found``; for an ephemeral volume
  ``waiting for ephemeral volume controller to create the persistentvolumeclaim "x"``), not be
  ``Lost``, not be being deleted, and an ephemeral one must be controlled by the pod. Claims that are
  fully bound (``volumeName`` and ``pv.kubernetes.io/bind-completed``) are checked per node; unbound
  ones of a ``WaitForFirstConsumer`` class are bound per node; any other unbound claim (Immediate, or
  pre-bound by ``volumeName`` but not yet bound by the binder) rejects the pod: ``pod has unbound
  immediate PersistentVolumeClaims``. Every rejection is UnschedulableAndUnresolvable.
* **Filter**: a bound claim's volume must exist (``node(s) unavailable due to one or more pvc(s) bound
  to non-existent pv(s)``) and its node affinity fit the node (``node(s) had volume node affinity
  conflict``). A WaitForFirstConsumer claim already given a node (``volume.kubernetes.io/selected-node``)
  fits that node only; otherwise it takes a matching Available volume the node can reach
  (:func:`kbatch.api.pv_helpers.find_matching_volume`, claims smallest request first, a volume
  once), or else its class must provision there (a provisioner other than
  ``kubernetes.io/no-provisioner``, the node in ``allowedTopologies``); if not: ``node(s) didn't
  find available persistent volumes to bind``. A claim with no class, or a class that does not
  exist, is an error.
* **Reserve** assumes the node's choice in the plugin's caches (volumes pre-bound to their claims,
  claims annotated with the node), so the next pods see those volumes taken; **Unreserve** forgets it.
* **PreBind** writes it: each chosen volume's ``claimRef`` (with ``pv.kubernetes.io/bound-by-controller``),
  each claim to provision annotated ``volume.kubernetes.io/selected-node``; then waits, polling every
  second of virtual time, until the binder has bound every such claim (``bindTimeoutSeconds``,
  default 600: then ``binding volumes: timed out waiting for the condition``). A claim whose
  ``selected-node`` was removed (the provisioner gave up), a volume whose ``claimRef`` was reset or
  whose node affinity no longer fits, fail the binding; the pod is retried.

Queueing hints (``EventsToRegister``): a StorageClass added, or updated in ``allowedTopologies``; a
claim of the pod added or updated; any PersistentVolume added or updated; a node added or relabelled.
Not modelled: CSI storage capacity (``CSIStorageCapacity``, the ``StorageCapacityScoring`` score), CSI
migration and CSINode, the ``VolumeRestrictions``/``NodeVolumeLimits``/``VolumeZone`` plugins
(docs/storage.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kbatch.api.core_v1 import Node, PersistentVolumeClaim, Pod
from kbatch.api.core_v1.persistent_volume import PersistentVolume
from kbatch.api.errors import BadRequest, NotFound, StatusError
from kbatch.api.model_copy import shallow_copy
from kbatch.api.pv_helpers import (
    ANN_SELECTED_NODE,
    NOT_SUPPORTED_PROVISIONER,
    bind_volume_to_claim,
    check_node_affinity,
    claim_class,
    find_matching_volume,
    is_delay_binding_mode,
    requested_storage,
    volume_class,
)
from kbatch.api.storage_v1 import StorageClass
from kbatch.controllers.scheduler.events import (
    NODE,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    QueueingHint,
)
from kbatch.controllers.scheduler.framework import Code, CycleState, Status
from kbatch.controllers.scheduler.observer import ObserveHandler
from kbatch.controllers.scheduler.plugins.volume_binding.cache import AssumeCache, key_of
from kbatch.controllers.scheduler.plugins.volume_binding.matching import fully_bound, topology_fits

__all__ = ["BIND_CONFLICT", "NAME", "NODE_CONFLICT", "PV_NOT_EXIST", "UNBOUND_IMMEDIATE",
           "VolumeBinding", "claim_hint", "class_hint", "new"]

NAME = "VolumeBinding"
KEY = NAME  # cycle-state key
CLAIM, VOLUME, CLASS = "PersistentVolumeClaim", "PersistentVolume", "StorageClass"
# upstream ConflictReasons (binder.go), in the order FindPodVolumes appends them
NODE_CONFLICT = "node(s) had volume node affinity conflict"
BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
BIND_TIMEOUT_DEFAULT = 600.0  # VolumeBindingArgs.bindTimeoutSeconds default
POLL_INTERVAL = 1.0  # BindPodVolumes: wait.Poll(time.Second, bindTimeout, checkBindings)
TIMEOUT_MESSAGE = "binding volumes: timed out waiting for the condition"
_SKIP = Status(Code.SKIP, (), NAME)  # immutable: shared by every pod without claim volumes


@dataclass(slots=True)
class _Choice:
    """Upstream ``PodVolumes`` for one node: volumes to pre-bind, claims to provision."""

    bindings: list[tuple[Any, Any]] = field(default_factory=list)  # (volume, claim)
    provisions: list[Any] = field(default_factory=list)


@dataclass(slots=True)
class _PodState:
    """Upstream ``stateData``: the pod's claims by kind, the per-node choices, PreBind's progress."""

    bound: list[Any]
    delayed: list[Any]
    by_node: dict[str, _Choice] = field(default_factory=dict)
    all_bound: bool = False
    deadline: float = 0.0
    written: _Choice | None = None


class VolumeBinding:
    name = NAME
    node_static = False

    def __init__(self, handle: Any, bind_timeout: float = BIND_TIMEOUT_DEFAULT) -> None:
        self.handle = handle
        self.bind_timeout = bind_timeout
        self.claims = AssumeCache()
        self.volumes = AssumeCache(volume_class)
        self.classes: dict[str, StorageClass] = {}

    # -- PreFilter -------------------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: Any, snapshot: Any) -> Status | None:
        if not pod.pvc_volumes:
            return _SKIP
        claims, reason = self._pod_claims(pod)
        if reason:
            return Status.unresolvable(NAME, reason)
        bound, delayed, immediate = [], [], []
        for claim in claims:  # upstream GetPodVolumeClaims
            if fully_bound(claim):
                bound.append(claim)
            elif is_delay_binding_mode(claim, self.classes.get) and not claim.spec.volume_name:
                delayed.append(claim)
            else:
                immediate.append(claim)  # pre-bound claims too: the binder binds them
        if immediate:
            return Status.unresolvable(NAME, UNBOUND_IMMEDIATE)
        state[KEY] = _PodState(bound, delayed)
        return None

    def _pod_claims(self, pod: Any) -> tuple[list[Any], str]:
        """Upstream ``podHasPVCs``: the pod's claims, or why they are not usable."""
        claims = []
        for name, ephemeral in pod.pvc_volumes:
            claim = self.claims.get(f"{pod.namespace}/{name}")
            if claim is None:
                if ephemeral:
                    return [], ("waiting for ephemeral volume controller to create the "
                                f'persistentvolumeclaim "{name}"')
                return [], f'persistentvolumeclaim "{name}" not found'
            if claim.status is not None and claim.status.phase == "Lost":
                return [], (f'persistentvolumeclaim "{name}" bound to non-existent persistentvolume '
                            f'"{claim.spec.volume_name or ""}"')
            if claim.metadata.deletion_timestamp is not None:
                return [], f'persistentvolumeclaim "{name}" is being deleted'
            if ephemeral and not _controlled_by(claim, pod.uid):
                return [], (f"PVC {pod.namespace}/{name} was not created for pod "
                            f"{pod.namespace}/{pod.name} (pod is not owner)")
            claims.append(claim)
        return claims, ""

    # -- Filter ----------------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Any, node: Any) -> Status | None:
        data: _PodState | None = state.get(KEY)
        if data is None:
            return None
        labels = node.shape.labels
        try:
            reasons, choice = self._find(data, node.name, labels)
        except _FindError as err:
            return Status(Code.ERROR, (str(err),), NAME)
        if reasons:
            return Status.unresolvable(NAME, *reasons)
        data.by_node[node.name] = choice
        return None

    def _find(self, data: _PodState, node_name: str, labels: Mapping[str, str],
              ) -> tuple[list[str], _Choice]:
        """Upstream ``FindPodVolumes``: the conflict reasons on this node, or the node's choice. A
        bound claim's conflict does not stop the unbound ones from being checked (both reasons)."""
        choice = _Choice()
        affinity_ok, volumes_found = True, True
        for claim in data.bound:  # checkBoundClaims: stops at the first problem
            volume = self.volumes.get(claim.spec.volume_name or "")
            if volume is None:
                volumes_found = False
                break
            if not check_node_affinity(volume, labels):
                affinity_ok = False
                break
        unbound_ok = self._find_unbound(data, node_name, labels, choice)
        reasons = [reason for ok, reason in ((affinity_ok, NODE_CONFLICT), (unbound_ok, BIND_CONFLICT),
                                             (volumes_found, PV_NOT_EXIST)) if not ok]
        return reasons, choice

    def _find_unbound(self, data: _PodState, node_name: str, labels: Mapping[str, str],
                      choice: _Choice) -> bool:
        """The WaitForFirstConsumer claims on this node: volumes to bind, claims to provision."""
        to_match, to_provision = [], []
        for claim in data.delayed:
            selected = (claim.metadata.annotations or {}).get(ANN_SELECTED_NODE)
            if selected is None:
                to_match.append(claim)
            elif selected != node_name:
                return False  # the fast path: another node was selected
            else:
                to_provision.append(claim)
        chosen: set[str] = set()
        for claim in sorted(to_match, key=_request_key):  # findMatchingVolumes: smallest first
            try:
                volume = find_matching_volume(claim, self.volumes.listed(claim_class(claim)), labels, chosen)
            except BadRequest as err:  # upstream: FindPodVolumes' error, the Filter's error status
                raise _FindError(err.message) from None
            if volume is None:
                to_provision.append(claim)
                continue
            chosen.add(volume.metadata.name or "")
            choice.bindings.append((volume, claim))
        for claim in to_provision:  # checkVolumeProvisions
            if not self._can_provision(claim, labels):
                return False
            choice.provisions.append(claim)
        return True

    def _can_provision(self, claim: Any, labels: Mapping[str, str]) -> bool:
        key = key_of(claim)
        name = claim_class(claim)
        if not name:
            raise _FindError(f'no class for claim "{key}"')
        found = self.classes.get(name)
        if found is None:
            raise _FindError(f'failed to find storage class "{name}"')
        if not found.provisioner or found.provisioner == NOT_SUPPORTED_PROVISIONER:
            return False
        return topology_fits(found.allowed_topologies, labels)

    # -- Reserve / Unreserve ---------------------------------------------------------------------
    def reserve(self, state: CycleState, pod: Any, node_name: str) -> Status | None:
        data: _PodState | None = state.get(KEY)
        if data is None:
            return None
        choice = data.by_node.get(node_name)
        if choice is None or self._all_bound(pod):
            data.all_bound = True
            return None
        assumed = _Choice()
        try:  # upstream AssumePodVolumes
            for volume, claim in choice.bindings:
                bound, changed = bind_volume_to_claim(volume, claim)  # GetBindVolumeToClaim
                if changed:
                    self.volumes.assume(bound)
                assumed.bindings.append((bound, claim))
            for claim in choice.provisions:
                annotated = shallow_copy(claim)
                annotated.metadata = shallow_copy(claim.metadata)
                annotated.metadata.annotations = {**(claim.metadata.annotations or {}),
                                                  ANN_SELECTED_NODE: node_name}
                self.claims.assume(annotated)
                assumed.provisions.append(annotated)
        except (KeyError, ValueError) as err:
            self._revert(assumed)
            return Status(Code.ERROR, (str(err),), NAME)
        data.all_bound = False
        data.by_node[node_name] = assumed
        return None

    def _all_bound(self, pod: Any) -> bool:
        """Upstream ``arePodVolumesBound``: every claim of the pod fully bound (assumed caches)."""
        for name, _ in pod.pvc_volumes:
            claim = self.claims.get(f"{pod.namespace}/{name}")
            if claim is None or not fully_bound(claim):
                return False
        return True

    def unreserve(self, state: CycleState, pod: Any, node_name: str) -> None:
        data: _PodState | None = state.get(KEY)
        choice = data.by_node.get(node_name) if data is not None else None
        if choice is not None:
            self._revert(choice)

    def _revert(self, choice: _Choice) -> None:
        for volume, _ in choice.bindings:
            self.volumes.restore(key_of(volume))
        for claim in choice.provisions:
            self.claims.restore(key_of(claim))

    # -- PreBind ---------------------------------------------------------------------------------
    def pre_bind(self, state: CycleState, pod: Any, node_name: str) -> Status | None:
        data: _PodState | None = state.get(KEY)
        if data is None or data.all_bound:
            return None
        choice = data.by_node.get(node_name)
        if choice is None:
            return Status(Code.ERROR, (f'no pod volumes found for node "{node_name}"',), NAME)
        written, error = self._write(choice)  # upstream bindAPIUpdate
        if error:
            return Status(Code.ERROR, (error,), NAME)
        data.written = written
        data.deadline = self._now() + self.bind_timeout
        return Status(Code.WAIT, (), NAME, timeout=POLL_INTERVAL)  # wait.Poll: first check after 1 s

    def _write(self, choice: _Choice) -> tuple[_Choice, str]:
        """The API updates, volumes first; what was not written is no longer assumed."""
        client = self.handle.client
        written = _Choice()
        pending = [("volume", v, c) for v, c in choice.bindings]
        pending += [("claim", c, c) for c in choice.provisions]
        for index, (what, obj, claim) in enumerate(pending):
            try:
                stored = client.update(obj)
            except StatusError as err:
                for kind, rest, _ in pending[index:]:
                    (self.volumes if kind == "volume" else self.claims).restore(key_of(rest))
                return written, err.message
            if what == "volume":
                written.bindings.append((stored, claim))
            else:
                written.provisions.append(stored)
        return written, ""

    def pre_bind_poll(self, state: CycleState, pod: Any, node_name: str) -> Status | None:
        data: _PodState | None = state.get(KEY)
        if data is None or data.written is None:
            return None
        error, done = self._check(pod, node_name, data.written)
        if error:
            return Status(Code.ERROR, (f"binding volumes: {error}",), NAME)
        if done:
            return None
        if self._now() >= data.deadline:
            return Status(Code.ERROR, (TIMEOUT_MESSAGE,), NAME)
        return Status(Code.WAIT, (), NAME, timeout=POLL_INTERVAL)

    def _check(self, pod: Any, node_name: str, written: _Choice) -> tuple[str, bool]:
        """Upstream ``checkBindings`` on the informer's objects: ``(error, all bound)``."""
        if self._pod_gone(pod):
            return f'pod does not exist any more: pods "{pod.name}" not found', False
        labels = self._node_labels(node_name)
        if labels is None:
            return f'failed to get node "{node_name}": node "{node_name}" not found', False
        done = True
        for volume, claim in written.bindings:
            current = self.volumes.get_api(volume.metadata.name)
            api_claim = self.claims.get_api(key_of(claim))
            if current is None or api_claim is None:
                missing = volume.metadata.name if current is None else key_of(claim)
                return f'failed to check binding: "{missing}" not found', False
            if _version(volume) > _version(current):
                return "", False  # our write has not reached the informer yet
            if not check_node_affinity(current, labels):
                return f'pv "{current.metadata.name}" node affinity doesn\'t match node "{node_name}"', False
            ref = current.spec.claim_ref
            if ref is None or not ref.uid:
                return f'ClaimRef got reset for pv "{current.metadata.name}"', False
            done = done and fully_bound(api_claim)
        for claim in written.provisions:
            current = self.claims.get_api(key_of(claim))
            if current is None:
                return f'failed to check provisioning pvc: "{key_of(claim)}" not found', False
            if _version(claim) > _version(current):
                return "", False
            annotations = current.metadata.annotations
            if annotations is None:
                return f'selectedNode annotation reset for PVC "{current.metadata.name}"', False
            if annotations.get(ANN_SELECTED_NODE) != node_name:
                return f'provisioning failed for PVC "{current.metadata.name}"', False
            if current.spec.volume_name:
                volume = self.volumes.get_api(current.spec.volume_name)
                if volume is None:
                    done = False  # tolerated: the volume may not have reached the informer yet
                    continue
                if not check_node_affinity(volume, labels):
                    return (f'pv "{volume.metadata.name}" node affinity doesn\'t match node '
                            f'"{node_name}"'), False
            done = done and fully_bound(current)
        return "", done

    def _pod_gone(self, pod: Any) -> bool:
        """The pod was deleted while PreBind waited (a pod of that name with another uid counts)."""
        cache = self.handle.cache
        if cache is None:
            return False
        try:
            current = cache.get(Pod, pod.name, pod.namespace)
        except NotFound:
            return True
        return bool(pod.uid) and current.metadata.uid != pod.uid

    def _node_labels(self, name: str) -> Mapping[str, str] | None:
        cache = self.handle.cache
        if cache is None:
            return {}
        try:
            node = cache.get(Node, name)
        except NotFound:
            return None
        return node.metadata.labels or {}

    def _now(self) -> float:
        clock = self.handle.clock
        return float(clock.now()) if clock is not None else 0.0

    # -- events ----------------------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        update = ActionType.ADD | ActionType.UPDATE
        return [
            ClusterEventWithHint(ClusterEvent(CLASS, update), class_hint),
            ClusterEventWithHint(ClusterEvent(CLAIM, update), claim_hint),
            ClusterEventWithHint(ClusterEvent(VOLUME, update)),
            ClusterEventWithHint(ClusterEvent(NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL)),
        ]

    def event_handlers(self) -> Mapping[type, Any]:
        handlers: dict[type, Any] = {PersistentVolumeClaim: ObserveHandler(self, CLAIM)}
        if _served(self.handle, PersistentVolume):  # the storage family serves these two
            handlers[PersistentVolume] = ObserveHandler(self, VOLUME)
        if _served(self.handle, StorageClass):
            handlers[StorageClass] = ObserveHandler(self, CLASS)
        return handlers

    def observe(self, kind: str, old: Any, new: Any) -> None:
        """An informer event: update the caches, then tell the scheduler."""
        if kind == CLASS:
            if new is None:
                self.classes.pop(old.metadata.name, None)
            else:
                self.classes[new.metadata.name] = new
        else:
            cache = self.claims if kind == CLAIM else self.volumes
            if new is None:
                cache.delete(old)
            else:
                old, new = cache.update(new)
        notify = self.handle.on_event
        if notify is not None:
            action = (ActionType.ADD if old is None else ActionType.DELETE if new is None
                      else ActionType.UPDATE)
            notify(ClusterEvent(kind, action), old, new)


class _FindError(Exception):
    """FindPodVolumes failed (not a conflict): the Filter's error status."""


def claim_hint(pod: Any, old: Any, new: Any) -> QueueingHint:
    """Upstream ``isSchedulableAfterPersistentVolumeClaimChange``: a claim of this pod, in its
    namespace, created or updated."""
    if new is None or (new.metadata.namespace or "") != pod.namespace:
        return QueueingHint.QUEUE_SKIP
    name = new.metadata.name
    return QueueingHint.QUEUE if any(c == name for c, _ in pod.pvc_volumes) else QueueingHint.QUEUE_SKIP


def class_hint(pod: Any, old: Any, new: Any) -> QueueingHint:
    """Upstream ``isSchedulableAfterStorageClassChange``: any new class; an update only when its
    ``allowedTopologies`` changed (``volumeBindingMode`` is immutable)."""
    if old is None:
        return QueueingHint.QUEUE
    if new is not None and new.allowed_topologies != old.allowed_topologies:
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def _request_key(claim: PersistentVolumeClaim) -> Any:
    return requested_storage(claim).as_fraction()


def _version(obj: Any) -> int:
    try:
        return int(obj.metadata.resource_version or 0)
    except ValueError:
        return 0


def _controlled_by(claim: Any, uid: str) -> bool:
    """``ephemeral.VolumeIsForPod``: the pod is the claim's controller."""
    return any(ref.controller and ref.uid == uid for ref in claim.metadata.owner_references or ())


def _served(handle: Any, model: type) -> bool:
    registry = getattr(getattr(handle.client, "server", None), "registry", None)
    if registry is None:
        return True
    try:
        registry.for_model(model)
    except NotFound:
        return False
    return True



def new(args: Mapping[str, Any], handle: Any) -> VolumeBinding:
    """Plugin factory. Of upstream's ``VolumeBindingArgs``, ``bindTimeoutSeconds`` (default 600) is
    modelled; ``shape`` (capacity scoring) is not."""
    timeout = args.get("bindTimeoutSeconds") if args else None
    if timeout is None:
        return VolumeBinding(handle)
    if not isinstance(timeout, int) or isinstance(timeout, bool) or timeout < 0:
        raise ValueError(f"bindTimeoutSeconds: Invalid value: {timeout!r}: invalid BindTimeoutSeconds, "
                         "should not be a negative value")
    return VolumeBinding(handle, float(timeout))
