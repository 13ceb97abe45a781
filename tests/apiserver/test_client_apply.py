"""Client-side apply (``kbatch apply`` and ``ControlPlane.apply``): the last-applied annotation, the
three-way merge patch, and the one apply path both use."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.apiserver.client_apply import LAST_APPLIED, last_applied, three_way_patch, with_last_applied
from kbatch.apiserver.jsonpatch import apply_merge_patch
from kbatch.runtime.controlplane import ControlPlane


def test_three_way_patch() -> None:
    original = {"spec": {"parallelism": 1, "suspend": True, "list": [1]}}
    modified = {"spec": {"parallelism": 2, "list": [1]}}
    current = {"spec": {"parallelism": 1, "suspend": True, "list": [1, "defaulted"], "server": "x"}}
    assert three_way_patch(original, modified, current) == {"spec": {"parallelism": 2, "suspend": None}}
    assert three_way_patch(modified, modified, {"spec": {"parallelism": 2, "list": [1]}}) == {}


def test_last_applied_annotation_holds_the_manifest() -> None:
    obj = with_last_applied({"kind": "Job", "metadata": {"name": "pi", "annotations": {LAST_APPLIED: "old"}}})
    text = obj["metadata"]["annotations"][LAST_APPLIED]
    assert text.endswith("\n")
    assert json.loads(text) == {"kind": "Job", "metadata": {"name": "pi", "annotations": {}}}
    assert last_applied(obj) == json.loads(text)
    assert last_applied({"metadata": {"annotations": {LAST_APPLIED: "{not json"}}}) is None


scalars = st.one_of(st.integers(-3, 3), st.sampled_from(["a", "b"]), st.booleans())
keys = st.sampled_from(["a", "b", "c", "d"])
docs = st.recursive(scalars | st.lists(scalars, max_size=2),
                    lambda inner: st.dictionaries(keys, inner, max_size=3), max_leaves=8)
objects = st.dictionaries(keys, docs, max_size=4)


def _paths(doc: Any, prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], Any]:
    """Leaf paths of a JSON object (a non-empty object is not a leaf)."""
    out: dict[tuple[str, ...], Any] = {}
    for key, value in doc.items():
        if isinstance(value, dict) and value:
            out |= _paths(value, (*prefix, key))
        else:
            out[(*prefix, key)] = value
    return out


@settings(max_examples=300, deadline=None)
@given(objects, objects, objects)
def test_the_patched_object_has_the_manifest_and_keeps_what_nobody_applied(
        last: dict[str, Any], modified: dict[str, Any], live: dict[str, Any]) -> None:
    """Applied with the API layer's merge patch, the three-way patch gives an object that holds every
    leaf of the new manifest (a list the manifest repeats from the last apply may keep a live list),
    has none of the leaves only the last applied configuration had, and keeps the live
    leaves nobody ever applied."""
    patch = three_way_patch(last, modified, live)
    result = apply_merge_patch(live, patch)
    got = _paths(result)
    before, was = _paths(last), _paths(live)
    for path, value in _paths(modified).items():
        repeated_list = isinstance(value, list) and before.get(path, object()) == value \
            and isinstance(was.get(path), list)
        if not (isinstance(value, dict) and not value):
            assert path in got and (got[path] == value or repeated_list), (path, patch)
    for path in before:
        if not any(path[:i] == p[:i] for p in _paths(modified) for i in range(1, len(path) + 1)):
            assert not any(g[:len(path)] == path for g in got), (path, patch)
    assert three_way_patch(last, modified, live) == patch  # pure


def test_control_plane_apply_is_kubectl_apply() -> None:
    cp = ControlPlane(controllers="garbage-collector")
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "p", "labels": {"a": "1", "b": "2"}},
           "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
    [created] = cp.apply(pod)
    recorded = json.loads(created.metadata.annotations[LAST_APPLIED])  # as kubectl records it
    assert recorded["metadata"] == {"name": "p", "namespace": "default", "labels": {"a": "1", "b": "2"},
                                    "annotations": {}}
    assert {k: v for k, v in recorded.items() if k != "metadata"} == {k: v for k, v in pod.items()
                                                                      if k != "metadata"}
    assert created.metadata.namespace == "default"
    pod["metadata"]["labels"] = {"a": "1"}  # dropping a label from the manifest removes it
    [updated] = cp.apply(pod)
    assert updated.metadata.labels == {"a": "1"} and updated.metadata.uid == created.metadata.uid
    [same] = cp.apply(pod)
    assert same.metadata.resource_version == updated.metadata.resource_version  # unchanged: no write
