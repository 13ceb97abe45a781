"""The ``MaxUncountedPods`` bound as a property of the pure sync (job_controller.go
``trackJobStatusAndRemoveFinalizers``: the loop stops once ``len(newSucceededIndexes) +
len(uncounted.Succeeded) + len(uncounted.Failed)`` reaches the cap).

Whatever was left uncounted by an earlier sync (pods still holding the finalizer) and however many
pods newly finished, the status a sync writes first lists no more uids than the cap — one more when
the earlier ones already fill it, as upstream checks after adding a pod — and every uid it lists
either was already listed or belongs to a pod this sync releases.
"""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.controllers.job import ContainerInfo, PodInfo, sync_job
from kbatch.controllers.job.context import SyncConfig
from kbatch.controllers.job.views import JobStatusInfo

from .builders import make_job

NOW = datetime(2025, 1, 1, tzinfo=UTC)
CAP = 10


def _finished(prefix: str, n: int, phase: str) -> list[PodInfo]:
    code = 0 if phase == "Succeeded" else 1
    return [PodInfo(name=f"{prefix}{i:03d}", uid=f"{prefix}{i:03d}", phase=phase, namespace="default",
                    containers=(ContainerInfo("main", 0, code, NOW),)) for i in range(n)]


@settings(max_examples=120, deadline=None)
@given(st.integers(0, CAP), st.integers(0, CAP), st.integers(0, 3 * CAP), st.integers(0, 3 * CAP))
def test_a_sync_never_lists_more_uncounted_uids_than_the_cap(prior_s: int, prior_f: int, new_s: int,
                                                            new_f: int) -> None:
    prior_s = min(prior_s, CAP - prior_f) if prior_f <= CAP else 0  # an earlier sync kept within the cap
    old_s, old_f = _finished("os", prior_s, "Succeeded"), _finished("of", prior_f, "Failed")
    pods = old_s + old_f + _finished("ns", new_s, "Succeeded") + _finished("nf", new_f, "Failed")
    status = JobStatusInfo(uncounted_succeeded=tuple(p.uid for p in old_s),
                           uncounted_failed=tuple(p.uid for p in old_f), has_uncounted=True)
    job = make_job(parallelism=1, completions=1000, backoff_limit=1000, status=status)
    plan = sync_job(job, pods, NOW, None, SyncConfig(max_uncounted_pods=CAP))
    assert plan.status is not None
    listed = set(plan.status.uncounted_succeeded) | set(plan.status.uncounted_failed)
    assert len(listed) <= max(CAP, prior_s + prior_f + 1)
    released = {p.uid for p in plan.finalizers_to_remove}
    assert listed <= {p.uid for p in old_s + old_f} | released
