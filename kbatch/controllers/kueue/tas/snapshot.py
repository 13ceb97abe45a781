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
cluster) minus what earlier pod sets of the workload assumed. The search, for ``count`` pods in
slices of the outermost slice layer (one pod without slices; :mod:`.search` has the phases):

* checks the request: its level (``required``, ``preferred``, the top level for a slice-only
  request, the lowest for ``unconstrained`` and implied ones), the slice level (the lowest by
  default) not above it, the inner slice layers (``TASMultiLayerTopology``) each below the one
  before and dividing its size;
* counts pods and slices per domain;
* finds the domains at the requested level: with **BestFit** (required, preferred) the domains
  with the most slices first, and the fitting domain with the fewest; with **LeastFreeCapacity**
  (unconstrained, implied and slice-only requests, as ``TASProfileMixed`` — beta, on — selects)
  the emptiest domain that fits; when none fits ``required`` fails, ``preferred`` retries one level
  up and at the top (or unconstrained) several domains are taken greedily, the last best-fitted;
* descends level by level: above the slice level the children of all chosen domains compete for
  the slices; from it down each domain's children take its pods, in whole inner slices;
* returns the leaves (only the hostname values when the lowest level is the hostname) sorted by
  their values.

A podset group's leader is searched with its workers (:meth:`TASFlavorSnapshot.find_group`);
with ``TASBalancedPlacement`` (alpha, off) a preferred request is spread by :mod:`.balanced` first.

With ``TASRespectNodeAffinityPreferred`` (alpha, off; ``respect_preferred``) each feasible node
scores the summed weights of the pod set's preferred node affinity terms it matches
(``defaultChecker.FindFeasibleNodes`` step 4, ``PreferredSchedulingTerms.Score``), a domain the sum of
its nodes' (``fillInCountsHelper``), and the score outranks the placement policy in every order and
best fit (:mod:`.search`). A ``required`` level whose best-scored domain cannot hold the pod set takes
the first lower-scored one that can (``findLevelWithFitDomains``); a ``preferred`` one climbs a
level as ever. Scores need nodes: with a lowest level other than the hostname every score is 0, as
upstream (KEP 2724 "Support for Preferred Node Affinity").

A failed node's replacement (``replacement.py``) searches with :meth:`TASFlavorSnapshot.find`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from kbatch.controllers.kueue.tas.balanced import balanced_fit
from kbatch.controllers.kueue.tas.search import (
    Domain,
    best_fit,
    fill_counts,
    minimum,
    prioritize_leader,
    sorted_domains,
    sorted_with_leader,
)
from kbatch.controllers.scheduler.types import NodeSelectorTerm, WeightedTerm

