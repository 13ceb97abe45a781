"""The mirrored EndpointSlices an Endpoints should have: a pure plan (kubernetes
``pkg/controller/endpointslicemirroring/reconciler.go`` ``reconcile``, ``reconcileByPortMapping``,
``totalChanges``, ``finalize``; ``reconciler_helpers.go`` ``recycleSlices``; ``utils.go``
``newEndpointSlice``, ``cloneAndRemoveKeys``).

1. The desired groups (:mod:`.desired`): one per address type and port set.
2. Existing mirrored slices are grouped the same way (by name, for a stable order). Per desired
   group: no slice yet → one is created; otherwise every slice but the first goes, and the first is
   left alone when its endpoints match (same keys, equal beyond the key), its labels (managed-by and
   service-name aside) are the Endpoints' and its annotations the Endpoints' (trigger time and
   last-applied aside) and it is not owned by an earlier Endpoints of that name (another uid:
   kubernetes#125354); else it is rewritten whole, keeping its name.
3. Slices of groups no longer desired go.
4. Creates become updates of slices that would go, per address type (``recycleSlices``).

A slice: ``generateName: <endpoints>-``, the Endpoints' labels plus ``kubernetes.io/service-name``
and ``endpointslice.kubernetes.io/managed-by: endpointslicemirroring-controller.k8s.io``, its
annotations but the two above, the Endpoints as controller owner, the group's ports and endpoints.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kbatch.api.core_v1 import ENDPOINTS_LAST_CHANGE_TRIGGER_TIME, Endpoints
from kbatch.api.discovery_v1 import LABEL_MANAGED_BY, LABEL_SERVICE_NAME, Endpoint, EndpointSlice
from kbatch.api.meta import ObjectMeta, OwnerReference
from kbatch.api.validation import name_is_dns1123_subdomain
from kbatch.controllers.endpointslicemirroring.desired import (
    MAX_ENDPOINTS_PER_SUBSET,
    Desired,
    Group,
    GroupKey,
    desired_groups,
    endpoint_key,
    port_key,
)

__all__ = ["CONTROLLER_NAME", "LAST_APPLIED", "MirrorPlan", "plan_mirror"]

CONTROLLER_NAME = "endpointslicemirroring-controller.k8s.io"  # the managed-by value
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
_NOT_MIRRORED = (ENDPOINTS_LAST_CHANGE_TRIGGER_TIME, LAST_APPLIED)


@dataclass
class MirrorPlan:
    """What to write (creates have no name: ``generateName``), and the addresses left out."""

    create: list[EndpointSlice] = field(default_factory=list)
    update: list[EndpointSlice] = field(default_factory=list)
    delete: list[EndpointSlice] = field(default_factory=list)
    invalid: int = 0
    skipped: int = 0


def _labels(endpoints: Endpoints) -> dict[str, str]:
    labels = dict(endpoints.metadata.labels or {})
    labels[LABEL_SERVICE_NAME] = endpoints.metadata.name or ""
    labels[LABEL_MANAGED_BY] = CONTROLLER_NAME
    return labels


def _annotations(endpoints: Endpoints) -> dict[str, str]:
    return {k: v for k, v in (endpoints.metadata.annotations or {}).items() if k not in _NOT_MIRRORED}


def _prefix(name: str) -> str:
    """``getEndpointSlicePrefix``."""
    return f"{name}-" if not name_is_dns1123_subdomain(f"{name}-", True) else name


def new_slice(endpoints: Endpoints, group: Group, most: int, name: str | None = None) -> EndpointSlice:
    """``newEndpointSlice`` filled with the group's first ``most`` endpoints."""
    owner = OwnerReference(api_version="v1", kind="Endpoints", name=endpoints.metadata.name or "",
                           uid=endpoints.metadata.uid or "", controller=True, block_owner_deletion=True)
    meta = ObjectMeta(name=name, generate_name=None if name else _prefix(endpoints.metadata.name or ""),
                      namespace=endpoints.metadata.namespace, labels=_labels(endpoints),
                      annotations=_annotations(endpoints) or None, owner_references=[owner])
    chosen = list(group.endpoints.values())[:most]
    return EndpointSlice(metadata=meta, address_type=group.address_type, ports=list(group.ports) or None,
                         endpoints=chosen or None)


