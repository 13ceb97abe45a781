"""Periodic store compaction (kube-apiserver's 5-minute etcd compaction) keeps informers and the
trace working without a relist or a gap, and bounds the store's history."""

from __future__ import annotations

import pytest

from kbatch.api.core_v1 import Pod
from kbatch.runtime.clock import VirtualClock
from kbatch.runtime.compaction import Compactor
from kbatch.runtime.controlplane import ControlPlane
from kbatch.store import MemoryStore
from kbatch.testing import make_node, make_pod


def test_compacts_to_the_revision_seen_one_interval_earlier() -> None:
    store, clock = MemoryStore(), VirtualClock()
    compactor = Compactor(store, clock, 300)
    store.put(b"/a", b"1")
    clock.jump_to(clock.now() + 300)
    compactor()
    assert store.compact_revision == 0 and compactor.recorded == store.revision
    first = store.revision
    store.put(b"/a", b"2")
    clock.jump_to(clock.now() + 299)
    compactor()
    assert store.compact_revision == 0, "not before the next tick"
    clock.jump_to(clock.now() + 1)
    compactor()
    assert store.compact_revision == first, "history since the previous tick is kept"
    store.put(b"/a", b"3")
    clock.jump_to(clock.now() + 900)  # a jump over three ticks: nothing was written in between
    compactor()
    assert store.compact_revision == store.revision


def test_rejects_a_non_positive_interval() -> None:
    with pytest.raises(ValueError):
        Compactor(MemoryStore(), VirtualClock(), 0)


def test_informers_and_trace_survive_compaction_without_relist_or_gap() -> None:
    # node Lease renewals off: the assertion below needs ticks with no writes in between
    cp = ControlPlane(seed=3, controllers="scheduler,kubelet", options={"kubelet": {"node_lease": False}})
    cp.apply(make_node("n1").obj())
    for i in range(3):
        cp.apply(make_pod(f"p{i}").command("sleep 400").obj())
    cp.advance("20m")
    assert cp.compactor is not None and cp.compactor.compactions >= 1
    assert cp.store.compact_revision == cp.store.revision, "ticks at 10 and 15 min saw no new writes"
    pods = cp.cache.list(Pod, "default")
    assert [p.status.phase for p in pods] == ["Succeeded"] * 3
    assert all(inf.relists == 0 for inf in cp.cache._informers.values())
    assert not any(r.verb == "gap" for r in cp.trace.records)


def test_compaction_can_be_switched_off() -> None:
    cp = ControlPlane(seed=3, controllers="", compaction_interval=None)
    cp.apply(make_node("n1").obj())
    cp.advance("1h")
    assert cp.compactor is None and cp.store.compact_revision == 0
