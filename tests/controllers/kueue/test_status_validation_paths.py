"""The CRD schema walker's model fast path finds exactly the errors of its general path.

Kueue's kinds are CRDs (``kbatch.api.strategies.kueue``): every status write of a Workload or queue
is validated against the CRD schema, ratcheted against the stored status (KEP-4008). The walker
reads a model's properties through attributes resolved once per (model, schema node) and skips
unchanged or absent ones before any call; the general path reads any value property by property
(:func:`kbatch.api.strategies.kueue.schema._properties`). Both must give the same errors, in the
same order, for creates, ratcheted status updates and transition rules.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.strategies.kueue import schema, strategy_for

_REASONS = st.sampled_from(["Pending", "QuotaReserved", "bad reason!", "", "Preempted"])
_TYPES = st.sampled_from(["QuotaReserved", "Admitted", "Evicted", "Finished", "bad type!"])
_MESSAGES = st.sampled_from(["", "ok", "x" * 40000])


def _condition(draw: Any) -> dict[str, Any]:
    return {
        "type": draw(_TYPES),
        "status": draw(st.sampled_from(["True", "False", "Unknown"])),
        "reason": draw(_REASONS),
        "message": draw(_MESSAGES),
        "lastTransitionTime": "2026-01-01T00:00:00Z",
        "observedGeneration": draw(st.sampled_from([None, 1, -1])),
    }


@st.composite
def _workload(draw: Any) -> Workload:
    status: dict[str, Any] = {}
    conditions = [_condition(draw) for _ in range(draw(st.integers(0, 3)))]
    if conditions:
        status["conditions"] = conditions
    if draw(st.booleans()):
        status["admission"] = {
            "clusterQueue": draw(st.sampled_from(["cq", "Bad_CQ", ""])),
            "podSetAssignments": [
                {"name": draw(st.sampled_from(["main", "Bad_Name"])), "count": draw(st.integers(-1, 3)),
                 "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": "1"}}
            ],
        }
    if draw(st.booleans()):
        status["requeueState"] = {"count": draw(st.integers(-1, 3))}
    if draw(st.booleans()):
        status["reclaimablePods"] = [{"name": "main", "count": draw(st.integers(-1, 2))}]
    return Workload.model_validate(
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "Workload",
            "metadata": {"name": "w", "namespace": "default"},
            "spec": {
                "queueName": draw(st.sampled_from(["lq", "Bad_Queue"])),
                "podSets": [
                    {"name": "main", "count": 1,
                     "template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}}
                ],
            },
            **({"status": status} if status else {}),
        }
    )


def _general(node: Any, value: Any, old: Any, path: str, has_old: bool, transitions: bool,
             ratchet: bool = False) -> list[Any]:
    missing = [] if transitions else [w for w in node.required if schema._get(value, w) is None]
    required = [schema.FieldError.required(schema._join(path, w)) for w in missing]
    return required + schema._properties(node, value, old, path, has_old, transitions, ratchet)


def _all_errors(new: Workload, old: Workload) -> list[str]:
    s = strategy_for(Workload)
    errs = s.validate(new) + s.validate_update(new, old) + s.validate_status_update(new, old)
    return [str(e) for e in errs]


@settings(max_examples=120, deadline=None)
@given(new=_workload(), old=_workload())
def test_the_model_fast_path_and_the_general_path_agree(new: Workload, old: Workload) -> None:
    fast = _all_errors(new, old)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(schema, "_object", _general)
        general = _all_errors(new, old)
    assert fast == general


@settings(max_examples=60, deadline=None)
@given(wl=_workload())
def test_an_unchanged_status_ratchets_to_no_error(wl: Workload) -> None:
    """A status write that changes nothing is not checked again (the stored one passed)."""
    s = strategy_for(Workload)
    copy = Workload.model_validate(wl.to_dict())
    status_errors = [e for e in s.validate_status_update(copy, wl) if e.field.startswith("status")]
    assert status_errors == []


def test_a_transition_rule_is_found_in_a_node_made_where_another_was_freed() -> None:
    """The memo of which schema nodes hold transition rules is per node, not per address: CPython
    gives a new node the address of one just freed, which held no such rule."""
    for _ in range(20):
        plain = schema.Node("object", rules=(schema.Rule(lambda new, old: True, "plain"),))
        assert schema.validate_transitions(plain, Workload(), Workload()) == []
        del plain
        ruled = schema.Node("object", rules=(schema.Rule(lambda new, old: False, "immutable", True),))
        errors = schema.validate_transitions(ruled, Workload(), Workload())
        assert [e.detail for e in errors] == ["immutable"]


def _admitted(resources: int) -> Workload:
    usage = {f"example.com/r{i}": "1" for i in range(resources)}
    return Workload.model_validate({
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
        "metadata": {"name": "w", "namespace": "default"},
        "spec": {"queueName": "lq", "podSets": [
            {"name": "main", "count": 1, "template": {"spec": {"containers": [{"name": "c"}]}}}]},
        "status": {"admission": {"clusterQueue": "cq", "podSetAssignments": [
            {"name": "main", "count": 1, "flavors": {"cpu": "default"}, "resourceUsage": usage}]}},
    })


def test_a_subtree_that_cannot_fail_is_not_walked(monkeypatch: pytest.MonkeyPatch) -> None:
    """``resourceUsage`` is a map of quantities with no constraint anywhere below it: no value can
    fail it, so the walker skips it instead of visiting each of its entries."""
    from kbatch.api.strategies.kueue import schemas

    visited: list[Any] = []
    real = schema._validate

    def spy(node: Any, value: Any, *args: Any, **kwargs: Any) -> Any:
        visited.append(node)
        return real(node, value, *args, **kwargs)

    monkeypatch.setattr(schema, "_validate", spy)
    s = strategy_for(Workload)
    assert s.validate(_admitted(40)) == []
    assert s.validate_status_update(_admitted(40), _admitted(1)) == []
    assert visited and not any(node is schemas.Q for node in visited)
    assert schema._inert(schemas.Q) and not schema._inert(schemas.CONDITIONS)


def test_a_repeated_map_key_is_a_duplicate_value() -> None:
    """``listType=map`` items are keyed (conditions by ``type``): a second item with the same key is
    ``Duplicate value``, shown as the key's fields; a ratcheted write still finds it."""
    cond = {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "",
            "lastTransitionTime": "2026-01-01T00:00:00Z"}
    new = _admitted(1)
    new.status.conditions = [Workload.model_validate(
        {"status": {"conditions": [cond]}}).status.conditions[0]] * 2
    errors = strategy_for(Workload).validate_status_update(new, _admitted(1))
    assert [(e.field, e.type.reason, e.bad_value) for e in errors] == [
        ("status.conditions[1]", "FieldValueDuplicate", {"type": "Admitted"})
    ]


