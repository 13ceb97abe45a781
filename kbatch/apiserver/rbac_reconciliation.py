"""RBAC reconciliation: what it takes to make a stored role or binding hold what an expected one holds,
as Kubernetes 1.37's ``pkg/registry/rbac/reconciliation`` computes it (``computeReconciledRole``,
``computeReconciledRoleBinding``; kube-apiserver's ``rbac/bootstrap-roles`` hook and
``kubectl auth reconcile`` both run it).

* A stored object annotated ``rbac.authorization.kubernetes.io/autoupdate: "false"`` is *protected*:
  the result says what would change, the caller leaves it alone.
* Labels and annotations: the expected ones are added, a stored value wins over an expected one.
* Role rules: the expected rules no stored rule covers (``Covers``, broken down to one verb, group,
  resource and name each) are appended; with ``remove_extra`` the rules become the expected ones
  when anything is missing or extra. Extra rules are not looked for when both roles are aggregated
  (their rules are the aggregation controller's).
* A ClusterRole's aggregationRule: a stored one is dropped when none is expected; missing selectors
  are appended (or, with ``remove_extra``, the rule becomes the expected one).
* Bindings: a different ``roleRef`` means delete and create the expected binding (*recreate*: the
  field is immutable); otherwise missing subjects are appended (with ``remove_extra``, the subjects
  become the expected ones when any is missing or extra).

Everything here is pure, on the objects' JSON (``dict``) form; :mod:`kbatch.apiserver.rbac_bootstrap`
writes the results.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kbatch.authz.escalation import covers

__all__ = ["AUTOUPDATE", "Reconciled", "reconcile_binding", "reconcile_role"]

AUTOUPDATE = "rbac.authorization.kubernetes.io/autoupdate"  # rbacv1.AutoUpdateAnnotationKey
Obj = dict[str, Any]


@dataclass(frozen=True)
class Reconciled:
    """``operation``: ``none``, ``update`` or ``recreate``; ``obj`` the object to write (the stored one
    changed, or for a recreate the expected one); ``missing``/``extra`` the rules (roles) or subjects
    (bindings) the stored object lacked or had beyond the expected ones."""

    operation: str
    obj: Obj
    protected: bool
    missing: Sequence[Mapping[str, Any]] = ()
    extra: Sequence[Mapping[str, Any]] = ()


def _merge(expected: Mapping[str, str] | None, existing: Mapping[str, str] | None) -> dict[str, str] | None:
    """``merge``: nothing when neither has a map, else the expected entries under the stored ones."""
    if expected is None and existing is None:
        return None
    return {**(expected or {}), **(existing or {})}


def _merge_metadata(out: Obj, existing: Obj, expected: Obj) -> bool:
    """Merge labels and annotations into ``out``'s metadata; whether they changed."""
    meta, changed = out.setdefault("metadata", {}), False
    for key in ("annotations", "labels"):
        merged = _merge(expected.get("metadata", {}).get(key), existing.get("metadata", {}).get(key))
        if merged != existing.get("metadata", {}).get(key):
            changed = True
        if merged is None:
            meta.pop(key, None)
        else:
            meta[key] = merged
    return changed


def _protected(existing: Obj) -> bool:
    return (existing.get("metadata", {}).get("annotations") or {}).get(AUTOUPDATE) == "false"


def _selectors(role: Obj) -> list[Obj] | None:
    rule = role.get("aggregationRule")
    return None if rule is None else list(rule.get("clusterRoleSelectors") or ())


def _uncovered_selectors(owner: Sequence[Obj] | None, servant: Sequence[Obj] | None) -> list[Obj]:
    """``aggregationRuleCovers``: the servant's selectors the owner does not have (by value)."""
    return [s for s in servant or () if s not in (owner or ())]


def _reconcile_aggregation(out: Obj, existing: Obj, expected: Obj, remove_extra: bool) -> bool:
    have, want = _selectors(existing), _selectors(expected)
    missing, extra = _uncovered_selectors(have, want), _uncovered_selectors(want, have)
    if want is None and have is not None:  # not expected to be aggregated at all
        out.pop("aggregationRule", None)
    elif not remove_extra and missing:
        out["aggregationRule"] = {"clusterRoleSelectors": [*(have or ()), *missing]}
    elif remove_extra and (missing or extra):
        out["aggregationRule"] = copy.deepcopy(expected["aggregationRule"])
    else:
        return False
    return True


def _union_or_replace(out: Obj, key: str, have_want: tuple[Sequence[Any], Sequence[Any]],
                      missing_extra: tuple[Sequence[Any], Sequence[Any]], remove_extra: bool) -> bool:
    """The last step of both computations: append what is missing (the union case), or with
    ``remove_extra`` become the expected list when anything is missing or extra; whether it changed."""
    (have, want), (missing, extra) = have_want, missing_extra
    if not remove_extra and missing:
        out[key] = [*have, *missing]
    elif remove_extra and (missing or extra):
        out[key] = copy.deepcopy(list(want))
    else:
        return False
    return True


def reconcile_role(existing: Obj, expected: Obj, remove_extra: bool = False) -> Reconciled:
    """``computeReconciledRole`` for a Role or ClusterRole."""
    out = copy.deepcopy(existing)
    changed = _merge_metadata(out, existing, expected)
    changed = _reconcile_aggregation(out, existing, expected, remove_extra) or changed
    have, want = list(existing.get("rules") or ()), list(expected.get("rules") or ())
    both_aggregated = _selectors(existing) is not None and _selectors(expected) is not None
    extra = [] if both_aggregated else covers(want, have)
    missing = covers(have, want)
    changed = _union_or_replace(out, "rules", (have, want), (missing, extra), remove_extra) or changed
    return Reconciled("update" if changed else "none", out, _protected(existing), missing, extra)


def _subject_key(subject: Mapping[str, Any]) -> tuple[str, str, str, str]:
    return (
        subject.get("kind") or "",
        subject.get("apiGroup") or "",
        subject.get("name") or "",
        subject.get("namespace") or "",
    )


def _only_in(first: Sequence[Obj], second: Sequence[Obj]) -> list[Obj]:
    """``diffSubjectLists``' one side: the subjects of ``first`` not in ``second``, each once."""
    others = {_subject_key(s) for s in second}
    out: list[Obj] = []
    for subject in first:
        if _subject_key(subject) not in others and all(_subject_key(o) != _subject_key(subject) for o in out):
            out.append(subject)
    return out


def _role_ref(binding: Obj) -> tuple[str, str, str]:
    ref = binding.get("roleRef") or {}
    return (ref.get("apiGroup") or "", ref.get("kind") or "", ref.get("name") or "")


def reconcile_binding(existing: Obj, expected: Obj, remove_extra: bool = False) -> Reconciled:
    """``computeReconciledRoleBinding`` for a RoleBinding or ClusterRoleBinding."""
    if _role_ref(existing) != _role_ref(expected):
        return Reconciled("recreate", copy.deepcopy(expected), _protected(existing))
    out = copy.deepcopy(existing)
    changed = _merge_metadata(out, existing, expected)
    have, want = list(existing.get("subjects") or ()), list(expected.get("subjects") or ())
    missing, extra = _only_in(want, have), _only_in(have, want)
    changed = _union_or_replace(out, "subjects", (have, want), (missing, extra), remove_extra) or changed
    return Reconciled("update" if changed else "none", out, _protected(existing), missing, extra)
