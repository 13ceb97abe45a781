"""The decisions of ``kbatch api-resources`` (kbatch/cli/api_resources.py) on discovery documents
built here: client-go's ``ServerPreferredResources`` and kubectl's filters, sort and printers."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kbatch.cli.api_resources import api_versions, preferred_resources, render, select, sort_resources

VERBS = ["create", "delete", "get", "list", "watch"]


def _entry(name: str, kind: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "singularName": name.rstrip("s"), "namespaced": True, "kind": kind,
            "verbs": VERBS, **extra}


DISCOVERY: dict[str, dict[str, Any]] = {
    "/api": {"versions": ["v1"]},
    "/api/v1": {"resources": [_entry("pods", "Pod", shortNames=["po"]), _entry("pods/status", "Pod"),
                              _entry("bindings", "Binding", verbs=[])]},
    "/apis": {"groups": [
        {"name": "example.com", "versions": [{"version": "v1beta1"}, {"version": "v1"}],
         "preferredVersion": {"version": "v1"}},
        {"name": "a.example.com", "versions": [{"version": "v2"}], "preferredVersion": {"version": "v2"}},
    ]},
    "/apis/example.com/v1beta1": {"resources": [_entry("widgets", "Widget"), _entry("gadgets", "Gadget")]},
    "/apis/example.com/v1": {"resources": [_entry("widgets", "Widget", categories=["all"])]},
    "/apis/a.example.com/v2": {"resources": [_entry("zebras", "Zebra", namespaced=False)]},
}


def _fetch(path: str) -> dict[str, Any]:
    return DISCOVERY[path]


def test_preferred_version_wins_and_subresources_are_left_out() -> None:
    found = {(r["group"], r["name"]): r["version"] for r in preferred_resources(_fetch)}
    # widgets: the preferred v1 overrides v1beta1; gadgets: only v1beta1 serves it; pods/status: no
    assert found == {("", "pods"): "v1", ("", "bindings"): "v1", ("example.com", "widgets"): "v1",
                     ("example.com", "gadgets"): "v1beta1", ("a.example.com", "zebras"): "v2"}


def test_table_sorted_by_group_then_name_without_verbless_entries() -> None:
    text = render(sort_resources(select(preferred_resources(_fetch)), ""))
    assert [line.split()[0] for line in text.splitlines()] == ["NAME", "pods", "zebras", "gadgets", "widgets"]
    assert text.splitlines()[1].split() == ["pods", "po", "v1", "true", "Pod"]


def test_name_and_json_outputs() -> None:
    kept = sort_resources(select(preferred_resources(_fetch), api_group="example.com"), "name")
    assert render(kept, "name") == "gadgets.example.com\nwidgets.example.com\n"
    listed = json.loads(render(kept, "json"))
    assert listed["kind"] == "APIResourceList" and listed["groupVersion"] == ""
    assert list(listed["resources"][1]) == ["name", "singularName", "namespaced", "group", "version", "kind",
                                            "verbs", "categories"]  # Go's field order, empty ones omitted


def test_versions_list_every_version_sorted() -> None:
    assert api_versions(_fetch) == ["a.example.com/v2", "example.com/v1", "example.com/v1beta1", "v1"]


RESOURCES = st.lists(st.fixed_dictionaries({
    "name": st.sampled_from(["a", "b", "c", "d"]), "group": st.sampled_from(["", "x.io", "y.io"]),
    "version": st.just("v1"), "kind": st.sampled_from(["K", "L"]), "namespaced": st.booleans(),
    "verbs": st.lists(st.sampled_from(VERBS), unique=True),
    "categories": st.lists(st.sampled_from(["all", "batch"]), unique=True)}), max_size=12)


@given(RESOURCES, st.sampled_from(["", "name", "kind"]))
def test_sort_is_a_stable_permutation_by_key_then_name(resources: list[dict[str, Any]], key: str) -> None:
    out = sort_resources(resources, key)
    field = key or "group"
    assert sorted(map(id, out)) == sorted(map(id, resources))
    assert [(r[field], r["name"]) for r in out] == sorted((r[field], r["name"]) for r in resources)


@given(RESOURCES, st.one_of(st.none(), st.sampled_from(["", "x.io"])), st.one_of(st.none(), st.booleans()),
       st.lists(st.sampled_from(VERBS), max_size=2), st.lists(st.sampled_from(["all", "batch"]), max_size=1))
def test_select_keeps_exactly_what_every_filter_allows(resources: list[dict[str, Any]], group: str | None,
                                                       namespaced: bool | None, verbs: list[str],
                                                       categories: list[str]) -> None:
    kept = select(resources, api_group=group, namespaced=namespaced, verbs=verbs, categories=categories)
    for r in resources:
        allowed = (bool(r["verbs"]) and (group is None or r["group"] == group)
                   and (namespaced is None or r["namespaced"] == namespaced)
                   and set(verbs) <= set(r["verbs"]) and set(categories) <= set(r["categories"]))
        assert (any(k is r for k in kept)) == allowed
