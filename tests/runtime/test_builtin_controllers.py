"""ttl-after-finished and garbage-collector on the runtime, in virtual time."""

from __future__ import annotations

from typing import Any

import pytest
from _support import make_cp

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import NotFound
from kbatch.runtime.builtin.ttl_after_finished import expires_at, needs_cleanup
from kbatch.testing import make_job, make_pod, wait_until_gone


def _finish(cp: Any, name: str, at: str, type_: str = "Complete") -> None:
    conds = ["SuccessCriteriaMet", "Complete"] if type_ == "Complete" else ["FailureTarget", "Failed"]
    status: dict[str, Any] = {"startTime": "2025-01-01T00:00:00Z", "conditions": [
        {"type": t, "status": "True", "lastTransitionTime": at, "lastProbeTime": at, "reason": "X"}
        for t in conds]}
    if type_ == "Complete":
        status.update(completionTime=at, succeeded=1)
    else:
        status.update(failed=1)
    cp.client.patch_status(Job, name, {"status": status}, "default")


def _exists(cp: Any, kind: type, name: str) -> bool:
    try:
        cp.client.get(kind, name, "default")
    except NotFound:
        return False
    return True


@pytest.mark.parametrize("outcome", ["Complete", "Failed"])
def test_ttl_deletes_finished_job_at_finish_plus_ttl_with_foreground_propagation(outcome: str) -> None:
    cp = make_cp()
    job = cp.apply(make_job("train").manual_selector().ttl_after_finished(30).obj())[0]
    cp.apply(make_pod("train-0").label("job", "train").owner(job).obj())
    cp.advance(10)
    _finish(cp, "train", "2025-01-01T00:00:10Z", outcome)
    cp.advance(29)
    assert _exists(cp, Job, "train") and _exists(cp, Pod, "train-0")
    cp.advance(1)
    assert not _exists(cp, Job, "train") and not _exists(cp, Pod, "train-0")
    deletes = [r for r in cp.trace.records if r.verb == "delete"]
    at = "2025-01-01T00:00:40.000000Z"
    assert [(r.kind, r.name, r.t) for r in deletes] == [("Pod", "train-0", at), ("Job.batch", "train", at)]
    foreground = [r for r in cp.trace.records if r.verb == "update" and r.name == "train"
                  and "finalizers" in (r.diff.get("metadata") or {})]
    assert foreground[0].diff["metadata"]["finalizers"] == ["foregroundDeletion"]


def test_ttl_ignores_unfinished_jobs_and_jobs_without_ttl() -> None:
    cp = make_cp()
    cp.apply([make_job("running").manual_selector().ttl_after_finished(0).obj(),
              make_job("no-ttl").manual_selector().obj()])
    _finish(cp, "no-ttl", "2025-01-01T00:00:00Z")
    cp.advance("1h")
    assert _exists(cp, Job, "running") and _exists(cp, Job, "no-ttl")


def test_ttl_rechecks_the_job_fresh_before_deleting() -> None:
    cp = make_cp()
    cp.apply(make_job("train").manual_selector().ttl_after_finished(10).obj())
    _finish(cp, "train", "2025-01-01T00:00:00Z")
    cp.run_until_idle()
    # The TTL grows in the API server; the cache has not seen it when the timer fires.
    cp.client.patch(Job, "train", {"spec": {"ttlSecondsAfterFinished": 100}}, "default")
    informer = cp.cache.informer_for(Job)
    stream, informer._stream = informer._stream, None  # hold back watch delivery
    cp.advance(10)
    assert _exists(cp, Job, "train"), "the fresh read saw the new TTL"
    informer._stream = stream
    assert wait_until_gone(cp, Job, "train", timeout="5m") == pytest.approx(90)


def test_ttl_decisions_are_pure_functions() -> None:
    job = make_job("j").ttl_after_finished(5).status(conditions=[
        {"type": "Failed", "status": "True", "lastTransitionTime": "2025-01-01T00:01:00Z"}]).obj()
    assert needs_cleanup(job)
    assert expires_at(job).isoformat() == "2025-01-01T00:01:05+00:00"
    assert not needs_cleanup(make_job("k").ttl_after_finished(5).obj())


def test_garbage_collector_removes_dependents_of_a_deleted_owner() -> None:
    cp = make_cp()
    job = cp.apply(make_job("owner").manual_selector().obj())[0]
    cp.apply([make_pod(f"p{i}").owner(job).obj() for i in range(3)])
    cp.client.delete(Job, "owner", "default", propagation_policy="Background")
    cp.run_until_idle()
    assert cp.client.list(Pod, "default").items == []


def test_without_garbage_collector_dependents_stay() -> None:
    cp = make_cp(controllers="ttl-after-finished")
    job = cp.apply(make_job("owner").manual_selector().obj())[0]
    cp.apply(make_pod("p").owner(job).obj())
    cp.client.delete(Job, "owner", "default", propagation_policy="Background")
    cp.advance("1h")
    assert _exists(cp, Pod, "p")
