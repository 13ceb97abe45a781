"""waitForPodsReady examples: blockAdmission, the PodsReady timeout with its eviction, the
requeue back-off, deactivation past ``backoffLimitCount``.

Upstream: kubernetes-sigs/kueue v0.19.2 ``test/integration/singlecluster/scheduler/podsready/
scheduler_test.go`` ("Should requeue a workload which exceeded the timeout to reach PodsReady=True",
"Should re-admit a timed out workload and deactivate a workload exceeded the re-queue count limit",
"Should block admission of one new workload if two are considered in the same scheduling cycle",
"Should move the evicted workload at the end of the queue", "Should prioritize workloads submitted
earlier", the two "Should unblock admission of new workloads in other ClusterQueues once the
admitted workload exceeds timeout" cases, which set PodsReady=True, and the one of that name
which times the workload out) and
``test/util/util.go`` (``AwaitWorkloadEvictionByPodsReadyTimeout``: reason ``PodsReadyTimeout``,
"Exceeded the PodsReady timeout <ns>/<name>"; ``ExpectWorkloadsToBeWaiting``: reason ``Waiting``).
Workloads are created directly with no pods, so they never become ready, as upstream's tests.
"""

from __future__ import annotations

import pytest

from .helpers import World, cluster_queue, flavor, local_queue, quota, workload

CONFIG = {
    "apiVersion": "config.kueue.x-k8s.io/v1beta2",
    "kind": "Configuration",
    "waitForPodsReady": {
        "blockAdmission": True,
        "timeout": "5s",
        "requeuingStrategy": {"timestamp": "Eviction", "backoffLimitCount": 2, "backoffBaseSeconds": 1},
    },
}


def _world() -> World:
    return World(flavor("default"),
                 cluster_queue("prod-cq", (["cpu"], [("default", [quota("cpu", "5")])]), cohort="all"),
                 local_queue("prod-queue", "prod-cq"), kueue_config=CONFIG)


def _requeued_by_timeout(w: World, name: str) -> None:
    """``SetRequeuedConditionWithPodsReadyTimeout``: what a job integration writes when it releases a
    timed-out workload (``Requeued=False``, reason ``PodsReadyTimeout``)."""
    from kbatch.api import edit
    from kbatch.controllers.kueue import workloads as W

    wl = edit(w.wl(name))
    W.set_condition(wl.status, "Requeued", False, "PodsReadyTimeout",
                    f"Exceeded the PodsReady timeout default/{name}", wl.metadata.generation, w.cp.now())
    w.cp.client.update_status(wl)
    w.cp.run_until_idle()


def _requeue_count(w: World, name: str) -> int | None:
    state = w.wl(name).status.requeue_state
    return state.count if state is not None else None


def test_blocked_admission_then_timeout_eviction_requeues_with_back_off() -> None:
    w = _world()
    w.apply(workload("prod1", "prod-queue", cpu="2", priority=100),
            workload("prod2", "prod-queue", cpu="2", priority=0))
    w.cp.run_until_idle()
    assert w.admitted("prod1")
    waiting = w.cond("prod2", "QuotaReserved")  # blockAdmission: prod1 is not ready yet
    assert (waiting.status, waiting.reason) == ("False", "Waiting")

    w.cp.advance(5.5)  # the PodsReady timeout
    evicted = w.cond("prod1", "Evicted")
    assert (evicted.status, evicted.reason) == ("True", "PodsReadyTimeout")
    assert evicted.message == "Exceeded the PodsReady timeout default/prod1"
    state = w.wl("prod1").status.requeue_state
    assert state.count == 1 and state.requeue_at is not None
    assert w.release_evicted() == 1  # FinishEvictionForWorkloads
    w.cp.run_until_idle()
    assert w.reserved("prod2")  # prod1 waits for its back-off


