"""Go's ``omitempty`` on ObjectMeta's collections: an empty labels/annotations/ownerReferences/
finalizers is not stored and reads back absent, whichever write path produced it."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.frozen import edit
from kbatch.apiserver import APIServer
from tests.apiserver.conftest import make_server
from tests.apiserver.kinds import Widget

_FIELDS = {"labels": {}, "annotations": {}, "finalizers": [], "ownerReferences": []}


def _stored(server: APIServer, name: str) -> dict:
    kv = server.store.range(b"/registry/widgets/default/" + name.encode()).kvs[0]
    return json.loads(kv.value)["metadata"]


@settings(max_examples=40, deadline=None)
@given(st.sets(st.sampled_from(sorted(_FIELDS))), st.sampled_from(["create", "update", "merge", "strategic"]))
def test_empty_meta_collections_are_not_stored(empty: set[str], path: str) -> None:
    server = make_server()
    meta = {"name": "c", "namespace": "default", **{k: _FIELDS[k] for k in empty}}
    if path == "create":
        out = server.create(Widget.model_validate({"metadata": meta}))
    else:
        full = {"labels": {"a": "b"}, "annotations": {"x": "y"}, "finalizers": ["example.com/f"]}
        server.create(Widget.model_validate({"metadata": {"name": "c", "namespace": "default", **full}}))
        change = {k: _FIELDS[k] for k in empty if k != "ownerReferences"}
        if path == "update":
            obj = edit(server.get(Widget, "c", "default"))
            for key, value in change.items():
                setattr(obj.metadata, {"ownerReferences": "owner_references"}.get(key, key), value)
            out = server.update(obj)
        else:
            patch = {"metadata": change}
            if path == "strategic" and "finalizers" in change:
                patch["metadata"]["$deleteFromPrimitiveList/finalizers"] = ["example.com/f"]
                del patch["metadata"]["finalizers"]
            out = server.patch(Widget, "c", patch, "default", patch_type=path)  # type: ignore[arg-type]
    stored = _stored(server, "c")
    assert not any(value == [] or value == {} for value in stored.values()), stored
    assert out.to_dict()["metadata"] == {**stored, "resourceVersion": out.metadata.resource_version}
    assert server.get(Widget, "c", "default").to_dict() == out.to_dict()
