"""PodTopologySpread (PreFilter + Filter + PreScore + Score): spread matching pods over domains.

Upstream ``pkg/scheduler/framework/plugins/podtopologyspread`` (``common.go``, ``filtering.go``,
``scoring.go``), KEP-895, KEP-3022 (minDomains), KEP-3094 (node inclusion policies), KEP-3243
(matchLabelKeys, merged into the selector by :mod:`..convert`); doc "Pod Topology Spread
Constraints".

* **Counting.** A pod counts in a domain when it is on a node of that domain, in the incoming
  pod's namespace, not terminating, and the constraint's selector matches it; an empty selector
  counts nothing (``countPodsMatchSelector``). A node is *eligible* for a constraint when it has
  every constraint's topology key and passes the inclusion policies: ``nodeAffinityPolicy`` Honor
  (the default) requires the pod's nodeSelector and required node affinity to match it,
  ``nodeTaintsPolicy`` Honor (default Ignore) requires its NoSchedule/NoExecute taints tolerated.
* **Filter** (``whenUnsatisfiable: DoNotSchedule``): a node without a constraint's topology key is
  rejected, unresolvable, "node(s) didn't match pod topology spread constraints (missing required
  label)". Otherwise ``count(domain) + selfMatch - globalMin`` must not exceed ``maxSkew``, where
  ``globalMin`` is the smallest count over eligible domains, or 0 when there are fewer eligible
  domains than ``minDomains`` (default 1); else "node(s) didn't match pod topology spread
  constraints", Unschedulable. PreFilter returns Skip for a pod without such constraints.
* **Score** (``ScheduleAnyway``): over the feasible nodes, a node scores, per constraint whose key
  it has, ``count * log(domains + 2) + maxSkew - 1`` (hostname: the node's own count, domains =
  scored nodes), rounded; normalization reverses it (``100 * (max + min - s) / max``; 100 for all
  when the max is 0) and gives ignored nodes 0. With the pod's own constraints, feasible nodes
  lacking any key are ignored.
* **System defaults** (``defaultingType: System``): a pod without constraints is scored against
  ``kubernetes.io/hostname`` maxSkew 3 and ``topology.kubernetes.io/zone`` maxSkew 5, both
  ScheduleAnyway, with the selector ``helper.DefaultSelector`` builds: the merged selectors of the
  Services in its namespace that select it (and of its ReplicationController, ReplicaSet or
  StatefulSet, which kbatch does not have). A bare Job pod no Service selects gets none; nodes
  without a zone label still get hostname spreading.

When no feasible pod has soft constraints the plugin's Score is skipped from PreFilter on, which
keeps such pods on the batched fast path. Queueing hints: :mod:`.pod_hints`.

**Incremental counts.** When every node counts for every soft constraint (the inclusion policies
let each node in and nodes lacking a key are not excluded: always so for the system defaults of a
pod without nodeSelector or required node affinity), PreScore reads the per-domain counts and
Score the per-node counts that the snapshot keeps up to date as pods come and go
(:mod:`..selector_counts`) instead of counting every node's pods for every pod; the numbers are the
same, so are the scores. Otherwise it counts node by node as upstream.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kbatch.controllers.scheduler.config import SchedulerConfigError, decode_int, invalid, plugin_args
from kbatch.controllers.scheduler.events import ActionType, ClusterEventWithHint, on_node, on_pod
from kbatch.controllers.scheduler.framework import Code, CycleState, Status, skip_score
from kbatch.controllers.scheduler.plugins.pod_hints import (
    DO_NOT_SCHEDULE,
    hard_constraints,
    spread_after_node_change,
    spread_after_pod_change,
)
from kbatch.controllers.scheduler.plugins.service_selectors import ServiceSelectors
from kbatch.controllers.scheduler.plugins.taint_toleration import untolerated_taint
from kbatch.controllers.scheduler.selector_counts import SelectorCounts
from kbatch.controllers.scheduler.snapshot import NodeInfo, Snapshot
from kbatch.controllers.scheduler.types import (
    LabelSelector,
    PodInfo,
    SpreadConstraint,
    match_node_selector_terms,
)

__all__ = [
    "DO_NOT_SCHEDULE",
    "ERR_CONSTRAINTS",
    "ERR_MISSING_LABEL",
    "HOSTNAME",
    "SCHEDULE_ANYWAY",
    "SYSTEM_DEFAULTS",
    "ZONE",
    "DefaultSpread",
    "PodTopologySpread",
    "ServiceSelectors",
    "default_spread",
    "default_spread_constraints",
    "new",
]

ERR_CONSTRAINTS = "node(s) didn't match pod topology spread constraints"
ERR_MISSING_LABEL = "node(s) didn't match pod topology spread constraints (missing required label)"
SCHEDULE_ANYWAY = "ScheduleAnyway"
HOSTNAME, ZONE = "kubernetes.io/hostname", "topology.kubernetes.io/zone"
SYSTEM_DEFAULTS = (  # upstream systemDefaultConstraints (podtopologyspread/plugin.go)
    SpreadConstraint(3, HOSTNAME, SCHEDULE_ANYWAY, None),
    SpreadConstraint(5, ZONE, SCHEDULE_ANYWAY, None),
)
_FILTER_KEY, _SCORE_KEY = "PodTopologySpread/filter", "PodTopologySpread/score"
_SNAPSHOT_KEY, _SCORE_STATE_KEY = "PodTopologySpread/snapshot", "PodTopologySpread/scoreState"
_SKIP = Status(Code.SKIP, plugin="PodTopologySpread")
_IGNORED = -1  # raw score of an ignored node (upstream invalidScore)


def _empty(selector: LabelSelector | None) -> bool:
    return selector is not None and not selector.match_labels and not selector.match_expressions


def _count(pods: Iterable[PodInfo], c: SpreadConstraint, namespace: str) -> int:
    """Upstream ``countPodsMatchSelector``."""
    selector = c.selector
    if selector is None or _empty(selector):
        return 0
    return sum(1 for p in pods
               if p.namespace == namespace and not p.terminating and selector.matches(p.labels))


def _node_count(node: NodeInfo, c: SpreadConstraint, namespace: str) -> int:
    """``_count`` over ``node``'s pods, memoised on the node until its pods change: every pod a
    Service selects is scored with the system defaults, which count every node's matching pods per
    scheduling cycle, while most nodes' pods did not change since the last one."""
    selector = c.selector
    if selector is None or _empty(selector):
        return 0
    key = (namespace, selector)
    counts = node.counts
    value = counts.get(key)
    if value is None:
        value = counts[key] = _count(node.pods.values(), c, namespace)
    return value