def test_requeue_limit_deactivates_and_reactivation_starts_over() -> None:
    w = _world()
    w.apply(workload("prod", "prod-queue", cpu="2"))
    for expected in (1, 2):
        w.cp.run_until_idle()
        assert w.reserved("prod")
        w.cp.advance(5.5)
        assert w.cond("prod", "Evicted").reason == "PodsReadyTimeout"
        _requeued_by_timeout(w, "prod")
        w.release_evicted()
        assert _requeue_count(w, "prod") == expected
        w.cp.advance(2 ** expected + 0.5)  # backoffBaseSeconds * 2^(n-1), with a small jitter
        requeued = w.cond("prod", "Requeued")
        assert (requeued.status, requeued.reason, requeued.message) == (
            "True", "BackoffFinished", "The workload backoff was finished")
    w.cp.run_until_idle()
    assert w.reserved("prod")
    w.cp.advance(5.5)  # the third timeout exceeds backoffLimitCount 2
    wl = w.wl("prod")
    assert wl.spec.active is False and wl.status.requeue_state is None
    evicted = w.cond("prod", "Evicted")
    assert (evicted.reason, evicted.message) == (
        "DeactivatedDueToRequeuingLimitExceeded",
        "The workload is deactivated due to exceeding the maximum number of re-queuing retries")

    w.release_evicted()
    w.cp.client.patch(type(wl), "prod", {"spec": {"active": True}}, "default")
    w.cp.run_until_idle()
    assert w.reserved("prod")
    w.cp.advance(5.5)
    w.release_evicted()
    assert _requeue_count(w, "prod") == 1  # the count starts over after reactivation


def test_a_waiting_job_is_admitted_once_the_admitted_jobs_pods_are_ready() -> None:
    """blockAdmission with Jobs: the second Job waits (``Waiting``) while the first one's pods
    start, and is admitted as soon as the first Workload is PodsReady, with nothing else happening
    (upstream's scheduler waits on the cache in ``waitForPodsReadyIfNeeded`` and admits the head
    it held once the cache reports every admitted workload ready)."""
    from kbatch.api.batch_v1 import Job

    from .test_upstream_job_reconciler import make_job, workload_of, world

    config = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
              "waitForPodsReady": {"blockAdmission": True, "timeout": "10m"}}
    w = world(config=config)
    w.apply(make_job("first", parallelism=2, seconds=300))
    w.cp.run_until_idle()
    w.apply(make_job("second", parallelism=2, seconds=300))
    w.cp.run_until_idle()
    second = workload_of(w, "second").metadata.name
    assert (w.cond(second, "QuotaReserved").status, w.cond(second, "QuotaReserved").reason) == (
        "False", "Waiting")
    w.cp.advance(10)
    first_ready = w.cond(workload_of(w, "first").metadata.name, "PodsReady")
    assert first_ready.status == "True"
    assert w.admitted(second)
    admitted = w.cond(second, "Admitted").last_transition_time
    assert admitted == first_ready.last_transition_time
    assert w.cp.client.get(Job, "second", "default").spec.suspend is False



def _timestamp_world(timestamp: str, nominal: str, base: int = 1, limit: int | None = None) -> World:
    strategy: dict = {"timestamp": timestamp, "backoffBaseSeconds": base}
    if limit is not None:
        strategy["backoffLimitCount"] = limit
    config = {**CONFIG, "waitForPodsReady": {"blockAdmission": True, "timeout": "4s",
                                             "requeuingStrategy": strategy}}
    return World(flavor("default"),
                 cluster_queue("cq", (["cpu"], [("default", [quota("cpu", nominal)])])),
                 kueue_config=config)


def _created_a_second_apart(w: World, cpu: str, *names: str) -> None:
    for name in names:
        w.apply(workload(name, "lq", cpu=cpu))
        w.cp.advance(1)


