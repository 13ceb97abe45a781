"""One TAS flavor's topology at the start of a cycle, and the search for a pod set's domains.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/cache/scheduler/tas_flavor_snapshot.go``
(``findTopologyAssignment``, ``fillInCounts``, ``findLevelWithFitDomains``,
``updateCountsToMinimumGeneric``, ``sortedDomains``, ``findBestFitDomain``, ``buildAssignment``,
``notFitMessage``), ``tas_topology_tree.go`` and ``scheduling_simulator_default.go`` (the node
feasibility checks), with KEP 2724's algorithm matrix.

The tree has one level per Topology level; a domain is identified by its values from the top level
down. When the lowest level is ``kubernetes.io/hostname`` each leaf is one node and a pod set's node
selector, required node affinity and tolerations (with the flavor's) filter the leaves first;
otherwise a leaf pools the free capacity of its nodes and no node filter applies, as upstream.

A leaf holds ``count`` pods: the fewest whole pods any requested resource (``pods`` included, one a
pod) leaves room for in its free capacity minus the TAS usage (not when simulating an empty
cluster) minus what earlier pod sets of the workload assumed. A parent holds the sum of its
children. The search, for ``count`` pods:

* finds the domains at the requested level (``required``/``preferred``; the lowest level for
  ``unconstrained`` and implied requests): with **BestFit** (not unconstrained) the fullest domains
  first, and the fitting domain with the fewest pods; with **LeastFreeCapacity** (unconstrained, as
  ``TASProfileMixed`` — beta, on — selects) the emptiest domain that fits;
* when none fits: ``required`` fails; ``preferred`` retries one level up; at the top (or for
  unconstrained requests) it takes several domains, greedily, the last one best-fitted;
* descends level by level, at each level choosing among the children of the chosen domains the
  fewest that hold their parents' pods (the last one best-fitted), down to the lowest level;
* returns the leaves (only the hostname values when the lowest level is the hostname) sorted by
  their values.

Not modelled (docs/kueue.md): podset slices and multi-layer constraints, podset groups (leaders),
balanced placement (``TASBalancedPlacement``, alpha, off), preferred node affinity
(``TASRespectNodeAffinityPreferred``, alpha, off), node replacement.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from kbatch.controllers.scheduler.types import NodeSelectorTerm

__all__ = [
    "HOSTNAME",
    "Domain",
    "PodSetTASRequest",
    "TASFlavorSnapshot",
    "TASNode",
    "TopologyResult",
]

HOSTNAME = "kubernetes.io/hostname"
DomainValues = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TASNode:
    """A node of the flavor (labels matching its ``nodeLabels`` and carrying every level) with
    its allocatable less the non-TAS pods' requests (one ``pods`` a pod)."""

    name: str
    labels: Mapping[str, str]
    free: Mapping[str, int]
    taints: tuple[tuple[str, str, str], ...] = ()  # (key, value, effect)


@dataclass(frozen=True, slots=True)
class PodSetTASRequest:
    """``TASPodSetRequests``: one pod set's topology request with what filters its nodes."""

    name: str
    count: int
    single_pod: Mapping[str, int]  # one pod's requests (from the PodSpec), without ``pods``
    required: str | None = None
    preferred: str | None = None
    unconstrained: bool = False
    implied: bool = False
    node_selector: Mapping[str, str] = field(default_factory=dict)
    affinity: tuple[NodeSelectorTerm, ...] | None = None  # required node affinity terms
    tolerations: tuple[tuple[str, str, str, str], ...] = ()  # (key, operator, value, effect)


@dataclass(slots=True)
class Domain:
    values: DomainValues
    children: list[Domain] = field(default_factory=list)
    count: int = 0


@dataclass(frozen=True, slots=True)
class TopologyResult:
    """A pod set's domains (``levels`` and, per domain, its values and pod count), or why not."""

    levels: tuple[str, ...] = ()
    domains: tuple[tuple[DomainValues, int], ...] = ()
    failure: str = ""


