"""Properties of the visibility API's pure core (:mod:`kbatch.controllers.kueue.visibility`):

* a ClusterQueue's snapshot is the order its queue pops in (StrictFIFO and BestEffortFIFO alike,
  and with admission fair sharing when usages do not change between pops);
* positions in the ClusterQueue are a permutation of ``0..n-1`` in snapshot order; positions in each
  LocalQueue are ``0..k-1`` in the same order;
* ``limit``/``offset`` slice the full answer, for a ClusterQueue and for a LocalQueue.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.model.info import WorkloadInfo
from kbatch.controllers.kueue.queues import ClusterQueueQueue
from kbatch.controllers.kueue.visibility import (
    PendingOptions,
    cluster_queue_summary,
    local_queue_summary,
    pending_snapshot,
)
from kbatch.controllers.kueue.visibility.summary import pending_options

T0 = datetime(2025, 1, 1, tzinfo=UTC)
QUEUES = ("foo/lq-a", "foo/lq-b", "bar/lq-a")

pending = st.lists(st.tuples(st.sampled_from(QUEUES), st.integers(0, 3), st.integers(0, 5)),
                   min_size=0, max_size=12)


def _workload(i: int, queue: str, priority: int, seconds: int) -> Workload:
    namespace, name = queue.split("/")
    return Workload.model_validate({
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
        "metadata": {"name": f"w{i}", "namespace": namespace, "uid": f"uid-{i:03d}",
                     "creationTimestamp": (T0 + timedelta(seconds=seconds)).isoformat()},
        "spec": {"queueName": name, "priority": priority, "podSets": [{"name": "main", "count": 1,
                 "template": {"spec": {"containers": [{"name": "c", "image": "b"}]}}}]}})


def _queue(specs: list[tuple[str, int, int]], strategy: str, usage: dict[str, float] | None = None) -> Any:
    cq = ClusterQueueQueue("cq", strategy, None, lambda: T0 + timedelta(hours=1))
    if usage is not None:
        cq.set_admission_fair_sharing(lambda lq: usage.get(lq, 0.0))
    for i, (queue, priority, seconds) in enumerate(specs):
        cq.push_or_update(WorkloadInfo.of(_workload(i, queue, priority, seconds)))
    return cq


def _pops(cq: Any) -> list[str]:
    out = []
    while (info := cq.pop()) is not None:
        out.append(info.key)
    return out


@settings(max_examples=60, deadline=None)
@given(pending, st.sampled_from(["StrictFIFO", "BestEffortFIFO"]))
def test_the_snapshot_is_the_pop_order(specs: list[tuple[str, int, int]], strategy: str) -> None:
    snapshot = [i.key for i in pending_snapshot(_queue(specs, strategy))]
    assert snapshot == _pops(_queue(specs, strategy))


@settings(max_examples=60, deadline=None)
@given(pending, st.fixed_dictionaries({q: st.sampled_from([0.0, 0.5, 2.0]) for q in QUEUES}))
def test_with_admission_fair_sharing_the_snapshot_is_the_pop_order(
        specs: list[tuple[str, int, int]], usage: dict[str, float]) -> None:
    snapshot = [i.key for i in pending_snapshot(_queue(specs, "BestEffortFIFO", usage))]
    assert snapshot == _pops(_queue(specs, "BestEffortFIFO", usage))


@settings(max_examples=60, deadline=None)
@given(pending)
def test_positions_are_permutations_in_snapshot_order(specs: list[tuple[str, int, int]]) -> None:
    order = [i.obj for i in pending_snapshot(_queue(specs, "BestEffortFIFO"))]
    items = cluster_queue_summary(order, PendingOptions())
    assert [i["positionInClusterQueue"] for i in items] == list(range(len(order)))
    assert [i["metadata"]["name"] for i in items] == [w.metadata.name for w in order]
    for queue in QUEUES:
        namespace, name = queue.split("/")
        mine = [i for i in items if (i["metadata"]["namespace"], i["localQueueName"]) == (namespace, name)]
        assert [i["positionInLocalQueue"] for i in mine] == list(range(len(mine)))
        assert local_queue_summary(order, namespace, name, PendingOptions()) == mine


@settings(max_examples=80, deadline=None)
@given(pending, st.integers(-3, 15), st.integers(-3, 15), st.sampled_from(QUEUES))
def test_limit_and_offset_slice_the_whole_answer(specs: list[tuple[str, int, int]], limit: int, offset: int,
                                                 queue: str) -> None:
    order = [i.obj for i in pending_snapshot(_queue(specs, "StrictFIFO"))]
    opts = pending_options({"limit": str(limit), "offset": str(offset)})
    start, count = max(offset, 0), (1000 if limit == 0 else max(limit, 0))
    whole = cluster_queue_summary(order, PendingOptions())
    assert cluster_queue_summary(order, opts) == whole[start:start + count]
    namespace, name = queue.split("/")
    whole_lq = local_queue_summary(order, namespace, name, PendingOptions())
    assert local_queue_summary(order, namespace, name, opts) == whole_lq[start:start + count]


def test_options_default_and_bound_as_upstream() -> None:
    assert pending_options({}) == PendingOptions(1000, 0)
    assert pending_options({"limit": "0", "offset": "-4"}) == PendingOptions(1000, 0)
    assert pending_options({"limit": "-1"}) == PendingOptions(0, 0)
    assert pending_options({"limit": "+7", "offset": "3"}) == PendingOptions(7, 3)
    assert pending_options({"limit": "2000000000"}) == PendingOptions(100_000, 0)
