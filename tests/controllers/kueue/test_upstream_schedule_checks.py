"""Upstream's scheduling-cycle cases about admission checks and admission errors, through kbatch.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/scheduler_test.go`` ``TestSchedule`` (case
names quoted per test) and ``scheduler.go`` ``admit`` (``workload.HasAllRequiredChecks``, then
``SyncAdmittedCondition``): a workload whose checks are all Ready when it gets quota is admitted in the
same status write; one with a Pending check only holds quota.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.kueue_v1beta2 import Workload

from .helpers import KUEUE, World, activate_checks, cluster_queue, flavor, local_queue, quota, workload

CHECK = {
    "apiVersion": KUEUE,
    "kind": "AdmissionCheck",
    "metadata": {"name": "check"},
    "spec": {"controllerName": "example.com/c"},
}


def _world() -> World:
    return _activated(
        World(
            flavor("default"),
            CHECK,
            cluster_queue(
                "sales",
                (["cpu"], [("default", [quota("cpu", "50")])]),
                admissionChecksStrategy={"admissionChecks": [{"name": "check"}]},
            ),
            local_queue("main", "sales"),
        )
    )


def _activated(w: World) -> World:
    activate_checks(w.cp, "check")
    return w


def _with_check(w: World, state: str) -> None:
    """``foo`` (10 x 1 cpu) created with its check already in ``state``; the ClusterQueue is held
    while the state is written so the check is there before the cycle, as in upstream's fixture."""
    from kbatch.api.kueue_v1beta2 import ClusterQueue

    w.cp.client.patch(ClusterQueue, "sales", {"spec": {"stopPolicy": "Hold"}})
    w.cp.run_until_idle()
    doc = workload("foo", "main", cpu="1")
    doc["spec"]["podSets"][0]["count"] = 10
    w.apply(doc)
    w.cp.run_until_idle()
    st = {"name": "check", "state": state, "message": "", "lastTransitionTime": w.cp.now().isoformat()}
    w.cp.client.patch_status(Workload, "foo", {"status": {"admissionChecks": [st]}}, "default")
    w.cp.run_until_idle()
    w.cp.client.patch(ClusterQueue, "sales", {"spec": {"stopPolicy": "None"}})
    w.cp.run_until_idle()
    w.cp.advance(2)


def _conds(w: World) -> dict[str, Any]:
    return {c.type: c for c in w.wl("foo").status.conditions or ()}


@pytest.mark.parametrize("state", ["Ready", "Pending"])
def test_a_workload_with_its_check_in_a_state_gets_quota(state: str) -> None:
    """ "workload fits in single clusterQueue, with check state ready": QuotaReserved and Admitted
    (reason Admitted, "The workload is admitted") at the same time, events QuotaReserved and
    Admitted; "... with check state pending": QuotaReserved only (Admitted is not True)."""
    w = _world()
    _with_check(w, state)
    conds = _conds(w)
    qr = conds["QuotaReserved"]
    assert (qr.status, qr.reason, qr.message) == (
        "True", "QuotaReserved", "Quota reserved in ClusterQueue sales")
    reasons = [r for _, r, _ in w.events("foo")]
    assert "QuotaReserved" in reasons
    if state == "Ready":
        adm = conds["Admitted"]
        assert (adm.status, adm.reason, adm.message) == ("True", "Admitted", "The workload is admitted")
        assert adm.last_transition_time == qr.last_transition_time
        assert "Admitted" in reasons
    else:
        assert "Admitted" not in conds or conds["Admitted"].status != "True"
        assert "Admitted" not in reasons
    assert [(c.name, c.state) for c in w.wl("foo").status.admission_checks] == [("check", state)]


def test_a_check_of_another_flavor_does_not_hold_back_admission() -> None:
    """``scheduler.go`` ``admit``: ``workload.HasAllRequiredChecks`` asks only for the checks whose
    flavors meet the admission's (``admissionChecksForAdmission``), so a workload reserved in
    ``default`` is admitted in the scheduler's own write when the ClusterQueue's only check is on
    ``other``. The workload controller is held so only the scheduler writes."""
    w = _activated(
        World(
            flavor("default"),
            flavor("other"),
            CHECK,
            cluster_queue(
                "sales",
                (["cpu"], [("default", [quota("cpu", "50")]), ("other", [quota("cpu", "50")])]),
                admissionChecksStrategy={"admissionChecks": [{"name": "check", "onFlavors": ["other"]}]},
            ),
            local_queue("main", "sales"),
        )
    )
    (ctl,) = [c for c in w.cp.manager.controllers if c.name == "kueue-workload"]
    ctl.reconciler.reconcile = lambda request: None
    w.apply(workload("foo", "main", cpu="1"))
    w.cp.run_until_idle()
    assert w.flavors("foo") == {"cpu": "default"}
    adm = _conds(w)["Admitted"]
    assert (adm.status, adm.reason) == ("True", "Admitted")
    assert not w.wl("foo").status.admission_checks
