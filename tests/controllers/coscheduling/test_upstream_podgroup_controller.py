"""Upstream's PodGroup controller tables, through kbatch's API and its ``coscheduling`` controller.

Source: kubernetes-sigs/scheduler-plugins HEAD 903da7df (2026-08-16)
``pkg/controllers/podgroup_controller_test.go``: ``Test_Run`` (every case) and
``TestFillGroupStatusOccupied`` (every case). Upstream builds a fake client holding the PodGroup
(status already at ``previousPhase``) and two labelled pods, then updates each pod's status and runs
``Reconcile`` once per pod. Here the same objects are written through the API server with no
controller running, the controller is then started (its initial list reconciles every group, as
controller-runtime's informer sync does), and each pod's phase is written again (``podNextPhase``)
while it runs. kbatch's controller also reconciles on its own status writes, as upstream's does
(``For(&PodGroup{})``); the tables' phases are the state where that settles.
"""

from __future__ import annotations

from typing import Any

import pytest
from gang.builders import X_LABEL, x_group

from kbatch.api.core_v1 import Event, Pod
from kbatch.api.scheduling_x_v1alpha1 import PodGroup
from kbatch.runtime.controlplane import ControlPlane


def _pod(name: str, group: str, owners: list[str]) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default", "labels": {X_LABEL: group}}
    if owners:
        meta["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": o, "uid": f"uid-{o}"}
                                   for o in owners]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}}


def _set_phase(cp: ControlPlane, names: list[str], phase: str) -> None:
    for name in names:
        cp.client.patch_status(Pod, name, {"status": {"phase": phase}}, "default")


def _setup(group: str, min_member: int, pods: list[str], phase: str, previous: str, *,
           owners: list[str] | None = None, created_hours_ago: float = 0) -> ControlPlane:
    """Upstream's ``setUp``: the group at ``previous`` (occupiedBy "test", scheduleStartTime now),
    two of the pods at ``phase``; no controller yet."""
    cp = ControlPlane(controllers="")
    cp.apply(x_group(group, min_member))
    if created_hours_ago:
        cp.advance(created_hours_ago * 3600)
    start = cp.now().isoformat().replace("+00:00", "Z")
    status: dict[str, Any] = {"occupiedBy": "test", "scheduleStartTime": start}
    if previous:
        status["phase"] = previous
    cp.client.patch_status(PodGroup, group, {"status": status}, "default")
    cp.apply([_pod(name, group, owners or []) for name in pods[:2]])
    _set_phase(cp, pods[:2], phase)
    return cp


RUN_CASES = [
    # (upstream case name, pgName, minMember, podNames, podPhase, podNextPhase, previousPhase, desired, hours)
    ("Group running", "pg1", 2, ["pod1", "pod2"], "Running", "", "Scheduling", "Running", 0),
    ("Group running, more than min member", "pg11", 2, ["pod11", "pod21", "pod31", "pod41"], "Running", "",
     "Scheduling", "Running", 0),
    ("Group failed", "pg2", 2, ["pod1", "pod2"], "Failed", "", "Scheduling", "Failed", 0),
    ("Group finished", "pg3", 2, ["pod1", "pod2"], "Succeeded", "", "Scheduling", "Finished", 0),
    ("Group status convert from pending to prescheduling", "pg4", 2, ["pod1", "pod2"], "Pending", "",
     "Pending", "Scheduling", 0),
    ("Group status convert from scheduling to finished", "pg5", 2, ["pod1", "pod2"], "Pending", "Succeeded",
     "Scheduling", "Finished", 0),
    ("Group status keeps pending", "pg6", 3, ["pod1", "pod2"], "Running", "", "Pending", "Pending", 0),
    ("Group status convert from pending to finished", "pg7", 2, ["pod1", "pod2"], "Pending", "Succeeded",
     "Pending", "Finished", 0),
    ("Group should not enqueue, created too long", "pg8", 2, ["pod1", "pod2"], "Running", "", "Pending",
     "Pending", 72),
    ("Group min member more than Pod number", "pg9", 3, ["pod91", "pod92"], "Pending", "", "Pending",
     "Pending", 0),
    ("Group status convert from running to pending", "pg10", 4, ["pod101", "pod102"], "Pending", "",
     "Running", "Pending", 0),
]


@pytest.mark.parametrize(("name", "group", "min_member", "pods", "phase", "next_phase", "previous", "desired",
                          "hours"), RUN_CASES, ids=[c[0] for c in RUN_CASES])
def test_run(name: str, group: str, min_member: int, pods: list[str], phase: str, next_phase: str,
             previous: str, desired: str, hours: float) -> None:
    """podgroup_controller_test.go ``Test_Run``: only two of ``podNames`` are created (setUp's
    ``ps[0], ps[1]``); the later status updates of the others fail upstream (not found) and change
    nothing."""
    cp = _setup(group, min_member, pods, phase, previous, created_hours_ago=hours)
    cp.add_controller("coscheduling")
    cp.run_until_idle()
    if next_phase:
        _set_phase(cp, pods[:2], next_phase)
        cp.run_until_idle()
    assert cp.client.get(PodGroup, group, "default").status.phase == desired
    if hours:  # the 48-hour rule: left alone, with upstream's warning
        events = [e for e in cp.client.list(Event, "default").items if e.reason == "Timeout"]
        warning = ("Warning", "schedule time longer than 48 hours")
        assert [(e.type, e.message) for e in events][:1] == [warning]


OCCUPIED_CASES = [
    ("fill the Occupied of PodGroup with a single ownerReference", ["new-occupied"],
     ["default/new-occupied"]),
    ("fill the Occupied of PodGroup with multi ownerReferences", ["new-occupied-1", "new-occupied-2"],
     ["default/new-occupied-1", "default/new-occupied-2"]),
]


@pytest.mark.parametrize(("name", "owners", "desired"), OCCUPIED_CASES, ids=[c[0] for c in OCCUPIED_CASES])
def test_fill_group_status_occupied(name: str, owners: list[str], desired: list[str]) -> None:
    """podgroup_controller_test.go ``TestFillGroupStatusOccupied``: a Pending group whose two
    Pending pods reach minMember 2 names their owners in ``occupiedBy`` (sorted, comma-joined)."""
    cp = _setup("pg", 2, ["pod1", "pod2"], "Pending", "Pending", owners=owners)
    cp.add_controller("coscheduling")
    cp.run_until_idle()
    assert cp.client.get(PodGroup, "pg", "default").status.occupied_by == ",".join(sorted(desired))


def test_the_timeout_case_would_schedule_without_the_48_hours() -> None:
    """The control for "Group should not enqueue, created too long": the same group created just now
    moves on from Pending, so the 72 hours are what kept it there."""
    cp = _setup("pg8", 2, ["pod1", "pod2"], "Running", "Pending")
    cp.add_controller("coscheduling")
    cp.run_until_idle()
    assert cp.client.get(PodGroup, "pg8", "default").status.phase == "Running"
