"""``codec.encode_over`` (a status write's encoding reusing the stored bytes of the fields it carried
over from the stored object) gives exactly ``encode``'s bytes, and declines bytes it cannot vouch for."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.api.frozen import edit
from kbatch.api.meta import Resource
from kbatch.apiserver import APIServer
from kbatch.apiserver.codec import decode, encode, encode_over
from kbatch.apiserver.update import Current, _status_input, prepare_update, read_kv
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore

_TEXT = st.text(alphabet="ab-é\"\\", min_size=1, max_size=6)
_LABELS = st.one_of(st.none(), st.just({}), st.dictionaries(st.sampled_from(["a", "b", "x/y"]),
                                                            st.sampled_from(["1", "2", ""]), max_size=2))
_ANNOTATIONS = st.one_of(st.none(), st.just({}), st.dictionaries(st.sampled_from(["note", "k8s.io/x"]),
                                                                 _TEXT, max_size=2))


def _server() -> APIServer:
    return APIServer(MemoryStore(), builtin_registry(), now=lambda: datetime(2026, 1, 1, tzinfo=UTC),
                     rng=random.Random(3))


def _pod(labels: Any, annotations: Any, image: str) -> Pod:
    meta: dict[str, Any] = {"name": "p"}
    if labels is not None:
        meta["labels"] = labels
    if annotations is not None:
        meta["annotations"] = annotations
    return Pod.model_validate({"metadata": meta, "spec": {"containers": [
        {"name": "c", "image": image, "env": [{"name": "E", "value": image}],
         "resources": {"requests": {"cpu": "250m", "memory": "1.5Gi"}}}]}})


def _prepared(server: APIServer, model: type[Resource], name: str, change: Any) -> tuple[Resource, Current]:
    """A status write's new object over the stored one, prepared (the write's own decode as old)."""
    kind = server.kind(model)
    kv = read_kv(server, kind, "default", name)
    caller = decode(model, kv)
    change(caller)
    new = _status_input(kind, caller)
    new.metadata.namespace = "default"
    current = Current(kv, decode(model, kv), owned=True)
    prepare_update(server, kind, new, current, status=True, dry_run=False)
    new.metadata.__dict__["resource_version"] = None
    return new, current


@settings(max_examples=150)
@given(labels=_LABELS, annotations=_ANNOTATIONS, image=_TEXT, new_labels=_LABELS,
       new_annotations=_ANNOTATIONS, phase=st.sampled_from(["Pending", "Running", "Succeeded"]),
       message=st.one_of(st.none(), _TEXT))
def test_a_pod_status_write_encodes_as_encode_does(labels: Any, annotations: Any, image: str,
                                                   new_labels: Any, new_annotations: Any, phase: str,
                                                   message: str | None) -> None:
    server = _server()
    server.create(_pod(labels, annotations, image))

    def change(pod: Any) -> None:
        pod.metadata.labels = new_labels
        pod.metadata.annotations = new_annotations
        pod.status.phase = phase
        pod.status.message = message

    new, current = _prepared(server, Pod, "p", change)
    spliced = encode_over(new, current.obj, current.kv.value)
    assert spliced is not None
    assert spliced == encode(new)


@settings(max_examples=50)
@given(active=st.integers(0, 5), succeeded=st.integers(0, 5), label=st.sampled_from([None, {}, {"x": "1"}]))
def test_a_job_status_write_encodes_as_encode_does(active: int, succeeded: int, label: Any) -> None:
    server = _server()
    server.create(Job.model_validate({"metadata": {"name": "j"}, "spec": {"template": {"spec": {
        "restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}}}))

    def change(job: Any) -> None:
        job.status.active = active
        job.status.succeeded = succeeded
        job.metadata.labels = label if label is None else {**(job.metadata.labels or {}), **label}

    new, current = _prepared(server, Job, "j", change)
    spliced = encode_over(new, current.obj, current.kv.value)
    assert spliced is not None and spliced == encode(new)


def test_bytes_that_are_not_the_stored_objects_encoding_are_declined() -> None:
    server = _server()
    server.create(_pod({"a": "1"}, None, "busybox"))
    new, current = _prepared(server, Pod, "p", lambda pod: None)
    document = json.loads(current.kv.value)
    spaced = json.dumps(document).encode()  # same document, other bytes
    reordered = json.dumps({**document, "metadata": dict(reversed(document["metadata"].items()))},
                           separators=(",", ":")).encode()
    truncated = current.kv.value[:-40]
    for stored in (spaced, reordered, truncated, b""):
        assert encode_over(new, current.obj, stored) is None
    assert encode_over(new, current.obj, current.kv.value) == encode(new)


def test_a_missing_status_is_declined() -> None:
    server = _server()
    server.create(_pod(None, None, "busybox"))
    new, current = _prepared(server, Pod, "p", lambda pod: None)
    new.__dict__["status"] = None
    assert encode_over(new, current.obj, current.kv.value) is None


def test_a_hook_that_may_change_more_than_metadata_writes_what_it_returns() -> None:
    server = _server()
    server.create(_pod(None, None, "busybox"))

    def pin(request: Any) -> None:
        if request.subresource == "status":
            request.obj.spec.node_name = "pinned"  # in place: the taken spec is the decoded old's

    server.admission.add_mutating(Pod, pin)
    pod = server.get(Pod, "p", "default")
    out = server.update_status(pod)
    stored = server.store.range(b"/registry/pods/default/p").kvs[0]
    assert decode(Pod, stored) == out and out.spec.node_name == "pinned"


@settings(max_examples=50)
@given(phase=st.sampled_from(["Running", "Succeeded"]), labels=_LABELS, patch=st.booleans())
def test_writes_over_a_cached_old_store_what_they_return(phase: str, labels: Any, patch: bool) -> None:
    server = _server()
    server.create(_pod({"a": "1"}, {"note": "x"}, "busybox"))
    key = b"/registry/pods/default/p"
    held = server.decoded.shared(Pod, server.store.range(key).kvs[0])  # old comes from the cache
    before = held.model_dump()
    if patch:
        out = server.patch(Pod, "p", {"metadata": {"labels": labels}, "status": {"phase": phase}}, "default",
                           status=True)
    else:
        pod = edit(server.get(Pod, "p", "default"))
        pod.metadata.labels = labels
        pod.status.phase = phase  # type: ignore[union-attr]
        out = server.update_status(pod)
    stored = server.store.range(key).kvs[0]
    assert decode(Pod, stored) == out
    out = edit(out)
    out.metadata.resource_version = None
    assert stored.value == encode(out)
    assert held.model_dump() == before  # the shared old was not touched


_STEP = st.tuples(st.sampled_from(["patch", "update_status", "relabel"]), _LABELS,
                  st.sampled_from(["Pending", "Running"]), st.one_of(st.none(), _TEXT))


@settings(max_examples=60)
@given(steps=st.lists(_STEP, min_size=1, max_size=6))
def test_a_chain_of_status_writes_splices_from_where_the_last_one_put_the_carried_fields(
        steps: list[tuple[str, Any, str, str | None]]) -> None:
    """Status writes over a held object take the carried fields' place from the write that stored it
    (``DecodedCache.carried``), not from serializing the old metadata and status: every stored value is
    still exactly ``encode`` of the object the write returned, whatever wrote the version before."""
    server = _server()
    server.decoded.watching(Pod, 1)  # a watched kind: writes are held, with their carried layout
    server.create(_pod({"a": "1"}, None, "busybox"))
    key = b"/registry/pods/default/p"
    for verb, labels, phase, message in steps:
        before = server.store.range(key).kvs[0]
        if verb == "patch":
            body = {"metadata": {"labels": labels}, "status": {"phase": phase, "message": message}}
            out = server.patch(Pod, "p", body, "default", status=True)
        else:
            pod = edit(server.get(Pod, "p", "default"))
            pod.metadata.labels = labels
            if verb == "relabel":  # a main-resource write: stored by encode, no layout kept
                out = server.update(pod)
            else:
                pod.status.phase = phase  # type: ignore[union-attr]
                pod.status.message = message  # type: ignore[union-attr]
                out = server.update_status(pod)
        stored = server.store.range(key).kvs[0]
        expected = edit(out)
        expected.metadata.resource_version = None
        assert stored.value == encode(expected)
        assert decode(Pod, stored) == out
        if stored.mod_revision == before.mod_revision:
            continue  # a write that changed nothing: nothing stored, the layout stays the old one's
        carried = server.decoded.carried(stored)
        if verb == "relabel":
            assert carried is None
        else:
            assert carried is not None
            start, end = carried
            spec = json.loads(stored.value)["spec"]
            assert json.loads(b"{" + stored.value[start + 1:end] + b"}") == {"spec": spec}


def test_the_second_status_write_splices_without_serializing_the_first_ones_parts(monkeypatch: Any) -> None:
    import kbatch.apiserver.codec as codec

    server = _server()
    server.decoded.watching(Pod, 1)
    server.create(_pod(None, None, "busybox"))
    server.patch(Pod, "p", {"status": {"phase": "Running"}}, "default", status=True)
    found: list[int] = []
    real = codec._carried_in
    monkeypatch.setattr(codec, "_carried_in", lambda *a: found.append(1) or real(*a))
    out = server.patch(Pod, "p", {"status": {"phase": "Succeeded"}}, "default", status=True)
    stored = server.store.range(b"/registry/pods/default/p").kvs[0]
    expected = edit(out)
    expected.metadata.resource_version = None
    assert found == [] and stored.value == encode(expected)
