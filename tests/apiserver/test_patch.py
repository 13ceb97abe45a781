"""Patch: merge, JSON and strategic merge patches on the main resource and on status."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.errors import BadRequest, Conflict, InternalError, Invalid, UnsupportedMediaType
from kbatch.apiserver import APIServer
from kbatch.apiserver.jsonpatch import apply_json_patch, apply_merge_patch
from kbatch.apiserver.strategic import apply_strategic_patch
from tests.apiserver.kinds import Gadget, Widget


def make(server: APIServer) -> Widget:
    return server.create(Widget.model_validate({
        "metadata": {"name": "w", "namespace": "default", "labels": {"a": "1", "b": "2"},
                     "finalizers": ["example.com/x"]},
        "spec": {"size": 1, "tags": ["t1"], "containers": [
            {"name": "main", "image": "busybox", "ports": [{"containerPort": 80}],
             "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]},
            {"name": "side", "image": "envoy"}]}}))


def test_merge_patch_rfc7386_examples() -> None:
    assert apply_merge_patch({"a": "b"}, {"a": "c"}) == {"a": "c"}
    assert apply_merge_patch({"a": "b"}, {"b": "c"}) == {"a": "b", "b": "c"}
    assert apply_merge_patch({"a": "b"}, {"a": None}) == {}
    assert apply_merge_patch({"a": [{"b": "c"}]}, {"a": [1]}) == {"a": [1]}
    assert apply_merge_patch({"e": None}, {"a": 1}) == {"e": None, "a": 1}
    assert apply_merge_patch({}, {"a": {"bb": {"ccc": None}}}) == {"a": {"bb": {}}}


def test_json_patch_rfc6902_operations() -> None:
    doc = {"a": {"b": [1, 2]}, "c": "x"}
    out = apply_json_patch(doc, [
        {"op": "add", "path": "/a/b/-", "value": 3},
        {"op": "add", "path": "/a/b/0", "value": 0},
        {"op": "remove", "path": "/a/b/1"},
        {"op": "replace", "path": "/c", "value": "y"},
        {"op": "copy", "from": "/c", "path": "/d"},
        {"op": "move", "from": "/d", "path": "/e~1f"},
        {"op": "test", "path": "/e~1f", "value": "y"},
    ])
    assert out == {"a": {"b": [0, 2, 3]}, "c": "y", "e/f": "y"}
    assert doc == {"a": {"b": [1, 2]}, "c": "x"}
    with pytest.raises(Invalid, match="the server rejected our request due to an error in our request"):
        apply_json_patch(doc, [{"op": "test", "path": "/c", "value": "nope"}])
    with pytest.raises(Invalid):
        apply_json_patch(doc, [{"op": "remove", "path": "/zzz"}])
    with pytest.raises(BadRequest):
        apply_json_patch(doc, {"op": "add"})


def test_strategic_merge_by_key_and_directives() -> None:
    doc = {"metadata": {"finalizers": ["a"], "ownerReferences": [{"uid": "1", "name": "x"}]},
           "spec": {"containers": [{"name": "main", "image": "v1", "env": [{"name": "A", "value": "1"}]},
                                   {"name": "side", "image": "s"}],
                    "tolerations": [{"key": "k"}]}}
    patch = {"metadata": {"finalizers": ["b"], "ownerReferences": [{"uid": "2", "name": "y"}]},
             "spec": {"containers": [{"name": "main", "image": "v2", "env": [{"name": "B", "value": "2"}]},
                                     {"name": "side", "$patch": "delete"},
                                     {"name": "new", "image": "n"}],
                      "tolerations": [{"key": "other"}]}}
    out = apply_strategic_patch(doc, patch)
    # upstream mergeSortedSlice: an item the live list lacks goes before the server-only item it meets
    assert out["metadata"]["finalizers"] == ["b", "a"]
    assert [r["uid"] for r in out["metadata"]["ownerReferences"]] == ["2", "1"]
    assert out["spec"]["containers"] == [
        {"name": "main", "image": "v2", "env": [{"name": "B", "value": "2"}, {"name": "A", "value": "1"}]},
        {"name": "new", "image": "n"}]
    assert out["spec"]["tolerations"] == [{"key": "other"}]  # no merge key: replaced
    replaced = apply_strategic_patch(doc, {"spec": {"$patch": "replace", "tolerations": []}})
    assert replaced["spec"] == {"tolerations": []}
    retained = apply_strategic_patch(doc, {"spec": {"$retainKeys": ["containers"]}})
    assert set(retained["spec"]) == {"containers"}
    dropped = apply_strategic_patch(doc, {"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}})
    assert dropped["metadata"]["finalizers"] == []
    listed = apply_strategic_patch(doc, {"spec": {"containers": [{"$patch": "replace"}, {"name": "only"}]}})
    assert listed["spec"]["containers"] == [{"name": "only"}]


def test_delete_from_primitive_list_of_a_non_list_is_an_internal_error() -> None:
    """Upstream's ErrBadArgType (mergepatch), which the API server answers with a 500."""
    doc = {"spec": {"priority": 5, "hostname": "h"}}
    with pytest.raises(InternalError, match=r"^expected a \[\]interface \{\}, but received a float64$"):
        apply_strategic_patch(doc, {"spec": {"$deleteFromPrimitiveList/priority": [5]}})
    with pytest.raises(InternalError, match=r"received a string$"):
        apply_strategic_patch(doc, {"spec": {"$deleteFromPrimitiveList/hostname": ["h"]}})
    absent = apply_strategic_patch(doc, {"spec": {"$deleteFromPrimitiveList/absent": ["x"]}})
    assert absent["spec"]["absent"] == []


