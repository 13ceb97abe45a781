"""What an update may change on a scheduling-gated pod: only additions to ``nodeSelector`` and to the
required node affinity (KEP-3838, mutable scheduling directives for gated pods).

Upstream: kubernetes ``pkg/apis/core/validation/validation.go`` (``ValidatePodUpdate``'s gated
branch, ``validateNodeSelectorMutation``, ``validateNodeAffinityMutation``,
``validateNodeSelectorTermHasOnlyAdditions``). Pod affinity and anti-affinity stay immutable
(their matchLabelKeys are merged into the selector at creation). Messages are upstream's.
"""

from __future__ import annotations

from kbatch.api.core_v1 import Affinity, NodeAffinity, NodeSelectorTerm, PodSpec
from kbatch.api.errors import FieldError
from kbatch.api.validation import child, index

__all__ = ["gated_update_errors", "pod_affinities"]

_TERMS = "requiredDuringSchedulingIgnoredDuringExecution"


def _node_affinity(affinity: Affinity | None) -> NodeAffinity | None:
    return affinity.node_affinity if affinity is not None else None


def pod_affinities(affinity: Affinity | None) -> tuple[object, object]:
    """The parts of ``affinity`` an update of a gated pod must keep."""
    if affinity is None:
        return None, None
    return affinity.pod_affinity, affinity.pod_anti_affinity


def _node_selector_errors(new: dict[str, str] | None, old: dict[str, str] | None,
                          path: str) -> list[FieldError]:
    """``validateNodeSelectorMutation``: every old key keeps its value."""
    new = new or {}
    if any(new.get(k) != v for k, v in sorted((old or {}).items())):
        return [FieldError.invalid(path, new, "only additions to spec.nodeSelector are allowed "
                                   "(no mutations or deletions)")]
    return []


def _only_additions(new: NodeSelectorTerm, old: NodeSelectorTerm) -> bool:
    """``validateNodeSelectorTermHasOnlyAdditions``: old requirements kept as a prefix; an empty old
    term stays empty."""
    old_exprs, old_fields = old.match_expressions or [], old.match_fields or []
    new_exprs, new_fields = new.match_expressions or [], new.match_fields or []
    if not old_exprs and not old_fields:
        return not new_exprs and not new_fields
    return (len(new_exprs) >= len(old_exprs) and new_exprs[:len(old_exprs)] == old_exprs
            and len(new_fields) >= len(old_fields) and new_fields[:len(old_fields)] == old_fields)


def _node_affinity_errors(new: NodeAffinity | None, old: NodeAffinity | None, path: str) -> list[FieldError]:
    """``validateNodeAffinityMutation``: a non-empty list of required terms keeps its length, and
    each term only gains requirements."""
    required = old.required_during_scheduling_ignored_during_execution if old is not None else None
    if required is None:
        return []
    old_terms = required.node_selector_terms or []
    new_required = new.required_during_scheduling_ignored_during_execution if new is not None else None
    new_terms = (new_required.node_selector_terms or []) if new_required is not None else []
    at = child(child(path, _TERMS), "nodeSelectorTerms")
    if old_terms and len(old_terms) != len(new_terms):
        return [FieldError.invalid(at, [t.to_dict() for t in new_terms],
                                   "no additions/deletions to non-empty NodeSelectorTerms list are allowed")]
    return [FieldError.invalid(index(at, i), new_terms[i].to_dict(),
                               "only additions are allowed (no mutations or deletions)")
            for i, term in enumerate(old_terms) if not _only_additions(new_terms[i], term)]


def gated_update_errors(new: PodSpec, old: PodSpec, path: str) -> list[FieldError]:
    """For a pod gated before the update: the node selector and node affinity may only grow."""
    errs: list[FieldError] = []
    if new.node_selector != old.node_selector:
        errs += _node_selector_errors(new.node_selector, old.node_selector, child(path, "nodeSelector"))
    new_node, old_node = _node_affinity(new.affinity), _node_affinity(old.affinity)
    if new_node != old_node:
        errs += _node_affinity_errors(new_node, old_node, child(child(path, "affinity"), "nodeAffinity"))
    return errs
