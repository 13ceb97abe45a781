"""Informers and the cache against the real API server: handlers, indexes, copies, relist on 410."""

from __future__ import annotations

import json

import pytest
from _support import make_cp
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Node, Pod
from kbatch.api.errors import AlreadyExists, Expired, NotFound
from kbatch.api.frozen import edit
from kbatch.apiserver.client import WatchEvent
from kbatch.runtime.cache import BY_CONTROLLER_UID, BY_LABEL, BY_NODE_NAME
from kbatch.runtime.reconcile import Request
from kbatch.store import MemoryStore
from kbatch.testing import make_node, make_pod


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def on_add(self, obj: Pod) -> None:
        self.events.append(("add", obj.metadata.name))

    def on_update(self, old: Pod, new: Pod) -> None:
        self.events.append(("update", new.metadata.name))

    def on_delete(self, obj: Pod) -> None:
        self.events.append(("delete", obj.metadata.name))


def test_level_based_reconcile_sees_latest_state_and_deletion_as_not_found() -> None:
    cp = make_cp()
    seen: list[tuple[str, str | None]] = []

    def reconcile(req: Request) -> None:
        try:
            pod = cp.cache.get(Pod, req.name, req.namespace)
        except NotFound:
            seen.append((req.name, None))
            return
        seen.append((req.name, (pod.metadata.labels or {}).get("v")))

    cp.build("levels").for_(Pod).complete(reconcile)
    cp.client.create(make_pod("a").label("v", "1").obj())
    cp.client.patch(Pod, "a", {"metadata": {"labels": {"v": "2"}}}, "default")
    cp.run_until_idle()
    assert seen == [("a", "2")], "two events, one reconcile of the latest state"
    cp.client.delete(Pod, "a", "default")
    cp.run_until_idle()
    assert seen[-1] == ("a", None)


def test_cache_and_client_hand_out_the_shared_object_and_edit_copies_it() -> None:
    cp = make_cp()
    informer = cp.cache.informer_for(Pod)
    written = cp.apply(make_pod("a").label("app", "x").obj())[0]
    shared = cp.cache.get(Pod, "a", "default")
    assert shared is informer.store.get("default/a") is written is cp.client.get(Pod, "a", "default")
    copy = edit(shared)
    copy.metadata.labels["app"] = "mutated"
    assert cp.cache.get(Pod, "a", "default").metadata.labels == {"app": "x"}


def test_indexes_by_label_node_owner_and_custom() -> None:
    cp = make_cp()
    cp.cache.add_index(Pod, "by-image", lambda p: [c.image for c in p.spec.containers])
    node = cp.apply(make_node("n1").obj())[0]
    owner = cp.apply(make_pod("owner").obj())[0]
    cp.apply([make_pod("b").node("n1").label("app", "x").owner(owner).obj(),
              make_pod("a").node("n1").label("app", "x").image("nginx").obj(),
              make_pod("c", "kube-system").label("app", "y").obj()])
    names = lambda objs: [o.metadata.name for o in objs]  # noqa: E731
    assert names(cp.cache.list(Pod, index=(BY_NODE_NAME, "n1"))) == ["a", "b"]
    assert names(cp.cache.list(Pod, index=(BY_LABEL, "app=x"))) == ["a", "b"]
    assert names(cp.cache.list(Pod, labels={"app": "y"})) == ["c"]
    assert names(cp.cache.list(Pod, "default")) == ["a", "b", "owner"]
    assert names(cp.cache.list(Pod, index=(BY_CONTROLLER_UID, owner.metadata.uid))) == ["b"]
    assert names(cp.cache.list(Pod, index=("by-image", "nginx"))) == ["a"]
    assert names(cp.cache.list(Node)) == [node.metadata.name]


def test_one_shared_informer_per_kind() -> None:
    cp = make_cp()
    cp.build("one").for_(Pod).complete(lambda r: None)
    cp.build("two").for_(Pod).complete(lambda r: None)
    assert len([i for i in cp.cache.informers if i.kind is Pod]) == 1


class ExpiredStream:
    """A watch whose history was compacted: one ERROR event carrying a 410 Status (or a raise)."""

    def __init__(self, inner: object, raise_: bool) -> None:
        self.inner, self.raise_ = inner, raise_

    def poll(self) -> list[WatchEvent]:
        if self.raise_:
            raise Expired("too old resource version")
        return [WatchEvent("ERROR", Expired("too old resource version").status)]

    def set_notify(self, fn: object) -> None:
        return None

    def close(self) -> None:
        self.inner.close()  # type: ignore[attr-defined]


