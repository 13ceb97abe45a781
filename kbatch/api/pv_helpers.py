"""Which PersistentVolume a claim may use: the pure helpers the persistentvolume-binder and the
scheduler's VolumeBinding plugin share, as upstream's two components share them.

Upstream (semantics only): ``k8s.io/component-helpers/storage/volume/pv_helpers.go``
(``FindMatchingVolume``, ``IsVolumeBoundToClaim``, ``CheckVolumeModeMismatches``,
``CheckAccessModes``, ``IsDelayBindingMode``, ``GetBindVolumeToClaim``, the annotation names) and
``helpers.go`` (``GetPersistentVolumeClaimClass``, ``GetPersistentVolumeClass``,
``CheckNodeAffinity``), read at component-helpers 1961876 (2026-07, Kubernetes 1.37).

Deliberate differences: the VolumeAttributesClass feature (GA) is always on; the volumes are taken
in the order given (callers pass them sorted by name, so among equally small volumes the first by
name wins where upstream's informer order decides); ``IsDelayBindingMode``'s error for a class with
no ``volumeBindingMode`` cannot arise (the API server defaults it to ``Immediate``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping

from kbatch.api.core_v1.affinity import NodeSelectorTerm
from kbatch.api.core_v1.claim import PersistentVolumeClaim
from kbatch.api.core_v1.common import ObjectReference
from kbatch.api.core_v1.persistent_volume import PersistentVolume
from kbatch.api.errors import BadRequest
from kbatch.api.model_copy import shallow_copy
from kbatch.api.quantity import Quantity
from kbatch.api.selectors import Selector, node_requirements_selector, selector_from_model
from kbatch.api.storage_v1 import StorageClass

__all__ = [
    "ANN_BETA_STORAGE_PROVISIONER",
    "ANN_BIND_COMPLETED",
    "ANN_BOUND_BY_CONTROLLER",
    "ANN_DYNAMICALLY_PROVISIONED",
    "ANN_SELECTED_NODE",
    "ANN_STORAGE_PROVISIONER",
    "BETA_CLASS_ANNOTATION",
    "NOT_SUPPORTED_PROVISIONER",
    "WAIT_FOR_FIRST_CONSUMER",
    "access_modes_ok",
    "attributes_class_mismatch",
    "bind_volume_to_claim",
    "check_node_affinity",
    "claim_class",
    "claim_reference",
    "find_matching_volume",
    "has_annotation",
    "is_delay_binding_mode",
    "is_volume_bound_to_claim",
    "requested_storage",
    "volume_capacity",
    "volume_class",
    "volume_mode_mismatch",
]

ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_DYNAMICALLY_PROVISIONED = "pv.kubernetes.io/provisioned-by"
ANN_STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
ANN_BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner"
BETA_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"
WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"

_ZERO = Quantity(0)


def has_annotation(obj: PersistentVolume | PersistentVolumeClaim, key: str) -> bool:
    return key in (obj.metadata.annotations or {})


def claim_class(claim: PersistentVolumeClaim) -> str:
    """``GetPersistentVolumeClaimClass``: the beta annotation first, then the spec, else ``""``."""
    annotations = claim.metadata.annotations or {}
    if BETA_CLASS_ANNOTATION in annotations:
        return annotations[BETA_CLASS_ANNOTATION]
    return claim.spec.storage_class_name or ""


def volume_class(volume: PersistentVolume) -> str:
    """``GetPersistentVolumeClass``: the beta annotation first, then the spec, else ``""``."""
    annotations = volume.metadata.annotations or {}
    if BETA_CLASS_ANNOTATION in annotations:
        return annotations[BETA_CLASS_ANNOTATION]
    return volume.spec.storage_class_name or ""


def is_delay_binding_mode(claim: PersistentVolumeClaim,
                          get_class: Callable[[str], StorageClass | None]) -> bool:
    """``IsDelayBindingMode``: the claim's class exists and is ``WaitForFirstConsumer``; no class,
    or one that does not exist, binds immediately."""
    name = claim_class(claim)
    found = get_class(name) if name else None
    return found is not None and found.volume_binding_mode == WAIT_FOR_FIRST_CONSUMER


def is_volume_bound_to_claim(volume: PersistentVolume, claim: PersistentVolumeClaim) -> bool:
    """``IsVolumeBoundToClaim``: the volume's claimRef names the claim (and its uid, when set)."""
    ref, meta = volume.spec.claim_ref, claim.metadata
    if ref is None or ref.name != meta.name or (ref.namespace or "") != (meta.namespace or ""):
        return False
    return not ref.uid or ref.uid == meta.uid


