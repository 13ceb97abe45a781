"""A replacement for the pods of an admitted pod set that were assigned to an unhealthy node.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/cache/scheduler/tas_flavor_snapshot.go``
(``FindTopologyAssignmentsForFlavor``'s unhealthy-node branch, ``findReplacementAssignment``,
``deleteDomain``, ``IsTopologyAssignmentStale``, ``requiredReplacementDomain``,
``mergeTopologyAssignments``; ``fillLeafCounts`` skips the leaves outside the required replacement
domain), KEP 2724 "Node failure":

* the pods on the first unhealthy node are the ones to place again; the node's domain leaves the
  assignment;
* each remaining domain must still be a node of the flavor's topology, else "Cannot replace the
  node, because the existing topologyAssignment is invalid, as it contains the stale domain n";
* a ``required`` request keeps its pods inside the domain of its level that holds the first
  remaining domain: only that domain's nodes are searched; other requests (and a pod set that
  lost every domain) search the whole topology;
* podset slices: when the lost pods are not a whole number of (outermost) slices, the node held
  part of a slice. The replacement then completes it: it is searched for inside the slice-level
  domain whose remaining pods plus the lost ones make whole slices (with inner layers, the domain
  of the innermost layer the lost pods break), and with one slice layer only, the innermost one
  whose size divides the lost pods (none, pod by pod, when no size does). Lost pods that are
  whole slices are placed by the pod set's own request (the ``required`` rule above);
* the search is the ordinary one (:meth:`.TASFlavorSnapshot.find`) for the lost pods, seeing the
  TAS usage of every admitted Workload (the healthy domains of this one included) and what earlier
  pod sets of the Workload took;
* found: the new domains merged into the remaining ones, in leaf order; not found: the search's
  reason, or "cannot find replacement assignment for unhealthy node: n".

A Workload owned by a single Pod keeps its assignment (``SkipReassignmentForPodOwnedWorkloads``,
beta, on): the pod cannot move.

Deliberately different: when several slice-level domains could take the lost pods, upstream takes
whichever its map iteration meets first; kbatch takes the first in leaf order.

Not modelled: workload slices.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from kbatch.controllers.kueue.tas.snapshot import (
    DomainValues,
    PodSetTASRequest,
    TASFlavorSnapshot,
    TopologyResult,
)

__all__ = ["Replacement", "find_replacement", "merge_domains"]

Domains = tuple[tuple[DomainValues, int], ...]


@dataclass(frozen=True, slots=True)
class Replacement:
    """The pod set's new domains (``result``) and the ones newly taken (``added``), or why not."""

    result: TopologyResult
    added: Domains = ()
    failure: str = ""


def _within(snap: TASFlavorSnapshot, prefix: DomainValues) -> TASFlavorSnapshot:
    """The snapshot's leaves under ``prefix`` (``requiredReplacementDomain``), their free capacity
    and usage shared."""
    sub = TASFlavorSnapshot(snap.topology, snap.levels, (), snap.flavor_tolerations,
                            balanced=snap.balanced, respect_preferred=snap.respect_preferred)
    for leaf, free in snap.leaf_free.items():
        if leaf[: len(prefix)] == prefix:
            sub.leaf_free[leaf] = free
            sub.leaf_nodes[leaf] = snap.leaf_nodes[leaf]
            if leaf in snap.usage:
                sub.usage[leaf] = snap.usage[leaf]
    return sub


def _with_outside(message: str, inside: int, outside: int) -> str:
    """The search's message counting the nodes outside the required replacement domain as
    excluded (``tasExclusionStats.TopologyDomain``: ``Total nodes`` is every node of the flavor,
    ``topologyDomain: n`` joins the sorted reasons)."""
    if outside == 0:
        return message
    text, _, stats = message.partition(". Total nodes: ")
    reasons = stats.partition("; excluded: ")[2]
    parts = sorted([r for r in reasons.split(", ") if r] + [f"topologyDomain: {outside}"])
    return f"{text}. Total nodes: {inside + outside}; excluded: {', '.join(parts)}"


