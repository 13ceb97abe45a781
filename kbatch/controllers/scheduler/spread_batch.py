"""Placing pods whose only extra scoring is system-default topology spreading without scoring every
node, with exactly the decisions of upstream's algorithm (``schedulePod`` in
``pkg/scheduler/schedule_one.go``).

Upstream filters nodes round-robin from where the last attempt stopped until
``numFeasibleNodesToFind`` are feasible (the *window*), scores those, and picks the highest total,
breaking ties uniformly at random (``selectHost``). For a pod a Service selects (JobSet's headless
Service) the varying scores are NodeResourcesFit's, which depends on the node alone, and
PodTopologySpread's system defaults, which depend on the node's count of matching pods, its
topology values, the per-domain counts and, through the normalization and the ``log`` weights, on
which groups of nodes the window holds. So nodes with equal (fit score, matching-pod count, topology
values) — a *class* — score alike in every window, and there are few classes (pods of one workload
fill nodes alike).

:class:`SpreadBatch` keeps, for one pod signature, namespace and set of constraints, the positions
(in the snapshot's name order) of the feasible nodes, in total and per class, in sorted lists.
An attempt then finds the window by bisection, counts each class's nodes in it, scores each class
once, and picks the ``r``-th tied node in the window's order with ``r`` drawn exactly as
``Algorithm._select_host`` draws it: the same node for the same random state as scoring every node
of the window (``tests/controllers/scheduler/test_spread_batch.py`` checks that against the
ordinary path). The batch stays in step while only its own pods are assumed (the one node that
changed is re-filtered and re-classed at the next attempt); any other change to the snapshot
rebuilds it.
"""

from __future__ import annotations

import random
from bisect import bisect_left, insort
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

__all__ = ["Classify", "SpreadBatch"]

Classify = Callable[[str], "Hashable | None"]  # node name -> its class (None: not feasible)
Ranges = list[tuple[int, int]]  # [lo, hi) position ranges, in the window's order


@dataclass(slots=True)
class SpreadBatch:
    """The feasible nodes of one batch key, by position and by class."""

    key: Hashable
    generation: int
    names: list[str]  # the snapshot's nodes in name order at build time
    position: dict[str, int]
    feasible: list[int] = field(default_factory=list)  # sorted positions (plain lists: a node's move
    classes: dict[Hashable, list[int]] = field(default_factory=dict)  # is one memmove, cheaper than trees)
    class_of: dict[str, Hashable] = field(default_factory=dict)
    dirty: set[str] = field(default_factory=set)  # nodes to re-class at the next attempt
    outstanding: tuple[str, str] | None = None  # (pod key, node) decided but not assumed yet
    scoring: Any = None  # PodTopologySpread's DefaultSpread for the batch's pods

    @classmethod
    def build(cls, key: Hashable, generation: int, names: list[str], classify: Classify,
              scoring: Any) -> SpreadBatch:
        batch = cls(key, generation, names, {name: i for i, name in enumerate(names)}, scoring=scoring)
        for name in names:
            batch.put(name, classify(name))
        return batch

    def put(self, name: str, found: Hashable | None) -> None:
        """(Re)place node ``name`` in class ``found`` (None: no longer feasible)."""
        position = self.position[name]
        old = self.class_of.pop(name, None)
        if old is not None:
            members = self.classes[old]
            del members[bisect_left(members, position)]
            if not members:
                del self.classes[old]
            del self.feasible[bisect_left(self.feasible, position)]
        if found is not None:
            self.class_of[name] = found
            kept = self.classes.get(found)
            if kept is None:
                self.classes[found] = [position]
            else:
                insort(kept, position)
            insort(self.feasible, position)

    def refresh(self, classify: Classify) -> None:
        for name in sorted(self.dirty):
            self.put(name, classify(name))
        self.dirty.clear()

    # -- the window -------------------------------------------------------------------------------
    def window(self, start: int, to_find: int) -> tuple[Ranges, int] | None:
        """The positions upstream's search visits from ``start`` until ``to_find`` nodes are feasible
        (all of them when fewer are), and how many it visits; None when no node is feasible."""
        feasible, count = self.feasible, len(self.names)
        total = len(feasible)
        if total == 0:
            return None
        if total < to_find:
            return [(start, count), (0, start)], count
        index = bisect_left(feasible, start) + to_find - 1
        if index < total:
            last = feasible[index]
            return [(start, last + 1)], last - start + 1
        last = feasible[index - total]
        return [(start, count), (0, last + 1)], count - start + last + 1

    def present(self, ranges: Ranges, whole: bool) -> dict[Hashable, int]:
        """Each class's number of nodes in the window (classes with none left out)."""
        if whole:
            return {c: len(members) for c, members in self.classes.items()}
        found: dict[Hashable, int] = {}
        for c, members in self.classes.items():
            inside = sum(bisect_left(members, hi) - bisect_left(members, lo) for lo, hi in ranges)
            if inside:
                found[c] = inside
        return found

    def pick(self, totals: dict[Hashable, int], present: dict[Hashable, int], ranges: Ranges,
             rng: random.Random) -> str:
        """The highest-scoring node; among ties the ``rng.randrange(ties)``-th in window order (as
        ``Algorithm._select_host``: no draw for a single best node)."""
        best = max(totals.values())
        tied = [c for c, value in totals.items() if value == best]
        ties = sum(present[c] for c in tied)
        rank = 0 if ties == 1 else rng.randrange(ties)
        lists = [self.classes[c] for c in tied]
        for lo, hi in ranges:
            if len(lists) == 1:
                members = lists[0]
                first = bisect_left(members, lo)
                inside = bisect_left(members, hi) - first
                if rank < inside:
                    return self.names[members[first + rank]]
            else:
                merged = sorted(chain.from_iterable(m[bisect_left(m, lo):bisect_left(m, hi)] for m in lists))
                inside = len(merged)
                if rank < inside:
                    return self.names[merged[rank]]
            rank -= inside
        raise AssertionError("the tied nodes lie in the window")
