"""Manager quota automation (KEP 9988), the invariants as properties.

* The manager's nominal quota of a resource is the sum, over the connected workers, of that
  resource's nominal quotas (every flavor) in the worker ClusterQueues related to it: those some worker
  LocalQueue points to whose key is that of a manager LocalQueue pointing to the manager's ClusterQueue
  (KEP "Defining related worker ClusterQueues"), each counted once per worker.
* The sum does not depend on the order of workers or queues, and unrelated queues add nothing.
* Through the controllers: after any sequence of worker edits, the manager's quotas equal that sum of
  what the workers hold, and reconciling again writes nothing (idempotent; KEP risk 4).
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbatch.api.kueue_v1beta2 import ClusterQueue, LocalQueue
from kbatch.controllers.kueue.multikueue.quota_automation import WorkerQueues, aggregate, automated_quotas

from .quota_world import Worker, build, config, cq, lq, manager, quotas, reconcile, settle
from .test_quota_automation import _worker

RESOURCES = ["cpu", "memory", "gpu"]
KEYS = [("default", "lq1"), ("default", "lq2"), ("team", "lq1")]
CQS = ["a", "b", "c"]

quota_values = st.integers(0, 40).map(str)
flavor_quotas = st.dictionaries(st.sampled_from(RESOURCES), quota_values, min_size=1, max_size=3)


@st.composite
def worker_queues(draw: st.DrawFn) -> WorkerQueues:
    cqs = []
    for name in draw(st.lists(st.sampled_from(CQS), unique=True, max_size=3)):
        groups = draw(
            st.lists(
                st.lists(
                    st.tuples(st.sampled_from(["f1", "f2"]), flavor_quotas),
                    min_size=1,
                    max_size=2,
                    unique_by=lambda f: f[0],
                ),
                min_size=1,
                max_size=2,
            )
        )
        cqs.append(ClusterQueue.from_dict(cq(name, *groups)))
    lqs = []
    for ns, name in draw(st.lists(st.sampled_from(KEYS), unique=True, max_size=3)):
        lqs.append(
            LocalQueue.from_dict(
                {**lq(name, draw(st.sampled_from(CQS))), "metadata": {"name": name, "namespace": ns}}
            )
        )
    return WorkerQueues(tuple(lqs), tuple(cqs))


def _by_definition(keys: set[tuple[str, str]], workers: list[WorkerQueues]) -> dict[str, Fraction]:
    """The KEP's recipe, written out: N, L, R per worker, then the sums."""
    total: dict[str, Fraction] = {}
    for w in workers:
        related = {
            q.spec.cluster_queue for q in w.local_queues if (q.metadata.namespace, q.metadata.name) in keys
        }
        for c in w.cluster_queues:
            if c.metadata.name not in related:
                continue
            for g in c.spec.resource_groups:
                for f in g.flavors:
                    for r in f.resources:
                        total[r.name] = total.get(r.name, Fraction(0)) + r.nominal_quota.as_fraction()
    return total


@settings(max_examples=150, deadline=None)
@given(
    st.sets(st.sampled_from(KEYS)), st.lists(worker_queues(), max_size=3), st.randoms(use_true_random=False)
)
def test_sum_of_related_worker_quotas(
    keys: set[tuple[str, str]], workers: list[WorkerQueues], rnd: object
) -> None:
    got = aggregate(keys, workers)
    assert {k: v.as_fraction() for k, v in got.items()} == _by_definition(keys, workers)
    shuffled = [
        WorkerQueues(tuple(reversed(w.local_queues)), tuple(reversed(w.cluster_queues)))
        for w in reversed(workers)
    ]
    assert aggregate(keys, shuffled) == got
    unrelated = WorkerQueues((), (ClusterQueue.from_dict(cq("z", [("f1", {"cpu": "99"})])),))
    assert aggregate(keys, [*workers, unrelated]) == got


@settings(max_examples=100, deadline=None)
@given(st.lists(worker_queues(), max_size=3))
def test_applied_quotas_are_a_fixed_point(workers: list[WorkerQueues]) -> None:
    """Writing the result and computing again gives the same quotas (no reconcile loop)."""
    totals = aggregate(set(KEYS), workers)
    manager_cq = ClusterQueue.from_dict(cq("m", [("default", dict.fromkeys(RESOURCES, "0"))]))
    first = automated_quotas(manager_cq, totals)
    assert isinstance(first, list)
    again = manager_cq.model_copy(deep=True)
    again.spec.resource_groups[0].flavors[0].resources = first
    assert automated_quotas(again, totals) == first
    assert [r.name for r in first] == RESOURCES  # the covered order, every covered resource


edits = st.lists(
    st.one_of(
        st.tuples(st.just("quota"), st.sampled_from(["worker1", "worker2"]), st.integers(0, 20)),
        st.tuples(st.just("unlink"), st.sampled_from(["worker1", "worker2"]), st.just(0)),
        st.tuples(st.just("relink"), st.sampled_from(["worker1", "worker2"]), st.integers(0, 20)),
    ),
    min_size=1,
    max_size=3,
)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits)
def test_manager_follows_every_worker_change(ops: list[tuple[str, str, int]]) -> None:
    workers = {
        n: Worker([lq("lq1", "w-cq"), cq("w-cq", [("default", {"cpu": "4"})])])
        for n in ("worker1", "worker2")
    }
    m = build(
        manager(
            cq("cq1", [("default", {"cpu": "0"})], checks=("ac1",)),
            [lq("lq1", "cq1")],
            config("config1", ["worker1", "worker2"]),
        ),
        workers,
    )
    for op, name, value in ops:
        w = _worker(m, name)
        if op == "quota":
            w.apply(cq("w-cq", [("default", {"cpu": str(value)})]))
        elif op == "unlink" or w.client.list(LocalQueue).items:  # a LocalQueue's ClusterQueue is immutable
            if w.client.list(LocalQueue).items:
                w.client.delete(LocalQueue, "lq1", "default")
        else:
            w.apply([cq(f"w-cq{value}", [("default", {"cpu": str(value)})]), lq("lq1", f"w-cq{value}")])
        settle(m)
        state = [
            WorkerQueues(
                tuple(_worker(m, n).client.list(LocalQueue).items),
                tuple(_worker(m, n).client.list(ClusterQueue).items),
            )
            for n in ("worker1", "worker2")
        ]
        want = aggregate({("default", "lq1")}, state)
        assert quotas(m, "cq1") == {"cpu": str(want.get("cpu", 0))}
        rv = m.client.get(ClusterQueue, "cq1").metadata.resource_version
        reconcile(m, "cq1")
        assert m.client.get(ClusterQueue, "cq1").metadata.resource_version == rv