def volume_mode_mismatch(claim: PersistentVolumeClaim, volume: PersistentVolume) -> bool:
    """``CheckVolumeModeMismatches``: an unset mode counts as ``Filesystem`` on either side."""
    return (claim.spec.volume_mode or "Filesystem") != (volume.spec.volume_mode or "Filesystem")


def attributes_class_mismatch(claim: PersistentVolumeClaim, volume: PersistentVolume) -> bool:
    """``FindMatchingVolume``'s VolumeAttributesClass filter: the two names differ (unset is ``""``)."""
    return (claim.spec.volume_attributes_class_name or "") != (volume.spec.volume_attributes_class_name or "")


def access_modes_ok(claim: PersistentVolumeClaim, volume: PersistentVolume) -> bool:
    """``CheckAccessModes``: the volume offers every mode the claim asks for."""
    return set(claim.spec.access_modes or ()) <= set(volume.spec.access_modes or ())


def _term_fits(term: NodeSelectorTerm, labels: Mapping[str, str]) -> bool:
    """One term of ``nodeaffinity.LazyErrorNodeSelector`` against a node known by its labels only:
    a term that does not parse never matches; ``matchFields`` are parsed (``In``/``NotIn``, one
    value) but not matched, as the node has no name to match them against (``extractNodeFields``
    of a nameless node is empty, and ``nodeSelectorTerm.match`` then skips the fields)."""
    fields = term.match_fields or ()
    if any(f.operator not in ("In", "NotIn") or len(f.values or ()) != 1 for f in fields):
        return False
    if not term.match_expressions:
        return True
    try:
        selector = node_requirements_selector(term.match_expressions)
    except BadRequest:
        return False
    return selector.matches(labels)


def check_node_affinity(volume: PersistentVolume, node_labels: Mapping[str, str]) -> bool:
    """``CheckNodeAffinity`` (True where upstream returns no error): no ``nodeAffinity.required``:
    every node; else some non-empty term fits the node's labels (``MatchNodeSelectorTerms``)."""
    affinity = volume.spec.node_affinity
    required = affinity.required if affinity is not None else None
    if required is None:
        return True
    return any(_term_fits(t, node_labels) for t in required.node_selector_terms or ()
               if t.match_expressions or t.match_fields)


def requested_storage(claim: PersistentVolumeClaim) -> Quantity:
    """``claim.Spec.Resources.Requests[storage]``, zero when absent."""
    requests = claim.spec.resources.requests if claim.spec.resources is not None else None
    return (requests or {}).get("storage", _ZERO)


def volume_capacity(volume: PersistentVolume) -> Quantity:
    """``volume.Spec.Capacity[storage]``, zero when absent."""
    return (volume.spec.capacity or {}).get("storage", _ZERO)


def _claim_selector(claim: PersistentVolumeClaim) -> Selector | None:
    if claim.spec.selector is None:
        return None
    try:
        return selector_from_model(claim.spec.selector)
    except BadRequest as err:
        raise BadRequest(f"error creating internal label selector for claim: "
                         f"{claim.metadata.namespace}/{claim.metadata.name}: {err.message}") from None


