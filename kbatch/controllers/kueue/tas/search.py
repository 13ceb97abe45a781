"""The phases of Kueue's topology assignment search over one pod set's domain tree (pure).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/cache/scheduler/tas_flavor_snapshot.go``:
``fillInCountsHelper`` (pods and slices per domain), ``buildSliceSizeAtLevel`` (the inner slice
layers of ``TASMultiLayerTopology``), ``sortedDomains``, ``findBestFitDomain``,
``findBestFitDomainForSlices``, ``findLevelWithFitDomains`` (phase 2a) and
``updateCountsToMinimumGeneric`` (phase 2b), without leaders (podset groups are not modelled).

A domain holds ``count`` pods and ``slices`` whole slices. Slices are counted at the slice level
(``count // size``) and summed above it; below it a domain holds no slice. With inner slice layers,
a parent sums its children's pods rounded down to the inner layer's size at their level.

Phase 2a looks for the domains at the requested level that hold ``count // size`` slices
(BestFit: most slices first, then fewest pods, then values; LeastFreeCapacity: fewest slices
first). Phase 2b walks down: above the slice level the children of *all* chosen domains compete
for the pod set's slices; at and below it each chosen domain's children take that domain's pods,
in whole inner-layer slices where a layer applies (single pods otherwise).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

__all__ = [
    "Domain",
    "best_fit",
    "fill_counts",
    "minimum",
    "sorted_domains",
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


def fill_counts(d: Domain, level: int, size: int, slice_level: int, size_at: Mapping[int, int]) -> None:
    """``fillInCountsHelper``: leaves carry their pods already; parents sum their children's
    (rounded down to an inner layer's size at the children's level), slices are counted at the
    slice level and summed above it."""
    if not d.children:
        if level == slice_level:
            d.slices = d.count // size
        return
    inner = size_at.get(level + 1)
    pods = slices = 0
    for child in d.children:
        fill_counts(child, level + 1, size, slice_level, size_at)
        pods += (child.count // inner) * inner if inner else child.count
        slices += child.slices
    d.count = pods
    d.slices = pods // size if level == slice_level else slices


def sorted_domains(domains: Sequence[Domain], least_free: bool) -> list[Domain]:
    """``sortedDomains``: slices descending (BestFit) or ascending (LeastFreeCapacity), then pods
    ascending, then values."""
    sign = 1 if least_free else -1
    return sorted(domains, key=lambda d: (sign * d.slices, d.count, d.values))


def best_fit(domains: Sequence[Domain], needed: int, slices: bool) -> Domain:
    """``findBestFitDomain`` / ``findBestFitDomainForSlices``: the first domain holding the fewest
    pods (slices) that still holds ``needed``; the first domain when none does."""
    best: Domain | None = None
    for d in domains:
        have = d.slices if slices else d.count
        if have >= needed and (best is None or have < (best.slices if slices else best.count)):
            best = d
    return best if best is not None else domains[0]


def minimum(domains: Sequence[Domain], count: int, size: int, least_free: bool, slices: bool) -> list[Domain]:
    """``updateCountsToMinimumGeneric`` without leaders: the fewest domains, in order, holding
    ``count`` pods (in whole slices of ``size`` when ``slices``); the last one best-fitted under
    BestFit and given only what remains."""
    out: list[Domain] = []
    remaining = count // size if slices else count
    for i, d in enumerate(domains):
        have = d.slices if slices else d.count
        if not least_free and have >= remaining:
            d = best_fit(domains[i:], remaining, slices)
            have = d.slices if slices else d.count
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
