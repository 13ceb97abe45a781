"""Upstream's ``TestAdmittedNotReadyWorkload``: when the PodsReady timeouts run, and what they evict for.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/core/workload_controller_test.go``
``TestAdmittedNotReadyWorkload`` (case names quoted per test) against ``workload_controller.go``
``admittedNotReadyWorkload`` and ``reconcileNotReadyTimeout``. Upstream calls the function on a
Workload holding given conditions, one minute after its admission, and compares the underlying cause
and the time left. Here the Workload is admitted by Kueue through its queues, the PodsReady condition
is written one minute later through the status subresource (what a job integration writes), and the
virtual clock runs: the time left is when the eviction (``PodsReadyTimeout``) happens, and the
underlying cause is the one counted in ``status.schedulingStats.evictions``.

Not translated: "workload with Admitted=Unknown; not counting" (no Kueue writer or API path leaves an
Admitted condition Unknown). Upstream's "Admitted=False" row builds an Unknown condition too; here a
workload that holds quota but waits for an admission check (not admitted) stands for it.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from kbatch.api import edit
from kbatch.controllers.kueue import workloads as W

from .helpers import World, activate_checks, cluster_queue, flavor, local_queue, quota, workload

MINUTE = 60.0


def _config(**wait: Any) -> dict[str, Any]:
    config: dict[str, Any] = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration"}
    if wait:
        config["waitForPodsReady"] = {"blockAdmission": False, **wait}
    return config


def _world(config: dict[str, Any], nominal: str = "4", checks: list[str] | None = None,
           **kwargs: Any) -> World:
    spec: dict[str, Any] = {"admissionChecksStrategy": {"admissionChecks": [
        {"name": c} for c in checks]}} if checks else {}
    cq = cluster_queue("cq", (["cpu"], [("default", [quota("cpu", nominal)])]), **spec)
    objects: list[Any] = [flavor("default"), cq, local_queue("lq", "cq")]
    for c in checks or ():
        objects.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "AdmissionCheck",
                        "metadata": {"name": c}, "spec": {"controllerName": "example.com/never"}})
    w = World(*objects, kueue_config=config, **kwargs)
    activate_checks(w.cp, *(checks or ()))
    w.apply(workload("wl", "lq"))
    w.cp.run_until_idle()
    return w


def _write_pods_ready(w: World, status: bool, reason: str) -> None:
    wl = edit(w.wl("wl"))
    W.set_condition(wl.status, "PodsReady", status, reason, "", wl.metadata.generation, w.cp.now())
    w.cp.client.update_status(wl)
    w.cp.run_until_idle()


def _evictions(w: World) -> list[tuple[str, str]]:
    stats = w.wl("wl").status.scheduling_stats
    return [(e.reason, e.underlying_cause or "") for e in (stats.evictions if stats else None) or ()]


def _evicted_at(w: World, seconds: float) -> bool:
    """Run the clock to ``seconds`` after the workload's creation; whether it is evicted then."""
    w.cp.advance(seconds - (w.cp.now() - w.wl("wl").metadata.creation_timestamp).total_seconds())
    evicted = w.cond("wl", "Evicted")
    return evicted is not None and evicted.status == "True"


def test_workload_without_admitted_condition_not_counting() -> None:
    """"workload without Admitted condition; not counting": no quota, never admitted."""
    w = _world(_config(timeout="5m"), nominal="0")
    assert w.cond("wl", "Admitted") is None
    assert not _evicted_at(w, 30 * MINUTE)
    assert _evictions(w) == []


def test_workload_with_admitted_true_no_pods_ready_counting() -> None:
    """"workload with Admitted=True, no PodsReady; counting": 4 minutes left a minute after admission."""
    w = _world(_config(timeout="5m"))
    assert w.admitted("wl") and w.cond("wl", "PodsReady") is None
    assert not _evicted_at(w, MINUTE)
    assert not _evicted_at(w, 5 * MINUTE - 1)
    assert _evicted_at(w, 5 * MINUTE + 1)
    assert _evictions(w) == [("PodsReadyTimeout", "WaitForStart")]


def test_workload_with_admitted_true_no_pods_ready_but_no_timeout_configured() -> None:
    """"workload with Admitted=True, no PodsReady, but no timeout configured; not counting": upstream's
    reconciler has no ``waitForPodsReady``. A v1beta2 Configuration always has one (``defaults.go``
    ``SetDefaults_Configuration``: timeout 30m when absent); only the ``DisableWaitForPodsReady`` gate
    turns it off, so the row is that gate."""
    w = _world(_config(), feature_gates="DisableWaitForPodsReady=true")
    assert w.admitted("wl")
    assert not _evicted_at(w, 120 * MINUTE)


