"""Fast paths of the update verb against the general code they shortcut.

An update whose ``old`` is its own decode (nothing cached) takes old's fields without copying them;
with ``old`` held in the decode cache it copies them: both must write and return the same. The
system fields carried over from old are written into ``__dict__`` at once: the same values and
fields set as assigning each one."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.base import share_fields_set
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import StatusError
from kbatch.api.meta import ObjectMeta
from kbatch.apiserver import APIServer
from kbatch.apiserver.codec import decode
from kbatch.apiserver.update import _carry_system_fields
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore

KEY = b"/registry/pods/default/p"


def _server(held: bool) -> APIServer:
    server = APIServer(MemoryStore(), builtin_registry(), now=lambda: datetime(2026, 1, 1, tzinfo=UTC),
                       rng=random.Random(5))
    server.create(Pod.model_validate({"metadata": {"name": "p", "labels": {"a": "1"}}, "spec": {
        "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}]}}))
    if held:
        server.decoded.shared(Pod, server.store.range(KEY).kvs[0])
    return server


def _change(pod: Pod, phase: str, ip: str | None, label: str, image: str) -> None:
    assert pod.status is not None
    pod.status.phase = phase
    pod.status.pod_ip = ip
    pod.metadata.labels = {"a": label}
    pod.spec.containers[0].image = image


def _outcome(server: APIServer, status: bool, change: tuple[Any, ...]) -> tuple[Any, ...]:
    pod = decode(Pod, server.store.range(KEY).kvs[0])  # the caller's own copy; the cache is not touched
    _change(pod, *change)
    try:
        out = server.update_status(pod) if status else server.update(pod)
    except StatusError as err:
        return ("error", type(err), err.message)
    kv = server.store.range(KEY).kvs[0]
    assert out == decode(Pod, kv)  # the answer is the stored version
    held = server.decoded.held(kv)
    assert held is None or held == out  # and what is kept is that version
    return ("ok", kv.value, kv.mod_revision)


@settings(max_examples=60, deadline=None)
@given(status=st.booleans(), phase=st.sampled_from(["Pending", "Running", "Failed"]),
       ip=st.sampled_from([None, "10.0.0.1"]), label=st.sampled_from(["1", "2"]),
       image=st.sampled_from(["i", "j"]))
def test_an_owned_old_writes_what_a_shared_old_writes(status: bool, phase: str, ip: str | None, label: str,
                                                      image: str) -> None:
    change = (phase, ip, label, image)
    assert _outcome(_server(False), status, change) == _outcome(_server(True), status, change)


def test_a_status_update_on_a_miss_keeps_the_cache_empty_and_writes_the_spec_once() -> None:
    server = _server(False)
    pod = decode(Pod, server.store.range(KEY).kvs[0])
    assert pod.status is not None
    pod.status.phase = "Running"
    before = server.decoded.objects
    out = server.update_status(pod)
    assert server.decoded.objects == before
    kv = server.store.range(KEY).kvs[0]
    assert out == decode(Pod, kv) and out.status.phase == "Running"  # type: ignore[union-attr]


def _carry_by_assignment(new: Pod, old: Pod) -> None:
    meta, old_meta = new.metadata, old.metadata
    if not meta.uid:
        meta.uid = old_meta.uid
    meta.creation_timestamp = old_meta.creation_timestamp
    # rest.BeforeUpdate: old's deletionTimestamp when it has one; old's grace when new sends none
    meta.deletion_timestamp = old_meta.deletion_timestamp or meta.deletion_timestamp
    meta.deletion_grace_period_seconds = (old_meta.deletion_grace_period_seconds
                                          if meta.deletion_grace_period_seconds is None
                                          else meta.deletion_grace_period_seconds)
    meta.generation = old_meta.generation
    meta.self_link = None
    meta.resource_version = old_meta.resource_version  # an unconditional update is filled in


WHEN = st.sampled_from([None, datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 2, 1, tzinfo=UTC)])
METAS = st.builds(ObjectMeta, name=st.just("p"), uid=st.sampled_from([None, "", "u1", "u2"]),
                  resource_version=st.sampled_from([None, "7", "8"]),
                  creation_timestamp=WHEN, deletion_timestamp=WHEN,
                  deletion_grace_period_seconds=st.sampled_from([None, 0, 30]),
                  generation=st.sampled_from([None, 1, 2]), self_link=st.sampled_from([None, "/x"]))


@given(new_meta=METAS, old_meta=METAS, share=st.booleans())
def test_carrying_system_fields_is_assigning_them(new_meta: ObjectMeta, old_meta: ObjectMeta,
                                                  share: bool) -> None:
    pods = []
    for _ in range(2):
        new = Pod.model_validate({"metadata": new_meta.to_dict(), "spec": {"containers": []}})
        if share:
            share_fields_set(new.metadata)  # the fields set may be a shared frozenset
        old = Pod.model_validate({"metadata": old_meta.to_dict(), "spec": {"containers": []}})
        pods.append((new, old))
    _carry_by_assignment(*pods[0])
    _carry_system_fields(*pods[1])
    expected, got = pods[0][0].metadata, pods[1][0].metadata
    assert got.__dict__ == expected.__dict__
    assert got.model_fields_set == expected.model_fields_set


def test_a_status_write_over_a_held_old_shares_its_spec_and_a_dry_run_shares_nothing() -> None:
    server = _server(True)
    server.decoded.watching(Pod, 1)  # as an informer's watch does: each write's object is held
    kv = server.store.range(KEY).kvs[0]
    old = server.decoded.held(kv)
    assert old is not None
    for status_write in (lambda pod: server.update_status(pod),
                         lambda pod: server.patch(Pod, "p", {"status": {"phase": "Running"}}, "default",
                                                  status=True)):
        pod = decode(Pod, server.store.range(KEY).kvs[0])
        assert pod.status is not None
        pod.status.phase = "Running" if pod.status.phase != "Running" else "Failed"
        out = status_write(pod)
        assert out.spec is old.spec  # taken as it is: both read only
        assert out == decode(Pod, server.store.range(KEY).kvs[0])
        old = out
    pod = decode(Pod, server.store.range(KEY).kvs[0])
    assert pod.status is not None
    pod.status.phase = "Pending"
    dry = server.update_status(pod, dry_run=True)
    assert dry.spec == old.spec and dry.spec is not old.spec  # handed out to change: a copy
    assert dry.spec.containers[0] is not old.spec.containers[0]


def test_a_status_write_copies_the_spec_when_a_hook_may_change_it() -> None:
    server = _server(True)
    changed: list[bool] = []

    def hook(request: Any) -> None:  # declares nothing: it may change any field in place
        changed.append(request.obj.spec is request.old.spec)

    server.admission.add_mutating(Pod, hook)
    old = server.decoded.held(server.store.range(KEY).kvs[0])
    pod = decode(Pod, server.store.range(KEY).kvs[0])
    assert pod.status is not None and old is not None
    pod.status.phase = "Running"
    out = server.update_status(pod)
    assert changed == [False] and out.spec is not old.spec and out.spec == old.spec


def test_a_main_resource_write_over_a_held_old_keeps_its_status_and_a_dry_run_copies_it(
        monkeypatch: Any) -> None:
    """The strategy carries the stored status over (``new.status = old.status``); a finalizer patch,
    a label patch and an update keep that very instance, both read only (docs/performance.md, session
    42); a dry run hands its object out unfrozen: a copy. Interning is off here: it would fold a
    copy back into the instance old holds, hiding the copy the write made."""
    import kbatch.apiserver.decoded_cache as decoded_cache

    monkeypatch.setattr(decoded_cache, "share_structure", lambda obj: None)
    server = _server(True)
    server.decoded.watching(Pod, 1)
    old = server.decoded.held(server.store.range(KEY).kvs[0])
    assert old is not None and old.status is not None
    for write in (lambda: server.patch(Pod, "p", {"metadata": {"finalizers": ["example.com/f"]}}, "default"),
                  lambda: server.patch(Pod, "p", {"metadata": {"labels": {"a": "2"}}}, "default",
                                       patch_type="strategic"),
                  lambda: server.update(_relabelled(server, "3"))):
        out = write()
        assert out.status is old.status
        assert out == decode(Pod, server.store.range(KEY).kvs[0])
        old = out
    dry = server.update(_relabelled(server, "4"), dry_run=True)
    assert dry.status == old.status and dry.status is not old.status
    assert dry.metadata.labels == {"a": "4"} and old.metadata.labels == {"a": "3"}


def _relabelled(server: APIServer, label: str) -> Pod:
    pod = decode(Pod, server.store.range(KEY).kvs[0])
    pod.metadata.labels = {"a": label}
    return pod


def test_filling_a_carried_status_leaves_the_stored_one_unchanged() -> None:
    """A Service stored behind the server's back without ``status.loadBalancer``: an update fills it in
    (Go serializes the struct) on a copy, not on the stored object's status it carried over."""
    from kbatch.api.core_v1 import Service

    server = APIServer(MemoryStore(), builtin_registry(), now=lambda: datetime(2026, 1, 1, tzinfo=UTC),
                       rng=random.Random(5))
    svc = server.create(Service.model_validate({"metadata": {"name": "s"}, "spec": {
        "ports": [{"port": 80}]}}))
    key = server.store.range(b"/registry/services/specs/default/s").kvs[0].key
    raw = server.store.range(key).kvs[0].value.replace(b'"status":{"loadBalancer":{}}', b'"status":{}')
    assert raw != server.store.range(key).kvs[0].value
    server.store.put(key, raw)
    server.decoded.watching(Service, 1)
    old = server.decoded.shared(Service, server.store.range(key).kvs[0])
    assert old.status is not None and old.status.load_balancer is None
    svc = decode(Service, server.store.range(key).kvs[0])
    svc.metadata.labels = {"a": "1"}
    out = server.update(svc)
    assert out.status is not None and out.status.load_balancer is not None
    assert old.status.load_balancer is None
