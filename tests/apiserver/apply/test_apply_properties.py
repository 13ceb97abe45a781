"""Invariants of server-side apply (KEP-555; structured-merge-diff ``merge/update.go``), property-tested
on the pure planner (:func:`kbatch.apiserver.apply.plan.plan_apply`) and, for the write path, on the
API server."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.errors import Conflict
from kbatch.apiserver.apply.fieldset import members
from kbatch.apiserver.apply.managed import decode_entries
from kbatch.apiserver.apply.plan import ApplyRequest, plan_apply
from tests.apiserver.apply.conftest import make_apiserver

LABEL_KEYS, VALUES = ["a", "b", "c"], ["1", "2"]
FINALIZERS = ["x.io/a", "x.io/b", "x.io/c"]

labels = st.dictionaries(st.sampled_from(LABEL_KEYS), st.sampled_from(VALUES), max_size=3)
finalizers = st.lists(st.sampled_from(FINALIZERS), unique=True, max_size=3)
container = st.fixed_dictionaries({"image": st.sampled_from(["i1", "i2"])},
                                  optional={"args": st.lists(st.integers(0, 2), max_size=2)})
containers = st.dictionaries(st.sampled_from(["m", "n", "o"]), container, max_size=3).map(
    lambda d: [{"name": k, **v} for k, v in d.items()])
spec = st.fixed_dictionaries({}, optional={"replicas": st.integers(0, 2), "mode": st.sampled_from(["x", "y"]),
                                           "containers": containers})


@st.composite
def configs(draw: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "t"}
    if draw(st.booleans()):
        meta["labels"] = draw(labels)
    if draw(st.booleans()):
        meta["finalizers"] = draw(finalizers)
    out = {"apiVersion": "v1", "kind": "Thing", "metadata": meta}
    body = draw(spec)
    if body:
        out["spec"] = body
    return out


def plan(live: dict[str, Any] | None, config: dict[str, Any], manager: str, *, force: bool = False,
         now: str = "2026-01-01T00:00:00Z") -> dict[str, Any]:
    return plan_apply(live, copy.deepcopy(config), ApplyRequest(manager, "v1", now, force))


def owned(doc: dict[str, Any], manager: str) -> frozenset[tuple[str, ...]]:
    entry = decode_entries(doc["metadata"].get("managedFields")).get((manager, "Apply", ""))
    return entry.fields if entry is not None else frozenset()


def values(doc: dict[str, Any]) -> dict[tuple[str, ...], Any]:
    return members(doc, skip=frozenset({"status"}))


def set_values(doc: dict[str, Any]) -> dict[tuple[str, ...], Any]:
    """The members a configuration sets; an empty granular list or map merges nothing into the
    object (structured-merge-diff merges it item by item), so it is left out."""
    return {p: v for p, v in values(doc).items() if v != [] and v != {}}


@given(configs(), configs())
def test_apply_is_idempotent(other: dict[str, Any], config: dict[str, Any]) -> None:
    live = plan(None, other, "bob")
    once = plan(live, config, "alice", force=True)
    twice = plan(once, config, "alice", now="2026-02-02T00:00:00Z")  # no conflict with its own result
    assert twice == once  # nothing changes, not even the entry's time


@given(configs(), st.sampled_from(LABEL_KEYS))
def test_field_owned_only_by_the_applier_disappears_when_dropped(config: dict[str, Any], key: str) -> None:
    config["metadata"].setdefault("labels", {})[key] = "1"
    live = plan(None, config, "alice")
    dropped = copy.deepcopy(config)
    del dropped["metadata"]["labels"][key]
    out = plan(live, dropped, "alice")
    assert key not in (out["metadata"].get("labels") or {})
    assert values(out).keys() <= values(live).keys() | values(dropped).keys()


@st.composite
def subconfig(draw: Any, config: dict[str, Any]) -> dict[str, Any]:
    """A part of ``config`` with the same values (what a co-owner could apply)."""
    meta = config["metadata"]
    out: dict[str, Any] = {"apiVersion": "v1", "kind": "Thing", "metadata": {"name": "t"}}
    if "labels" in meta:
        out["metadata"]["labels"] = {k: v for k, v in meta["labels"].items() if draw(st.booleans())}
    if "finalizers" in meta:
        out["metadata"]["finalizers"] = [f for f in meta["finalizers"] if draw(st.booleans())]
    body = config.get("spec") or {}
    part = {k: v for k, v in body.items() if k != "containers" and draw(st.booleans())}
    if "containers" in body:
        part["containers"] = [c for c in body["containers"] if draw(st.booleans())]
    if part:
        out["spec"] = part
    return out


@given(st.data())
def test_co_owned_fields_survive_and_equal_values_never_conflict(data: st.DataObject) -> None:
    config = data.draw(configs())
    live = plan(None, config, "alice")
    part = data.draw(subconfig(config))
    shared = plan(live, part, "bob")  # same values: never a conflict
    out = plan(shared, {"apiVersion": "v1", "kind": "Thing", "metadata": {"name": "t"}}, "alice")
    kept = values(out)
    for path, value in set_values(part).items():
        assert kept.get(path) == value, path
    assert not owned(out, "alice")


@given(configs(), configs())
def test_force_always_succeeds_and_transfers_ownership(first: dict[str, Any], second: dict[str, Any]) -> None:
    live = plan(None, first, "alice")
    before = values(live)
    out = plan(live, second, "bob", force=True)
    now = values(out)
    applied = set_values(second)
    for path, value in applied.items():
        assert now.get(path) == value, path
    assert owned(out, "bob") == frozenset(values(second))
    changed = {p for p, v in applied.items() if before.get(p, object()) != v}
    assert not owned(out, "alice") & changed


@given(configs(), configs())
def test_without_force_a_changed_owned_field_conflicts(first: dict[str, Any], second: dict[str, Any]) -> None:
    live = plan(None, first, "alice")
    before = values(live)
    changed = {p for p, v in values(plan(live, second, "bob", force=True)).items()
               if before.get(p, object()) != v}
    try:
        plan(live, second, "bob")
    except Conflict as err:
        fields = {c.field for c in err.details.causes}
        assert fields and changed & owned(live, "alice")
    else:
        assert not changed & owned(live, "alice")


@settings(max_examples=25, deadline=None)
@given(labels, st.dictionaries(st.sampled_from(LABEL_KEYS), st.sampled_from(VALUES), max_size=2))
def test_applying_the_same_pod_twice_bumps_no_resource_version(lab: dict[str, str],
                                                               ann: dict[str, str]) -> None:
    api = make_apiserver()
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "p", "namespace": "default", "labels": lab, "annotations": ann},
           "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
    first = api.apply(copy.deepcopy(pod), field_manager="alice")
    second = api.apply(copy.deepcopy(pod), field_manager="alice")
    assert second.metadata.resource_version == first.metadata.resource_version
    assert second.to_dict() == first.to_dict()


label_ops = st.lists(st.tuples(st.sampled_from(["apply", "patch"]), st.sampled_from(["alice", "bob", "carl"]),
                               st.dictionaries(st.sampled_from(LABEL_KEYS),
                                               st.one_of(st.none(), st.sampled_from(VALUES)), max_size=3),
                               st.booleans()),
                     min_size=1, max_size=6)


@settings(max_examples=30, deadline=None)
@given(label_ops)
def test_owned_fields_always_exist_and_applied_values_hold(ops: list[Any]) -> None:
    """After any mix of applies (forced or not) and tracked patches, every label a manager owns is on
    the object, and a successful apply leaves each label it sets with its value."""
    from kbatch.api.core_v1 import Pod
    from kbatch.apiserver.apply.tracking import field_manager

    api = make_apiserver()
    api.create(Pod.model_validate({"metadata": {"name": "p"},
                                   "spec": {"containers": [{"name": "c", "image": "i"}]}}))
    for kind, manager, change, force in ops:
        if kind == "patch":
            with field_manager(manager):
                out = api.patch(Pod, "p", {"metadata": {"labels": change}}, "default")
        else:
            applied = {k: v for k, v in change.items() if v is not None}
            config = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": applied}}
            try:
                out = api.apply(config, field_manager=manager, force=force)
            except Conflict:
                assert not force
                continue
            assert all((out.metadata.labels or {}).get(k) == v for k, v in applied.items())
        labels = out.metadata.labels or {}
        for entry in out.metadata.managed_fields or ():
            owned = ((entry.fields_v1 or {}).get("f:metadata") or {}).get("f:labels") or {}
            assert {k[2:] for k in owned if k.startswith("f:")} <= labels.keys(), entry.manager


@given(st.lists(st.sampled_from("abcdef"), unique=True), st.lists(st.sampled_from("abcdef"), unique=True))
def test_merged_list_order(live: list[str], applied: list[str]) -> None:
    """structured-merge-diff's ordered merge of an associative list: every item once; the applied
    items in the applied order; the live-only items in their live order."""
    from kbatch.apiserver.apply.merge import merge_object

    def doc(names: list[str]) -> dict[str, Any]:
        return {"spec": {"containers": [{"name": n} for n in names]}}

    out = [c["name"] for c in merge_object(doc(live), doc(applied))["spec"]["containers"]]
    assert sorted(out) == sorted(set(live) | set(applied))
    assert [n for n in out if n in applied] == applied
    assert [n for n in out if n not in applied] == [n for n in live if n not in applied]
