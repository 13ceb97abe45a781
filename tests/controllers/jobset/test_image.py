"""A control plane with the JobSet controller busy pickles and continues exactly (issue 15's
continuity, family conventions point 3): saved and loaded at any moment — Jobs running, a restart
half-way through its foreground deletions, a startup policy waiting, a TTL pending — it goes on to the
same trace, objects and statuses as the control plane that was never saved."""

from __future__ import annotations

import pickle
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbatch import ControlPlane
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod, Service
from kbatch.api.jobset_v1alpha2 import JobSet

from .test_controller import manifest, plane

TOTAL = 90  # virtual seconds: the restarts run out, the InOrder set completes and its TTL expires


def _workload(cp: ControlPlane) -> None:
    cp.apply(manifest("flaky", command="sleep 7; exit 1", replicas=2, pods=1,
                      failurePolicy={"maxRestarts": 2, "restartStrategy": "BlockingRecreate"}))
    ordered = manifest("ordered", command="sleep 4", replicas=1, pods=2, ttlSecondsAfterFinished=30,
                       startupPolicy={"startupPolicyOrder": "InOrder"})
    leader = {**ordered["spec"]["replicatedJobs"][0], "name": "leader"}
    ordered["spec"]["replicatedJobs"].insert(0, leader)
    cp.apply(ordered)


def _outcome(cp: ControlPlane) -> tuple[Any, ...]:
    """Everything the run decided: the trace digest and the objects' visible state."""
    def names(kind: type) -> list[str]:
        return sorted(o.metadata.name for o in cp.client.list(kind, "default").items)

    sets = {js.metadata.name: js.status.to_dict() if js.status else None
            for js in cp.client.list(JobSet, "default").items}
    return cp.trace.digest(), cp.store.revision, sets, names(Job), names(Pod), names(Service)


def _run(split: float | None) -> tuple[Any, ...]:
    cp = plane()
    _workload(cp)
    if split is None:
        cp.advance(TOTAL)
        return _outcome(cp)
    cp.advance(split)
    loaded: ControlPlane = pickle.loads(pickle.dumps(cp, protocol=pickle.HIGHEST_PROTOCOL))
    cp.close()
    loaded.advance(TOTAL - split)
    return _outcome(loaded)


UNSAVED: list[tuple[Any, ...]] = []


def _unsaved() -> tuple[Any, ...]:
    if not UNSAVED:
        UNSAVED.append(_run(None))
    return UNSAVED[0]


def test_the_workload_exercises_restarts_startup_order_and_ttl() -> None:
    """The reference run does what the property relies on: otherwise it would prove little."""
    _, _, sets, jobs, _, services = _unsaved()
    assert sets["flaky"]["restarts"] == 2 and sets["flaky"]["terminalState"] == "Failed"
    assert "ordered" not in sets  # completed, then deleted by its TTL
    assert all(j.startswith("flaky-") for j in jobs)
    assert services == ["flaky", "kubernetes"]  # and the API server's own


@settings(max_examples=6, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, TOTAL * 10 - 1))
def test_saved_and_loaded_at_any_moment_it_continues_exactly(tenths: int) -> None:
    assert _run(tenths / 10) == _unsaved()
