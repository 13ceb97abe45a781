"""Upstream's workload-controller tables, through kbatch's control plane.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/core/workload_controller_inadmissible_test.go``
(``TestReconcile``'s inadmissible cases) and ``workload_controller.go``
(``reconcileOn{Local,Cluster}QueueActiveState``, ``workloadQueueHandler``). Upstream's unit test runs
one reconcile; in a cluster the status write triggers the next one, which (with
``UnadmittedWorkloadsObservability`` off, its v0.19.2 default) sets the legacy blocker message
(``getQueueBlocker``). These tests read the settled state, and the reason ``Inadmissible`` the gate's
fallback gives (``AdjustConditionsForDisabledObservabilityInWorkloadController``).
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.kueue_v1beta2 import AdmissionCheck, ClusterQueue, LocalQueue

from .helpers import KUEUE, World, cluster_queue, flavor, local_queue, quota, workload


def _reserved_awaiting_a_check() -> World:
    """A workload holding quota in ``cq`` while its admission check is pending (not admitted)."""
    check = {
        "apiVersion": KUEUE,
        "kind": "AdmissionCheck",
        "metadata": {"name": "check"},
        "spec": {"controllerName": "example.com/c"},
    }
    w = World(
        flavor("flavor1"),
        check,
        cluster_queue(
            "cq",
            (["cpu"], [("flavor1", [quota("cpu", "4")])]),
            admissionChecksStrategy={"admissionChecks": [{"name": "check"}]},
        ),
        local_queue("lq", "cq"),
    )
    w.cp.client.patch_status(
        AdmissionCheck,
        "check",
        {
            "status": {
                "conditions": [
                    {
                        "type": "Active",
                        "status": "True",
                        "reason": "Active",
                        "message": "",
                        "lastTransitionTime": "2026-01-01T00:00:00Z",
                    }
                ]
            }
        },
    )
    w.cp.run_until_idle()
    w.apply(workload("wl", "lq", cpu="1"))
    w.cp.run_until_idle()
    assert w.reserved("wl") and not w.admitted("wl")
    return w


def _released(w: World) -> tuple[str, str]:
    w.cp.run_until_idle()
    w.cp.advance(2)
    wl = w.wl("wl")
    assert wl.status.admission is None
    assert w.usage("flavor1") == {}
    qr = w.cond("wl", "QuotaReserved")
    assert qr.status == "False"
    return qr.reason, qr.message


@pytest.mark.parametrize(
    ("case", "change", "want"),
    [
        # "should set the Suspended reason on QuotaReservation condition when the ClusterQueue was Hold"
        (
            "cq-hold",
            lambda w: w.cp.client.patch(ClusterQueue, "cq", {"spec": {"stopPolicy": "Hold"}}),
            ("Inadmissible", "ClusterQueue cq is inactive"),
        ),
        # "... when the ClusterQueue was deleted" (the ClusterQueue stays while it is in use: terminating)
        ("cq-delete", lambda w: w.cp.client.delete(ClusterQueue, "cq"), None),
        # "... when the LocalQueue was Hold"
        (
            "lq-hold",
            lambda w: w.cp.client.patch(LocalQueue, "lq", {"spec": {"stopPolicy": "Hold"}}, "default"),
            ("Inadmissible", "LocalQueue lq is inactive"),
        ),
        # "... when the LocalQueue was deleted"
        (
            "lq-delete",
            lambda w: w.cp.client.delete(LocalQueue, "lq", "default"),
            ("Inadmissible", "LocalQueue lq doesn't exist"),
        ),
    ],
)
def test_a_stopped_or_removed_queue_releases_the_quota_of_a_workload_not_yet_admitted(
    case: str, change: Any, want: tuple[str, str] | None
) -> None:
    w = _reserved_awaiting_a_check()
    change(w)
    reason, message = _released(w)
    if want is not None:
        assert (reason, message) == want
    else:
        assert reason == "Inadmissible" and message.startswith("ClusterQueue cq ")


def _evictions(w: World, name: str) -> list[tuple[str, str, int]]:
    stats = w.wl(name).status.scheduling_stats
    return [
        (e.reason or "", e.underlying_cause or "", e.count or 0)
        for e in (stats.evictions if stats else None) or ()
    ]


def test_deactivating_an_admitted_workload_evicts_it_and_counts_the_eviction() -> None:
    """workload_controller_eviction_test.go: "should set the Evicted condition with Deactivated reason
    when the .spec.active=False and Admitted" (Evicted True, reason Deactivated, "The workload is
    deactivated", schedulingStats.evictions [{Deactivated, 1}], event EvictedDueToDeactivated)."""
    from kbatch.api.kueue_v1beta2 import Workload

    w = World(
        flavor("default"),
        cluster_queue("cq", (["cpu"], [("default", [quota("cpu", "4")])])),
        local_queue("lq", "cq"),
    )
    w.apply(workload("wl", "lq", cpu="1"))
    w.cp.run_until_idle()
    assert w.admitted("wl")
    w.cp.client.patch(Workload, "wl", {"spec": {"active": False}}, "default")
    w.cp.run_until_idle()
    evicted = w.cond("wl", "Evicted")
    assert (evicted.status, evicted.reason, evicted.message) == (
        "True",
        "Deactivated",
        "The workload is deactivated",
    )
    assert _evictions(w, "wl") == [("Deactivated", "", 1)]
    assert ("Normal", "EvictedDueToDeactivated", "The workload is deactivated") in w.events("wl")
