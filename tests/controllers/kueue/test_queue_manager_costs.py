"""The queue manager's shortcuts answer as the long way would (docs/kueue.md, "Performance"):

* its set of non-empty heaps (``QueueManager.nonempty``) is what a scan of every ClusterQueue's heap
  would give, whatever sequence of queue operations ran: ``has_heads`` answers from it instead of
  scanning 1,000 queues several times a cycle;
* ``queueInadmissibleWorkloads`` asks for a namespace's labels once per call, not once per workload,
  and moves the same workloads.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.selectors import selector_from_set
from kbatch.controllers.kueue.model.info import InfoOptions, WorkloadInfo
from kbatch.controllers.kueue.queues import QueueManager
from kbatch.controllers.kueue.scheduling.cycle import RequeueReason

T0 = datetime(2025, 1, 1, tzinfo=UTC)
QUEUES = ("cq-a", "cq-b", "cq-c")
REASONS = (
    RequeueReason.GENERIC,
    RequeueReason.NO_FIT,
    RequeueReason.PENDING_PREEMPTION,
    RequeueReason.FAILED_AFTER_NOMINATION,
)


def _workload(i: int, cq: str, priority: int) -> Workload:
    return Workload.model_validate({
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
        "metadata": {"name": f"w{i}", "namespace": "ns", "uid": f"uid-{i:03d}",
                     "creationTimestamp": (T0 + timedelta(seconds=i)).isoformat()},
        "spec": {"queueName": f"lq-{cq}", "priority": priority, "podSets": [{"name": "main", "count": 1,
                 "template": {"spec": {"containers": [{"name": "c", "image": "b",
                              "resources": {"requests": {"cpu": "1"}}}]}}}]}})


op = st.one_of(
    st.tuples(st.just("push"), st.integers(0, 7), st.sampled_from(QUEUES), st.integers(0, 2)),
    st.tuples(st.just("heads")),
    st.tuples(st.just("requeue"), st.sampled_from(REASONS)),
    st.tuples(st.just("delete"), st.integers(0, 7)),
    st.tuples(st.just("inadmissible"), st.sampled_from(QUEUES)),
    st.tuples(st.just("drop_queue"), st.sampled_from(QUEUES)),
    st.tuples(st.just("add_queue"), st.sampled_from(QUEUES)),
)


def _scanned(mgr: QueueManager) -> set[str]:
    return {name for name, cq in mgr.cluster_queues.items() if cq.in_heap}


@settings(max_examples=150, deadline=None)
@given(st.lists(op, max_size=40))
def test_the_nonempty_set_is_the_scan_of_every_heap(ops: list[tuple]) -> None:
    mgr = QueueManager(InfoOptions(), lambda: T0 + timedelta(hours=1))
    for name in QUEUES:
        mgr.add_or_update_cluster_queue(name, "BestEffortFIFO", selector_from_set({}))
    popped: list = []
    for step in ops:
        kind = step[0]
        cq = mgr.cluster_queues.get(step[-1]) if kind in ("inadmissible", "drop_queue") else None
        if kind == "push":
            target = mgr.cluster_queues.get(step[2])
            if target is not None:
                target.push_or_update(WorkloadInfo.of(_workload(step[1], step[2], step[3])))
        elif kind == "heads":
            popped = mgr.heads(lambda name: True)
        elif kind == "requeue":
            for head in popped:
                target = mgr.cluster_queues.get(head.cq_name)
                if target is not None:
                    target.requeue(head.info, step[1], "", False, True)
            popped = []
        elif kind == "delete":
            for target in mgr.cluster_queues.values():
                target.delete(f"ns/w{step[1]}")
        elif kind == "inadmissible" and cq is not None:
            cq.queue_inadmissible(lambda namespace: {})
        elif kind == "drop_queue":
            mgr.delete_cluster_queue(step[1])
        elif kind == "add_queue":
            mgr.add_or_update_cluster_queue(step[1], "BestEffortFIFO", selector_from_set({}))
        assert mgr.nonempty == _scanned(mgr), step
        assert mgr.has_heads(lambda name: True) == bool(_scanned(mgr))
        assert not mgr.has_heads(lambda name: False)


def test_queue_inadmissible_reads_each_namespace_once_and_moves_the_same_workloads() -> None:
    mgr = QueueManager(InfoOptions(), lambda: T0 + timedelta(hours=1))
    mgr.add_or_update_cluster_queue("cq", "BestEffortFIFO", selector_from_set({"team": "a"}))
    cq = mgr.cluster_queues["cq"]
    labels = {"ns": {"team": "a"}, "other": {"team": "b"}}
    for i in range(6):
        wl = _workload(i, "cq", 0)
        wl.metadata.namespace = "ns" if i % 2 else "other"
        cq.inadmissible[f"{wl.metadata.namespace}/w{i}"] = WorkloadInfo.of(wl)
    asked: list[str] = []

    def namespace_labels(name: str) -> dict[str, str] | None:
        asked.append(name)
        return labels.get(name)

    assert cq.queue_inadmissible(namespace_labels) == 3
    assert sorted(asked) == ["ns", "other"]
    assert sorted(cq.in_heap) == ["ns/w1", "ns/w3", "ns/w5"]
    assert sorted(cq.inadmissible) == ["other/w0", "other/w2", "other/w4"]