def merge_domains(snap: TASFlavorSnapshot, levels: tuple[str, ...], *parts: Domains) -> TopologyResult:
    """``mergeTopologyAssignments``: the domains in leaf order, equal ones summed (also a
    scale-up's new pods with the kept ones, :mod:`.elastic`)."""
    merged: dict[DomainValues, tuple[DomainValues, int]] = {}
    for part in parts:
        for (leaf, count), (values, _) in zip(
            snap.leaves_of(TopologyResult(levels, part)), part, strict=True
        ):
            have = merged.get(leaf)
            merged[leaf] = (values, count + (have[1] if have is not None else 0))
    return TopologyResult(levels, tuple(merged[leaf] for leaf in sorted(merged)))


def _slice_size(request: PodSetTASRequest) -> int:
    """``getSliceSizeWithSinglePodAsDefault`` (a size of 0 is refused by the search itself)."""
    return request.slice_layers[0][1] if request.slice_layers else 1


def _broken(request: PodSetTASRequest, lost: int) -> bool:
    size = _slice_size(request)
    return bool(request.slice_layers) and size > 0 and lost % size != 0


def _replacement_domain(
    snap: TASFlavorSnapshot, request: PodSetTASRequest, leaves: Sequence[tuple[DomainValues, int]], lost: int
) -> DomainValues | None:
    """``requiredReplacementDomain``: the domain the lost pods must go back into, as the leaf
    values' prefix down to its level; ``None``: anywhere."""
    key = snap.level_key(request)
    if key is None or key not in snap.levels or not leaves:
        return None
    if _broken(request, lost):
        layers = request.slice_layers
        level, size = layers[0]
        if len(layers) > 1:
            level, size = next((t, z) for t, z in reversed(layers) if z > 0 and lost % z != 0)
        return _incomplete_slice_domain(snap, leaves, lost, size, level)
    if request.required is None:
        return None
    return leaves[0][0][: snap.levels.index(key) + 1]


def _incomplete_slice_domain(
    snap: TASFlavorSnapshot, leaves: Sequence[tuple[DomainValues, int]], lost: int, size: int, level: str
) -> DomainValues | None:
    """``findIncompleteSliceDomain``: the first domain of ``level`` (in leaf order) whose remaining
    pods and the lost ones make whole slices of ``size``."""
    if level not in snap.levels:
        return None
    depth = snap.levels.index(level) + 1
    held: dict[DomainValues, int] = {}
    for leaf, count in sorted(leaves):
        held[leaf[:depth]] = held.get(leaf[:depth], 0) + count
    return next((d for d, count in held.items() if (count + lost) % size == 0), None)


def _replacement_request(request: PodSetTASRequest, lost: int, confined: bool) -> PodSetTASRequest:
    """``findReplacementAssignment``'s request: ``lost`` pods; completing a broken slice inside its
    domain, one layer only: the innermost whose size divides them (else none)."""
    if not confined or not _broken(request, lost):
        return replace(request, count=lost)
    layer = next(((t, z) for t, z in reversed(request.slice_layers) if z > 0 and lost % z == 0), None)
    return replace(request, count=lost, slice_layers=(layer,) if layer is not None else ())


def find_replacement(
    snap: TASFlavorSnapshot,
    request: PodSetTASRequest,
    levels: tuple[str, ...],
    domains: Domains,
    node: str,
    assumed: Mapping[DomainValues, Mapping[str, int]],
) -> Replacement:
    """``findReplacementAssignment`` for one pod set whose ``domains`` name ``node``."""
    lost = sum(count for values, count in domains if values and values[-1] == node)
    kept = tuple((values, count) for values, count in domains if not values or values[-1] != node)
    leaves = snap.leaves_of(TopologyResult(levels, kept))
    if len(leaves) != len(kept):
        stale = next(v for v in kept if not snap.leaves_of(TopologyResult(levels, (v,))))
        return Replacement(
            TopologyResult(),
            failure="Cannot replace the node, because the existing topologyAssignment is invalid, "
            f"as it contains the stale domain {stale[0][0]}",
        )
    within = _replacement_domain(snap, request, leaves, lost)
    search = _within(snap, within) if within is not None else snap
    found = search.find(_replacement_request(request, lost, within is not None), assumed)
    if found.failure:
        inside = len(search.leaf_free)
        failure = _with_outside(found.failure, inside, len(snap.leaf_free) - inside)
        return Replacement(TopologyResult(), failure=failure)
    if not found.domains:
        return Replacement(
            TopologyResult(), failure=f"cannot find replacement assignment for unhealthy node: {node}"
        )
    return Replacement(merge_domains(snap, levels, kept, found.domains), found.domains)
