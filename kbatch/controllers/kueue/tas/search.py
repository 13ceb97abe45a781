"""The phases of Kueue's topology assignment search over one pod set's domain tree (pure).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/cache/scheduler/tas_flavor_snapshot.go``:
``fillInCountsHelper`` (pods and slices per domain), ``buildSliceSizeAtLevel`` (the inner slice
layers of ``TASMultiLayerTopology``), ``sortedDomains``, ``findBestFitDomain``,
``findBestFitDomainForSlices``, ``findLevelWithFitDomains`` (phase 2a) and
``updateCountsToMinimumGeneric``, ``prioritizeLeaderDomain``, ``consumeWithLeadersGeneric``
(phase 2b), with the leader of a podset group.

A domain holds ``count`` pods and ``slices`` whole slices. Slices are counted at the slice level
(``count // size``) and summed above it; below it a domain holds no slice. With inner slice layers,
a parent sums its children's pods rounded down to the inner layer's size at their level. With a
leader, a leaf also says whether it holds the leader (``leader``) and how many workers it holds
beside it (``count_wl``); a parent holds a leader if a child does, and beside it its workers less
the smallest loss among its children that hold one.

Phase 2a looks for the domains at the requested level that hold ``count // size`` slices
(BestFit: most slices first, then fewest pods, then values; LeastFreeCapacity: fewest slices
first). Phase 2b walks down: above the slice level the children of *all* chosen domains compete
for the pod set's slices; at and below it each chosen domain's children take that domain's pods,
in whole inner-layer slices where a layer applies (single pods otherwise).

With ``TASRespectNodeAffinityPreferred`` (alpha, off) a domain also carries its preferred node
affinity score (``affinity``: the weights of the preferred terms its node matches, summed up the
tree, as ``fillInCountsHelper`` does); the score comes before the placement policy in both orders
and a best fit never leaves the first domain's score tier (``topAffinityTierDomains``). The snapshot
computes scores only with the gate on; with it off every score is 0, so the orders and best fits
are exactly those without the gate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

__all__ = [
    "Domain",
    "best_fit",
    "fill_counts",
    "minimum",
    "prioritize_leader",
    "sorted_domains",
    "sorted_with_leader",
]

DomainValues = tuple[str, ...]


@dataclass(slots=True)
class Domain:
    """One topology domain during a search: its values from the top level down, its children,
    the pods (``count``) and whole slices (``slices``) it holds or is given."""

    values: DomainValues
    children: list[Domain] = field(default_factory=list)
    count: int = 0
    slices: int = 0
    leader: int = 0  # leaders the domain holds (0 or 1)
    count_wl: int = 0  # workers it holds beside the leader (``podCountWithLeader``)
    slices_wl: int = 0  # ``sliceCountWithLeader``
    affinity: int = 0  # ``affinityScore`` (TASRespectNodeAffinityPreferred; 0 without it)

    def held(self, slices: bool, with_leader: bool) -> int:
        if slices:
            return self.slices_wl if with_leader else self.slices
        return self.count_wl if with_leader else self.count


def fill_counts(
    d: Domain, level: int, size: int, slice_level: int, size_at: Mapping[int, int], leader: bool = False
) -> None:
    """``fillInCountsHelper``: leaves carry their pods already; parents sum their children's
    (rounded down to an inner layer's size at the children's level), slices are counted at the
    slice level and summed above it; ``leader``: a leader is required."""
    if not d.children:
        if level == slice_level:
            d.slices, d.slices_wl = d.count // size, d.count_wl // size
        return
    inner = size_at.get(level + 1)
    pods = slices = leaders = affinity = 0
    min_pods: int | None = None
    min_slices = 0
    for child in d.children:
        fill_counts(child, level + 1, size, slice_level, size_at, leader)
        pc = (child.count // inner) * inner if inner else child.count
        pc_wl = (child.count_wl // inner) * inner if inner else child.count_wl
        pods += pc
        slices += child.slices
        if not leader or child.leader > 0:
            loss, slice_loss = pc - pc_wl, child.slices - child.slices_wl
            min_slices = slice_loss if min_pods is None else min(min_slices, slice_loss)
            min_pods = loss if min_pods is None else min(min_pods, loss)
        leaders = max(leaders, child.leader)
        affinity += child.affinity
    d.count, d.leader, d.affinity = pods, leaders, affinity
    d.count_wl = pods - min_pods if min_pods is not None else 0
    slices_wl = slices - min_slices if min_pods is not None else 0
    if level == slice_level:
        slices, slices_wl = pods // size, d.count_wl // size
    d.slices, d.slices_wl = slices, slices_wl


def sorted_domains(domains: Sequence[Domain], least_free: bool) -> list[Domain]:
    """``sortedDomains``: preferred affinity score descending, then slices descending (BestFit) or
    ascending (LeastFreeCapacity), then pods ascending, then values."""
    sign = 1 if least_free else -1
    return sorted(domains, key=lambda d: (-d.affinity, sign * d.slices, d.count, d.values))


def sorted_with_leader(domains: Sequence[Domain], least_free: bool) -> list[Domain]:
    """``sortedDomainsWithLeader``: domains holding the leader first, then as
    :func:`sorted_domains` by what they hold beside the leader."""
    sign = 1 if least_free else -1
    return sorted(domains, key=lambda d: (-d.leader, -d.affinity, sign * d.slices_wl, d.count_wl, d.values))


def best_fit(domains: Sequence[Domain], needed: int, slices: bool, leaders: int = 0) -> Domain:
    """``findBestFitDomain`` / ``findBestFitDomainForSlices``: the first domain holding the fewest
    pods (slices) that still holds ``needed`` (beside the leader, and holding it, when ``leaders``);
    the first domain when none does. Only the domains sharing the first one's affinity score are
    looked at (``topAffinityTierDomains``: the score outranks the fit)."""
    best: Domain | None = None
    for d in domains:
        if d.affinity != domains[0].affinity:
            break  # past the top tier
        if d.leader < leaders:
            continue
        have = d.held(slices, leaders > 0)
        if have >= needed and (best is None or have < best.held(slices, leaders > 0)):
            best = d
    return best if best is not None else domains[0]


def prioritize_leader(
    domains: Sequence[Domain], count: int, leaders: int, size: int, slices: bool
) -> list[Domain]:
    """``prioritizeLeaderDomain``: move first the first domain that holds the leader without
    costing the domains the capacity they need."""
    if leaders == 0 or len(domains) < 2:
        return list(domains)
    required = count // size if slices else count
    available = sum(d.held(slices, False) for d in domains)
    for i, d in enumerate(domains):
        if d.leader < leaders or available - (d.held(slices, False) - d.held(slices, True)) < required:
            continue
        return list(domains) if i == 0 else [d, *domains[:i], *domains[i + 1 :]]
    return list(domains)


def minimum(
    domains: Sequence[Domain], count: int, size: int, least_free: bool, slices: bool, leaders: int = 0
) -> list[Domain]:
    """``updateCountsToMinimumGeneric``: the fewest domains, in order, holding ``count`` pods (in
    whole slices of ``size`` when ``slices``) and the ``leaders``; the last one best-fitted under
    BestFit and given only what remains."""
    domains = prioritize_leader(domains, count, leaders, size, slices)
    out: list[Domain] = []
    remaining = count // size if slices else count
    for i, d in enumerate(domains):
        if leaders > 0:
            d, done, remaining, leaders = _consume_with_leader(
                d, domains[i:], remaining, leaders, least_free, size, slices
            )
            out.append(d)
            if done:
                return out
            continue
        have = d.held(slices, False)
        if not least_free and have >= remaining:
            d = best_fit(domains[i:], remaining, slices)
            have = d.held(slices, False)
        d.leader = 0
        if have >= remaining:
            d.count = remaining * size if slices else remaining
            if slices:
                d.slices = remaining
            out.append(d)
            return out
        if slices:
            d.count = d.slices * size
        remaining -= have
        out.append(d)
    return out


def _consume_with_leader(
    d: Domain, rest: Sequence[Domain], remaining: int, leaders: int, least_free: bool, size: int, slices: bool
) -> tuple[Domain, bool, int, int]:
    """``consumeWithLeadersGeneric``: the domain (best-fitted when it could finish) takes the
    leader it holds and what it holds beside it; whether that completes the pod set."""
    if not least_free and d.held(slices, True) >= remaining and d.leader >= leaders:
        d = best_fit(rest, remaining, slices, leaders)
    unit = size if slices else 1
    if d.held(slices, True) >= remaining and d.leader >= leaders:
        if slices:
            d.slices = remaining
        d.leader, d.count = leaders, remaining * unit
        return d, True, remaining, leaders
    with_leader = min(d.held(slices, True), remaining)
    if slices:
        d.slices_wl = d.slices = with_leader
    else:
        d.count_wl = with_leader
    d.leader = min(d.leader, leaders)
    d.count = with_leader * unit
    return d, False, remaining - with_leader, leaders - d.leader
