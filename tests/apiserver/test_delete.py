"""Delete: preconditions, finalizers, GC policy finalizers, pod graceful deletion, namespaces."""

from __future__ import annotations

from datetime import timedelta

import pytest

from kbatch.api.errors import Conflict, Forbidden, NotFound
from kbatch.api.frozen import edit
from kbatch.apiserver import APIServer, Preconditions
from tests.apiserver.kinds import Namespace, Pod, Widget


def widget(server: APIServer, name: str = "w", finalizers: list[str] | None = None) -> Widget:
    return server.create(Widget.model_validate({"metadata": {"name": name, "namespace": "default",
                                                             "finalizers": finalizers}}))


def pod(server: APIServer, name: str = "p", node: str | None = "n1", grace: int | None = None,
        phase: str | None = None) -> Pod:
    out = server.create(Pod.model_validate({"metadata": {"name": name, "namespace": "default"},
                                            "spec": {"nodeName": node,
                                                     "terminationGracePeriodSeconds": grace}}))
    if phase:
        out = edit(out)
        out.status = out.status or type(out).model_fields["status"].annotation.__args__[0]()  # type: ignore[union-attr]
        out.status.phase = phase  # type: ignore[union-attr]
        out = server.update_status(out)
    return out


def test_delete_without_finalizers_removes_immediately(server: APIServer) -> None:
    widget(server)
    assert server.delete(Widget, "w", "default") is None
    with pytest.raises(NotFound):
        server.get(Widget, "w")
    with pytest.raises(NotFound):
        server.delete(Widget, "w", "default")


def test_preconditions(server: APIServer) -> None:
    obj = widget(server)
    with pytest.raises(Conflict, match="Precondition failed: UID in precondition: x, UID in object meta"):
        server.delete(Widget, "w", "default", preconditions=Preconditions(uid="x"))
    with pytest.raises(Conflict, match="Precondition failed: ResourceVersion in precondition: 1,"):
        server.delete(Widget, "w", "default", preconditions=Preconditions(resource_version="1"))
    pre = Preconditions(uid=obj.metadata.uid, resource_version=obj.metadata.resource_version)
    assert server.delete(Widget, "w", "default", preconditions=pre) is None


def test_finalizers_keep_object_terminating(server: APIServer, clock) -> None:  # type: ignore[no-untyped-def]
    widget(server, finalizers=["example.com/f"])
    out = server.delete(Widget, "w", "default")
    assert out is not None
    assert out.metadata.deletion_timestamp == clock.now()
    assert out.metadata.deletion_grace_period_seconds == 0
    rev = server.store.revision
    assert server.delete(Widget, "w", "default") is not None  # again: nothing to do
    assert server.store.revision == rev


@pytest.mark.parametrize(("policy", "finalizer"),
                         [("Orphan", "orphan"), ("Foreground", "foregroundDeletion")])
def test_propagation_policy_adds_gc_finalizer(server: APIServer, policy: str, finalizer: str) -> None:
    widget(server)
    out = server.delete(Widget, "w", "default", propagation_policy=policy)
    assert out is not None and out.metadata.finalizers == [finalizer]
    assert out.metadata.deletion_timestamp is not None


def test_background_policy_deletes_immediately(server: APIServer) -> None:
    widget(server)
    assert server.delete(Widget, "w", "default", propagation_policy="Background") is None


def test_unscheduled_pod_is_deleted_immediately(server: APIServer) -> None:
    pod(server, node=None)
    assert server.delete(Pod, "p", "default") is None


def test_terminal_pod_is_deleted_immediately(server: APIServer) -> None:
    pod(server, phase="Succeeded")
    assert server.delete(Pod, "p", "default") is None


def test_scheduled_pod_deletion_is_graceful(server: APIServer, clock) -> None:  # type: ignore[no-untyped-def]
    pod(server, grace=10)
    out = server.delete(Pod, "p", "default")
    assert out is not None
    assert out.metadata.deletion_grace_period_seconds == 10
    assert out.metadata.deletion_timestamp == clock.now() + timedelta(seconds=10)
    assert out.metadata.generation == 2
    again = server.delete(Pod, "p", "default")  # no shorter grace: pending, unchanged
    assert again is not None and again.metadata.resource_version == out.metadata.resource_version
    shorter = server.delete(Pod, "p", "default", grace_period_seconds=3)
    assert shorter is not None and shorter.metadata.deletion_grace_period_seconds == 3
    assert shorter.metadata.deletion_timestamp == clock.now() + timedelta(seconds=3)
    assert server.delete(Pod, "p", "default", grace_period_seconds=0) is None


def test_pod_default_grace_is_30_seconds(server: APIServer) -> None:
    pod(server)
    out = server.delete(Pod, "p", "default")
    assert out is not None and out.metadata.deletion_grace_period_seconds == 30


def test_dry_run_delete_keeps_object(server: APIServer) -> None:
    widget(server)
    assert server.delete(Widget, "w", "default", dry_run=True) is None
    assert server.get(Widget, "w").name == "w"


def test_namespace_deletion_removes_contents(server: APIServer) -> None:
    from kbatch.apiserver import GarbageCollector

    server.create(Namespace.model_validate({"metadata": {"name": "team"}}))
    for i in range(3):
        server.create(Widget.model_validate({"metadata": {"name": f"w{i}", "namespace": "team"}}))
    out = server.delete(Namespace, "team")
    assert out is not None and out.status.phase == "Terminating"  # type: ignore[union-attr]
    gc = GarbageCollector(server)
    assert gc.has_pending()
    assert gc.sync() >= 4
    with pytest.raises(NotFound):
        server.get(Namespace, "team")
    assert server.list(Widget, "team").items == []
    assert not gc.has_pending()


def test_default_namespace_may_not_be_deleted(server: APIServer) -> None:
    with pytest.raises(Forbidden, match="this namespace may not be deleted"):
        server.delete(Namespace, "default")