@pytest.mark.parametrize("raise_", [False, True], ids=["error-event", "poll-raises"])
def test_relist_after_expired_reports_the_differences(raise_: bool) -> None:
    cp = make_cp()
    informer = cp.cache.informer_for(Pod)
    rec = Recorder()
    cp.apply([make_pod("keep").obj(), make_pod("gone").obj()])
    informer.add_event_handler(rec)  # replays the cache as adds
    assert rec.events == [("add", "gone"), ("add", "keep")]
    rec.events.clear()
    # The loop does not run while these writes happen; compaction overtakes the informer's watch.
    cp.client.delete(Pod, "gone", "default")
    cp.client.create(make_pod("new").obj())
    cp.client.patch(Pod, "keep", {"metadata": {"labels": {"v": "2"}}}, "default")
    informer._stream = ExpiredStream(informer._stream, raise_)
    cp.run_until_idle()
    assert informer.relists == 1
    assert sorted(rec.events) == [("add", "new"), ("delete", "gone"), ("update", "keep")]
    assert [p.metadata.name for p in cp.cache.list(Pod)] == ["keep", "new"]
    cp.client.delete(Pod, "new", "default")
    cp.run_until_idle()
    assert rec.events[-1] == ("delete", "new"), "watching again after the relist"


def test_trace_survives_compaction_with_a_gap_record() -> None:
    cp = make_cp(store=MemoryStore(max_backlog=1))
    for i in range(5):
        cp.client.create(make_pod(f"p{i}").obj())
    cp.store.compact(cp.store.revision)
    cp.run_until_idle()
    cp.client.create(make_pod("after").obj())
    cp.run_until_idle()
    records = [json.loads(line) for line in cp.trace.lines()]
    assert records[-1]["verb"] == "create" and records[-1]["name"] == "after"
    gaps = [r for r in records if r["verb"] == "gap"]
    creates = [r for r in records if r["verb"] == "create"]
    assert len(creates) == 6 or (len(gaps) == 1 and gaps[0]["diff"]["compactRevision"] > 0), (
        "either nothing was lost, or the loss is recorded")


def test_owns_maps_owned_objects_to_their_controller_owner() -> None:
    cp = make_cp()
    owners: list[Request] = []
    cp.build("owner-of-pods").for_(Node).owns(Pod).complete(owners.append)
    node = cp.apply(make_node("n1").obj())[0]
    owners.clear()
    cp.apply(make_pod("p").owner(node).obj())
    assert owners == [Request("", "n1")], "cluster-scoped owner: empty namespace"


def test_watches_with_mapper_and_predicate() -> None:
    cp = make_cp()
    seen: list[Request] = []
    from kbatch.runtime.predicate import predicate_func

    cp.build("mapped").watches(
        Pod, lambda p: [Request("", p.spec.node_name)] if p.spec.node_name else [],
        predicate_func(lambda p: (p.metadata.labels or {}).get("watch") == "yes"),
    ).complete(seen.append)
    cp.apply([make_pod("a").node("n1").label("watch", "yes").obj(), make_pod("b").node("n2").obj()])
    assert seen == [Request("", "n1")]


@pytest.mark.parametrize("selection", ["", "garbage-collector"])
def test_empty_control_plane_is_idle(selection: str) -> None:
    cp = make_cp(controllers=selection)
    assert cp.run_until_idle() == 0
    cp.advance("1h")
    assert cp.now().isoformat() == "2025-01-01T01:00:00+00:00"


@settings(max_examples=25)
@given(ops=st.lists(st.tuples(st.sampled_from(["create", "label", "delete", "settle", "expire"]),
                              st.sampled_from(["a", "b", "c", "d"])), max_size=30))
def test_cache_converges_to_the_api_state_under_random_writes_and_relists(
    ops: list[tuple[str, str]]
) -> None:
    cp = make_cp(controllers="")
    informer = cp.cache.informer_for(Pod)
    seen: list[Request] = []
    cp.build("all-pods").for_(Pod).complete(seen.append)
    for n, (op, name) in enumerate(ops):
        try:
            if op == "create":
                cp.client.create(make_pod(name).obj())
            elif op == "label":
                cp.client.patch(Pod, name, {"metadata": {"labels": {"n": str(n)}}}, "default")
            elif op == "delete":
                cp.client.delete(Pod, name, "default")
            elif op == "settle":
                cp.run_until_idle()
            else:
                informer._stream = ExpiredStream(informer._stream, raise_=n % 2 == 0)
        except (NotFound, AlreadyExists):
            pass
    cp.run_until_idle()
    truth = {(p.metadata.name, p.metadata.resource_version) for p in cp.client.list(Pod, "default").items}
    cached = {(p.metadata.name, p.metadata.resource_version) for p in cp.cache.list(Pod)}
    assert cached == truth
    assert {r.name for r in seen} >= {name for name, _ in truth}, "every live pod was reconciled"
