"""Untyped entry points: fieldValidation Strict/Warn/Ignore, decode errors, dict in/out."""

from __future__ import annotations

import pytest

from kbatch.api.errors import BadRequest
from kbatch.apiserver import APIServer

WIDGET = {"apiVersion": "v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "default"},
          "spec": {"size": 1, "bogus": True, "containers": [{"name": "c", "extra": 1}]}}


def test_strict_rejects_every_unknown_field(server: APIServer) -> None:
    """A create or update body decodes through ``transformDecodeError`` (k8s.io/apiserver
    ``pkg/endpoints/handlers/create.go``, ``update.go``: a strict decoding error is not a Warn, so the
    default branch wraps it), so the message names the kind and version, as kubectl shows it:
    ``Job in version "v1" cannot be handled as a Job: strict decoding error: unknown field …``. A
    patch's strict error stays bare (``patch.go`` ``applyPatchToCurrentObject``: ``NewBadRequest`` of
    the strict decoding error), see tests/apiserver/test_patch.py."""
    with pytest.raises(BadRequest) as err:
        server.unstructured.create(WIDGET)
    assert err.value.message == ('Widget in version "v1" cannot be handled as a Widget: strict decoding '
                                 'error: unknown field "spec.bogus", '
                                 'unknown field "spec.containers[0].extra"')
    assert server.list(server.kind_for("v1", "Widget").model).items == []
    good = {**WIDGET, "spec": {"size": 1}}
    server.unstructured.create(good)
    with pytest.raises(BadRequest) as err:
        server.unstructured.update({**WIDGET, "spec": {"size": 2, "bogus": 1}})
    assert err.value.message == ('Widget in version "v1" cannot be handled as a Widget: strict decoding '
                                 'error: unknown field "spec.bogus"')
    with pytest.raises(BadRequest) as err:
        server.unstructured.patch("v1", "Widget", "w", {"spec": {"bogus": 1}}, namespace="default")
    assert err.value.message == 'strict decoding error: unknown field "spec.bogus"'


def test_warn_drops_and_warns(server: APIServer) -> None:
    out, warnings = server.unstructured.create(WIDGET, field_validation="Warn")
    assert warnings == ['unknown field "spec.bogus"', 'unknown field "spec.containers[0].extra"']
    assert out["spec"] == {"size": 1, "color": "blue", "containers": [{"name": "c"}]}
    assert WIDGET["spec"]["bogus"] is True  # input untouched


def test_ignore_drops_silently(server: APIServer) -> None:
    out, warnings = server.unstructured.create(WIDGET, field_validation="Ignore")
    assert warnings == [] and "bogus" not in out["spec"]


def test_type_errors_name_the_field(server: APIServer) -> None:
    bad = {"apiVersion": "v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": "big"}}
    with pytest.raises(BadRequest) as err:
        server.unstructured.create(bad)
    # kube-apiserver's transformDecodeError around Go's UnmarshalTypeError
    assert err.value.message == ('Widget in version "v1" cannot be handled as a Widget: json: cannot '
                                 'unmarshal string into Go struct field WidgetSpec.spec.size of type int32')
    assert err.value.details.causes[0].field == "spec.size"  # type: ignore[union-attr,index]


def test_unknown_kind(server: APIServer) -> None:
    with pytest.raises(BadRequest, match='no matches for kind "Nope" in version "v1"'):
        server.unstructured.create({"apiVersion": "v1", "kind": "Nope", "metadata": {"name": "x"}})


def test_round_trip_get_list_update_patch_delete(server: APIServer) -> None:
    created, _ = server.unstructured.create({"apiVersion": "v1", "kind": "Widget",
                                             "metadata": {"name": "w"}, "spec": {"size": 1}},
                                            namespace="default")
    got = server.unstructured.get("v1", "Widget", "w", "default")
    assert got == created
    got["spec"]["size"] = 2
    updated, _ = server.unstructured.update(got)
    assert updated["metadata"]["generation"] == 2
    patched, _ = server.unstructured.patch("v1", "Widget", "w", {"status": {"phase": "Up"}},
                                           namespace="default", status=True)
    assert patched["status"] == {"phase": "Up"}
    listed = server.unstructured.list("v1", "Widget", "default")
    assert listed["kind"] == "WidgetList" and listed["items"] == [patched]
    with pytest.raises(BadRequest, match=r"the name of the object \(w\) does not match the name on the URL"):
        server.unstructured.update(patched, name="other")
    assert server.unstructured.delete("v1", "Widget", "w", "default") is None