def test_the_evicted_workload_moves_to_the_end_of_the_queue() -> None:
    """Upstream's "Should move the evicted workload at the end of the queue" (``timestamp:
    Eviction``): three workloads that fit one at a time, created before their LocalQueue; each
    times out in turn and the first, evicted after the third was created, comes back last. (The
    released quota brings the inadmissible workloads back after the 1 s requeue batch.)"""
    w = _timestamp_world("Eviction", nominal="5", limit=2)
    _created_a_second_apart(w, "5", "prod1", "prod2", "prod3")
    w.apply(local_queue("lq", "cq"))
    w.cp.run_until_idle()
    assert w.reserved("prod1")
    w.cp.advance(4.5)  # prod1 times out
    assert w.cond("prod1", "Evicted").reason == "PodsReadyTimeout"
    w.release_evicted()
    w.cp.advance(1.5)  # prod1's back-off (1 s) is over too, yet prod2 and prod3 queued earlier
    assert w.reserved("prod2") and not w.reserved("prod1")
    w.cp.advance(3)  # prod2 times out, and is finished
    w.finish("prod2")
    w.cp.advance(1.5)
    assert w.reserved("prod3") and not w.reserved("prod1")
    w.cp.advance(4)  # prod3 times out too, and is finished
    w.finish("prod3")
    w.cp.advance(1.5)
    assert w.reserved("prod1")
    w.cp.advance(4.5)  # and prod1 times out a second time
    assert [_requeue_count(w, n) for n in ("prod1", "prod2", "prod3")] == [2, 1, 1]


def test_with_creation_timestamps_workloads_submitted_earlier_come_first() -> None:
    """Upstream's "Should prioritize workloads submitted earlier" (``timestamp: Creation``): the
    evicted wl-1 keeps its place by creation time, so once its back-off is over it is admitted
    again before wl-3. Upstream's 1 s back-off races its 1 s requeue batch in real time; here the
    back-off is 3 s so that wl-2 is admitted first, as upstream's test expects."""
    w = _timestamp_world("Creation", nominal="1", base=3)
    w.apply(local_queue("lq", "cq"))
    _created_a_second_apart(w, "1", "wl-1", "wl-2", "wl-3")
    assert w.reserved("wl-1") and not w.reserved("wl-2")
    w.cp.advance(1.5)  # wl-1 timed out (4 s after its admission)
    assert w.cond("wl-1", "Evicted").reason == "PodsReadyTimeout"
    w.release_evicted()
    w.cp.advance(1.5)
    assert w.reserved("wl-2") and not w.reserved("wl-1")
    w.cp.advance(4)  # wl-2 times out; wl-1's back-off is long over
    w.release_evicted()
    w.cp.advance(1.5)
    assert w.reserved("wl-1") and not w.reserved("wl-2") and not w.reserved("wl-3")


def _two_queue_world(block: bool = True) -> World:
    wait = {**CONFIG["waitForPodsReady"], "timeout": "1h", "blockAdmission": block}
    return World(flavor("default"),
                 cluster_queue("prod-cq", (["cpu"], [("default", [quota("cpu", "5")])]), cohort="all"),
                 cluster_queue("dev-cq", (["cpu"], [("default", [quota("cpu", "5")])]), cohort="all"),
                 local_queue("prod-queue", "prod-cq"), local_queue("dev-queue", "dev-cq"),
                 kueue_config={**CONFIG, "waitForPodsReady": wait})


@pytest.mark.parametrize("reason", ["PodsReady", "Started"])
def test_pods_ready_true_unblocks_admission_in_other_cluster_queues(reason: str) -> None:
    """Upstream's two cases named "Should unblock admission of new workloads in other ClusterQueues
    once the admitted workload exceeds timeout" ("update the first workload with PodsReady=True,
    reason=PodsReady|Started condition and verify the second workload is admitted")."""
    from kbatch.api import edit
    from kbatch.controllers.kueue import workloads as W

    w = _two_queue_world()
    w.apply(workload("prod-wl", "prod-queue", cpu="2"))
    w.cp.run_until_idle()
    w.apply(workload("dev-wl", "dev-queue", cpu="2"))
    w.cp.run_until_idle()
    assert w.reserved("prod-wl")
    assert w.cond("dev-wl", "QuotaReserved").reason == "Waiting"
    wl = edit(w.wl("prod-wl"))
    W.set_condition(wl.status, "PodsReady", True, reason, "", wl.metadata.generation, w.cp.now())
    w.cp.client.update_status(wl)
    w.cp.run_until_idle()
    assert w.reserved("dev-wl")


