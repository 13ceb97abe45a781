"""Dominant resource share (DRS), the measure fair sharing orders and preempts by.

Upstream: kubernetes-sigs/kueue ``pkg/cache/scheduler/fair_sharing.go`` (v0.19.2). A node (ClusterQueue
or Cohort) with a parent borrows, per (flavor, resource), what its usage (plus an optional extra
request) exceeds its subtree quota; summed per resource and divided by what the root could lend to
the node's parent (``potentialAvailable`` of every flavor of the resource), it gives a ratio per
mille; the largest ratio (ties: the smaller resource name) is the DRS, divided by the node's fair
weight when compared. A zero weight makes any borrowing share infinite (and such shares compare by
their unweighted ratio).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from kbatch.controllers.kueue.model.quota import Node, potential_available, root_of
from kbatch.controllers.kueue.model.requests import FlavorResource

__all__ = ["DRS", "NEGATIVE_DRS", "compare_drs", "dominant_resource_share"]


@dataclass(frozen=True, slots=True)
class DRS:
    fair_weight: float = 1.0
    unweighted_ratio: float = 0.0
    dominant_resource: str = ""
    borrowing: bool = False
    borrowed: tuple[FlavorResource, ...] = ()

    def is_zero(self) -> bool:
        return self.unweighted_ratio == 0

    def precise_weighted_share(self) -> float:
        if self.is_zero():
            return 0.0
        if self.fair_weight == 0:
            return math.inf
        return self.unweighted_ratio / self.fair_weight

    def zero_weight_borrows(self) -> bool:
        return self.fair_weight == 0 and not self.is_zero()

    def rounded_weighted_share(self) -> int:
        """``roundedWeightedShare``: what the status reports (``weightedShare``)."""
        if self.zero_weight_borrows():
            return 2**63 - 1
        return math.ceil(self.precise_weighted_share())

    def is_borrowing_on(self, requested: Mapping[FlavorResource, int]) -> bool:
        return any(requested.get(fr, 0) > 0 for fr in self.borrowed)


NEGATIVE_DRS = DRS(unweighted_ratio=-1.0)


def compare_drs(a: DRS, b: DRS) -> int:
    def cmp(x: float, y: float) -> int:
        return (x > y) - (x < y)

    if a.zero_weight_borrows() and b.zero_weight_borrows():
        return cmp(a.unweighted_ratio, b.unweighted_ratio)
    if a.zero_weight_borrows():
        return 1
    if b.zero_weight_borrows():
        return -1
    return cmp(a.precise_weighted_share(), b.precise_weighted_share())


def _lendable(node: Node) -> dict[str, int]:
    """``calculateLendable``: per resource, what the root could give ``node`` (a parent cohort)."""
    out: dict[str, int] = {}
    for fr in sorted(root_of(node).subtree_quota):
        out[fr[1]] = out.get(fr[1], 0) + potential_available(node, fr)
    return out


def dominant_resource_share(node: Node, request: Mapping[FlavorResource, int] | None = None) -> DRS:
    if node.parent is None:
        return DRS(node.fair_weight)
    borrowing: dict[str, int] = {}
    borrowed: list[FlavorResource] = []
    for fr in sorted(node.subtree_quota):
        amount = (request or {}).get(fr, 0) + node.usage.get(fr, 0) - node.subtree_quota[fr]
        if amount > 0:
            borrowing[fr[1]] = borrowing.get(fr[1], 0) + amount
            borrowed.append(fr)
    if not borrowing:
        return DRS(node.fair_weight)
    lendable = _lendable(node.parent)
    ratio, dominant = 0.0, ""
    for resource in sorted(borrowing):
        lr = lendable.get(resource, 0)
        if lr > 0:
            r = borrowing[resource] * 1000.0 / lr
            if r > ratio:
                ratio, dominant = r, resource
    return DRS(node.fair_weight, ratio, dominant, True, tuple(borrowed))
