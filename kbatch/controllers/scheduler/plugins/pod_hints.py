"""Queueing hints of the plugins whose answers depend on other pods: InterPodAffinity and
PodTopologySpread (KEP-4247). Pure decisions over the pending pod and the event's old/new objects.

InterPodAffinity (upstream ``interpodaffinity/plugin.go`` ``EventsToRegister``; Pod Add |
UpdatePodLabel | Delete, Node Add | UpdateNodeLabel):

* the pod's own label update queues it (upstream's plugin_test.go "updated pod is the target pod",
  1.35+: its labels decide its self-affinity and other pods' anti-affinity); other pod events concern
  bound pods only; an added pod queues when it matches all of the pod's
  affinity terms (one pod must satisfy them all); an updated one when it now matches them all and
  did not, or matched any anti-affinity term and no longer does; a deleted one when it matched any
  anti-affinity term (kubernetes#139161: any, not all) or its own required anti-affinity selected
  the pod (kubernetes#135325, the "existing pods' anti-affinity" rejection);
* a node added with an affinity topology key, or with any anti-affinity term at all; a node
  update that adds an affinity key, removes an anti-affinity key, or changes either's value.
  Beyond upstream, kbatch also covers existing pods' anti-affinity on node events (the rest of
  kubernetes#134393, whose fix covered deletes only; upstream leaves such a pod to the 5-minute
  flush): a pod without required affinity of its own is queued by any node added, and any pod by
  an update that removes a node label or changes its value (a node leaving a domain; gaining a
  label can only put it into one).

PodTopologySpread (upstream ``podtopologyspread/plugin.go``; Pod Add | UpdatePodLabel |
UpdatePodToleration | Delete, Node Add | Delete | UpdateNodeLabel | UpdateNodeTaint), over the
pod's DoNotSchedule constraints:

* pod events concern the pod itself or bound pods of its namespace
  (``involvedInTopologySpreading``); the pod's own new toleration queues when a constraint honours
  taints; a label update queues when some selector's answer changed; an added or deleted pod when
  some selector matches it;
* a node added or deleted that has every topology key; an update that changes whether it has
  them, or, while it has them, a topology value or its taints.
"""

from __future__ import annotations

from collections.abc import Mapping

from kbatch.controllers.scheduler.events import QUEUE, QUEUE_SKIP, QueueingHint
from kbatch.controllers.scheduler.types import NodeShape, PodAffinityTerm, PodInfo, SpreadConstraint

__all__ = [
    "DO_NOT_SCHEDULE",
    "affinity_after_node_change",
    "affinity_after_pod_change",
    "hard_constraints",
    "spread_after_node_change",
    "spread_after_pod_change",
]

DO_NOT_SCHEDULE = "DoNotSchedule"  # topologySpreadConstraints whenUnsatisfiable


def _all_match(pod: PodInfo, terms: tuple[PodAffinityTerm, ...], other: PodInfo) -> bool:
    """Upstream ``podMatchesAllAffinityTerms``: false for no terms."""
    return bool(terms) and all(t.selects(pod.namespace, other) for t in terms)


def _any_match(pod: PodInfo, terms: tuple[PodAffinityTerm, ...], other: PodInfo) -> bool:
    return any(t.selects(pod.namespace, other) for t in terms)


def affinity_after_pod_change(pod: PodInfo, old: PodInfo | None, new: PodInfo | None) -> QueueingHint:
    if new is not None and new.key == pod.key and new.uid == pod.uid:
        return QUEUE  # the pod's own labels changed: its self-affinity, others' anti-affinity
    if (new is not None and not new.node_name) or (old is not None and not old.node_name):
        return QUEUE_SKIP  # an unscheduled pod takes no part in (anti-)affinity
    if old is not None and new is not None:
        if not _all_match(pod, pod.affinity, old) and _all_match(pod, pod.affinity, new):
            return QUEUE
        if _any_match(pod, pod.anti_affinity, old) and not _any_match(pod, pod.anti_affinity, new):
            return QUEUE
        return QUEUE_SKIP
    if new is not None:
        return QUEUE if _all_match(pod, pod.affinity, new) else QUEUE_SKIP
    assert old is not None
    if _any_match(pod, pod.anti_affinity, old):
        return QUEUE
    return QUEUE if any(t.selects(old.namespace, pod) for t in old.anti_affinity) else QUEUE_SKIP


