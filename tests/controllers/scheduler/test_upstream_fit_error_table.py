"""Cases of upstream's ``TestFitError_Error``, ported one by one (``pkg/scheduler/framework/types_test.go``
at the stored version with NodeAllocatableResourceClaimStatus, i.e. 1.36+): the "0/N nodes are
available: ..." message a pod's PodScheduled condition and FailedScheduling event carry."""

from __future__ import annotations

import pytest

from kbatch.controllers.scheduler.diagnosis import Diagnosis
from kbatch.controllers.scheduler.framework import Status

PRE = "Node(s) failed PreFilter plugin FalsePreFilter"
F1, F2 = "Node(s) failed Filter plugin FalseFilter-1", "Node(s) failed Filter plugin FalseFilter-2"
POST = "Error running PostFilter plugin FailedPostFilter"


def _statuses(*reasons: str) -> dict[str, Status]:
    return {f"node{i + 1}": Status.unschedulable("P", r) for i, r in enumerate(reasons)}


@pytest.mark.parametrize(
    ("diagnosis", "want"),
    [
        (
            Diagnosis(3, _statuses(PRE, PRE, PRE), Status.unschedulable("P", PRE)),
            "0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter.",
        ),
        (
            Diagnosis(3, _statuses(PRE, PRE, PRE), Status.unschedulable("P", PRE), POST),
            "0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter. " + POST,
        ),
        (Diagnosis(3, _statuses(F1, F1, F1)), "0/3 nodes are available: 3 " + F1 + "."),
        (
            Diagnosis(3, _statuses(F1, F1, F1), post_filter_message=POST),
            "0/3 nodes are available: 3 " + F1 + ". " + POST,
        ),
        (Diagnosis(3, _statuses(F1, F1, F2)), "0/3 nodes are available: 1 " + F2 + ", 2 " + F1 + "."),
        (
            Diagnosis(3, _statuses(F1, F1, F2), post_filter_message=POST),
            "0/3 nodes are available: 1 " + F2 + ", 2 " + F1 + ". " + POST,
        ),
        (
            Diagnosis(1, _statuses("Node failed Permit plugin Permit-1")),
            "0/1 nodes are available: 1 Node failed Permit plugin Permit-1.",
        ),
        (
            Diagnosis(1, _statuses("Node failed Reserve plugin Reserve-1")),
            "0/1 nodes are available: 1 Node failed Reserve plugin Reserve-1.",
        ),
    ],
    ids=[
        "nodes failed Prefilter plugin",
        "nodes failed Prefilter plugin and the preemption also failed",
        "nodes failed one Filter plugin with an empty PostFilterMsg",
        "nodes failed one Filter plugin with a non-empty PostFilterMsg",
        "nodes failed two Filter plugins with an empty PostFilterMsg",
        "nodes failed two Filter plugins with a non-empty PostFilterMsg",
        "failed to Permit on node",
        "failed to Reserve on node",
    ],
)
def test_fit_error_message(diagnosis: Diagnosis, want: str) -> None:
    assert diagnosis.message() == want