__all__ = [
    "HOSTNAME",
    "Domain",
    "PodSetTASRequest",
    "TASFlavorSnapshot",
    "TASNode",
    "TopologyResult",
    "add_pods",
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
    preferred_affinity: tuple[WeightedTerm, ...] = ()  # preferred node affinity terms
    tolerations: tuple[tuple[str, str, str, str], ...] = ()  # (key, operator, value, effect)
    # ``PodSetSliceRequiredTopologyConstraints``: (level, size) from the outermost layer in
    slice_layers: tuple[tuple[str, int], ...] = ()


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


def add_pods(
    into: dict[DomainValues, dict[str, int]],
    domains: Iterable[tuple[DomainValues, int]],
    single_pod: Mapping[str, int],
    sign: int = 1,
) -> None:
    """``count`` pods of ``single_pod`` (and ``count`` pods) added to each domain of ``into``."""
    for values, count in domains:
        have = into.setdefault(values, {})
        for res, q in {**single_pod, "pods": 1}.items():
            have[res] = have.get(res, 0) + sign * q * count


class TASFlavorSnapshot:
    """``TASFlavorSnapshot``: the flavor's topology tree, its leaves' free capacity and TAS usage."""

    def __init__(
        self,
        topology: str,
        levels: Sequence[str],
        nodes: Sequence[TASNode],
        flavor_tolerations: Sequence[tuple[str, str, str, str]] = (),
        balanced: bool = False,
        respect_preferred: bool = False,
    ) -> None:
        self.topology = topology
        self.balanced = balanced  # TASBalancedPlacement (alpha, off)
        self.respect_preferred = respect_preferred  # TASRespectNodeAffinityPreferred (alpha, off)
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
        leaves = [(leaf, count) for values, count in domains if (leaf := self.leaf_of(values)) is not None]
        add_pods(self.usage, leaves, single_pod, sign)

    def add_summed_usage(self, usage: Mapping[DomainValues, Mapping[str, int]]) -> None:
        """``addTASUsageForHeldDomains``: usage summed per assignment domain (:func:`add_pods`), each
        added to the leaf it names; a domain the flavor does not hold adds nothing."""
        for values, amounts in usage.items():
            leaf = self.leaf_of(values)
            if leaf is None:
                continue
            have = self.usage.setdefault(leaf, {})
            for res, q in amounts.items():
                have[res] = have.get(res, 0) + q

    def leaf_of(self, values: DomainValues) -> DomainValues | None:
        """The leaf an assignment's domain names: its full values, or (hostname topologies) the
        hostname alone."""
        if len(values) == len(self.levels) and values in self.leaf_free:
            return values
        if len(values) == 1 and self.hostname_leaves:
            return self._by_hostname.get(values[0])
        return None

    def leaves_of(self, result: TopologyResult) -> list[tuple[DomainValues, int]]:
        return [
            (leaf, count) for values, count in result.domains if (leaf := self.leaf_of(values)) is not None
        ]

    def fits(self, domains: Sequence[tuple[DomainValues, int]], single_pod: Mapping[str, int]) -> bool:
        """Whether the domains still hold their pods (``TASFlavorSnapshot.Fits``)."""
        for values, count in domains:
            leaf = self.leaf_of(values)
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
        """``levelKeyWithImpliedFallback``: required, preferred, the top level for a slice-only
        request, the lowest for unconstrained and implied ones."""
        if req.required is not None:
            return req.required
        if req.preferred is not None:
            return req.preferred
        if req.slice_layers:
            return self.levels[0] if self.levels else None
        if req.unconstrained or req.implied:
            return self.levels[-1] if self.levels else None
        return None

    def has_levels(self, req: PodSetTASRequest) -> bool:
        """``HasLevel``: the request's level, its slice level and every slice layer's level are
        levels of the topology."""
        key = self.level_key(req)
        slice_key = req.slice_layers[0][0] if req.slice_layers else (self.levels[-1] if self.levels else "")
        return (
            key in self.levels
            and slice_key in self.levels
            and all(t in self.levels for t, _ in req.slice_layers)
        )

    def _parameters(self, req: PodSetTASRequest, leaders: int = 0) -> _Parameters | str:
        """``findTopologyAssignment``'s checks before the search, in upstream's order."""
        size = req.slice_layers[0][1] if req.slice_layers else 1
        if size <= 0:
            return "slice topology requested, but slice size not provided"
        key = self.level_key(req)
        if key is None:
            return "topology level not specified"
        if key not in self.levels:
            return f"no requested topology level: {key}"
        slice_key = req.slice_layers[0][0] if req.slice_layers else self.levels[-1]
        if slice_key not in self.levels:
            return f"no requested topology level for slices: {slice_key}"
        level, slice_level = self.levels.index(key), self.levels.index(slice_key)
        if level > slice_level:
            return f"podset slice topology {slice_key} is above the podset topology {key}"
        size_at = self._size_at_level(req, size, slice_level)
        if isinstance(size_at, str):
            return size_at
        unconstrained = (
            req.unconstrained
            or req.implied
            or (bool(req.slice_layers) and req.required is None and req.preferred is None)
        )
        return _Parameters(
            req.count, size, level, slice_level, size_at, req.required is not None, unconstrained, leaders
        )

    def _size_at_level(self, req: PodSetTASRequest, size: int, slice_level: int) -> dict[int, int] | str:
        """``buildSliceSizeAtLevel``: each level below the outermost slice layer down to an inner
        layer's level gets that layer's size."""
        out: dict[int, int] = {}
        prev_size, prev_level = size, slice_level
        for topology, inner in req.slice_layers[1:]:
            if topology not in self.levels:
                return f"no requested topology level for additional slice layer: {topology}"
            level = self.levels.index(topology)
            if level <= prev_level:
                return (
                    f"additional slice layer topology {topology} must be at a lower level than "
                    f"{self.levels[prev_level]}"
                )
            if inner <= 0 or prev_size % inner:
                return f"additional slice layer size {inner} must evenly divide parent layer size {prev_size}"
            for lvl in range(prev_level + 1, level + 1):
                out[lvl] = inner
            prev_size, prev_level = inner, level
        return out

    def find(
        self,
        req: PodSetTASRequest,
        assumed: Mapping[DomainValues, Mapping[str, int]] | None = None,
        simulate_empty: bool = False,
    ) -> TopologyResult:
        """``findTopologyAssignment`` for one pod set without a leader."""
        return self.find_group(req, None, assumed, simulate_empty)[0]

    def find_group(
        self,
        req: PodSetTASRequest,
        leader: PodSetTASRequest | None,
        assumed: Mapping[DomainValues, Mapping[str, int]] | None = None,
        simulate_empty: bool = False,
    ) -> tuple[TopologyResult, TopologyResult | None]:
        """``findTopologyAssignment`` for a pod set and, in a podset group, its one-pod leader:
        whole slices of the outermost layer inside the requested level's domains, inner layers
        whole inside their levels, the leader in one of the workers' domains (by the workers'
        request and node filters). Returns the workers' result and the leader's."""
        params = self._parameters(req, 1 if leader is not None else 0)
        if isinstance(params, str):
            failed = TopologyResult(failure=params)
            return failed, (failed if leader is not None else None)
        stats = _Stats()
        roots = self._fill(req, leader, assumed or {}, simulate_empty, stats)
        for root in roots:
            fill_counts(root, 0, params.size, params.slice_level, params.size_at, leader is not None)
        per_level = self._per_level(roots)
        fit: tuple[int, list[Domain]] | str | None = None
        if self.balanced and not params.required and not params.unconstrained:
            p = params
            fit = balanced_fit(per_level, p.count, p.size, p.level, p.slice_level, p.leaders)
        is_balanced = fit is not None
        if fit is None:
            fit = self._fit_level(params.level, per_level, params, req, stats)
        if isinstance(fit, str):
            failed = TopologyResult(failure=fit)
            return failed, (failed if leader is not None else None)
        chosen = self._descend(*fit, params, is_balanced)
        if leader is None:
            return self._result(chosen), None
        leaders = [Domain(d.values, count=d.leader) for d in chosen if d.leader > 0]
        return self._result(chosen), self._result(leaders)

    def _descend(
        self, level: int, chosen: list[Domain], p: _Parameters, balanced: bool = False
    ) -> list[Domain]:
        """Phase 2b: from the fit level down to the leaves (after a balanced placement each
        domain's children take its pods from the fit level down)."""
        lfc, last = p.unconstrained, len(self.levels) - 1
        chosen = minimum(chosen, p.count, p.size, lfc, True, p.leaders)
        while level < min(last, p.slice_level) and not balanced:  # above the slice level: all compete
            lower = sorted_domains([c for d in chosen for c in d.children], lfc)
            chosen, level = minimum(lower, p.count, p.size, lfc, True, p.leaders), level + 1
        while level < last:  # at and below it: each domain's children take its pods
            size_on = p.size_at.get(level + 1, 1) if level >= p.slice_level else p.size
            nxt: list[Domain] = []
            for d in chosen:
                lower = sorted_domains(d.children, lfc)
                if size_on > 1:
                    for c in lower:
                        c.slices, c.slices_wl = c.count // size_on, c.count_wl // size_on
                nxt += minimum(lower, d.count, size_on, lfc, size_on > 1, d.leader)
            chosen, level = nxt, level + 1
        return chosen

    def _fill(
        self,
        req: PodSetTASRequest,
        leader: PodSetTASRequest | None,
        assumed: Mapping[DomainValues, Mapping[str, int]],
        empty: bool,
        stats: _Stats,
    ) -> list[Domain]:
        """``fillInCounts``' leaves (``fillLeafCounts``): each feasible leaf's pods, whether it
        holds the leader and the pods beside it (parents are summed by :func:`.search.fill_counts`)."""
        one = {**req.single_pod, "pods": 1}
        leader_one = {**leader.single_pod, "pods": 1} if leader is not None else None
        by_prefix: dict[DomainValues, Domain] = {}
        roots: list[Domain] = []
        scoring = self.respect_preferred and self.hostname_leaves and bool(req.preferred_affinity)
        for leaf in sorted(self.leaf_free):
            stats.total += 1
            count = count_wl = leads = score = 0
            if self._feasible(leaf, req, stats):
                score = self._affinity_score(leaf, req) if scoring else 0
                remaining = self._remaining(leaf, assumed, empty)
                count, limiting = count_in(remaining, one)
                if count == 0 and limiting:
                    stats.resources[limiting] = stats.resources.get(limiting, 0) + 1
                count_wl = count
                if leader_one is not None and count_in(remaining, leader_one)[0] > 0:
                    leads = 1
                    count_wl = count_in({r: q - leader_one.get(r, 0) for r, q in remaining.items()}, one)[0]
            for depth in range(1, len(leaf) + 1):
                prefix = leaf[:depth]
                d = by_prefix.get(prefix)
                if d is None:
                    d = by_prefix[prefix] = Domain(prefix)
                    (by_prefix[prefix[:-1]].children if depth > 1 else roots).append(d)
            d = by_prefix[leaf]
            d.count, d.count_wl, d.leader = count, count_wl, leads
            d.affinity = score
        return roots

    def _affinity_score(self, leaf: DomainValues, req: PodSetTASRequest) -> int:
        """``PreferredSchedulingTerms.Score`` of a feasible node (``FindFeasibleNodes`` step 4): the
        weights of the preferred terms it matches (asked only with the gate on, nodes as leaves and
        preferred terms; every other leaf scores 0)."""
        node = self.leaf_nodes[leaf]
        terms = req.preferred_affinity
        return sum(w.weight for w in terms if w.weight and w.term.matches(node.labels, node.name))

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
        p: _Parameters,
        req: PodSetTASRequest,
        stats: _Stats,
    ) -> tuple[int, list[Domain]] | str:
        """``findLevelWithFitDomains``: the domains at ``level`` holding the slices (and leader)."""
        domains = per_level[level]
        if not domains:
            return f"no topology domains at level: {self.levels[level]}"
        lfc, leaders = p.unconstrained, p.leaders
        ordered = sorted_with_leader(domains, lfc)
        need = p.count // p.size
        top = ordered[0]
        if not lfc and top.slices_wl >= need and top.leader >= leaders:
            top = best_fit(ordered, need, True, leaders)
        if lfc:  # LeastFreeCapacity: the emptiest domain that fits
            for d in ordered:
                if d.leader >= leaders and d.held(True, leaders > 0) >= need:
                    return level, [d]
        if top.slices_wl >= need and top.leader >= leaders:
            return level, [top]
        if p.required:
            if self.respect_preferred:  # a lower-scored domain holding the pod set
                for i in range(1, len(ordered)):
                    if ordered[i].slices_wl >= need and ordered[i].leader >= leaders:
                        return level, [best_fit(ordered[i:], need, True, leaders)]
            return self._not_fit(domains, level, top.slices, need, p, req, stats)
        if level > 0 and not lfc:
            return self._fit_level(level - 1, per_level, p, req, stats)
        return self._several(domains, ordered, level, p, req, stats)

    def _several(
        self,
        domains: Sequence[Domain],
        ordered: list[Domain],
        level: int,
        p: _Parameters,
        req: PodSetTASRequest,
        stats: _Stats,
    ) -> tuple[int, list[Domain]] | str:
        """``findLevelWithFitDomains``' last resort: domains taken greedily, those holding the
        leader first, the last of each run best-fitted."""
        lfc, need = p.unconstrained, p.count // p.size
        ordered = prioritize_leader(ordered, p.count, p.leaders, p.size, True)
        chosen: list[Domain] = []
        remaining, leaders, i = need, p.leaders, 0
        while leaders > 0 and i < len(ordered) and ordered[i].leader > 0:
            d = ordered[i]
            if not lfc and d.slices_wl >= remaining:
                d = best_fit(ordered[i:], remaining, True, leaders)
            chosen.append(d)
            leaders -= d.leader
            remaining -= d.slices_wl
            i += 1
        if leaders > 0:
            return self._not_fit(domains, level, p.leaders - leaders, need, p, req, stats)
        rest = sorted_domains(ordered[i:], lfc)
        for j, d in enumerate(rest):
            if remaining <= 0:
                break
            if not lfc and d.slices >= remaining:
                d = best_fit(rest[j:], remaining, True)
            chosen.append(d)
            remaining -= d.slices
        if remaining > 0:
            return self._not_fit(domains, level, need - remaining, need, p, req, stats)
        return level, chosen

    def _not_fit(
        self,
        domains: Sequence[Domain],
        level: int,
        fit: int,
        total: int,
        p: _Parameters,
        req: PodSetTASRequest,
        stats: _Stats,
    ) -> str:
        """``notFitMessage`` (pods, or slices when a slice holds more than one pod), or
        ``multiLayerNotFitMessage`` when inner slice layers apply."""
        reasons = stats.text()
        tail = f". Total nodes: {stats.total}; excluded: {reasons}" if reasons else ""
        if p.size_at:
            return self._multi_layer_not_fit(domains, level, p.count, req.slice_layers) + tail
        unit = "pod" if p.size == 1 else "slice"
        if fit == 0:
            text = f'topology "{self.topology}" doesn\'t allow to fit any of {total} {unit}(s)'
        else:
            text = f'topology "{self.topology}" allows to fit only {fit} out of {total} {unit}(s)'
        return text + tail

    def _multi_layer_not_fit(
        self, domains: Sequence[Domain], level: int, count: int, layers: Sequence[tuple[str, int]]
    ) -> str:
        """``multiLayerNotFitMessage``: per layer, the slices the best domain of ``level`` (most
        slices, then the smallest id) holds out of those needed."""
        text = f'topology "{self.topology}" doesn\'t allow to fit'
        best: Domain | None = None
        for d in domains:
            if best is None or (-d.slices, ",".join(d.values)) < (-best.slices, ",".join(best.values)):
                best = d
        if best is None:
            return text
        for topology, size in layers:
            if topology in self.levels:
                fit = _slices_in_subtree(best, level, self.levels.index(topology), size)
                text += f"; {fit}/{count // size} slice(s) fit on level {topology}"
        return text

    def _result(self, leaves: list[Domain]) -> TopologyResult:
        """``buildAssignment``: leaves sorted by their values; only the hostname when it is the
        lowest level; domains given no pods left out."""
        start = len(self.levels) - 1 if self.hostname_leaves else 0
        ordered = sorted(leaves, key=lambda d: d.values)
        return TopologyResult(
            self.levels[start:], tuple((d.values[start:], d.count) for d in ordered if d.count > 0)
        )


def _slices_in_subtree(d: Domain, level: int, target: int, size: int) -> int:
    """``countSlicesInSubtree``: the slices of ``size`` the domains at ``target`` under ``d`` hold."""
    if level == target:
        return d.count // size
    return sum(_slices_in_subtree(c, level + 1, target, size) for c in d.children)


@dataclass(frozen=True, slots=True)
class _Parameters:
    """``topologyAssignmentParameters`` without leaders."""

    count: int
    size: int
    level: int
    slice_level: int
    size_at: Mapping[int, int]
    required: bool
    unconstrained: bool
    leaders: int = 0  # a podset group's leader (PodSet grouping allows one)
