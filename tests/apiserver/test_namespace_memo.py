"""NamespaceLifecycle remembers the namespaces creates looked up until the store reports a change
under their prefix. Whatever happens to namespaces — writes through the server, writes and deletes
behind its back, snapshot restores, compaction — a create is admitted exactly as a fresh read of the
store decides (kbatch.apiserver.watched_range)."""

from __future__ import annotations

import contextlib
import random
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import rule

from kbatch.api.core_v1 import Namespace, Pod
from kbatch.api.errors import Forbidden, NotFound, StatusError
from kbatch.apiserver import APIServer
from kbatch.apiserver.codec import decode
from kbatch.families import builtin, builtin_registry
from kbatch.store import MemoryStore
from tests.apiserver.store_rules import StoreDisruptions

NAMES = st.sampled_from(["default", "a", "b"])
ROOT = b"/registry/namespaces/"

# NamespaceLifecycle's memo is under test: the ServiceAccount plugin, which would refuse pods in the
# namespaces created here (no serviceaccount controller runs), is left out
_WITHOUT_ACCOUNTS = builtin().admission_plugins(disable="ServiceAccount")


def _expected(server: APIServer, namespace: str) -> type[StatusError] | None:
    """The NamespaceLifecycle verdict from a fresh decode of the store."""
    kvs = server.store.range(ROOT + namespace.encode()).kvs
    if not kvs:
        return NotFound
    ns = decode(Namespace, kvs[0])
    terminating = ns.status is not None and ns.status.phase == "Terminating"
    return Forbidden if ns.metadata.deletion_timestamp is not None or terminating else None


class MemoMatchesStore(StoreDisruptions):
    def __init__(self) -> None:
        super().__init__()
        self.server = APIServer(MemoryStore(), builtin_registry(),
                                now=lambda: datetime(2026, 1, 1, tzinfo=UTC), rng=random.Random(2),
                                admission_plugins=_WITHOUT_ACCOUNTS)
        self.setup_store_rules()
        self.pods = 0

    @rule(name=NAMES)
    def create_pod(self, name: str) -> None:
        self.pods += 1
        pod = Pod.model_validate({"metadata": {"name": f"p{self.pods}", "namespace": name},
                                  "spec": {"containers": [{"name": "c", "image": "i"}]}})
        want = _expected(self.server, name)
        try:
            self.server.create(pod)
            got: type[StatusError] | None = None
        except (NotFound, Forbidden) as err:
            got = type(err)
        assert got is want

    @rule(name=NAMES)
    def create_namespace(self, name: str) -> None:
        with contextlib.suppress(StatusError):
            self.server.create(Namespace.model_validate({"metadata": {"name": name}}))

    @rule(name=NAMES)
    def delete_namespace(self, name: str) -> None:
        with contextlib.suppress(StatusError):
            self.server.delete(Namespace, name)

    @rule(name=NAMES, terminating=st.booleans())
    def raw_put(self, name: str, terminating: bool) -> None:
        body: dict[str, object] = {"metadata": {"name": name}}
        if terminating:
            body["status"] = {"phase": "Terminating"}
        self.server.store.put(ROOT + name.encode(), Namespace.model_validate(body).to_json())

    @rule(name=NAMES)
    def raw_delete(self, name: str) -> None:
        self.server.store.delete_range(ROOT + name.encode())

    # snapshot, restore and compaction: StoreDisruptions


TestMemoMatchesStore = MemoMatchesStore.TestCase
TestMemoMatchesStore.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)


def test_creates_read_the_namespace_once_until_it_changes() -> None:
    server = APIServer(MemoryStore(), builtin_registry(), admission_plugins=_WITHOUT_ACCOUNTS,
                       now=lambda: datetime(2026, 1, 1, tzinfo=UTC),
                       rng=random.Random(2))
    reads = []
    range_ = server.store.range

    def counting(key: bytes, *args: object, **kwargs: object) -> object:
        reads.append(key)
        return range_(key, *args, **kwargs)  # type: ignore[arg-type]

    server.create(Namespace.model_validate({"metadata": {"name": "team"}}))
    server.store.range = counting  # type: ignore[method-assign]
    for i in range(3):
        server.create(Pod.model_validate({"metadata": {"name": f"p{i}", "namespace": "team"},
                                          "spec": {"containers": [{"name": "c", "image": "i"}]}}))
    assert reads.count(ROOT + b"team") == 1
    server.delete(Namespace, "team")
    with pytest.raises(Forbidden):
        server.create(Pod.model_validate({"metadata": {"name": "late", "namespace": "team"},
                                          "spec": {"containers": [{"name": "c", "image": "i"}]}}))


def test_a_restore_cancels_the_watch_and_later_changes_are_still_seen(tmp_path: Path) -> None:
    server = APIServer(MemoryStore(), builtin_registry(), admission_plugins=_WITHOUT_ACCOUNTS,
                       now=lambda: datetime(2026, 1, 1, tzinfo=UTC),
                       rng=random.Random(2))
    server.create(Namespace.model_validate({"metadata": {"name": "team"}}))

    def pod(name: str) -> Pod:
        return Pod.model_validate({"metadata": {"name": name, "namespace": "team"},
                                   "spec": {"containers": [{"name": "c", "image": "i"}]}})

    server.create(pod("p1"))
    server.store.snapshot(str(tmp_path / "snap"))
    server.store.restore(str(tmp_path / "snap"))  # the namespaces' watcher is cancelled
    server.create(pod("p2"))  # watched afresh
    terminating = Namespace.model_validate({"metadata": {"name": "team"}, "status": {"phase": "Terminating"}})
    server.store.put(ROOT + b"team", terminating.to_json())  # behind the server's back
    with pytest.raises(Forbidden):
        server.create(pod("p3"))