def test_merge_patch_on_server(server: APIServer) -> None:
    make(server)
    out = server.patch(Widget, "w", {"metadata": {"labels": {"a": None, "c": "3"}}, "spec": {"size": 2}},
                       "default")
    assert out.metadata.labels == {"b": "2", "c": "3"}
    assert out.spec.size == 2 and out.metadata.generation == 2  # type: ignore[union-attr]


def test_json_patch_on_server(server: APIServer) -> None:
    make(server)
    out = server.patch(Widget, "w", [{"op": "replace", "path": "/spec/size", "value": 5},
                                     {"op": "add", "path": "/spec/tags/-", "value": "t2"}],
                       "default", patch_type="json")
    assert out.spec.size == 5 and out.spec.tags == ["t1", "t2"]  # type: ignore[union-attr]


def test_strategic_patch_on_server(server: APIServer) -> None:
    make(server)
    out = server.patch(Widget, "w", {"spec": {"containers": [{"name": "main", "env": [{"name": "C",
                                                                                        "value": "3"}]}]}},
                       "default", patch_type="strategic")
    main = out.spec.containers[0]  # type: ignore[union-attr,index]
    # a new item goes first (upstream mergeSortedSlice), the live items keep their order
    assert [e.name for e in main.env or ()] == ["C", "A", "B"] and main.image == "busybox"
    assert len(out.spec.containers or ()) == 2  # type: ignore[union-attr]


def test_strategic_patch_unsupported_for_custom_resources(server: APIServer) -> None:
    server.create(Gadget.model_validate({"metadata": {"name": "g", "namespace": "default"}}))
    with pytest.raises(UnsupportedMediaType) as err:
        server.patch(Gadget, "g", {"spec": {}}, "default", patch_type="strategic")
    assert err.value.code == 415


def test_status_patch_changes_only_status(server: APIServer) -> None:
    make(server)
    out = server.patch(Widget, "w", {"status": {"phase": "Running"}, "spec": {"size": 9}}, "default",
                       status=True)
    assert out.status.phase == "Running" and out.spec.size == 1  # type: ignore[union-attr]
    main = server.patch(Widget, "w", {"status": {"phase": "X"}}, "default")
    assert main.status.phase == "Running"  # type: ignore[union-attr]