def find_matching_volume(claim: PersistentVolumeClaim, volumes: Iterable[PersistentVolume],
                         node_labels: Mapping[str, str] | None = None,
                         excluded: Collection[str] = (), delay_binding: bool = False,
                         ) -> PersistentVolume | None:
    """``FindMatchingVolume``: a volume pre-bound to the claim wins if big enough (on the
    scheduler's path, ``node_labels`` given, only if it fits the node: else there is no match);
    otherwise the smallest ``Available``, unclaimed volume of the claim's class that matches the
    claim's selector (and, on the scheduler's path, fits the node and offers the claim's access
    modes). The binder's path with ``delay_binding`` (WaitForFirstConsumer) takes pre-bound volumes
    only. ``excluded`` names volumes already chosen for other claims of the pod. Raises
    :class:`BadRequest` for a claim selector that does not parse, as upstream returns an error."""
    requested, selector, wanted_class = requested_storage(claim), _claim_selector(claim), claim_class(claim)
    best: PersistentVolume | None = None
    best_size = _ZERO
    for volume in volumes:
        if volume.metadata.name in excluded:
            continue
        bound_here = is_volume_bound_to_claim(volume, claim)
        if volume.spec.claim_ref is not None and not bound_here:
            continue
        size = volume_capacity(volume)
        if size.cmp(requested) < 0 or volume_mode_mismatch(claim, volume):
            continue
        if attributes_class_mismatch(claim, volume):
            continue
        if volume.metadata.deletion_timestamp is not None:
            continue
        fits = node_labels is None or check_node_affinity(volume, node_labels)
        if bound_here:
            return volume if fits else None
        if node_labels is None and delay_binding:
            continue  # the binder leaves unbound volumes of delayed claims to the scheduler
        if not _unclaimed_fits(claim, volume, selector, wanted_class) or not fits:
            continue
        if node_labels is not None and not access_modes_ok(claim, volume):
            continue  # the binder's index already grouped the volumes by access modes
        if best is None or best_size.cmp(size) > 0:
            best, best_size = volume, size
    return best


def _unclaimed_fits(claim: PersistentVolumeClaim, volume: PersistentVolume, selector: Selector | None,
                    wanted_class: str) -> bool:
    """An unclaimed volume's phase, labels and class, as ``FindMatchingVolume`` filters them."""
    if volume.status is None or volume.status.phase != "Available":
        return False
    if selector is not None and not selector.matches(volume.metadata.labels or {}):
        return False
    return volume_class(volume) == wanted_class


def claim_reference(claim: PersistentVolumeClaim) -> ObjectReference:
    """``reference.GetReference`` of a claim, as a volume's ``claimRef`` holds it."""
    meta = claim.metadata
    return ObjectReference(kind="PersistentVolumeClaim", namespace=meta.namespace, name=meta.name,
                           uid=meta.uid, api_version="v1", resource_version=meta.resource_version)


def bind_volume_to_claim(volume: PersistentVolume,
                         claim: PersistentVolumeClaim) -> tuple[PersistentVolume, bool]:
    """``GetBindVolumeToClaim``: the volume with its ``claimRef`` on the claim (name, namespace and
    uid) and ``pv.kubernetes.io/bound-by-controller: "yes"`` unless it was pre-bound to the claim
    (a user's claimRef keeps the volume the user's); and whether that changed anything. The volume
    given is not modified (a new spec and metadata where they change)."""
    ref, meta = volume.spec.claim_ref, claim.metadata
    clone, dirty = shallow_copy(volume), False
    if ref is None or (ref.name, ref.namespace, ref.uid or "") != (meta.name, meta.namespace, meta.uid or ""):
        clone.spec = shallow_copy(volume.spec)
        clone.spec.claim_ref = claim_reference(claim)
        dirty = True
    if not is_volume_bound_to_claim(volume, claim) and not has_annotation(volume, ANN_BOUND_BY_CONTROLLER):
        clone.metadata = shallow_copy(volume.metadata)
        clone.metadata.annotations = {**(volume.metadata.annotations or {}), ANN_BOUND_BY_CONTROLLER: "yes"}
        dirty = True
    return (clone, True) if dirty else (volume, False)
