"""The scheduler-plugins PodGroup phase machine (``pkg/controllers/podgroup_controller.go``; cases after
``podgroup_controller_test.go``), as a pure function, and the status patch it sends."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbatch.controllers.coscheduling.controller import status_patch
from kbatch.controllers.coscheduling.sync import TIMEOUT, GroupStatus, PodFacts, next_status


def pods(*phases: str, owners: tuple[str, ...] = ()) -> list[PodFacts]:
    return [PodFacts("ns", phase, owners) for phase in phases]


def test_a_new_group_becomes_pending() -> None:
    assert next_status(GroupStatus(), 2, pods("Pending", "Pending"), None).status == GroupStatus("Pending")


def test_pending_waits_for_min_member_pods_then_schedules_naming_the_first_pods_owners() -> None:
    assert next_status(GroupStatus("Pending"), 3, pods("Pending", "Pending"), None).status == \
        GroupStatus("Pending")
    out = next_status(GroupStatus("Pending"), 2, pods("Running", "Running", owners=("job-b", "job-a")), None)
    # the counts are not recomputed on this step; occupiedBy is "<ns>/<owner>" sorted and joined
    assert out.status == GroupStatus("Scheduling", "ns/job-a,ns/job-b")


def test_scheduling_and_running_follow_running_plus_succeeded() -> None:
    assert next_status(GroupStatus("Scheduling"), 3, pods("Running", "Pending", "Pending"), None).status == \
        GroupStatus("Scheduling", running=1)
    out = next_status(GroupStatus("Scheduling"), 2, pods("Running", "Succeeded", "Pending"), None)
    assert out.status == GroupStatus("Running", running=1, succeeded=1)


def test_failed_then_finished_later_rules_win() -> None:
    assert next_status(GroupStatus("Running"), 2, pods("Failed", "Running"), None).status == \
        GroupStatus("Failed", running=1, failed=1)
    # succeeded >= minMember is checked last: Finished even with a failure
    assert next_status(GroupStatus("Running"), 2, pods("Succeeded", "Succeeded", "Failed"), None).status == \
        GroupStatus("Finished", succeeded=2, failed=1)


def test_fewer_pods_than_min_member_is_pending_again_with_counts() -> None:
    assert next_status(GroupStatus("Running", running=2), 3, pods("Running", "Running"), None).status == \
        GroupStatus("Pending", running=2)


def test_terminal_phases_and_the_48_hour_timeout() -> None:
    for phase in ("Finished", "Failed"):
        assert next_status(GroupStatus(phase), 1, pods("Running"), None).status is None
    timed_out = next_status(GroupStatus("Scheduling"), 1, pods("Pending"), TIMEOUT + 1)
    assert timed_out.status is None
    assert timed_out.event == ("Warning", "Timeout", "schedule time longer than 48 hours")
    running = next_status(GroupStatus("Scheduling", running=1), 1, pods("Running"), TIMEOUT + 1)
    assert running.event is None and running.status is not None


def test_the_patch_sends_changed_fields_and_nulls_for_emptied_counts() -> None:
    assert status_patch(GroupStatus("Running", running=2), GroupStatus("Finished", succeeded=2)) == {
        "phase": "Finished", "running": None, "succeeded": 2}
    assert status_patch(GroupStatus("Running"), GroupStatus("Running")) == {}


phases = st.sampled_from(["Pending", "Running", "Succeeded", "Failed", "Unknown"])
group_phases = st.sampled_from(["Scheduling", "Running", "Unknown"])


@given(group_phases, st.integers(1, 6), st.lists(phases, max_size=8))
def test_the_phase_is_a_function_of_the_counts(phase: str, min_member: int, pod_phases: list[str]) -> None:
    out = next_status(GroupStatus(phase), min_member, pods(*pod_phases), None).status
    assert out is not None
    running, succeeded, failed = (pod_phases.count(p) for p in ("Running", "Succeeded", "Failed"))
    assert (out.running, out.succeeded, out.failed) == (running, succeeded, failed)
    if len(pod_phases) < min_member:
        assert out.phase == "Pending"
    elif succeeded >= min_member:
        assert out.phase == "Finished"
    elif failed and failed + running + succeeded >= min_member:
        assert out.phase == "Failed"
    else:
        assert out.phase == ("Running" if running + succeeded >= min_member else "Scheduling")


@given(st.sampled_from(["Finished", "Failed"]), st.integers(0, 5), st.lists(phases, max_size=6))
def test_terminal_phases_absorb(phase: str, min_member: int, pod_phases: list[str]) -> None:
    assert next_status(GroupStatus(phase), min_member, pods(*pod_phases), None).status is None
