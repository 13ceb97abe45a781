"""Pure decisions about claims, volumes and classes that the VolumeBinding plugin takes.

Upstream (semantics only), Kubernetes 1.37:

* ``k8s.io/component-helpers/storage/volume/helpers.go`` ``GetPersistentVolumeClaimClass`` /
  ``GetPersistentVolumeClass`` (the beta ``volume.beta.kubernetes.io/storage-class`` annotation
  first, then ``storageClassName``), ``CheckNodeAffinity`` (the PV's ``nodeAffinity.required`` terms
  against the node's labels only: a ``matchFields`` term never matches there);
* ``.../volume/pv_helpers.go`` ``FindMatchingVolume``: a volume pre-bound to the claim wins (if its
  node affinity fits the node, else there is no match at all); otherwise the smallest ``Available``
  volume of the claim's class that is big enough, has the claim's volume mode and access modes,
  matches the claim's selector and VolumeAttributesClass and fits the node; volumes claimed by
  another claim, being deleted or already chosen for another claim of the pod are skipped.
  ``IsVolumeBoundToClaim``, ``CheckVolumeModeMismatches``, ``CheckAccessModes``;
* ``pkg/scheduler/framework/plugins/volumebinding/binder.go`` ``isPVCFullyBound`` (``volumeName``
  set and the binder's ``pv.kubernetes.io/bind-completed`` annotation present) and
  ``volume.IsDelayBindingMode`` (the claim's class exists and is ``WaitForFirstConsumer``; no class,
  or a class that does not exist, is Immediate);
* ``k8s.io/component-helpers/scheduling/corev1`` ``MatchTopologySelectorTerms`` for a class's
  ``allowedTopologies`` (no terms: every node).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kbatch.api.errors import BadRequest
from kbatch.api.quantity import Quantity
from kbatch.api.selectors import selector_from_model
from kbatch.controllers.scheduler.types import NodeSelectorRequirement, NodeSelectorTerm

__all__ = [
    "BETA_CLASS_ANNOTATION",
    "BIND_COMPLETED",
    "SELECTED_NODE",
    "WAIT_FOR_FIRST_CONSUMER",
    "claim_class",
    "find_matching_volume",
    "fully_bound",
    "is_delay_binding",
    "node_affinity_fits",
    "topology_fits",
    "volume_bound_to_claim",
    "volume_class",
]

BETA_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
SELECTED_NODE = "volume.kubernetes.io/selected-node"
WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"  # upstream volume.NotSupportedProvisioner
_ZERO = Quantity(0)


def claim_class(claim: Any) -> str:
    annotations = claim.metadata.annotations or {}
    if BETA_CLASS_ANNOTATION in annotations:
        return str(annotations[BETA_CLASS_ANNOTATION])
    return claim.spec.storage_class_name or ""


def volume_class(volume: Any) -> str:
    annotations = volume.metadata.annotations or {}
    if BETA_CLASS_ANNOTATION in annotations:
        return str(annotations[BETA_CLASS_ANNOTATION])
    return volume.spec.storage_class_name or ""


def fully_bound(claim: Any) -> bool:
    return bool(claim.spec.volume_name) and BIND_COMPLETED in (claim.metadata.annotations or {})


def is_delay_binding(claim: Any, classes: Mapping[str, Any]) -> bool:
    name = claim_class(claim)
    found = classes.get(name) if name else None
    return found is not None and found.volume_binding_mode == WAIT_FOR_FIRST_CONSUMER


def _terms(selector: Any) -> tuple[NodeSelectorTerm, ...]:
    def req(r: Any) -> NodeSelectorRequirement:
        return NodeSelectorRequirement(r.key, r.operator, tuple(r.values or ()))

    return tuple(NodeSelectorTerm(tuple(req(r) for r in t.match_expressions or ()),
                                  tuple(req(r) for r in t.match_fields or ()))
                 for t in selector.node_selector_terms or ())


def node_affinity_fits(volume: Any, labels: Mapping[str, str]) -> bool:
    """``CheckNodeAffinity``: no ``nodeAffinity.required``: every node; else some term matches the
    node's labels (the node is given by its labels alone, so ``matchFields`` never match)."""
    affinity = volume.spec.node_affinity
    required = affinity.required if affinity is not None else None
    if required is None:
        return True
    return any(t.matches(labels, "") for t in _terms(required))


def topology_fits(terms: Iterable[Any] | None, labels: Mapping[str, str]) -> bool:
    """``MatchTopologySelectorTerms``: no terms match every node; else some term whose every
    requirement has the node's value for its key among its values."""
    listed = list(terms or ())
    if not listed:
        return True
    return any(all(r.key in labels and labels[r.key] in (r.values or ())
                   for r in t.match_label_expressions or ())
               for t in listed)


def volume_bound_to_claim(volume: Any, claim: Any) -> bool:
    ref = volume.spec.claim_ref
    if ref is None:
        return False
    meta = claim.metadata
    return (ref.name == meta.name and (ref.namespace or "") == (meta.namespace or "")
            and (not ref.uid or ref.uid == meta.uid))


def _size(resources: Mapping[str, Any] | None) -> Quantity:
    found = (resources or {}).get("storage")
    return found if isinstance(found, Quantity) else Quantity(found or 0)


def _requested(claim: Any) -> Quantity:
    resources = claim.spec.resources
    return _size(resources.requests if resources is not None else None)


def _access_modes_fit(claim: Any, volume: Any) -> bool:
    have = set(volume.spec.access_modes or ())
    return all(mode in have for mode in claim.spec.access_modes or ())


def _selector_fits(claim: Any, volume: Any) -> bool:
    selector = claim.spec.selector
    if selector is None:
        return True
    try:
        return selector_from_model(selector).matches(volume.metadata.labels or {})
    except BadRequest:  # upstream: an error for the claim; validation keeps such selectors out
        return False


def _attributes_class(obj: Any) -> str:
    return obj.spec.volume_attributes_class_name or ""


def find_matching_volume(claim: Any, volumes: Iterable[Any], labels: Mapping[str, str],
                         excluded: Iterable[str] = ()) -> Any:
    """``FindMatchingVolume`` on the scheduler's path (a node, delayed binding): the volume for
    ``claim`` on a node with ``labels``, or None. ``volumes`` are the class's volumes, by name."""
    skip = set(excluded)
    wanted, mode = _requested(claim), claim.spec.volume_mode or "Filesystem"
    best: Any = None
    best_size = _ZERO
    for volume in volumes:
        if volume.metadata.name in skip:
            continue
        bound_here = volume_bound_to_claim(volume, claim)
        if volume.spec.claim_ref is not None and not bound_here:
            continue
        size = _size(volume.spec.capacity)
        if size.cmp(wanted) < 0 or (volume.spec.volume_mode or "Filesystem") != mode:
            continue
        if volume.metadata.deletion_timestamp is not None:
            continue
        fits = node_affinity_fits(volume, labels)
        if bound_here:
            return volume if fits else None
        phase = volume.status.phase if volume.status is not None else None
        if phase != "Available" or not _selector_fits(claim, volume):
            continue
        if volume_class(volume) != claim_class(claim) or not fits or not _access_modes_fit(claim, volume):
            continue
        if _attributes_class(claim) != _attributes_class(volume):
            continue  # VolumeAttributesClass (GA): the claim's class must be the volume's
        if best is None or best_size.cmp(size) > 0:
            best, best_size = volume, size
    return best
