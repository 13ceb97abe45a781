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


# --- times a writer sends with sub-second parts ------------------------------------------------------
# kube-apiserver answers a write with the stored form decoded (etcd3 store.go GuaranteedUpdate/Create
# decode the bytes they wrote), and metav1.Time keeps whole seconds on the wire: a write's answer never
# carries the sub-second part a request body's Time had, whichever path (typed merge, JSON merge of the
# status parts, the general path, a no-op) the patch took.

SUB_SECOND = "2026-01-01T00:00:01.500000Z"


def _patches() -> list[tuple[str, dict]]:
    cond = {"type": "Ready", "status": "True", "lastTransitionTime": SUB_SECOND}
    return [
        ("merge", {"status": {"conditions": [cond]}}),  # lists of the status: merged on its JSON
        ("strategic", {"status": {"conditions": [cond]}}),
        ("merge", {"status": {"startTime": SUB_SECOND}}),  # plain fields: merged into the held object
        ("strategic", {"status": {"startTime": SUB_SECOND}}),
        ("json", [{"op": "add", "path": "/status/startTime", "value": SUB_SECOND}]),  # the general path
    ]


def test_a_patched_sub_second_time_is_answered_as_stored() -> None:
    for patch_type, patch in _patches():
        server = _server()
        server.create(_pod())
        server.patch(Pod, "p", {"status": {"phase": "Pending"}}, "default", status=True)
        first = server.patch(Pod, "p", patch, "default", patch_type=patch_type, status=True)
        assert first == server.get(Pod, "p", "default"), patch_type
        again = server.patch(Pod, "p", patch, "default", patch_type=patch_type, status=True)  # a no-op
        assert again == server.get(Pod, "p", "default"), patch_type
        assert again.metadata.resource_version == first.metadata.resource_version


def test_a_main_resource_patch_with_a_sub_second_time_is_answered_as_stored() -> None:
    server = _server()
    server.create(_pod())
    patched = server.patch(Pod, "p", {"status": {"startTime": SUB_SECOND}}, "default")
    assert patched == server.get(Pod, "p", "default")


def test_a_server_side_apply_with_a_sub_second_time_is_answered_as_stored() -> None:
    server = _server()
    server.create(_pod())
    config = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
              "status": {"startTime": SUB_SECOND}}
    applied = server.apply(config, field_manager="m", status=True, force=True)
    assert applied == server.get(Pod, "p", "default")
    assert applied.status is not None
    assert applied.status.start_time == datetime(2026, 1, 1, 0, 0, 1, tzinfo=UTC)


def test_a_micro_time_keeps_its_fraction_through_a_patch() -> None:
    from kbatch.api.coordination_v1 import Lease

    server = _server()
    server.create(Lease.model_validate({"metadata": {"name": "l", "namespace": "default"}, "spec": {}}))
    patched = server.patch(Lease, "l", {"spec": {"renewTime": SUB_SECOND}}, "default")
    assert patched == server.get(Lease, "l", "default")
    assert patched.spec is not None
    assert patched.spec.renew_time == datetime(2026, 1, 1, 0, 0, 1, 500_000, tzinfo=UTC)