def _self_match(c: SpreadConstraint, pod: PodInfo) -> int:
    return 1 if c.selector is not None and c.selector.matches(pod.labels) else 0


def _has_keys(labels: Mapping[str, str], constraints: tuple[SpreadConstraint, ...]) -> bool:
    return all(c.topology_key in labels for c in constraints)


def _included(c: SpreadConstraint, pod: PodInfo, node: NodeInfo) -> bool:
    """Upstream ``matchNodeInclusionPolicies``."""
    labels = node.shape.labels
    if c.node_affinity_policy == "Honor":
        if any(labels.get(k) != v for k, v in pod.node_selector):
            return False
        if pod.required_terms is not None and not match_node_selector_terms(
                pod.required_terms, labels, node.name):
            return False
    if c.node_taints_policy == "Honor":
        return untolerated_taint(node.shape.taints, pod.tolerations, ("NoSchedule", "NoExecute")) is None
    return True


@dataclass(slots=True)
class _FilterState:
    """Per DoNotSchedule constraint: matching pods per eligible domain."""

    constraints: tuple[SpreadConstraint, ...]
    domains: list[dict[str, int]]

    def global_min(self, index: int) -> int:
        counts = self.domains[index]
        if len(counts) < self.constraints[index].min_domains:
            return 0
        return min(counts.values())

    def update(self, pod: PodInfo, other: PodInfo, node: NodeInfo, delta: int) -> None:
        """Upstream ``updateWithPod`` (PreFilter AddPod/RemovePod): ``other`` added to or removed
        from ``node`` changes its domain's count for the constraints selecting it."""
        labels = node.shape.labels
        if other.namespace != pod.namespace or not _has_keys(labels, self.constraints):
            return
        for index, c in enumerate(self.constraints):
            if _included(c, pod, node) and _count((other,), c, pod.namespace):
                value = labels[c.topology_key]
                self.domains[index][value] = self.domains[index].get(value, 0) + delta


