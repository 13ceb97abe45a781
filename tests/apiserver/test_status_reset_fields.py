"""What a write to ``pods/status`` may not change beyond the spec.

Upstream's pod status strategy (``pkg/registry/core/pod/strategy.go``, ``podStatusStrategy``
``PrepareForUpdate`` and ``GetResetFields``) keeps the stored ``metadata.ownerReferences`` (old
kubelets corrupted them, breaking garbage collection) and backfills ``status.qosClass`` when a status
write empties it (the class is immutable, set at creation). Every way of writing status gets it: an
update of the status subresource, a merge or strategic patch of it, with the old object held in the
decode cache or decoded by the write itself."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.api.frozen import edit
from kbatch.apiserver import APIServer
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore

OWNER = {"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "u-1", "controller": True,
         "blockOwnerDeletion": True}
KEY = b"/registry/pods/default/p"


def _server(held: bool) -> APIServer:
    server = APIServer(MemoryStore(), builtin_registry(), now=lambda: datetime(2026, 1, 1, tzinfo=UTC),
                       rng=random.Random(3))
    server.create(Pod.model_validate({
        "metadata": {"name": "p", "ownerReferences": [OWNER]},
        "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}]}}))
    if held:
        server.decoded.shared(Pod, server.store.range(KEY).kvs[0])
    return server


def _stored(server: APIServer) -> Pod:
    return server.get(Pod, "p", "default")


@settings(max_examples=40, deadline=None)
@given(held=st.booleans(), via=st.sampled_from(["update", "merge", "strategic"]),
       owners=st.lists(st.sampled_from(["a", "b", "c"]), unique=True, max_size=2))
def test_a_status_write_never_changes_owner_references(held: bool, via: str, owners: list[str]) -> None:
    server = _server(held)
    wanted = [{"apiVersion": "v1", "kind": "ConfigMap", "name": n, "uid": f"uid-{n}"} for n in owners]
    if via == "update":
        pod = edit(_stored(server))
        pod.metadata.owner_references = None
        pod = Pod.model_validate({**pod.to_dict(), "metadata": {
            **pod.metadata.to_dict(), "ownerReferences": wanted or None}})
        pod.status.phase = "Running"  # type: ignore[union-attr]
        written = server.update_status(pod)
    else:
        written = server.patch(Pod, "p", {"metadata": {"ownerReferences": wanted or None},
                                          "status": {"phase": "Running"}}, "default",
                               patch_type=via, status=True)  # type: ignore[arg-type]
    for pod in (written, _stored(server)):
        assert [o.to_dict() for o in pod.metadata.owner_references or []] == [OWNER]
        assert pod.status.phase == "Running"  # type: ignore[union-attr]


def test_the_kept_owner_references_are_the_stored_ones() -> None:
    server = _server(held=True)
    written = server.patch(Pod, "p", {"status": {"phase": "Running"}}, "default", status=True)
    assert written.metadata.owner_references == _stored(server).metadata.owner_references
    assert _stored(server).metadata.owner_references[0].name == "j"  # type: ignore[index]


def test_labels_may_still_change_through_status() -> None:
    # pods/status resets only spec, deletionTimestamp and ownerReferences (GetResetFields)
    server = _server(held=False)
    server.patch(Pod, "p", {"metadata": {"labels": {"x": "1"}}}, "default", status=True)
    assert _stored(server).metadata.labels == {"x": "1"}


def test_an_emptied_qos_class_is_backfilled() -> None:
    server = _server(held=False)
    assert _stored(server).status.qos_class == "Burstable"  # type: ignore[union-attr]
    pod = edit(_stored(server))
    pod.status.qos_class = None  # type: ignore[union-attr]
    assert server.update_status(pod).status.qos_class == "Burstable"  # type: ignore[union-attr]
    server.patch(Pod, "p", {"status": {"qosClass": None}}, "default", status=True)
    assert _stored(server).status.qos_class == "Burstable"  # type: ignore[union-attr]
