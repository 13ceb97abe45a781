"""The selector cache: one entry per stored version, used only for the exact bytes it was made from,
holding nothing the cyclic GC has to scan."""

from __future__ import annotations

import gc
import platform
import random
from datetime import UTC, datetime

import pytest

from kbatch.api.core_v1 import Pod
from kbatch.apiserver import APIServer
from kbatch.apiserver.decoded_cache import valid
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore
from kbatch.store.kv import KeyValue

KEY = b"/registry/pods/default/p"


def _server() -> APIServer:
    return APIServer(MemoryStore(), builtin_registry(), now=lambda: datetime(2026, 1, 1, tzinfo=UTC),
                     rng=random.Random(3))


def _pod(app: str = "a") -> Pod:
    return Pod.model_validate({"metadata": {"name": "p", "labels": {"app": app}}, "spec": {
        "nodeName": "n1", "containers": [{"name": "c", "image": "i"}]}})


def _names(server: APIServer, labels: str | None = None, fields: str | None = None) -> list[str]:
    return [p.name for p in server.list(Pod, "default", label_selector=labels, field_selector=fields).items]


def test_a_write_behind_the_servers_back_is_seen() -> None:
    server = _server()
    server.create(_pod())
    assert _names(server, "app=a") == ["p"]
    server.store.put(KEY, _pod("b").to_json())
    assert _names(server, "app=a") == []
    assert _names(server, "app=b") == ["p"]


def test_field_selectors_use_the_entry() -> None:
    server = _server()
    server.create(_pod())
    assert _names(server, fields="spec.nodeName=n1") == ["p"]
    assert _names(server, "app=a", "spec.nodeName=n2") == []
    assert server.list(Pod, "default", field_selector="status.phase=Pending", limit=1).items[0].name == "p"


def test_entries_are_checked_against_revision_and_bytes() -> None:
    server = _server()
    server.create(_pod())
    _names(server, "app=a")
    kv = server.store.range(KEY).kvs[0]
    entry = server.decoded.entries[KEY]
    assert valid(entry, kv)
    assert not valid(entry, KeyValue(kv.key, kv.value + b" ", kv.create_revision, kv.mod_revision,
                                     kv.version))
    assert not valid(None, kv)


def test_deleted_keys_are_forgotten() -> None:
    server = _server()
    server.create(_pod())
    _names(server, "app=a")
    server.delete(Pod, "p", "default", grace_period_seconds=0)
    assert KEY not in server.decoded.entries


@pytest.mark.skipif(platform.python_implementation() != "CPython", reason="CPython GC detail")
def test_entries_hold_nothing_the_gc_tracks() -> None:
    server = _server()
    server.create(_pod())
    _names(server, "app=a")
    gc.collect()
    entry = server.decoded.entries[KEY]
    assert not any(gc.is_tracked(part) for part in entry)


def test_lists_restore_the_collector_state() -> None:
    server = _server()
    server.create(_pod())
    assert gc.isenabled()
    assert _names(server) == ["p"]
    assert gc.isenabled()
    gc.disable()
    try:
        assert _names(server, "app=a") == ["p"]
        assert not gc.isenabled()
    finally:
        gc.enable()