@pytest.mark.parametrize("block", [True, False])
def test_block_admission_of_one_new_workload_if_two_are_considered_in_the_same_cycle(block: bool) -> None:
    """Upstream's "Should block admission of one new workload if two are considered in the same
    scheduling cycle", as written: two 11-cpu workloads in ``prod-cq`` and ``dev-cq`` (5 cpu each)
    wait until a third ClusterQueue lends the cohort 25 cpu; both heads then fit in one cycle,
    the older is admitted and the other waits, since the one just admitted is not PodsReady
    (upstream admits it into the cache before the next entry's ``waitForPodsReadyIfNeeded``).
    Without ``blockAdmission``, upstream's "Should not block admission of one new workload if two
    are considered in the same scheduling cycle": both are admitted."""
    w = _two_queue_world(block)
    w.apply(workload("prod-wl", "prod-queue", cpu="11"))
    w.cp.advance(1)
    w.apply(workload("dev-wl", "dev-queue", cpu="11"))
    w.cp.run_until_idle()
    assert not w.reserved("prod-wl") and not w.reserved("dev-wl")
    w.apply(cluster_queue("test-cq", (["cpu"], [("default", [quota("cpu", "25", borrowing="0")])]),
                          cohort="all"))
    w.cp.advance(1.5)  # the inadmissible workloads come back after the requeue batch (1 s)
    assert w.reserved("prod-wl")
    if not block:
        assert w.reserved("dev-wl")
        return
    waiting = w.cond("dev-wl", "QuotaReserved")
    assert (waiting.status, waiting.reason, waiting.message) == (
        "False", "Waiting", "waiting for all admitted workloads to be in PodsReady condition")


def test_an_evicted_workload_unblocks_other_cluster_queues_once_its_eviction_finishes() -> None:
    """Upstream's "Should unblock admission of new workloads in other ClusterQueues once the
    admitted workload exceeds timeout" (the "Short PodsReady timeout" case): the evicted 'prod'
    still holds its quota, and blocks, until its eviction is finished; then 'dev' is admitted and
    'prod' waits in its queue."""
    config = {**CONFIG, "waitForPodsReady": {**CONFIG["waitForPodsReady"], "timeout": "5s"}}
    w = World(flavor("default"),
              cluster_queue("prod-cq", (["cpu"], [("default", [quota("cpu", "5")])]), cohort="all"),
              cluster_queue("dev-cq", (["cpu"], [("default", [quota("cpu", "5")])]), cohort="all"),
              local_queue("prod-queue", "prod-cq"), local_queue("dev-queue", "dev-cq"), kueue_config=config)
    w.apply(workload("prod", "prod-queue", cpu="2"))
    w.cp.advance(1)
    w.apply(workload("dev", "dev-queue", cpu="2"))
    w.cp.run_until_idle()
    assert w.reserved("prod") and w.cond("dev", "QuotaReserved").reason == "Waiting"
    w.cp.advance(4.5)  # prod's timeout (5 s after its admission)
    assert w.cond("prod", "Evicted").reason == "PodsReadyTimeout"
    assert w.reserved("prod") and not w.reserved("dev")
    w.release_evicted()  # FinishEvictionForWorkloads
    w.cp.run_until_idle()
    assert w.wl("prod").status.admission is None
    assert w.reserved("dev")
    w.cp.advance(1)  # the queue status batch
    status = w.cq("prod-cq").status
    assert (status.pending_workloads, status.reserving_workloads, status.admitted_workloads) == (1, 0, 0)