def affinity_after_node_change(pod: PodInfo, old: NodeShape | None, new: NodeShape) -> QueueingHint:
    if old is None and not pod.affinity:
        return QUEUE  # existing pods' anti-affinity does not reach a node not in their domain
    if old is not None and any(new.labels.get(k) != v for k, v in old.labels.items()):
        return QUEUE  # the node left a domain: an existing pod's anti-affinity may no longer reach it
    for term in pod.affinity:
        key = term.topology_key
        if old is None:
            if key in new.labels:
                return QUEUE
            continue
        if key in new.labels and old.labels.get(key) != new.labels[key]:
            return QUEUE  # gained the key, or moved to another domain
    for term in pod.anti_affinity:
        if old is None:
            return QUEUE  # a node without the key always accepts; with it, maybe an empty domain
        key = term.topology_key
        if key in old.labels and old.labels.get(key) != new.labels.get(key):
            return QUEUE  # lost the key, or moved to another domain
    return QUEUE_SKIP


def hard_constraints(pod: PodInfo) -> tuple[SpreadConstraint, ...]:
    """Upstream ``getConstraints(pod)`` for DoNotSchedule: the system defaults are all
    ScheduleAnyway, so a pod without constraints has none."""
    return tuple(c for c in pod.spread_constraints if c.when_unsatisfiable == DO_NOT_SCHEDULE)


def _selects(c: SpreadConstraint, labels: Mapping[str, str]) -> bool:
    return c.selector is not None and c.selector.matches(labels)


def _involved(other: PodInfo, pod: PodInfo) -> bool:
    return (other.key == pod.key and other.uid == pod.uid) or (
        bool(other.node_name) and other.namespace == pod.namespace)


def spread_after_pod_change(pod: PodInfo, old: PodInfo | None, new: PodInfo | None) -> QueueingHint:
    if (new is not None and not _involved(new, pod)) or (old is not None and not _involved(old, pod)):
        return QUEUE_SKIP
    constraints = hard_constraints(pod)
    if old is not None and new is not None:
        if (new.key == pod.key and len(new.tolerations) != len(old.tolerations)
                and any(c.node_taints_policy == "Honor" for c in constraints)):
            return QUEUE
        if old.labels == new.labels:
            return QUEUE_SKIP
        changed = any(_selects(c, old.labels) != _selects(c, new.labels) for c in constraints)
        return QUEUE if changed else QUEUE_SKIP
    subject = new if new is not None else old
    assert subject is not None
    return QUEUE if any(_selects(c, subject.labels) for c in constraints) else QUEUE_SKIP


def _has_keys(labels: Mapping[str, str], constraints: tuple[SpreadConstraint, ...]) -> bool:
    return all(c.topology_key in labels for c in constraints)


def spread_after_node_change(pod: PodInfo, old: NodeShape | None, new: NodeShape | None) -> QueueingHint:
    constraints = hard_constraints(pod)
    if old is not None and new is not None:
        had, has = _has_keys(old.labels, constraints), _has_keys(new.labels, constraints)
        if had != has:
            return QUEUE
        if has and (any(old.labels.get(c.topology_key) != new.labels.get(c.topology_key)
                        for c in constraints) or old.taints != new.taints):
            return QUEUE
        return QUEUE_SKIP
    subject = new if new is not None else old
    assert subject is not None
    return QUEUE if _has_keys(subject.labels, constraints) else QUEUE_SKIP
