"""The decode cache (the API server's watch cache): every read through it equals a fresh decode of the
store, whatever happened before (writes through the server, writes and deletes behind its back,
snapshot restores, compaction, callers mutating what they were handed); shared-mode watches hand out
the cache's own instances, default ones private copies."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import invariant, rule

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import StatusError
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
    """Change an object handed out, as a careless caller would."""
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
        self.shared = self.server.watch(Pod, "default", shared=True)
        self.copies = self.server.watch(Pod, "default")

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
            obj.metadata.labels = {"app": app}
            updated = self._try(lambda: self.server.update(obj))
            if updated is not None:
                _mutate(updated)

    @rule(name=NAMES, phase=st.sampled_from(["Pending", "Running", "Succeeded"]))
    def update_status(self, name: str, phase: str) -> None:
        obj = self._try(lambda: self.server.get(Pod, name, "default"))
        if obj is not None and obj.status is not None:
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
                self.copies = self.server.watch(Pod, "default")
            elif event.type != "BOOKMARK":
                _mutate(event.object)
        for event in self.shared.poll():
            if event.type == "ERROR":
                self.shared = self.server.watch(Pod, "default", shared=True)

    @rule(selector=st.sampled_from([None, "app=a", "app!=b"]), shared=st.booleans())
    def list_and_mutate(self, selector: str | None, shared: bool) -> None:
        listed = self.server.list(Pod, "default", label_selector=selector, shared=shared)
        if not shared:
            for obj in listed.items:
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
        assert self.server.list(Pod, "default", shared=True).items == list(fresh.values())
        matching = [o for o in fresh.values() if (o.metadata.labels or {}).get("app") == "a"]
        assert self.server.list(Pod, "default", label_selector="app=a").items == matching


TestCacheMatchesStore = CacheMatchesStore.TestCase
TestCacheMatchesStore.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)


def test_a_shared_watch_delivers_the_cached_instance() -> None:
    server = _server()
    watch = server.watch(Pod, "default", shared=True)
    server.create(_pod("p", "a"))
    server.patch(Pod, "p", {"metadata": {"labels": {"app": "b"}}}, "default")
    events = watch.poll()
    kv = server.store.range(PREFIX + b"p").kvs[0]
    assert [e.type for e in events] == ["ADDED", "MODIFIED"]
    assert events[1].object is server.decoded.held(kv)
    assert events[1].object.metadata.resource_version == str(kv.mod_revision)
    assert server.decoded.shared(Pod, kv) is events[1].object  # the update path's old: no decode


def test_a_default_watch_delivers_private_copies() -> None:
    server = _server()
    shared = server.watch(Pod, "default", shared=True)
    private = server.watch(Pod, "default")
    server.create(_pod("p", "a"))
    [mine], [theirs] = private.poll(), shared.poll()
    assert mine.object == theirs.object and mine.object is not theirs.object
    _mutate(mine.object)
    assert server.get(Pod, "p", "default") == theirs.object
    assert server.get(Pod, "p", "default").metadata.labels == {"app": "a"}


def test_returned_objects_share_nothing_with_the_cache() -> None:
    server = _server()
    server.watch(Pod, "default", shared=True)
    server.create(_pod("p", "a"))
    kv = server.store.range(PREFIX + b"p").kvs[0]
    cached = server.decoded.shared(Pod, kv)
    got = server.get(Pod, "p", "default")
    got.metadata.labels["app"] = "x"  # type: ignore[index]
    got.status.phase = "Failed"  # type: ignore[union-attr]
    updated = server.update(server.get(Pod, "p", "default"))  # a no-op update: status came from old
    assert updated.status is not cached.status
    updated.status.phase = "Failed"  # type: ignore[union-attr]
    assert cached == decode(Pod, kv) and cached.status.phase == "Pending"  # type: ignore[union-attr]


def test_writes_drop_the_entry_and_deletes_forget_it() -> None:
    server = _server()
    server.create(_pod("p", "a"))
    before = server.decoded.objects  # the namespace NamespaceLifecycle looked up
    kv = server.store.range(PREFIX + b"p").kvs[0]
    server.decoded.shared(Pod, kv)
    assert server.decoded.objects == before + 1
    server.patch(Pod, "p", {"metadata": {"labels": {"app": "b"}}}, "default")
    assert server.decoded.objects == before
    server.get(Pod, "p", "default")  # a private read on a miss decodes without keeping the object
    assert server.decoded.objects == before
    server.delete(Pod, "p", "default", grace_period_seconds=0)
    assert PREFIX + b"p" not in server.decoded.entries and server.decoded.objects == before


def test_the_informer_holds_the_servers_instances() -> None:
    cp = ControlPlane(seed=1, controllers="", trace=False)
    cp.cache.informer_for(Pod)
    cp.cache.start()
    cp.client.create(_pod("p", "a"))
    cp.cache.pump()
    kv = cp.store.range(PREFIX + b"p").kvs[0]
    cached = cp.cache.get(Pod, "p", "default", readonly=True)
    assert cached is cp.server.decoded.held(kv)
    copy = cp.cache.get(Pod, "p", "default")
    assert copy == cached and copy is not cached
