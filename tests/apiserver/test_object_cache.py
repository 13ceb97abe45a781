"""The decode cache (the API server's watch cache): every read through it equals a fresh decode of the
store, whatever happened before (writes through the server, writes and deletes behind its back,
snapshot restores, compaction, callers editing copies of what they were handed); reads, watches and
writes hand out the cache's own shared, read-only instances, and a write's object is what the watch
delivers (no decode)."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import invariant, rule

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import StatusError
from kbatch.api.frozen import FrozenObjectError, edit
from kbatch.apiserver import APIServer
from kbatch.apiserver.codec import decode
from kbatch.families import builtin_registry
from kbatch.runtime.controlplane import ControlPlane
from kbatch.store import MemoryStore
from tests.apiserver.store_rules import StoreDisruptions

PREFIX, END = b"/registry/pods/default/", b"/registry/pods/default0"
NAMES = st.sampled_from(["p0", "p1", "p2"])
APPS = st.sampled_from(["a", "b", "c"])


def _server() -> APIServer:
    return APIServer(MemoryStore(), builtin_registry(), now=lambda: datetime(2026, 1, 1, tzinfo=UTC),
                     rng=random.Random(3))


def _pod(name: str, app: str) -> Pod:
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default", "labels": {"app": app}},
                               "spec": {"containers": [{"name": "c", "image": "i"}]}})


def _mutate(obj: Any) -> None:
    """Change a copy of an object handed out, as a caller does (``edit`` first): the cache is untouched;
    changing the object itself fails (strict mode, the suite's)."""
    obj = edit(obj)
    obj.metadata.labels = {"mutated": "yes"}
    if obj.status is not None:
        obj.status.phase = "Failed"
        obj.status.conditions = []
    obj.spec.containers[0].image = "mutated"


class CacheMatchesStore(StoreDisruptions):
    def __init__(self) -> None:
        super().__init__()
        self.server = _server()
        self.setup_store_rules()
        self.shared = self.server.watch(Pod, "default")
        self.copies = self.server.watch(Pod, "default", label_selector="app!=c")

    def teardown(self) -> None:
        self.shared.close()
        self.copies.close()
        super().teardown()

    def _try(self, fn: Any) -> Any:
        try:
            return fn()
        except StatusError:
            return None

    # --- writes through the server -------------------------------------------------------------
    @rule(name=NAMES, app=APPS)
    def create(self, name: str, app: str) -> None:
        created = self._try(lambda: self.server.create(_pod(name, app)))
        if created is not None:
            _mutate(created)

    @rule(name=NAMES, app=APPS)
    def update(self, name: str, app: str) -> None:
        obj = self._try(lambda: self.server.get(Pod, name, "default"))
        if obj is not None:
            obj = edit(obj)
            obj.metadata.labels = {"app": app}
            updated = self._try(lambda: self.server.update(obj))
            if updated is not None:
                _mutate(updated)

    @rule(name=NAMES, phase=st.sampled_from(["Pending", "Running", "Succeeded"]))
    def update_status(self, name: str, phase: str) -> None:
        obj = self._try(lambda: self.server.get(Pod, name, "default"))
        if obj is not None and obj.status is not None:
            obj = edit(obj)
            obj.status.phase = phase
            updated = self._try(lambda: self.server.update_status(obj))
            if updated is not None:
                _mutate(updated)

    @rule(name=NAMES, app=APPS, status=st.booleans())
    def patch(self, name: str, app: str, status: bool) -> None:
        body = {"status": {"message": app}} if status else {"metadata": {"labels": {"app": app}}}
        patched = self._try(lambda: self.server.patch(Pod, name, body, "default", status=status))
        if patched is not None:
            _mutate(patched)

    @rule(name=NAMES)
    def bind(self, name: str) -> None:
        bound = self._try(lambda: self.server.client().bind(name, "default", "n1"))  # type: ignore[attr-defined]
        if bound is not None:
            _mutate(bound)

    @rule(name=NAMES, grace=st.sampled_from([0, None]))
    def delete(self, name: str, grace: int | None) -> None:
        left = self._try(lambda: self.server.delete(Pod, name, "default", grace_period_seconds=grace))
        if left is not None:
            _mutate(left)

    # --- behind the server's back --------------------------------------------------------------
    @rule(name=NAMES, app=APPS)
    def raw_put(self, name: str, app: str) -> None:
        self.server.store.put(PREFIX + name.encode(), _pod(name, app).to_json())

    @rule(name=NAMES)
    def raw_delete(self, name: str) -> None:
        self.server.store.delete_range(PREFIX + name.encode())

    # snapshot, restore and compaction: StoreDisruptions

    # --- reads ---------------------------------------------------------------------------------
    @rule()
    def poll_watches(self) -> None:
        for event in self.copies.poll():
            if event.type == "ERROR":
                self.copies = self.server.watch(Pod, "default", label_selector="app!=c")
            elif event.type != "BOOKMARK":
                _mutate(event.object)
        for event in self.shared.poll():
            if event.type == "ERROR":
                self.shared = self.server.watch(Pod, "default")

    @rule(selector=st.sampled_from([None, "app=a", "app!=b"]))
    def list_and_mutate(self, selector: str | None) -> None:
        for obj in self.server.list(Pod, "default", label_selector=selector).items:
            _mutate(obj)

    @invariant()
    def reads_equal_a_fresh_decode(self) -> None:
        kvs = self.server.store.range(PREFIX, END).kvs
        fresh = {kv.key: decode(Pod, kv) for kv in kvs}
        for kv in kvs:
            held = self.server.decoded.held(kv)
            assert held is None or held == fresh[kv.key]
            assert self.server.get(Pod, kv.key[len(PREFIX):].decode(), "default") == fresh[kv.key]
        assert self.server.list(Pod, "default").items == list(fresh.values())
        matching = [o for o in fresh.values() if (o.metadata.labels or {}).get("app") == "a"]
        assert self.server.list(Pod, "default", label_selector="app=a").items == matching


TestCacheMatchesStore = CacheMatchesStore.TestCase
TestCacheMatchesStore.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)


