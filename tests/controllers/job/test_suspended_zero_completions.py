"""A Job created suspended with ``completions: 0`` finishes without ever starting (kubernetes#132144).

Upstream 1.32 refused its ``Complete`` write ("startTime is required for finished job", a rule of the
JobManagedBy status validation); kubernetes#132614 (backported to 1.32/1.33) lifts that one rule for
a Job whose spec has ``suspend: true`` and ``completions: 0``: ``getStatusValidationOptions`` in
pkg/registry/batch/job/strategy.go sets ``RejectFinishedJobWithoutStartTime`` to
``(finishedChanged || startTimeChanged) && !isSuspendedWithZeroCompletions`` (read in a 1.36-era
copy, liggitt/kubernetes 09c5456a). Any other finished Job still needs ``startTime``.
"""

from __future__ import annotations

import pytest

from kbatch.api.errors import Invalid
from tests.api.upstream_batch import causes_of, job, server, template

from .upstream import Case, job_manifest

NOW = "2026-01-01T00:00:00Z"
COMPLETE = {
    "completionTime": NOW,
    "conditions": [
        {"type": "SuccessCriteriaMet", "status": "True"},
        {"type": "Complete", "status": "True"},
    ],
}


def test_suspended_job_with_zero_completions_reaches_complete() -> None:
    """The issue's reproduction: ``kubectl get job`` showed Running 0/0 forever on 1.32."""
    got = Case(job_manifest(1, 0, suspend=True)).run()
    assert got.status.start_time is None
    assert [(t, s) for t, s, _, _ in got.conditions()] == [
        ("SuccessCriteriaMet", "True"),
        ("Complete", "True"),
    ]
    assert got.status.completion_time is not None


def _complete_without_start(spec: dict[str, object]) -> list[tuple[str, str]]:
    srv = server()
    stored = srv.create(job({"template": template("Never"), **spec}))
    wire = stored.to_dict()
    wire["status"] = COMPLETE
    try:
        srv.update_status(type(stored).model_validate(wire))
    except Invalid as err:
        return [(f, r) for f, r, _ in causes_of(err)]
    return []


@pytest.mark.parametrize(
    ("spec", "want"),
    [
        ({"suspend": True, "completions": 0}, []),
        ({"suspend": True, "completions": 0, "parallelism": 0}, []),
        ({"suspend": True, "completions": 4}, [("status.startTime", "FieldValueRequired")]),
        ({"suspend": False, "completions": 0}, [("status.startTime", "FieldValueRequired")]),
        ({"completions": 0}, [("status.startTime", "FieldValueRequired")]),
    ],
    ids=["suspended-zero", "suspended-zero-parallelism-zero", "suspended-four", "unsuspended-zero",
         "unset-zero"],
)
def test_complete_without_start_time_only_for_suspended_zero_completions(
    spec: dict[str, object], want: list[tuple[str, str]]
) -> None:
    assert _complete_without_start(spec) == want