def _same_beyond_key(a: Endpoint, b: Endpoint) -> bool:
    """``EndpointsEqualBeyondHash``: node, zone, conditions, hints and target (its resourceVersion
    aside)."""
    ref_a = a.target_ref.model_copy(update={"resource_version": None}) if a.target_ref else None
    ref_b = b.target_ref.model_copy(update={"resource_version": None}) if b.target_ref else None
    return (a.node_name, a.zone, a.conditions, a.hints, ref_a) == (b.node_name, b.zone, b.conditions,
                                                                   b.hints, ref_b)


def _endpoints_match(eps: EndpointSlice, group: Group) -> bool:
    """``totalChanges`` is zero: the slice holds exactly the group's endpoints, each unchanged."""
    matched = 0
    for endpoint in eps.endpoints or ():
        want = group.endpoints.get(endpoint_key(endpoint))
        if want is None or not _same_beyond_key(want, endpoint):
            return False
        matched += 1
    return matched == len(group.endpoints)


def _stale_owner(eps: EndpointSlice, endpoints: Endpoints) -> bool:
    """The slice names an Endpoints of this name with another uid as owner (one deleted and created
    again: kubernetes#125354)."""
    return any(ref.kind == "Endpoints" and ref.name == endpoints.metadata.name
               and ref.uid != (endpoints.metadata.uid or "") for ref in eps.metadata.owner_references or ())


def _unchanged(eps: EndpointSlice, endpoints: Endpoints, group: Group) -> bool:
    labels = {k: v for k, v in (eps.metadata.labels or {}).items()
              if k not in (LABEL_MANAGED_BY, LABEL_SERVICE_NAME)}
    return (_endpoints_match(eps, group) and labels == (endpoints.metadata.labels or {})
            and (eps.metadata.annotations or {}) == _annotations(endpoints)
            and not _stale_owner(eps, endpoints))


def _by_port_mapping(endpoints: Endpoints, existing: list[EndpointSlice], group: Group, most: int,
                     plan: MirrorPlan) -> None:
    """``reconcileByPortMapping`` (module docstring, step 2)."""
    if not existing:
        plan.create.append(new_slice(endpoints, group, most))
        return
    first, rest = existing[0], existing[1:]
    plan.delete += rest
    if not _unchanged(first, endpoints, group):
        rewritten = new_slice(endpoints, group, most, first.metadata.name)
        rewritten.metadata.resource_version = first.metadata.resource_version
        plan.update.append(rewritten)


def _recycle(plan: MirrorPlan) -> None:
    """``recycleSlices``: per address type, the n-th create takes the name of the n-th delete."""
    for family in sorted({s.address_type for s in plan.create}):
        creates = [s for s in plan.create if s.address_type == family]
        deletes = [s for s in plan.delete if s.address_type == family]
        for made, doomed in zip(creates, deletes, strict=False):
            plan.create.remove(made)
            plan.delete.remove(doomed)
            made.metadata.name, made.metadata.generate_name = doomed.metadata.name, None
            made.metadata.resource_version = doomed.metadata.resource_version
            plan.update.append(made)


def plan_mirror(endpoints: Endpoints, existing: Sequence[EndpointSlice],
                most: int = MAX_ENDPOINTS_PER_SUBSET) -> MirrorPlan:
    """The writes that make ``existing`` (this Endpoints' mirrored slices) mirror ``endpoints``."""
    desired: Desired = desired_groups(endpoints, most)
    plan = MirrorPlan(invalid=desired.invalid, skipped=desired.skipped)
    by_key: dict[GroupKey, list[EndpointSlice]] = {}
    for eps in sorted(existing, key=lambda s: s.metadata.name or ""):
        by_key.setdefault((eps.address_type, port_key(eps.ports)), []).append(eps)
    for key, group in desired.groups.items():
        _by_port_mapping(endpoints, by_key.get(key, []), group, most, plan)
    for key, slices in by_key.items():
        if key not in desired.groups:
            plan.delete += slices
    _recycle(plan)
    if endpoints.metadata.deletion_timestamp is not None:
        plan.create = []  # finalize: no new slices for an Endpoints being deleted
    return plan
