"""``kubectl get`` columns of the admission policies and their bindings (Kubernetes 1.37
``pkg/printers/internalversion/printers.go``).

ValidatingAdmissionPolicy: Name, Validations (their count), ParamKind (``apiVersion/kind`` or
``<unset>``), Age. MutatingAdmissionPolicy: Name, Mutations (their count), ParamKind, Age.
Bindings of both: Name, PolicyName, ParamRef (``namespace/name``, ``*/name`` without a namespace, the
selector as Go prints a ``LabelSelector`` value, or ``<unset>``), Age.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kbatch.api.printing import AGE, NAME, Column, Obj, Printer, at, creation_age, name_of

__all__ = ["BINDING", "MUTATING_POLICY", "POLICY", "param_ref_cell"]


def _param_kind_cell(obj: Obj) -> str:
    kind = at(obj, "spec", "paramKind")
    return f"{kind.get('apiVersion') or ''}/{kind.get('kind') or ''}" if kind is not None else "<unset>"


def _policy_cells(obj: Obj, now: datetime) -> list[Any]:
    count = len(at(obj, "spec", "validations") or ())
    return [name_of(obj), count, _param_kind_cell(obj), creation_age(obj, now)]


def _mutating_policy_cells(obj: Obj, now: datetime) -> list[Any]:
    count = len(at(obj, "spec", "mutations") or ())
    return [name_of(obj), count, _param_kind_cell(obj), creation_age(obj, now)]


_PARAM_KIND = Column(
    "ParamKind", description="ParamKind specifies the kind of resources used to parameterize this policy"
)

POLICY = Printer(
    (
        NAME,
        Column(
            "Validations",
            type="integer",
            description="Validations indicates the number of validation rules defined in this configuration",
        ),
        _PARAM_KIND,
        AGE,
    ),
    _policy_cells,
)

MUTATING_POLICY = Printer(
    (
        NAME,
        Column(
            "Mutations",
            type="integer",
            description="Mutation indicates the number of mutations rules defined in this configuration",
        ),
        _PARAM_KIND,
        AGE,
    ),
    _mutating_policy_cells,
)


def _go_selector(selector: Obj) -> str:
    """Go's generated ``(*LabelSelector).String()``."""
    labels = selector.get("matchLabels") or {}
    pairs = "".join(f"{k}: {labels[k]}," for k in sorted(labels))
    exprs = "".join(
        f"LabelSelectorRequirement{{Key:{e.get('key') or ''},Operator:{e.get('operator') or ''},"
        f"Values:[{' '.join(e.get('values') or [])}],}},"
        for e in selector.get("matchExpressions") or ()
    )
    return (
        f"&LabelSelector{{MatchLabels:map[string]string{{{pairs}}},"
        f"MatchExpressions:[]LabelSelectorRequirement{{{exprs}}},}}"
    )


def param_ref_cell(ref: Obj | None) -> str:
    if ref is None:
        return "<unset>"
    if ref.get("name"):
        return f"{ref.get('namespace')}/{ref['name']}" if ref.get("namespace") else f"*/{ref['name']}"
    if ref.get("selector") is not None:
        return _go_selector(ref["selector"])
    return "<unset>"


def _binding_cells(obj: Obj, now: datetime) -> list[Any]:
    return [
        name_of(obj),
        at(obj, "spec", "policyName") or "",
        param_ref_cell(at(obj, "spec", "paramRef")),
        creation_age(obj, now),
    ]


BINDING = Printer(
    (
        NAME,
        Column(
            "PolicyName",
            description="PolicyName indicates the policy definition which the policy binding binded to",
        ),
        Column(
            "ParamRef", description="ParamRef indicates the param resource which sets the configration param"
        ),
        AGE,
    ),
    _binding_cells,
)
