"""Partial admission's search: the largest pod counts between the full and the minimum counts that fit.

Upstream: kubernetes-sigs/kueue ``pkg/scheduler/flavorassigner/podset_reducer.go`` (v0.19.2). Every
pod set that can shrink (``minCount`` below ``count``) shrinks in proportion: at step ``i`` of
``total`` (the sum of the possible reductions) pod set ``k`` runs ``count_k - delta_k * i // total``
pods. A binary search (Go's ``sort.Search``) finds the smallest step that fits; the result is that
step's, or nothing when even the minimum does not fit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["search"]

R = TypeVar("R")


def search(
    counts: Sequence[int],
    min_counts: Sequence[int | None],
    fits: Callable[[list[int]], tuple[R | None, bool]],
) -> tuple[R | None, bool]:
    deltas = [c - (m if m is not None else c) for c, m in zip(counts, min_counts, strict=True)]
    total = sum(deltas)
    if total == 0:
        return None, False
    last_good, last_result = -1, None
    lo, hi = 0, total + 1  # sort.Search over [0, total]
    while lo < hi:
        mid = (lo + hi) // 2
        current = [c - d * mid // total for c, d in zip(counts, deltas, strict=True)]
        result, ok = fits(current)
        if ok:
            last_good, last_result = mid, result
            hi = mid
        else:
            lo = mid + 1
    return last_result, lo == last_good
