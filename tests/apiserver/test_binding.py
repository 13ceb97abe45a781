"""``pods/binding``: node, annotations and PodScheduled in one write; upstream's conflicts."""

from __future__ import annotations

import random

import pytest

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import BadRequest, Conflict, Invalid, NotFound
from kbatch.apiserver import APIServer, Binder, Binding
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore
from tests.apiserver.conftest import FakeClock


@pytest.fixture
def api(clock: FakeClock) -> APIServer:
    return APIServer(MemoryStore(), builtin_registry(), now=clock.now, rng=random.Random(5))


def _pod(api: APIServer, name: str = "p", **spec: object) -> Pod:
    containers = [{"name": "c", "image": "busybox"}]
    return api.create(Pod.model_validate({"metadata": {"name": name, "namespace": "default"},
                                          "spec": {"containers": containers, **spec}}))


def test_bind_sets_node_condition_and_annotations_in_one_write(api: APIServer, clock: FakeClock) -> None:
    created = _pod(api)
    client = api.client()
    assert isinstance(client, Binder)
    clock.advance(3)
    before = api.store.revision
    bound = client.bind("p", "default", "node-1", uid=created.metadata.uid, annotations={"a": "b"})
    assert api.store.revision == before + 1
    stored = api.get(Pod, "p", "default")
    assert stored == bound
    assert stored.spec.node_name == "node-1"
    assert stored.metadata.annotations == {"a": "b"}
    assert stored.metadata.resource_version == str(before + 1)
    cond = stored.status.condition("PodScheduled")  # type: ignore[union-attr]
    assert cond is not None and cond.status == "True"
    assert cond.last_transition_time is not None
    assert cond.last_transition_time.isoformat() == "2026-01-01T00:00:03+00:00"
    assert stored.metadata.generation == created.metadata.generation


def test_bind_replaces_an_unschedulable_condition_in_place(api: APIServer, clock: FakeClock) -> None:
    _pod(api)
    api.patch(Pod, "p", {"status": {"conditions": [
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/1 nodes",
         "lastTransitionTime": "2026-01-01T00:00:00Z"},
        {"type": "Other", "status": "True"}]}}, "default", status=True)
    clock.advance(10)
    bound = api.client().bind("p", "default", "n")  # type: ignore[attr-defined]
    conditions = bound.status.conditions  # type: ignore[union-attr]
    assert [c.type for c in conditions] == ["PodScheduled", "Other"]
    assert conditions[0].reason is None and conditions[0].message is None
    assert conditions[0].last_transition_time.isoformat() == "2026-01-01T00:00:10+00:00"


def test_bind_conflicts_as_upstream(api: APIServer) -> None:
    created = _pod(api)
    client = api.client()
    with pytest.raises(Conflict) as err:
        client.bind("p", "default", "n", uid="other-uid")  # type: ignore[attr-defined]
    assert err.value.message == ('Operation cannot be fulfilled on pods "p": Precondition failed: UID in '
                                 f"precondition: other-uid, UID in object meta: {created.metadata.uid}")
    client.bind("p", "default", "n1")  # type: ignore[attr-defined]
    rv = api.get(Pod, "p", "default").metadata.resource_version
    with pytest.raises(Conflict) as err:
        client.bind("p", "default", "n2")  # type: ignore[attr-defined]
    assert err.value.message == ('Operation cannot be fulfilled on pods/binding "p": pod p is already '
                                 'assigned to node "n1"')
    assert api.get(Pod, "p", "default").metadata.resource_version == rv  # nothing written


def test_bind_refuses_deleting_and_gated_pods(api: APIServer) -> None:
    _pod(api, "held", schedulingGates=[{"name": "example.com/gate"}])
    with pytest.raises(Conflict, match=r'"held": pod held has non-empty \.spec\.schedulingGates'):
        api.client().bind("held", "default", "n")  # type: ignore[attr-defined]
    api.create(Pod.model_validate({"metadata": {"name": "fin", "namespace": "default", "finalizers": ["x/y"]},
                                   "spec": {"containers": [{"name": "c", "image": "busybox"}]}}))
    api.delete(Pod, "fin", "default")
    with pytest.raises(Conflict, match='pod fin is being deleted, cannot be assigned to a host'):
        api.client().bind("fin", "default", "n")  # type: ignore[attr-defined]


def test_bind_validation_not_found_and_dry_run(api: APIServer) -> None:
    _pod(api)
    with pytest.raises(Invalid) as err:
        api.bind(Binding.model_validate({"metadata": {"name": "p"}, "target": {"kind": "Pod"}}), "default")
    assert err.value.message == ('Binding "p" is invalid: [target.kind: Unsupported value: "Pod": supported '
                                 'values: "Node", "<empty>", target.name: Required value]')
    with pytest.raises(NotFound, match='pods "ghost" not found'):
        api.client().bind("ghost", "default", "n")  # type: ignore[attr-defined]
    with pytest.raises(BadRequest):
        api.bind(Binding.model_validate({"metadata": {"name": "p", "namespace": "a"},
                                         "target": {"name": "n"}}), "b")
    rv = api.get(Pod, "p", "default").metadata.resource_version
    dry = api.client().bind("p", "default", "n", dry_run=True)  # type: ignore[attr-defined]
    assert dry.spec.node_name == "n"
    assert api.get(Pod, "p", "default").spec.node_name is None
    assert api.get(Pod, "p", "default").metadata.resource_version == rv


@pytest.mark.parametrize("held", [True, False])
def test_bind_over_a_held_pod_changes_nothing_of_it_and_shares_only_unchanged_parts(
        api: APIServer, held: bool) -> None:
    api.decoded.watching(Pod, 1)  # an informer's watch: each write's object is held (read only)
    created = _pod(api, tolerations=[{"key": "k", "operator": "Exists"}])
    kv = api.store.range(b"/registry/pods/default/p").kvs[0]
    if not held:
        api.decoded.forget(kv.key)
    before = created.model_dump()
    client = api.client()
    assert isinstance(client, Binder)
    dry = client.bind("p", "default", "node-1", annotations={"a": "b"}, dry_run=True)
    assert dry.spec.containers[0] is not created.spec.containers[0]  # handed out to change: shares nothing
    bound = client.bind("p", "default", "node-1", annotations={"a": "b"})
    assert created.model_dump() == before  # the stored version it replaced is unchanged
    assert created.spec.node_name is None and created.metadata.annotations is None
    assert bound.spec.node_name == "node-1" and bound.metadata.annotations == {"a": "b"}
    assert bound == api.get(Pod, "p", "default")
    assert (dry.spec, dry.status) == (bound.spec, bound.status)
    # read only on both sides: shared whether the bind started from the held object (its shallow copy)
    # or from a decode (the written object's parts are interned with equal held ones)
    assert bound.spec.containers[0] is created.spec.containers[0]
