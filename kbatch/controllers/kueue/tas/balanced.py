"""Balanced placement (``TASBalancedPlacement``, alpha, off by default in Kueue v0.19.2).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/cache/scheduler/tas_balanced_placement.go``
(``findBestDomainsForBalancedPlacement``, ``applyBalancedPlacementAlgorithm``,
``evaluateGreedyAssignment``, ``balanceThresholdValue``, ``selectOptimalDomainSetToFit``,
``placeSlicesOnDomainsBalanced``, ``pruneDomainsBelowThreshold``, the entropy ordering), used by
``findTopologyAssignment`` for a preferred request (not required, not unconstrained).

For each group of sibling domains at the requested level (all of them at the top level, else the
children of each domain one level up), the greedy fill says how many domains at the slice level
(or the requested one) the slices need; the *threshold* is the slices each of them must hold for an
even spread. Domains holding fewer are pruned and the group is kept if it still fits; the group with
the highest threshold (then the fewest domains) wins. Then the fewest domains that hold the slices
are chosen (a subset search over pod counts, by capacity and then by how evenly each domain's
children hold pods, when the request is above the slice level) and each gets the threshold plus
what it can take of the remainder. Any failure falls back to the default search.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from kbatch.controllers.kueue.tas.search import Domain, fill_counts, sorted_domains, sorted_with_leader

__all__ = ["balanced_fit"]


def _clone(d: Domain) -> Domain:
    return replace(d, children=[_clone(c) for c in d.children])


def _clear(d: Domain, leader_only: bool) -> None:
    """``clearState`` / ``clearLeaderCapacity``, down the subtree."""
    if not leader_only:
        d.count = d.slices = 0
    d.leader = d.count_wl = d.slices_wl = 0
    for c in d.children:
        _clear(c, leader_only)


def _greedy(
    domains: Sequence[Domain], slices: int, leaders: int
) -> tuple[bool, int, Domain | None, Domain | None]:
    """``evaluateGreedyAssignment``: whether the domains hold the slices (and leaders) taken
    greedily, how many domains that takes, the last taken with the leader and without."""
    taken, last_wl, last = 0, None, None
    rest: Sequence[Domain] = domains
    if leaders > 0:
        ordered = sorted_with_leader(domains, False)
        i = 0
        while leaders > 0 and i < len(ordered) and ordered[i].leader > 0:
            taken, last_wl = taken + 1, ordered[i]
            leaders -= ordered[i].leader
            slices -= ordered[i].slices_wl
            i += 1
        rest = ordered[i:]
    if leaders > 0:
        return False, 0, None, None
    for d in sorted_domains(rest, False):
        if slices <= 0 or d.slices <= 0:
            break
        taken, last = taken + 1, d
        slices -= d.slices
    if slices > 0:
        return False, 0, None, None
    return True, taken, last_wl, last


def _threshold(slices: int, taken: int, last_wl: Domain | None, last: Domain | None) -> int:
    """``balanceThresholdValue``."""
    threshold = slices // taken
    if last_wl is not None:
        threshold = min(threshold, last_wl.slices_wl)
    if last is not None:
        threshold = min(threshold, last.slices)
    return threshold


def _prune_node(d: Domain, threshold: int, leader: bool) -> None:
    if d.slices < threshold:
        _clear(d, False)
    elif leader and d.leader > 0 and d.slices_wl < threshold:
        _clear(d, True)


def _prune(
    domains: Sequence[Domain], threshold: int, size: int, slice_level: int, level: int, leader: bool
) -> None:
    """``pruneDomainsBelowThreshold``: children holding fewer slices than the threshold emptied,
    the domains recounted (without inner layers, as upstream) and pruned themselves."""
    for d in domains:
        for c in d.children:
            _prune_node(c, threshold, leader)
    for d in domains:
        fill_counts(d, level, size, slice_level, {}, leader)
        _prune_node(d, threshold, leader)


def _entropy(domains: Sequence[Domain]) -> float:
    """``calculateDomainsEntropy``: the Shannon entropy of the pods the domains hold."""
    total = sum(d.count for d in domains)
    if total == 0:
        return 0.0
    return -sum(d.count / total * math.log2(d.count / total) for d in domains if d.count > 0)


def _optimal_set(
    domains: Sequence[Domain], slices: int, leaders: int, size: int, by_entropy: bool
) -> list[Domain] | None:
    """``selectOptimalDomainSetToFit``: among sets of as many domains as the greedy fill takes,
    the first (in the given order) holding the leaders whose pods overshoot the least."""
    fits, n, _, _ = _greedy(domains, slices, leaders)
    if not fits:
        return None
    if by_entropy:  # ``compareDomainCapacityAndEntropy``
        ordered = sorted(domains, key=lambda d: (-d.leader, -d.slices_wl, -_entropy(d.children), d.values))
    else:
        ordered = sorted(domains, key=lambda d: d.values)
    placements: list[dict[int, dict[int, list[Domain]]]] = [{} for _ in range(n + 1)]
    placements[0][leaders] = {slices * size: []}
    for d in ordered:
        for i in range(n, 0, -1):
            for before_leader in sorted(placements[i - 1]):
                for before_pods in sorted(placements[i - 1][before_leader]):
                    if before_leader <= 0 and before_pods <= 0:
                        continue
                    placed = [*placements[i - 1][before_leader][before_pods], d]
                    if before_leader > 0 and d.leader > 0:
                        at = placements[i].setdefault(before_leader - d.leader, {})
                        at.setdefault(before_pods - d.count_wl, placed)
                    if d.slices > 0:
                        placements[i].setdefault(before_leader, {}).setdefault(before_pods - d.count, placed)
    done = placements[n].get(0, {})
    left = [k for k in done if k <= 0]
    return done[max(left)] if left else None


def _place(
    domains: Sequence[Domain], slices: int, leaders: int, size: int, threshold: int
) -> list[Domain] | None:
    """``placeSlicesOnDomainsBalanced``: the threshold on each chosen domain, the rest as they
    can take it, the leader on the first."""
    chosen = _optimal_set(domains, slices, leaders, size, False)
    if chosen is None or slices < len(chosen) * threshold:
        return None
    chosen = sorted_with_leader(chosen, False)
    extra = slices - len(chosen) * threshold
    for d in chosen:
        take = 0
        if leaders > 0:
            take, d.leader = min(d.slices_wl - threshold, extra), 1
            leaders -= 1
        else:
            take = min(d.slices - threshold, extra) if extra > 0 else 0
            d.leader = 0
        d.slices = d.slices_wl = threshold + take
        d.count = d.slices * size
        d.count_wl = d.count - d.leader
        extra -= take
    return None if extra > 0 or leaders > 0 else chosen


def _best_domains(
    per_level: Sequence[Sequence[Domain]], count: int, size: int, level: int, slice_level: int, leaders: int
) -> tuple[list[Domain], int]:
    """``findBestDomainsForBalancedPlacement``: the pruned sibling group with the highest
    threshold (then the fewest domains at the requested level), and that threshold."""
    slices = count // size
    if level == 0:
        groups = [sorted(per_level[0], key=lambda d: d.values)]
    else:
        groups = [h.children for h in sorted(per_level[level - 1], key=lambda d: d.values)]
    best, best_count, fit = 0, 0, []
    for group in groups:
        candidates = [_clone(d) for d in group]
        lower = [c for d in candidates for c in d.children] if level < slice_level else candidates
        fits, taken, last_wl, last = _greedy(lower, slices, leaders)
        if not fits:
            continue
        threshold = _threshold(slices, taken, last_wl, last)
        reserved = min(threshold, last.slices_wl) if leaders > 0 and last is not None else threshold
        if threshold < best:
            continue
        _prune(candidates, threshold, size, slice_level, level, leaders > 0)
        fits, n, _, _ = _greedy(candidates, slices, leaders)
        if not fits and reserved < threshold:
            if reserved <= 0 or reserved < best:
                continue
            threshold, candidates = reserved, [_clone(d) for d in group]
            _prune(candidates, threshold, size, slice_level, level, leaders > 0)
            fits, n, _, _ = _greedy(candidates, slices, leaders)
        if fits and (threshold > best or (threshold == best and n < best_count)):
            best, best_count, fit = threshold, n, candidates
    return fit, best


def balanced_fit(
    per_level: Sequence[Sequence[Domain]], count: int, size: int, level: int, slice_level: int, leaders: int
) -> tuple[int, list[Domain]] | None:
    """``findBestDomainsForBalancedPlacement`` and ``applyBalancedPlacementAlgorithm``: the level
    and domains the slices were spread on, or ``None`` to fall back to the default search."""
    domains, threshold = _best_domains(per_level, count, size, level, slice_level, leaders)
    if threshold <= 0:
        return None
    slices = count // size
    fit_level = level
    if level < slice_level:
        chosen = _optimal_set(domains, slices, leaders, size, True)
        if chosen is None:
            return None
        domains, fit_level = [c for d in chosen for c in d.children], level + 1
    placed = _place(domains, slices, leaders, size, threshold)
    return None if placed is None else (fit_level, placed)