def test_patch_with_stale_resource_version_conflicts(server: APIServer) -> None:
    obj = make(server)
    server.patch(Widget, "w", {"spec": {"size": 2}}, "default")
    with pytest.raises(Conflict):
        server.patch(Widget, "w", {"metadata": {"resourceVersion": obj.metadata.resource_version},
                                   "spec": {"size": 3}}, "default")


def test_patch_producing_unknown_field_is_bad_request(server: APIServer) -> None:
    make(server)
    rev = server.store.revision
    with pytest.raises(BadRequest, match=r'strict decoding error: unknown field "spec\.bogus"'):
        server.patch(Widget, "w", {"spec": {"bogus": 1}}, "default")
    assert server.store.revision == rev


def test_patch_failing_validation_writes_nothing(server: APIServer) -> None:
    make(server)
    rev = server.store.revision
    with pytest.raises(Invalid, match=r"spec\.size"):
        server.patch(Widget, "w", {"spec": {"size": -3}}, "default")
    assert server.store.revision == rev


def test_dry_run_patch(server: APIServer) -> None:
    make(server)
    rev = server.store.revision
    out = server.patch(Widget, "w", {"spec": {"size": 7}}, "default", dry_run=True)
    assert out.spec.size == 7 and server.store.revision == rev  # type: ignore[union-attr]


def test_patch_that_removes_last_finalizer_of_terminating_object_deletes_it(server: APIServer) -> None:
    make(server)
    server.delete(Widget, "w", "default")
    server.patch(Widget, "w", {"metadata": {"finalizers": None}}, "default")
    assert server.list(Widget).items == []


# A status patch naming only metadata/status decodes just those parts (patch._decode_status_patch);
# whatever does not decode cleanly takes the full decode, so errors and warnings are as before.

def test_status_only_patch_with_a_wrong_type_is_bad_request_with_path(server: APIServer) -> None:
    make(server)
    rev = server.store.revision
    with pytest.raises(BadRequest, match=r"status\.phase"):
        server.patch(Widget, "w", {"status": {"phase": 5}}, "default", status=True)
    assert server.store.revision == rev


def test_status_only_patch_unknown_field_strict_and_warn(server: APIServer) -> None:
    make(server)
    rev = server.store.revision
    with pytest.raises(BadRequest, match=r'strict decoding error: unknown field "status\.bogus"'):
        server.patch(Widget, "w", {"status": {"bogus": 1}}, "default", status=True)
    assert server.store.revision == rev
    out, warnings = server.unstructured.patch(
        Widget.api_info.api_version, "Widget", "w", {"status": {"phase": "Up", "bogus": 1}},
        namespace="default", status=True, field_validation="Warn")
    assert warnings == ['unknown field "status.bogus"'] and out["status"]["phase"] == "Up"


def test_status_only_patch_keeps_the_stored_spec(server: APIServer) -> None:
    make(server)
    out = server.patch(Widget, "w", {"metadata": {"labels": {"c": "3"}}, "status": {"phase": "Up"}},
                       "default", status=True)
    again = server.get(Widget, "w", "default")
    assert out == again and again.spec.size == 1 and again.status.phase == "Up"  # type: ignore[union-attr]
    assert again.metadata.labels == {"a": "1", "b": "2", "c": "3"}


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                                max_size=3), max_leaves=10)


@given(_JSON)
def test_a_test_op_matches_any_value_to_itself(value: object) -> None:
    assert apply_json_patch({"x": value}, [{"op": "test", "path": "/x", "value": value}]) == {"x": value}


@given(st.booleans(), st.integers(min_value=-1, max_value=2))
def test_a_test_op_never_matches_a_bool_to_a_number(flag: bool, number: int) -> None:
    # json-patch v4.13.0 lazyNode.equal compares scalars by their JSON text: true is never 1
    with pytest.raises(Invalid):
        apply_json_patch({"x": number}, [{"op": "test", "path": "/x", "value": flag}])