def _filter_state(
    pod: PodInfo, constraints: tuple[SpreadConstraint, ...], snapshot: Snapshot
) -> _FilterState:
    state = _FilterState(constraints, [{} for _ in constraints])
    for node in snapshot:
        labels = node.shape.labels
        if not _has_keys(labels, constraints):
            continue
        for index, c in enumerate(constraints):
            if _included(c, pod, node):
                value = labels[c.topology_key]
                state.domains[index][value] = (state.domains[index].get(value, 0)
                                               + _node_count(node, c, pod.namespace))
    return state


@dataclass(slots=True)
class _ScoreState:
    constraints: tuple[SpreadConstraint, ...]
    ignored: set[str]
    pairs: dict[tuple[str, str], int]
    weights: list[float]
    # per constraint, the snapshot's per-node counts when every node counts (else None)
    node_counts: list[dict[str, int] | None]


class PodTopologySpread:
    name = "PodTopologySpread"
    node_static = False
    per_node_score = False

    def __init__(self, weight: int = 2, services: ServiceSelectors | None = None,
                 default_constraints: tuple[SpreadConstraint, ...] = SYSTEM_DEFAULTS) -> None:
        self.weight = weight
        self.services = services if services is not None else ServiceSelectors()
        self.default_constraints = default_constraints
        self._soft_defaults = tuple(c for c in default_constraints if c.when_unsatisfiable == SCHEDULE_ANYWAY)
        self._defaults_for: dict[LabelSelector, tuple[SpreadConstraint, ...]] = {}  # by Services' selector

    def event_handlers(self) -> dict[type, Any]:
        """Services select pods for the system default constraints: their informer feeds
        :attr:`services`."""
        from kbatch.api.core_v1 import Service

        return {Service: self.services}

    # -- constraints ---------------------------------------------------------------------------
    def soft_constraints(self, pod: PodInfo) -> tuple[SpreadConstraint, ...]:
        """The pod's ScheduleAnyway constraints, or the defaults with the Services' selector."""
        if pod.spread_constraints:
            return tuple(c for c in pod.spread_constraints if c.when_unsatisfiable == SCHEDULE_ANYWAY)
        if not self._soft_defaults:
            return ()
        selector = self.services.selector_for(pod)
        if selector is None:
            return ()
        found = self._defaults_for.get(selector)
        if found is None:
            if len(self._defaults_for) >= 1024:
                self._defaults_for.clear()
            found = self._defaults_for[selector] = tuple(
                SpreadConstraint(c.max_skew, c.topology_key, c.when_unsatisfiable, selector, c.min_domains,
                                 c.node_affinity_policy, c.node_taints_policy) for c in self._soft_defaults)
        return found

    # -- filtering -----------------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: PodInfo, snapshot: Snapshot) -> Status | None:
        if not pod.spread_constraints and not self.services.in_namespace(pod.namespace):
            skip_score(state, self.name)  # the common case, kept short: nothing to filter or score
            return _SKIP
        soft = self.soft_constraints(pod)
        if soft:
            state[_SCORE_KEY], state[_SNAPSHOT_KEY] = soft, snapshot
        else:
            skip_score(state, self.name)
        if not pod.spread_constraints:
            return _SKIP
        hard = hard_constraints(pod)
        if not hard:
            return _SKIP
        state[_FILTER_KEY] = _filter_state(pod, hard, snapshot)
        return None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        spread: _FilterState | None = state.get(_FILTER_KEY)
        if spread is None:
            return None
        labels = node.shape.labels
        for index, c in enumerate(spread.constraints):
            value = labels.get(c.topology_key)
            if value is None:
                return Status.unresolvable(self.name, ERR_MISSING_LABEL)
            count = spread.domains[index].get(value, 0)
            if count + _self_match(c, pod) - spread.global_min(index) > c.max_skew:
                return Status.unschedulable(self.name, ERR_CONSTRAINTS)
        return None

    # -- PreFilter extensions (preemption's what-if) --------------------------------------------
    def copy_state(self, state: CycleState) -> None:
        spread: _FilterState | None = state.get(_FILTER_KEY)
        if spread is not None:
            state[_FILTER_KEY] = _FilterState(spread.constraints, [dict(d) for d in spread.domains])

    def add_pod(self, state: CycleState, pod: PodInfo, added: PodInfo, node: NodeInfo) -> None:
        spread: _FilterState | None = state.get(_FILTER_KEY)
        if spread is not None:
            spread.update(pod, added, node, 1)

    def remove_pod(self, state: CycleState, pod: PodInfo, removed: PodInfo, node: NodeInfo) -> None:
        spread: _FilterState | None = state.get(_FILTER_KEY)
        if spread is not None:
            spread.update(pod, removed, node, -1)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        add_delete = ActionType.ADD | ActionType.DELETE
        pods = add_delete | ActionType.UPDATE_POD_LABEL | ActionType.UPDATE_POD_TOLERATION
        nodes = add_delete | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT
        return [on_pod(pods, spread_after_pod_change),
                on_node(nodes, spread_after_node_change)]

    # -- scoring -------------------------------------------------------------------------------
    def default_spread_constraints(self, state: CycleState, pod: PodInfo,
                                   ) -> tuple[SpreadConstraint, ...] | None:
        """For the scheduler's spread batch: :func:`default_spread_constraints`."""
        return default_spread_constraints(state, pod)

    def default_spread(self, pod: PodInfo, soft: tuple[SpreadConstraint, ...], snapshot: Snapshot,
                       ) -> DefaultSpread:
        """Scoring by node group, for the scheduler's spread batch (:func:`default_spread`)."""
        return default_spread(self, pod, soft, snapshot)

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        soft: tuple[SpreadConstraint, ...] = state.get(_SCORE_KEY, ())
        snapshot: Snapshot | None = state.get(_SNAPSHOT_KEY)
        if not soft or not nodes or snapshot is None:
            return _SKIP
        require_all = bool(pod.spread_constraints)  # system defaults spare nodes without a zone
        ignored = {n.name for n in nodes if require_all and not _has_keys(n.shape.labels, soft)}
        pairs: dict[tuple[str, str], int] = {}
        sizes = [0] * len(soft)
        for node in nodes:
            if node.name in ignored:
                continue
            for index, c in enumerate(soft):
                pair = (c.topology_key, node.shape.labels.get(c.topology_key, ""))
                if c.topology_key != HOSTNAME and pair not in pairs:
                    pairs[pair] = 0
                    sizes[index] += 1
        indexed = _indexed_counts(pod, soft, snapshot, require_all)
        if indexed is None:
            _count_pairs(pod, soft, snapshot, pairs, require_all)
        else:
            for pair in pairs:
                pairs[pair] = indexed[pair[0]].domains(pair[0]).get(pair[1], 0)
        weights = [math.log((len(nodes) - len(ignored) if c.topology_key == HOSTNAME else sizes[i]) + 2)
                   for i, c in enumerate(soft)]
        node_counts = [None if indexed is None or c.topology_key != HOSTNAME else indexed[HOSTNAME].nodes
                       for c in soft]
        state[_SCORE_STATE_KEY] = _ScoreState(soft, ignored, pairs, weights, node_counts)
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        s: _ScoreState | None = state.get(_SCORE_STATE_KEY)
        if s is None:
            return 0
        if node.name in s.ignored:
            return _IGNORED
        total = 0.0
        labels = node.shape.labels
        for index, c in enumerate(s.constraints):
            value = labels.get(c.topology_key)
            if value is None:
                continue
            if c.topology_key == HOSTNAME:
                counts = s.node_counts[index]
                count = _node_count(node, c, pod.namespace) if counts is None else counts.get(node.name, 0)
            else:
                count = s.pairs.get((c.topology_key, value), 0)
            total += count * s.weights[index] + (c.max_skew - 1)
        return math.floor(total + 0.5)  # Go's math.Round for a non-negative value

    def normalize(self, scores: list[int]) -> list[int]:
        valid = [s for s in scores if s != _IGNORED]
        if not valid:
            return [0] * len(scores)
        low, high = min(valid), max(valid)
        if high == 0:
            return [0 if s == _IGNORED else 100 for s in scores]
        return [0 if s == _IGNORED else 100 * (high + low - s) // high for s in scores]


@dataclass(frozen=True, slots=True)
class DefaultSpread:
    """What scoring a pod with only system-default spreading needs, as a function of node *groups*
    (:mod:`..spread_batch`): nodes with equal :meth:`values` and equal matching-pod count score
    alike. ``domains[i]`` is the kept per-domain count of constraint ``i`` (None for hostname)."""

    constraints: tuple[SpreadConstraint, ...]
    host_counts: Mapping[str, int]  # node name -> matching pods (the snapshot's kept counts)
    domains: tuple[Mapping[str, int] | None, ...]
    weight: int
    normalize: Any  # the plugin's normalize
    counts: tuple[SelectorCounts, ...] = ()  # the kept counts read (live while the snapshot keeps them)
    # scores by (feasible nodes, groups, the domain counts they read): the same inputs recur
    memo: dict[tuple[object, ...], dict[tuple[int, tuple[str | None, ...]], int]] = field(
        default_factory=dict)

    def values(self, labels: Mapping[str, str]) -> tuple[str | None, ...]:
        """Per constraint, the node's topology value (None: the node lacks the key; hostname: "")."""
        return tuple(None if c.topology_key not in labels else
                     "" if c.topology_key == HOSTNAME else labels[c.topology_key] for c in self.constraints)

    def scores(self, groups: Iterable[tuple[int, tuple[str | None, ...]]], nodes: int,
               ) -> dict[tuple[int, tuple[str | None, ...]], int]:
        """Each group's normalized score times the weight, when ``nodes`` feasible nodes fall into
        ``groups`` ((host count, values) pairs): upstream PreScore's weights (log of the feasible
        nodes, or of the domains they span, plus 2), Score's rounded sum and NormalizeScore, as
        :meth:`PodTopologySpread.pre_score`, ``score`` and ``normalize`` compute them per node."""
        groups = list(groups)
        key = (nodes, tuple(groups), tuple(
            domains.get(values[i] or "", 0) for _, values in groups
            for i, domains in enumerate(self.domains) if domains is not None and values[i] is not None))
        found = self.memo.get(key)
        if found is not None:
            return found
        if len(self.memo) >= 256:
            self.memo.clear()
        found = self.memo[key] = self._scores(groups, nodes)
        return found

    def _scores(self, groups: list[tuple[int, tuple[str | None, ...]]], nodes: int,
                ) -> dict[tuple[int, tuple[str | None, ...]], int]:
        weights = []
        for index, c in enumerate(self.constraints):
            if c.topology_key == HOSTNAME:
                weights.append(math.log(nodes + 2))
            else:
                weights.append(math.log(len({g[1][index] or "" for g in groups}) + 2))
        raw = []
        for host, values in groups:
            total = 0.0
            for index, c in enumerate(self.constraints):
                value = values[index]
                if value is None:
                    continue
                domains = self.domains[index]
                count = host if domains is None else domains.get(value, 0)
                total += count * weights[index] + (c.max_skew - 1)
            raw.append(math.floor(total + 0.5))  # Go's math.Round for a non-negative value
        return {g: value * self.weight for g, value in zip(groups, self.normalize(raw), strict=True)}


def default_spread_constraints(state: CycleState, pod: PodInfo) -> tuple[SpreadConstraint, ...] | None:
    """The pod's soft constraints when they are system defaults the scheduler's spread batch can
    score by node group: the pod has no constraints of its own, its Score is not skipped, the
    constraints name distinct topology keys and the kept counts are what PreScore would count
    (:func:`_indexable`); otherwise None."""
    soft: tuple[SpreadConstraint, ...] = state.get(_SCORE_KEY, ())
    if pod.spread_constraints or not soft or not _indexable(pod, soft):
        return None
    if len(soft) > 1 and len({c.topology_key for c in soft}) != len(soft):
        return None
    return soft


def default_spread(plugin: PodTopologySpread, pod: PodInfo, soft: tuple[SpreadConstraint, ...],
                   snapshot: Snapshot) -> DefaultSpread:
    """:class:`DefaultSpread` for constraints :func:`default_spread_constraints` accepted."""
    indexed = _indexed_counts(pod, soft, snapshot, False)
    assert indexed is not None
    domains = tuple(None if c.topology_key == HOSTNAME else indexed[c.topology_key].domains(c.topology_key)
                    for c in soft)
    hosts = indexed[HOSTNAME].nodes if HOSTNAME in indexed else {}
    return DefaultSpread(soft, hosts, domains, plugin.weight, plugin.normalize, tuple(indexed.values()))


def _indexable(pod: PodInfo, soft: tuple[SpreadConstraint, ...]) -> bool:
    """Whether every node counts for every constraint (module docstring) and each selector is
    non-empty: the kept counts are then what PreScore counts."""
    for c in soft:
        selector = c.selector
        if selector is None or _empty(selector) or c.node_taints_policy == "Honor" or (
                c.node_affinity_policy == "Honor" and (pod.node_selector or pod.required_terms is not None)):
            return False
    return True


def _indexed_counts(pod: PodInfo, soft: tuple[SpreadConstraint, ...], snapshot: Snapshot,
                    require_all: bool) -> dict[str, SelectorCounts] | None:
    """The snapshot's kept counts per topology key, when they are what PreScore would count
    (:func:`_indexable`, and the pod's own constraints not requiring every key)."""
    if require_all or not _indexable(pod, soft):
        return None
    found: dict[str, SelectorCounts] = {}
    for c in soft:
        selector = c.selector
        assert selector is not None
        if c.topology_key in found and found[c.topology_key].selector != selector:
            return None  # two constraints on one key with different selectors: count node by node
        found[c.topology_key] = snapshot.selector_counts(pod.namespace, selector)
    return found


def _count_pairs(pod: PodInfo, soft: tuple[SpreadConstraint, ...], snapshot: Snapshot,
                 pairs: dict[tuple[str, str], int], require_all: bool) -> None:
    """Add every node's matching pods to the pairs the feasible nodes span (upstream PreScore)."""
    for node in snapshot:
        labels = node.shape.labels
        if require_all and not _has_keys(labels, soft):
            continue
        for c in soft:
            if not _included(c, pod, node):
                continue
            pair = (c.topology_key, labels.get(c.topology_key, ""))
            if pair in pairs:
                pairs[pair] += _node_count(node, c, pod.namespace)


def _default_constraint(i: int, doc: Mapping[str, Any]) -> SpreadConstraint:
    where = f"defaultConstraints[{i}]"
    plugin_args("PodTopologySpread." + where, doc, ("maxSkew", "topologyKey", "whenUnsatisfiable",
                                                    "labelSelector", "minDomains", "nodeAffinityPolicy",
                                                    "nodeTaintsPolicy", "matchLabelKeys"))
    if doc.get("labelSelector") is not None:
        raise SchedulerConfigError(f"{where}.labelSelector: Forbidden: constraint must not define a "
                                   "selector, as they deduced for each pod")
    skew, key, when = doc.get("maxSkew"), doc.get("topologyKey"), doc.get("whenUnsatisfiable")
    skew = decode_int(skew, "TopologySpreadConstraint.defaultConstraints.maxSkew") or 0
    if skew <= 0:
        raise invalid(f"{where}.maxSkew", skew, "must be greater than zero")
    if not key:
        raise SchedulerConfigError(f"{where}.topologyKey: Required value: can not be empty")
    if when not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
        raise SchedulerConfigError(f'{where}.whenUnsatisfiable: Unsupported value: "{when}": '
                                   f'supported values: "{DO_NOT_SCHEDULE}", "{SCHEDULE_ANYWAY}"')
    return SpreadConstraint(skew, key, when, None, doc.get("minDomains") or 1,
                            doc.get("nodeAffinityPolicy") or "Honor", doc.get("nodeTaintsPolicy") or "Ignore")


def new(args: Mapping[str, Any], handle: Any) -> PodTopologySpread:
    """The registry's factory. Args as upstream's ``PodTopologySpreadArgs``: ``defaultingType``
    ``System`` (default: the system default constraints) or ``List`` (``defaultConstraints``, which
    must then name no selector)."""
    args = plugin_args("PodTopologySpread", args, ("defaultingType", "defaultConstraints"))
    kind = args.get("defaultingType", "System")
    listed = args.get("defaultConstraints") or []
    if kind not in ("System", "List"):
        raise SchedulerConfigError(f'defaultingType: Unsupported value: "{kind}": supported values: '
                                   '"List", "System"')
    if kind == "System" and listed:
        raise SchedulerConfigError("defaultConstraints: Invalid value: when .defaultingType is \"System\", "
                                   "this field must be empty")
    constraints = SYSTEM_DEFAULTS if kind == "System" else tuple(
        _default_constraint(i, c) for i, c in enumerate(listed))
    return PodTopologySpread(default_constraints=constraints)