_SCALAR_NODES = st.builds(
    schema.Node,
    type=st.sampled_from(["string", "integer", "quantity", "boolean"]),
    enum=st.one_of(st.none(), st.just(("Pending", "Admitted", 3))),
    pattern=st.one_of(st.none(), st.just(r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")),
    max_length=st.one_of(st.none(), st.integers(0, 8)),
    min_length=st.one_of(st.none(), st.integers(0, 3)),
    minimum=st.one_of(st.none(), st.integers(-1, 2)),
)
_SCALARS = st.one_of(st.text(max_size=10), st.integers(-3, 5), st.booleans(),
                     st.sampled_from(["Pending", "Admitted", "bad reason!", ""]))


@settings(max_examples=300, deadline=None)
@given(node=_SCALAR_NODES, value=_SCALARS)
def test_the_in_place_scalar_check_agrees_with_the_scalar_errors(node: Any, value: Any) -> None:
    """A plain scalar property is checked in place (its path built only for an error): the check
    passes exactly when the full check finds no error."""
    assert schema._scalar_ok(node, value) == (schema._scalar(node, value, "p") == [])


@settings(max_examples=120, deadline=None)
@given(wl=_workload(), keys=st.sampled_from([("type",), ("type", "reason"), ("type", "nope"), ("nope",)]),
       as_dicts=st.booleans())
def test_the_keys_read_in_one_pass_are_each_items_map_key(wl: Workload, keys: tuple[str, ...],
                                                         as_dicts: bool) -> None:
    """A ``listType=map`` list's keys, read with one getter per class, are each item's own key
    (a key the model lacks reads ``None``; dicts and mixed lists take the item-by-item way)."""
    items: list[Any] = list((wl.status.conditions if wl.status else None) or [])
    if as_dicts and items:
        items[0] = items[0].model_dump(by_alias=True)
    assert schema._keys(items, keys) == [schema._map_key(item, keys) for item in items]


def test_an_unchanged_list_item_is_not_walked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ratcheting skips a ``listType=map`` item equal to its stored one (by key) before any call:
    only the changed condition is visited."""
    visited: list[Any] = []
    real = schema._validate

    def spy(node: Any, value: Any, *args: Any, **kwargs: Any) -> Any:
        visited.append(value)
        return real(node, value, *args, **kwargs)

    def cond(type_: str, reason: str) -> dict[str, Any]:
        return {"type": type_, "status": "True", "reason": reason, "message": "",
                "lastTransitionTime": "2026-01-01T00:00:00Z"}

    old, new = _admitted(1), _admitted(1)
    old.status.conditions = Workload.model_validate(
        {"status": {"conditions": [cond("QuotaReserved", "QuotaReserved"), cond("Admitted", "Admitted")]}}
    ).status.conditions
    new.status.conditions = Workload.model_validate(
        {"status": {"conditions": [cond("QuotaReserved", "QuotaReserved"), cond("Admitted", "Changed")]}}
    ).status.conditions
    monkeypatch.setattr(schema, "_validate", spy)
    assert strategy_for(Workload).validate_status_update(new, old) == []
    conditions = [v for v in visited if type(v) is type(new.status.conditions[0])]
    assert [c.reason for c in conditions] == ["Changed"]


_REFS = st.sampled_from([
    None,
    {"group": "scheduling.k8s.io", "kind": "PriorityClass", "name": "high"},
    {"group": "scheduling.k8s.io", "kind": "PriorityClass", "name": "low"},
    {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "high"},
])


@st.composite
def _with_ref(draw: Any) -> Workload:
    wl = draw(_workload())
    ref = draw(_REFS)
    if ref is not None:
        data = wl.to_dict()
        data["spec"]["priorityClassRef"] = ref
        wl = Workload.model_validate(data)
    return wl


@settings(max_examples=150, deadline=None)
@given(new=_with_ref(), old=_with_ref())
def test_the_priority_reference_rules_read_the_conditions_last(new: Workload, old: Workload) -> None:
    """The rules on ``priorityClassRef`` while quota is reserved look at the references before the
    conditions (most workloads have none, so the conditions go unread): the same answers as the
    rules' own order (``workload_types.go``'s ``x-kubernetes-validations``)."""
    from kbatch.api.strategies.kueue import schemas

    def reserved(wl: Workload) -> bool:
        return any(c.type == "QuotaReserved" and c.status == "True"
                   for c in (wl.status.conditions if wl.status else None) or ())

    new_ref, old_ref = schemas._ref_of(new), schemas._ref_of(old)
    both = reserved(old) and new_ref is not None and old_ref is not None
    for attr in ("group", "kind"):
        expected = not both or getattr(new_ref, attr) == getattr(old_ref, attr)
        assert schemas._ref_field_fixed(attr)(new, old) == expected
    name_fixed = (not both or (new_ref.group, new_ref.kind) != ("scheduling.k8s.io", "PriorityClass")
                  or new_ref.name == old_ref.name)
    assert schemas._pod_priority_name_fixed(new, old) == name_fixed
    assert schemas._true(old.status.conditions if old.status else None, "QuotaReserved") == reserved(old)
