"""The queue status controllers rewrite a status another writer changed, even when what they
compute is what they last wrote (``kbatch.controllers.kueue.status``: a reconcile is skipped only
for the stored version this controller wrote or found current)."""

from __future__ import annotations

from .test_release_wakes_scheduler import _held


def test_queue_status_written_by_someone_else_is_corrected_at_the_next_reconcile() -> None:
    """The status controllers skip a reconcile that computes what they last wrote for the same
    stored version; another writer's version is never taken for theirs."""
    w = _held("BestEffortFIFO")
    cq = w.cq("cq")
    assert cq.status.pending_workloads == 1 and cq.status.admitted_workloads == 1
    w.cp.client.patch_status(type(cq), "cq", {"status": {"pendingWorkloads": 99}})
    w.cp.client.patch_status(type(w.lq("lq")), "lq", {"status": {"pendingWorkloads": 99}}, "default")
    # an event that moves nothing the status shows: the same status is computed again
    w.cp.client.patch(type(w.wl("waiting")), "waiting", {"metadata": {"labels": {"touched": "yes"}}},
                      "default")
    w.cp.run_until_idle()
    assert w.cq("cq").status.pending_workloads == 1
    assert w.lq("lq").status.pending_workloads == 1
