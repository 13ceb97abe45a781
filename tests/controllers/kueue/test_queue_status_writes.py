"""The queue status controllers rewrite a status another writer changed, even when what they
compute is what they last wrote (``kbatch.controllers.kueue.status``: a reconcile is skipped only
for the stored version this controller wrote or found current)."""

from __future__ import annotations

from kbatch.controllers.kueue.manager import UPDATES_BATCH_PERIOD

from .helpers import workload
from .test_release_wakes_scheduler import _held, _single


def test_queue_status_written_by_someone_else_is_corrected_at_the_next_reconcile() -> None:
    """The status controllers skip a reconcile that computes what they last wrote for the same
    stored version; another writer's version is never taken for theirs."""
    w = _held("BestEffortFIFO")
    w.cp.advance(UPDATES_BATCH_PERIOD)
    cq = w.cq("cq")
    assert cq.status.pending_workloads == 1 and cq.status.admitted_workloads == 1
    w.cp.client.patch_status(type(cq), "cq", {"status": {"pendingWorkloads": 99}})
    w.cp.client.patch_status(type(w.lq("lq")), "lq", {"status": {"pendingWorkloads": 99}}, "default")
    # an event that moves nothing the status shows: the same status is computed again
    w.cp.client.patch(type(w.wl("waiting")), "waiting", {"metadata": {"labels": {"touched": "yes"}}},
                      "default")
    w.cp.advance(UPDATES_BATCH_PERIOD)
    assert w.cq("cq").status.pending_workloads == 1
    assert w.lq("lq").status.pending_workloads == 1


def test_a_burst_of_workload_changes_is_one_status_write_a_batch_period_after_the_first() -> None:
    """Upstream's ``qWorkloadHandler`` (LocalQueue) and ``nonCQObjectHandler`` (ClusterQueue) enqueue
    with ``AddAfter(req, UpdatesBatchPeriod)``, and a request already waiting keeps its earlier
    deadline: the statuses are written once, 1 s after the first change, counting every change."""
    w = _single("BestEffortFIFO")
    w.cp.advance(5)
    versions = (w.cq("cq").metadata.resource_version, w.lq("lq").metadata.resource_version)
    w.apply(workload("a", "lq", cpu="1"))
    w.cp.run_until_idle()
    assert w.admitted("a")
    w.cp.advance(0.5)
    w.apply(workload("b", "lq", cpu="1"))
    w.cp.advance(UPDATES_BATCH_PERIOD - 0.5 - 0.01)
    assert w.admitted("b")
    assert (w.cq("cq").metadata.resource_version, w.lq("lq").metadata.resource_version) == versions
    w.cp.advance(0.01)
    cq, lq = w.cq("cq"), w.lq("lq")
    assert cq.status.admitted_workloads == lq.status.admitted_workloads == 2
    assert int(cq.metadata.resource_version) > int(versions[0])
    assert int(lq.metadata.resource_version) > int(versions[1])
    written = (cq.metadata.resource_version, lq.metadata.resource_version)
    w.cp.advance(3 * UPDATES_BATCH_PERIOD)  # b's later request was dropped for a's earlier one
    assert (w.cq("cq").metadata.resource_version, w.lq("lq").metadata.resource_version) == written