def test_a_watch_delivers_the_written_instance_without_decoding() -> None:
    server = _server()
    watch = server.watch(Pod, "default")
    created = server.create(_pod("p", "a"))
    events = watch.poll()  # an event read before the next write of its key takes the written object
    patched = server.patch(Pod, "p", {"metadata": {"labels": {"app": "b"}}}, "default")
    events += watch.poll()
    kv = server.store.range(PREFIX + b"p").kvs[0]
    assert [e.type for e in events] == ["ADDED", "MODIFIED"]
    assert events[0].object is created and events[1].object is patched is server.decoded.held(kv)
    assert events[1].object.metadata.resource_version == str(kv.mod_revision)
    assert server.decoded.shared(Pod, kv) is events[1].object  # the update path's old: no decode


def test_every_watch_and_read_delivers_the_same_read_only_instance() -> None:
    server = _server()
    one, two = server.watch(Pod, "default"), server.watch(Pod, "default")
    server.create(_pod("p", "a"))
    [mine], [theirs] = one.poll(), two.poll()
    assert mine.object is theirs.object is server.get(Pod, "p", "default")
    with pytest.raises(FrozenObjectError):
        mine.object.metadata.labels = {"app": "x"}
    assert server.get(Pod, "p", "default").metadata.labels == {"app": "a"}


def test_an_edited_copy_shares_nothing_with_the_cache() -> None:
    server = _server()
    server.watch(Pod, "default")
    server.create(_pod("p", "a"))
    kv = server.store.range(PREFIX + b"p").kvs[0]
    cached = server.decoded.shared(Pod, kv)
    got = edit(server.get(Pod, "p", "default"))
    got.metadata.labels["app"] = "x"  # type: ignore[index]
    got.status.phase = "Failed"  # type: ignore[union-attr]
    assert cached == decode(Pod, kv) and cached.status.phase == "Pending"  # type: ignore[union-attr]
    updated = server.update(edit(server.get(Pod, "p", "default")))  # a no-op update
    assert updated == cached


def test_writes_of_a_watched_kind_are_held_and_deletes_forget_them() -> None:
    server = _server()
    server.create(_pod("p", "a"))
    before = server.decoded.objects  # the namespace NamespaceLifecycle looked up
    kv = server.store.range(PREFIX + b"p").kvs[0]
    server.get(Pod, "p", "default")  # a read on a miss decodes and keeps the object
    assert server.decoded.held(kv) is not None and server.decoded.objects == before + 1
    server.patch(Pod, "p", {"metadata": {"labels": {"app": "b"}}}, "default")
    assert server.decoded.objects == before  # nobody watches pods: the write's object is not kept
    watch = server.watch(Pod, "default")
    patched = server.patch(Pod, "p", {"metadata": {"labels": {"app": "c"}}}, "default")
    assert server.decoded.held(server.store.range(PREFIX + b"p").kvs[0]) is patched
    server.delete(Pod, "p", "default", grace_period_seconds=0)
    assert PREFIX + b"p" not in server.decoded.entries and server.decoded.objects == before
    watch.close()


def test_the_informer_holds_the_servers_instances() -> None:
    cp = ControlPlane(seed=1, controllers="", trace=False)
    cp.cache.informer_for(Pod)
    cp.cache.start()
    written = cp.client.create(_pod("p", "a"))
    cp.cache.pump()
    kv = cp.store.range(PREFIX + b"p").kvs[0]
    cached = cp.cache.get(Pod, "p", "default")
    assert cached is cp.server.decoded.held(kv) is written