@dataclass
class _Stats:
    total: int = 0
    node_selector: int = 0
    affinity: int = 0
    taints: dict[str, int] = field(default_factory=dict)
    resources: dict[str, int] = field(default_factory=dict)

    def text(self) -> str:
        """``tasExclusionStats.formatReasons``: every excluded count, sorted."""
        parts = [f"nodeSelector: {self.node_selector}"] if self.node_selector else []
        parts += [f"affinity: {self.affinity}"] if self.affinity else []
        parts += [f'taint "{k}": {v}' for k, v in self.taints.items()]
        parts += [f'resource "{k}": {v}' for k, v in self.resources.items()]
        return ", ".join(sorted(parts))


def _tolerated(taint: tuple[str, str, str], tolerations: Sequence[tuple[str, str, str, str]]) -> bool:
    key, value, effect = taint
    for t_key, op, t_value, t_effect in tolerations:
        if t_effect and t_effect != effect:
            continue
        if t_key and t_key != key:
            continue
        if not t_key and op != "Exists":
            continue
        if op == "Exists" or t_value == value:
            return True
    return False


def _taint_text(taint: tuple[str, str, str]) -> str:
    """``v1.Taint.ToString``: ``key=value:effect``, ``key:effect`` without a value."""
    key, value, effect = taint
    return f"{key}={value}:{effect}" if value else f"{key}:{effect}"


def count_in(capacity: Mapping[str, int], one: Mapping[str, int]) -> tuple[int, str]:
    """``Requests.CountInWithLimitingResource``: whole pods that fit, and the resource that limits."""
    best, limiting = -1, ""
    for res in sorted(one):
        need = one[res]
        if need <= 0:
            continue
        fits = max(capacity.get(res, 0), 0) // need
        if best < 0 or fits < best:
            best, limiting = fits, res
    return (0, limiting) if best < 0 else (best, limiting)


