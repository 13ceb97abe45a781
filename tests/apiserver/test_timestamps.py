"""Times the server writes are whole seconds (metav1.Time precision), so what a write returns equals
what a later read gives (upstream returns the stored form)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from kbatch.api.core_v1 import Pod
from kbatch.apiserver import APIServer
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore

NOW = datetime(2026, 1, 1, 0, 0, 0, 750_000, tzinfo=UTC)


def _server() -> APIServer:
    return APIServer(MemoryStore(), builtin_registry(), now=lambda: NOW, rng=random.Random(3))


def _pod() -> Pod:
    return Pod.model_validate({"metadata": {"name": "p"}, "spec": {
        "nodeName": "n", "containers": [{"name": "c", "image": "i"}]}})


def test_create_returns_the_stored_creation_timestamp() -> None:
    server = _server()
    created = server.create(_pod())
    assert created.metadata.creation_timestamp == NOW.replace(microsecond=0)
    assert created == server.get(Pod, "p", "default")


def test_graceful_delete_returns_the_stored_deletion_timestamp() -> None:
    server = _server()
    server.create(_pod())
    deleted = server.delete(Pod, "p", "default", grace_period_seconds=10)
    assert deleted is not None
    assert deleted.metadata.deletion_timestamp == NOW.replace(microsecond=0) + timedelta(seconds=10)
    assert deleted == server.get(Pod, "p", "default")
