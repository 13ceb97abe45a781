"""``matchLabelKeys`` / ``mismatchLabelKeys``: merged into label selectors at Pod creation, and validated.

Upstream ``pkg/registry/core/pod/strategy.go`` PrepareForCreate
(``applyMatchLabelKeysAndMismatchLabelKeys`` for pod (anti-)affinity terms, KEP-3633, gate
MatchLabelKeysInPodAffinity GA since 1.33; ``applyMatchLabelKeys`` for topology
spread constraints, KEP-3243, gate MatchLabelKeysInPodTopologySpreadSelectorMerge beta and on
since 1.33): for each key the new pod carries, the term's ``labelSelector`` gains ``key In (value)``
(``key NotIn (value)`` for ``mismatchLabelKeys``). Keys the pod lacks are skipped; a nil selector (matches
nothing) is left alone. Only on create: an update never re-merges.

Validation is ``ValidateMatchLabelKeysAndMismatchLabelKeys`` (``pkg/apis/core/validation``), used for both
fields with the merge gate on: keys must be label names, the fields are forbidden without a labelSelector,
a key may not be in both lists, and a ``matchLabelKeys`` key may not also be authored in the selector. That
last rule is checked on the merged selector (validation runs after PrepareForCreate): the merged
requirement is the key's second occurrence, so it fires when the pod carries the label.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from kbatch.api.core_v1 import Affinity, PodAffinityTerm, PodSpec, TopologySpreadConstraint
from kbatch.api.errors import FieldError
from kbatch.api.meta import LabelSelector, LabelSelectorRequirement
from kbatch.api.validation import child, index, validate_label_name

__all__ = ["merge_label_keys", "merged_selector", "validate_label_keys", "validate_spec_label_keys"]

_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def merged_selector(selector: LabelSelector, labels: Mapping[str, str], match: list[str] | None,
                    mismatch: list[str] | None) -> LabelSelector:
    """``selector`` with ``key In (v)`` per ``match`` key and ``key NotIn (v)`` per ``mismatch`` key
    the labels carry (in list order, after the authored expressions)."""
    extra = [LabelSelectorRequirement(key=k, operator="In", values=[labels[k]])
             for k in match or () if k in labels]
    extra += [LabelSelectorRequirement(key=k, operator="NotIn", values=[labels[k]])
              for k in mismatch or () if k in labels]
    if not extra:
        return selector
    merged = LabelSelector(match_expressions=[*(selector.match_expressions or ()), *extra])
    if selector.match_labels is not None:
        merged.match_labels = dict(selector.match_labels)
    return merged


def _affinity_terms(affinity: Affinity | None, path: str) -> Iterator[tuple[PodAffinityTerm, str]]:
    """Every pod (anti-)affinity term with its field path."""
    if affinity is None:
        return
    kinds = (("podAffinity", affinity.pod_affinity), ("podAntiAffinity", affinity.pod_anti_affinity))
    for name, value in kinds:
        if value is None:
            continue
        at = child(path, name)
        for i, term in enumerate(value.required_during_scheduling_ignored_during_execution or ()):
            yield term, index(child(at, _REQUIRED), i)
        for i, weighted in enumerate(value.preferred_during_scheduling_ignored_during_execution or ()):
            yield weighted.pod_affinity_term, child(index(child(at, _PREFERRED), i), "podAffinityTerm")


def _spread(constraints: list[TopologySpreadConstraint] | None,
            path: str) -> Iterator[tuple[TopologySpreadConstraint, str]]:
    for i, c in enumerate(constraints or ()):
        yield c, index(path, i)


def merge_label_keys(spec: PodSpec, labels: Mapping[str, str] | None) -> None:
    """PrepareForCreate's merge into ``spec`` (in place) from the new pod's ``labels``."""
    labels = labels or {}
    for term, _ in _affinity_terms(spec.affinity, ""):
        if term.label_selector is not None and (term.match_label_keys or term.mismatch_label_keys):
            term.label_selector = merged_selector(term.label_selector, labels, term.match_label_keys,
                                                  term.mismatch_label_keys)
    for c, _ in _spread(spec.topology_spread_constraints, ""):
        if c.label_selector is not None and c.match_label_keys:
            c.label_selector = merged_selector(c.label_selector, labels, c.match_label_keys, None)


def _key_errors(keys: list[str] | None, selector: LabelSelector | None, path: str) -> list[FieldError]:
    """``validateLabelKeys``: forbidden without a selector, else every key a valid label name."""
    if not keys:
        return []
    if selector is None:
        return [FieldError.forbidden(path, "must not be specified when labelSelector is not set")]
    errs: list[FieldError] = []
    for i, key in enumerate(keys):
        errs += validate_label_name(key, index(path, i))
    return errs


def validate_label_keys(match: list[str] | None, mismatch: list[str] | None, selector: LabelSelector | None,
                        path: str) -> list[FieldError]:
    """``ValidateMatchLabelKeysAndMismatchLabelKeys`` for one term (``path`` is the term's)."""
    match_path = child(path, "matchLabelKeys")
    errs = _key_errors(match, selector, match_path)
    errs += _key_errors(mismatch, selector, child(path, "mismatchLabelKeys"))
    if selector is not None and match:
        at = {k: i for i, k in enumerate(match)}  # upstream maps a repeated key to its last index
        seen = set(selector.match_labels or ())
        for req in selector.match_expressions or ():
            if req.key in at and req.key in seen:
                errs.append(FieldError.invalid(index(match_path, at[req.key]), req.key,
                                               "exists in both matchLabelKeys and labelSelector"))
            seen.add(req.key)
    mismatched = set(mismatch or ())
    both = "exists in both matchLabelKeys and mismatchLabelKeys"
    errs += [FieldError.invalid(index(match_path, i), k, both)
             for i, k in enumerate(match or ()) if k in mismatched]
    return errs


def spread_label_keys_invalid(spec: PodSpec) -> bool:
    """``hasInvalidTopologySpreadConstrainMatchLabelKeys`` (pkg/api/pod/util.go): whether a topology
    spread constraint of ``spec`` breaks the label-key rules (``OldPodViolatesMatchLabelKeysValidation``
    when ``spec`` is the old pod's)."""
    return any(validate_label_keys(c.match_label_keys, None, c.label_selector, "")
               for c in spec.topology_spread_constraints or ())


def validate_spec_label_keys(spec: PodSpec, path: str, spread: bool = True) -> list[FieldError]:
    """The label-key rules for every affinity term and (with ``spread``, off on an update whose old
    pod already broke them: ``validateTopologySpreadConstraints`` skips them under
    ``OldPodViolatesMatchLabelKeysValidation``) topology spread constraint of ``spec``."""
    errs: list[FieldError] = []
    for term, at in _affinity_terms(spec.affinity, child(path, "affinity")):
        errs += validate_label_keys(term.match_label_keys, term.mismatch_label_keys, term.label_selector, at)
    if not spread:
        return errs
    for c, at in _spread(spec.topology_spread_constraints, child(path, "topologySpreadConstraints")):
        errs += validate_label_keys(c.match_label_keys, None, c.label_selector, at)
    return errs