def test_an_absent_wait_for_pods_ready_is_the_30_minute_default() -> None:
    """The same Configuration without the gate: the defaulted 30-minute timeout evicts."""
    w = _world(_config())
    assert not _evicted_at(w, 30 * MINUTE - 1)
    assert _evicted_at(w, 30 * MINUTE + 1)
    assert _evictions(w) == [("PodsReadyTimeout", "WaitForStart")]


def test_workload_with_admitted_true_no_pods_ready_timeout_exceeded() -> None:
    """"workload with Admitted=True, no PodsReady; timeout exceeded": 7 minutes after admission it is
    evicted (it was at 5)."""
    w = _world(_config(timeout="5m"))
    assert _evicted_at(w, 7 * MINUTE)
    evicted = w.cond("wl", "Evicted")
    assert (evicted.reason, evicted.message) == (
        "PodsReadyTimeout", "Exceeded the PodsReady timeout default/wl")
    assert evicted.last_transition_time == w.wl("wl").metadata.creation_timestamp + timedelta(minutes=5)
    assert _evictions(w) == [("PodsReadyTimeout", "WaitForStart")]


@pytest.mark.parametrize(
    "reason",
    [
        # "with reason WorkloadWaitForPodsReadyStart; workload with Admitted=True, PodsReady=False;
        #  counting since admitted.LastTransitionTime"
        "WaitForStart",
        # "with reason PodsReady; workload with Admitted=True, PodsReady=False; counting since
        #  admitted.LastTransitionTime" (the reason written before v0.11)
        "PodsReady",
    ],
)
def test_pods_ready_false_waiting_to_start_counts_since_admission(reason: str) -> None:
    w = _world(_config(timeout="5m"))
    assert not _evicted_at(w, MINUTE)
    _write_pods_ready(w, False, reason)
    assert not _evicted_at(w, 5 * MINUTE - 1)
    assert _evicted_at(w, 5 * MINUTE + 1)  # not 6 minutes: the condition's own time does not count
    assert _evictions(w) == [("PodsReadyTimeout", "WaitForStart")]


def test_pods_ready_false_wait_for_recovery() -> None:
    """"workload with Admitted=True, PodsReady=False, Reason=WorkloadWaitForPodsReadyRecovery": the
    recovery timeout (3 minutes) counts from the condition's transition. (Upstream's row sets no
    start timeout; through the API the Configuration defaults it to 5 minutes, which the recovery
    reason does not read.)"""
    w = _world(_config(recoveryTimeout="3m"))
    assert not _evicted_at(w, MINUTE)
    _write_pods_ready(w, False, "WaitForRecovery")
    assert not _evicted_at(w, 4 * MINUTE - 1)
    assert _evicted_at(w, 4 * MINUTE + 1)
    assert _evictions(w) == [("PodsReadyTimeout", "WaitForRecovery")]


def test_pods_ready_false_wait_for_recovery_without_recovery_timeout() -> None:
    """"workload with Admitted=True, PodsReady=False, Reason=WorkloadWaitForPodsReadyRecovery,
    recoveryTimeout not configured": ``recoveryTimeout: 0s`` leaves the reconciler without one
    (``core.go`` ``waitForPodsReady`` keeps only a positive value), so no timeout runs, the start
    timeout included."""
    w = _world(_config(timeout="5m", recoveryTimeout="0s"))
    assert not _evicted_at(w, MINUTE)
    _write_pods_ready(w, False, "WaitForRecovery")
    assert not _evicted_at(w, 60 * MINUTE)
    assert _evictions(w) == []


def test_an_absent_recovery_timeout_is_the_start_timeout() -> None:
    """Without ``recoveryTimeout`` the Configuration defaults it to ``timeout``
    (``SetDefaults_Configuration``), so the recovery runs 5 minutes from the condition."""
    w = _world(_config(timeout="5m"))
    assert not _evicted_at(w, MINUTE)
    _write_pods_ready(w, False, "WaitForRecovery")
    assert not _evicted_at(w, 6 * MINUTE - 1)
    assert _evicted_at(w, 6 * MINUTE + 1)
    assert _evictions(w) == [("PodsReadyTimeout", "WaitForRecovery")]


def test_workload_not_admitted_not_counting() -> None:
    """"workload with Admitted=False, not counting": quota reserved, an admission check pending."""
    w = _world(_config(timeout="5m"), checks=["check"])
    assert w.reserved("wl") and not w.admitted("wl")
    assert not _evicted_at(w, 30 * MINUTE)


def test_workload_with_admitted_true_pods_ready_true_not_counting() -> None:
    """"workload with Admitted=True, PodsReady=True; not counting"."""
    w = _world(_config(timeout="5m"))
    assert not _evicted_at(w, MINUTE)
    _write_pods_ready(w, True, "Started")
    assert not _evicted_at(w, 60 * MINUTE)
    assert _evictions(w) == []
