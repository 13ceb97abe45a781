"""Properties of elastic Jobs under random scale operations (hypothesis).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/workloadslicing`` (at most one admitted slice per job
once settled: the scheduler finishes the replaced slice right after admitting its replacement),
``pkg/scheduler/flavorassigner`` (a replacement asks the quota only for its delta over the old
slice), ``pkg/controller/elasticjobs`` (no more pods ungated than the active slice admits).

After every step, settled (``run_until_idle`` and one virtual second for the batched queue status):

* each Job has at most one unfinished slice holding a reservation, and at most one unfinished slice
  waiting (its replacement);
* the admitted usage, counted from the slices themselves (each at its current pod set count, the
  scale-down already applied), never exceeds the ClusterQueue's nominal quota, and the ClusterQueue's
  status reports the same usage;
* a Job's pods without the elastic gate, not terminating, never outnumber its active slice's count.

Upstream's cache counts the old and the new slice together for the instant between the new one's
admission and the old one's ``Finished`` write; both writes happen in one scheduler reconcile here,
and the properties are checked between steps, so that instant is not observed (nor is it by a
client of a real cluster, which sees the writes one after the other).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.api.kueue_v1beta2 import Workload

from .test_elastic_jobs import _world, elastic_job, gated, scale

NOMINAL = 6
JOBS = ("a", "b")
SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])

steps = st.lists(
    st.tuples(st.sampled_from(JOBS), st.integers(min_value=1, max_value=5)), min_size=1, max_size=5
)


def _true(wl: Workload, kind: str) -> bool:
    return any(
        c.type == kind and c.status == "True" for c in (wl.status.conditions if wl.status else None) or ()
    )


def _check(w) -> None:
    w.cp.advance(1)
    w.cp.advance(1)  # an inadmissible workload is retried 1 s after a release, its status 1 s later
    workloads = w.cp.client.list(Workload, "default").items
    used = 0
    for name in JOBS:
        mine = [
            x for x in workloads if x.metadata.owner_references[0].name == name and not _true(x, "Finished")
        ]
        reserved = [x for x in mine if _true(x, "QuotaReserved")]
        assert len(reserved) <= 1, [x.metadata.name for x in reserved]
        assert len(mine) - len(reserved) <= 1
        granted = sum(ps.count for x in reserved for ps in x.spec.pod_sets)
        used += granted
        running = [
            p
            for p in w.cp.client.list(Pod, "default").items
            if (p.metadata.labels or {}).get("batch.kubernetes.io/job-name") == name
            and p.metadata.deletion_timestamp is None
            and not gated(p)
            and (p.status is None or p.status.phase not in ("Succeeded", "Failed"))
        ]
        assert len(running) <= granted
    assert used <= NOMINAL
    status = w.cq("cq").status.flavors_usage or []
    reported = next((r.total for f in status for r in f.resources if r.name == "cpu"), None)
    assert reported is not None and reported.milli_value() == used * 1000


@SETTINGS
@given(first=st.tuples(st.integers(1, 4), st.integers(1, 4)), ops=steps)
def test_slices_never_double_count_nor_exceed_the_quota(
    first: tuple[int, int], ops: list[tuple[str, int]]
) -> None:
    w = _world(nominal=str(NOMINAL))
    for name, parallelism in zip(JOBS, first, strict=True):
        w.apply(elastic_job(name, parallelism))
    w.cp.run_until_idle()
    _check(w)
    for name, parallelism in ops:
        scale(w, name, parallelism)
        _check(w)