class TASFlavorSnapshot:
    """``TASFlavorSnapshot``: the flavor's topology tree, its leaves' free capacity and TAS usage."""

    def __init__(
        self,
        topology: str,
        levels: Sequence[str],
        nodes: Sequence[TASNode],
        flavor_tolerations: Sequence[tuple[str, str, str, str]] = (),
    ) -> None:
        self.topology = topology
        self.levels = tuple(levels)
        self.hostname_leaves = bool(levels) and levels[-1] == HOSTNAME
        self.flavor_tolerations = tuple(flavor_tolerations)
        self.leaf_free: dict[DomainValues, dict[str, int]] = {}
        self.leaf_nodes: dict[DomainValues, TASNode] = {}
        self.usage: dict[DomainValues, dict[str, int]] = {}  # TAS usage per leaf
        self._by_hostname: dict[str, DomainValues] = {}
        for node in sorted(nodes, key=lambda n: n.name):
            values = tuple(node.labels[k] for k in self.levels)
            free = self.leaf_free.setdefault(values, {})
            for res, q in node.free.items():
                free[res] = free.get(res, 0) + q
            self.leaf_nodes[values] = node
            if values:
                self._by_hostname.setdefault(values[-1], values)

    # --- usage ------------------------------------------------------------------------------------
    def add_usage(
        self, domains: Sequence[tuple[DomainValues, int]], single_pod: Mapping[str, int], sign: int = 1
    ) -> None:
        """``addTASUsage``: ``count`` pods of ``single_pod`` (and ``count`` pods) on each leaf."""
        for values, count in domains:
            leaf = self._leaf_of(values)
            if leaf is None:
                continue
            have = self.usage.setdefault(leaf, {})
            for res, q in {**single_pod, "pods": 1}.items():
                have[res] = have.get(res, 0) + sign * q * count

    def _leaf_of(self, values: DomainValues) -> DomainValues | None:
        """The leaf an assignment's domain names: its full values, or (hostname topologies) the
        hostname alone."""
        if len(values) == len(self.levels) and values in self.leaf_free:
            return values
        if len(values) == 1 and self.hostname_leaves:
            return self._by_hostname.get(values[0])
        return None

    def leaves_of(self, result: TopologyResult) -> list[tuple[DomainValues, int]]:
        return [
            (leaf, count) for values, count in result.domains if (leaf := self._leaf_of(values)) is not None
        ]

    def fits(self, domains: Sequence[tuple[DomainValues, int]], single_pod: Mapping[str, int]) -> bool:
        """Whether the domains still hold their pods (``TASFlavorSnapshot.Fits``)."""
        for values, count in domains:
            leaf = self._leaf_of(values)
            if (
                leaf is None
                or count_in(self._remaining(leaf, {}, False), {**single_pod, "pods": 1})[0] < count
            ):
                return False
        return True

    def _remaining(
        self, leaf: DomainValues, assumed: Mapping[DomainValues, Mapping[str, int]], empty: bool
    ) -> dict[str, int]:
        out = dict(self.leaf_free[leaf])
        for sub in (() if empty else (self.usage.get(leaf, {}),)) + (assumed.get(leaf, {}),):
            for res, q in sub.items():
                out[res] = out.get(res, 0) - q
        return out

    # --- the search -------------------------------------------------------------------------------
    def level_key(self, req: PodSetTASRequest) -> str | None:
        """``levelKeyWithImpliedFallback``."""
        if req.required is not None:
            return req.required
        if req.preferred is not None:
            return req.preferred
        if req.unconstrained or req.implied:
            return self.levels[-1] if self.levels else None
        return None

    def find(
        self,
        req: PodSetTASRequest,
        assumed: Mapping[DomainValues, Mapping[str, int]] | None = None,
        simulate_empty: bool = False,
    ) -> TopologyResult:
        """``findTopologyAssignment`` for one pod set (no leader, slices of one pod)."""
        key = self.level_key(req)
        if key is None:
            return TopologyResult(failure="topology level not specified")
        if key not in self.levels:
            return TopologyResult(failure=f"no requested topology level: {key}")
        unconstrained = req.unconstrained or req.implied
        stats = _Stats()
        roots = self._fill(req, assumed or {}, simulate_empty, stats)
        per_level = self._per_level(roots)
        level, chosen, failure = self._fit_level(self.levels.index(key), per_level, req, unconstrained, stats)
        if failure:
            return TopologyResult(failure=failure)
        chosen = _minimum(chosen, req.count, unconstrained)
        while level < len(self.levels) - 1:
            nxt: list[Domain] = []
            for d in chosen:
                nxt += _minimum(_sorted(d.children, unconstrained), d.count, unconstrained)
            chosen, level = nxt, level + 1
        return self._result(chosen)

    def _fill(
        self,
        req: PodSetTASRequest,
        assumed: Mapping[DomainValues, Mapping[str, int]],
        empty: bool,
        stats: _Stats,
    ) -> list[Domain]:
        """``fillInCounts``: each feasible leaf's pod count, summed up the tree."""
        one = {**req.single_pod, "pods": 1}
        by_prefix: dict[DomainValues, Domain] = {}
        roots: list[Domain] = []
        for leaf in sorted(self.leaf_free):
            stats.total += 1
            count = 0
            if self._feasible(leaf, req, stats):
                count, limiting = count_in(self._remaining(leaf, assumed, empty), one)
                if count == 0 and limiting:
                    stats.resources[limiting] = stats.resources.get(limiting, 0) + 1
            for depth in range(1, len(leaf) + 1):
                prefix = leaf[:depth]
                d = by_prefix.get(prefix)
                if d is None:
                    d = by_prefix[prefix] = Domain(prefix)
                    (by_prefix[prefix[:-1]].children if depth > 1 else roots).append(d)
                d.count += count
        return roots

    def _feasible(self, leaf: DomainValues, req: PodSetTASRequest, stats: _Stats) -> bool:
        """``defaultChecker.FindFeasibleNodes``: taints, node selector, required affinity (nodes
        only when the lowest level is the hostname)."""
        if not self.hostname_leaves:
            return True
        node = self.leaf_nodes[leaf]
        tolerations = req.tolerations + self.flavor_tolerations
        for taint in node.taints:
            if taint[2] in ("NoSchedule", "NoExecute") and not _tolerated(taint, tolerations):
                text = _taint_text(taint)
                stats.taints[text] = stats.taints.get(text, 0) + 1
                return False
        if any(node.labels.get(k) != v for k, v in req.node_selector.items()):
            stats.node_selector += 1
            return False
        if req.affinity is not None and not any(t.matches(node.labels, node.name) for t in req.affinity):
            stats.affinity += 1
            return False
        return True

    def _per_level(self, roots: list[Domain]) -> list[list[Domain]]:
        out: list[list[Domain]] = [[] for _ in self.levels]
        stack = list(roots)
        while stack:
            d = stack.pop()
            out[len(d.values) - 1].append(d)
            stack += d.children
        return out

    def _fit_level(
        self,
        level: int,
        per_level: list[list[Domain]],
        req: PodSetTASRequest,
        unconstrained: bool,
        stats: _Stats,
    ) -> tuple[int, list[Domain], str]:
        """``findLevelWithFitDomains``."""
        domains = per_level[level]
        if not domains:
            return 0, [], f"no topology domains at level: {self.levels[level]}"
        ordered = _sorted(domains, unconstrained)
        count = req.count
        if unconstrained:  # LeastFreeCapacity: the emptiest domain that fits
            for d in ordered:
                if d.count >= count:
                    return level, [d], ""
        top = ordered[0]
        if not unconstrained and top.count >= count:
            top = _best_fit(ordered, count)
        if top.count >= count:
            return level, [top], ""
        if req.required is not None:
            return 0, [], self._not_fit(top.count, count, stats)
        if level > 0 and not unconstrained:
            return self._fit_level(level - 1, per_level, req, unconstrained, stats)
        chosen: list[Domain] = []
        remaining = count
        for i, d in enumerate(ordered):
            if remaining <= 0:
                break
            if not unconstrained and d.count >= remaining:
                d = _best_fit(ordered[i:], remaining)
            chosen.append(d)
            remaining -= d.count
        if remaining > 0:
            return 0, [], self._not_fit(count - remaining, count, stats)
        return level, chosen, ""

    def _not_fit(self, fit: int, total: int, stats: _Stats) -> str:
        """``notFitMessage`` (one pod a slice)."""
        if fit == 0:
            text = f'topology "{self.topology}" doesn\'t allow to fit any of {total} pod(s)'
        else:
            text = f'topology "{self.topology}" allows to fit only {fit} out of {total} pod(s)'
        reasons = stats.text()
        return f"{text}. Total nodes: {stats.total}; excluded: {reasons}" if reasons else text

    def _result(self, leaves: list[Domain]) -> TopologyResult:
        """``buildAssignment``: leaves sorted by their values; only the hostname when it is the
        lowest level; domains given no pods left out."""
        start = len(self.levels) - 1 if self.hostname_leaves else 0
        ordered = sorted(leaves, key=lambda d: d.values)
        return TopologyResult(
            self.levels[start:], tuple((d.values[start:], d.count) for d in ordered if d.count > 0)
        )


def _sorted(domains: Sequence[Domain], unconstrained: bool) -> list[Domain]:
    """``sortedDomains``: BestFit most pods first, LeastFreeCapacity fewest first; then values."""
    sign = 1 if unconstrained else -1
    return sorted(domains, key=lambda d: (sign * d.count, d.values))


def _best_fit(domains: Sequence[Domain], needed: int) -> Domain:
    """``findBestFitDomain``: the first domain with the fewest pods that still holds ``needed``."""
    best: Domain | None = None
    for d in domains:
        if d.count >= needed and (best is None or d.count < best.count):
            best = d
    return best if best is not None else domains[0]


def _minimum(domains: Sequence[Domain], count: int, unconstrained: bool) -> list[Domain]:
    """``updateCountsToMinimumGeneric``: the fewest domains, in order, holding ``count`` pods; the
    last one best-fitted (BestFit) and given only what remains."""
    out: list[Domain] = []
    remaining = count
    for i, d in enumerate(domains):
        if not unconstrained and d.count >= remaining:
            d = _best_fit(domains[i:], remaining)
        if d.count >= remaining:
            d.count = remaining
            out.append(d)
            return out
        remaining -= d.count
        out.append(d)
    return out
