"""Upstream's ``TestStatusStrategy_ValidateUpdate`` table (Job status writes), through kbatch's
API server.

Source: kubernetes/kubernetes ``pkg/registry/batch/job/strategy_test.go`` — the stored copy read
for this audit is the 1.31 one, which toggles JobManagedBy, JobSuccessPolicy and
JobPodReplacementPolicy per case. All three are locked on in 1.37, so each case expects upstream's
errors plus, listed in ``LATER``, what the rules that came after that copy add (each named by
kbatch's message; see ``kbatch/api/strategies/batch/status_validation.py``):

- a Job cannot get Complete=True without SuccessCriteriaMet=True, nor Failed=True without
  FailureTarget=True (the interim conditions);
- a finished Job cannot keep terminating pods, nor report more ready pods than active ones;
- with JobManagedBy on, a finished Job needs startTime (and a Complete one completionTime): the
  cases upstream ran with only JobSuccessPolicy on get these too;
- SuccessCriteriaMet is no longer reserved to Jobs with a success policy (the table's own "valid
  addition of SuccessCriteriaMet when JobManagedBy is enabled"), so the two cases that expected
  it refused now pass.

The old status is written behind the server's back (as an older server or a controller left it);
the new one goes through the status subresource. Not translated: "incoming resource version on
update should not be mutated" (metadata, not status), the two cases that need a feature gate off,
and "invalid addition of SuccessCriteriaMet for NonIndexed Job" (a NonIndexed Job cannot have a
success policy, which that case's old Job does).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kbatch.api.batch_v1 import Job
from kbatch.api.errors import Invalid
from tests.api.upstream_batch import causes_of, job, server, template

NOW, PLUS = "2026-01-01T00:00:00Z", "2026-01-01T00:01:00Z"


def C(type_: str, status: str = "True") -> dict[str, str]:
    return {"type": type_, "status": status}


IDX5 = {"completions": 5, "completionMode": "Indexed"}
NIDX5 = {"completions": 5, "completionMode": "NonIndexed"}
SP = {
    "completionMode": "Indexed",
    "completions": 10,
    "successPolicy": {"rules": [{"succeededIndexes": "0-2"}]},
}
INV, REQ = "FieldValueInvalid", "FieldValueRequired"
# name -> (spec, old status, new status, upstream's expected [(field, reason)])
CASES: dict[str, tuple[dict[str, Any], dict[str, Any], dict[str, Any], list[tuple[str, str]]]] = {
    "invalid addition of both Failed=True and Complete=True": (
        {},
        {},
        {"startTime": NOW, "completionTime": NOW, "conditions": [C("Complete"), C("Failed")]},
        [("status.conditions", INV)],
    ),
    "completionTime can be removed to fix still running job": (
        {},
        {"startTime": NOW, "completionTime": NOW},
        {"startTime": NOW},
        [],
    ),
    "invalid attempt to transition to Failed=True without startTime": (
        {},
        {},
        {"conditions": [C("Failed")]},
        [("status.startTime", REQ)],
    ),
    "invalid attempt to transition to Complete=True without startTime": (
        {},
        {},
        {"completionTime": NOW, "conditions": [C("Complete")]},
        [("status.startTime", REQ)],
    ),
    "invalid attempt to transition to Complete=True with active > 0": (
        {},
        {},
        {"startTime": NOW, "completionTime": NOW, "active": 1, "conditions": [C("Complete")]},
        [("status.active", INV)],
    ),
    "transition to Failed condition with terminating>0 and ready>0": (
        {},
        {},
        {"startTime": NOW, "conditions": [C("Failed")], "terminating": 1, "ready": 1},
        [],
    ),
    "invalid attempt to transition to Failed=True with uncountedTerminatedPods.Failed>0": (
        {},
        {},
        {"startTime": NOW, "uncountedTerminatedPods": {"failed": ["a"]}, "conditions": [C("Failed")]},
        [("status.uncountedTerminatedPods", INV)],
    ),
    "invalid attempt to update uncountedTerminatedPods.Succeeded for Complete job": (
        {},
        {
            "startTime": NOW,
            "completionTime": NOW,
            "uncountedTerminatedPods": {"failed": ["a"]},
            "conditions": [C("Complete")],
        },
        {
            "startTime": NOW,
            "completionTime": NOW,
            "uncountedTerminatedPods": {"failed": ["b"]},
            "conditions": [C("Complete")],
        },
        [("status.uncountedTerminatedPods", INV)],
    ),
    "non-empty uncountedTerminatedPods for complete job, unrelated update": (
        {},
        {
            "startTime": NOW,
            "completionTime": NOW,
            "uncountedTerminatedPods": {"failed": ["a"]},
            "conditions": [C("Complete")],
        },
        {
            "startTime": NOW,
            "completionTime": NOW,
            "uncountedTerminatedPods": {"failed": ["a"]},
            "conditions": [C("Complete"), C("CustomJobCondition")],
        },
        [],
    ),
    "invalid attempt to transition to Complete=True with uncountedTerminatedPods.Succeeded>0": (
        {},
        {},
        {
            "startTime": NOW,
            "completionTime": NOW,
            "uncountedTerminatedPods": {"succeeded": ["a"]},
            "conditions": [C("Complete")],
        },
        [("status.uncountedTerminatedPods", INV)],
    ),
    "invalid addition Complete=True without setting CompletionTime": (
        {},
        {},
        {"startTime": NOW, "conditions": [C("Complete")]},
        [("status.completionTime", REQ)],
    ),
    "invalid attempt to remove completionTime": (
        {},
        {"completionTime": NOW, "conditions": [C("Complete")]},
        {"startTime": NOW, "conditions": [C("Complete")]},
        [("status.completionTime", REQ)],
    ),
    "verify startTime can be cleared for suspended job": ({"suspend": True}, {"startTime": NOW}, {}, []),
    "verify startTime cannot be removed for unsuspended job": (
        {},
        {"startTime": NOW},
        {},
        [("status.startTime", REQ)],
    ),
    "verify startTime cannot be updated for unsuspended job": (
        {},
        {"startTime": NOW},
        {"startTime": PLUS},
        [("status.startTime", REQ)],
    ),
    "invalid attempt to set completionTime before startTime": (
        {},
        {"startTime": PLUS},
        {"startTime": PLUS, "completionTime": NOW, "conditions": [C("Complete")]},
        [("status.completionTime", INV)],
    ),
    "invalid attempt to modify completionTime": (
        {},
        {"completionTime": NOW, "conditions": [C("Complete")]},
        {"completionTime": PLUS, "startTime": NOW, "conditions": [C("Complete")]},
        [("status.completionTime", INV)],
    ),
    "invalid removal of terminal condition Failed=True": (
        {},
        {"conditions": [C("Failed")]},
        {},
        [("status.conditions", INV)],
    ),
    "invalid removal of terminal condition Complete=True": (
        {},
        {"conditions": [C("Complete")]},
        {},
        [("status.conditions", INV)],
    ),
    "invalid removal of terminal condition FailureTarget=True": (
        {},
        {"conditions": [C("FailureTarget")]},
        {},
        [("status.conditions", INV)],
    ),
    "invalid addition of FailureTarget=True when Complete=True": (
        {},
        {"startTime": NOW, "completionTime": NOW, "conditions": [C("Complete")]},
        {"startTime": NOW, "completionTime": NOW, "conditions": [C("Complete"), C("FailureTarget")]},
        [("status.conditions", INV)],
    ),
    "invalid attempt setting of CompletionTime when there is no Complete condition": (
        {},
        {},
        {"completionTime": NOW},
        [("status.completionTime", INV)],
    ),
    "invalid CompletionTime when there is no Complete condition, but allowed": (
        {},
        {"completionTime": NOW},
        {"completionTime": NOW, "active": 1},
        [],
    ),
    "invalid attempt setting CompletedIndexes when non-indexed completion mode is used": (
        NIDX5,
        {},
        {"startTime": NOW, "completedIndexes": "0"},
        [("status.completedIndexes", INV)],
    ),
    "invalid because CompletedIndexes set when non-indexed completion mode is used; but allowed": (
        NIDX5,
        {"completedIndexes": "0"},
        {"completedIndexes": "0", "active": 1},
        [],
    ),
    "invalid attempt setting FailedIndexes when not backoffLimitPerIndex": (
        IDX5,
        {},
        {"failedIndexes": "0"},
        [("status.failedIndexes", INV)],
    ),
    "invalid attempt to decrease the failed counter": (
        {"completions": 5},
        {"failed": 3},
        {"failed": 1},
        [("status.failed", INV)],
    ),
    "invalid attempt to decrease the succeeded counter": (
        {"completions": 5},
        {"succeeded": 3},
        {"succeeded": 1},
        [("status.succeeded", INV)],
    ),
    "invalid attempt to set bad format for CompletedIndexes": (
        IDX5,
        {},
        {"completedIndexes": "invalid format"},
        [("status.completedIndexes", INV)],
    ),
    "invalid format for CompletedIndexes, but allowed": (
        IDX5,
        {"completedIndexes": "invalid format"},
        {"completedIndexes": "invalid format", "active": 1},
        [],
    ),
    "invalid attempt to set bad format for FailedIndexes": (
        {**IDX5, "backoffLimitPerIndex": 1},
        {},
        {"failedIndexes": "invalid format"},
        [("status.failedIndexes", INV)],
    ),
    "invalid format for FailedIndexes, but allowed": (
        {**IDX5, "backoffLimitPerIndex": 1},
        {"failedIndexes": "invalid format"},
        {"failedIndexes": "invalid format", "active": 1},
        [],
    ),
    "more ready pods than active, but allowed": (
        {"completions": 5},
        {"active": 1, "ready": 2},
        {"active": 1, "ready": 2, "succeeded": 1},
        [],
    ),
    "invalid addition of both FailureTarget=True and Complete=True": (
        {},
        {},
        {"startTime": NOW, "completionTime": NOW, "conditions": [C("Complete"), C("FailureTarget")]},
        [("status.conditions", INV)],
    ),
    "invalid failedIndexes, which overlap with completedIndexes": (
        IDX5,
        {"failedIndexes": "0,2", "completedIndexes": "3-4"},
        {"failedIndexes": "0,2", "completedIndexes": "2-4"},
        [("status.failedIndexes", INV)],
    ),
    "failedIndexes overlap with completedIndexes, unrelated field change": (
        IDX5,
        {"failedIndexes": "0,2", "completedIndexes": "2-4"},
        {"failedIndexes": "0,2", "completedIndexes": "2-4", "active": 1},
        [],
    ),
    "invalid addition of SuccessCriteriaMet for Job with Failed": (
        SP,
        {"conditions": [C("Failed")]},
        {"conditions": [C("Failed"), C("SuccessCriteriaMet")]},
        [("status.conditions", INV)],
    ),
    "invalid addition of Failed for Job with SuccessCriteriaMet": (
        SP,
        {"conditions": [C("SuccessCriteriaMet")]},
        {"conditions": [C("SuccessCriteriaMet"), C("Failed")]},
        [("status.conditions", INV)],
    ),
    "invalid addition of SuccessCriteriaMet for Job with FailureTarget": (
        SP,
        {"conditions": [C("FailureTarget")]},
        {"conditions": [C("FailureTarget"), C("SuccessCriteriaMet")]},
        [("status.conditions", INV)],
    ),
    "invalid addition of FailureTarget for Job with SuccessCriteriaMet": (
        SP,
        {"conditions": [C("SuccessCriteriaMet")]},
        {"conditions": [C("SuccessCriteriaMet"), C("FailureTarget")]},
        [("status.conditions", INV)],
    ),
    "invalid addition of SuccessCriteriaMet for Job with Complete": (
        SP,
        {"conditions": [C("Complete")]},
        {"conditions": [C("Complete"), C("SuccessCriteriaMet")]},
        [("status.conditions", INV)],
    ),
    "valid addition of Complete for Job with SuccessCriteriaMet": (
        SP,
        {"conditions": [C("SuccessCriteriaMet")]},
        {"conditions": [C("SuccessCriteriaMet"), C("Complete")]},
        [],
    ),
    "invalid addition of SuccessCriteriaMet for Job without SuccessPolicy": (
        {"completionMode": "Indexed", "completions": 10},
        {},
        {"conditions": [C("SuccessCriteriaMet")]},
        [("status.conditions", INV)],
    ),
    "invalid addition of Complete for Job with SuccessPolicy unless SuccessCriteriaMet": (
        SP,
        {},
        {"conditions": [C("Complete")]},
        [("status.conditions", INV)],
    ),
    "invalid disabling of SuccessCriteriaMet for Job": (
        SP,
        {"conditions": [C("SuccessCriteriaMet")]},
        {"conditions": [C("Complete", "False")]},
        [("status.conditions", INV)],
    ),
    "invalid removing of SuccessCriteriaMet for Job": (
        SP,
        {"conditions": [C("SuccessCriteriaMet")]},
        {},
        [("status.conditions", INV)],
    ),
    "valid addition of SuccessCriteriaMet when JobManagedBy is enabled": (
        {},
        {},
        {"conditions": [C("SuccessCriteriaMet")]},
        [],
    ),
    "valid addition of SuccessCriteriaMet when JobPodReplacementPolicy is enabled": (
        {},
        {},
        {"conditions": [C("SuccessCriteriaMet")]},
        [],
    ),
}

COMPLETE_NEEDS_SCM = ("status.conditions", INV)  # Complete=True without SuccessCriteriaMet=True
FAILED_NEEDS_TARGET = ("status.conditions", INV)  # Failed=True without FailureTarget=True
START, COMPLETION = ("status.startTime", REQ), ("status.completionTime", REQ)
# case -> the causes 1.37's rules put where upstream's 1.31 table had none (see the docstring);
# a ``None`` entry means 1.37 accepts what the 1.31 table refused
LATER: dict[str, list[tuple[str, str]] | None] = {
    "invalid addition of both Failed=True and Complete=True": [FAILED_NEEDS_TARGET, COMPLETE_NEEDS_SCM],
    "invalid attempt to transition to Failed=True without startTime": [FAILED_NEEDS_TARGET],
    "invalid attempt to transition to Complete=True without startTime": [COMPLETE_NEEDS_SCM],
    "invalid attempt to transition to Complete=True with active > 0": [COMPLETE_NEEDS_SCM],
    "transition to Failed condition with terminating>0 and ready>0": [
        FAILED_NEEDS_TARGET,
        ("status.terminating", INV),
        ("status.ready", INV),
    ],
    "invalid attempt to transition to Failed=True with uncountedTerminatedPods.Failed>0": [
        FAILED_NEEDS_TARGET
    ],
    "invalid attempt to transition to Complete=True with uncountedTerminatedPods.Succeeded>0": [
        COMPLETE_NEEDS_SCM
    ],
    "invalid addition Complete=True without setting CompletionTime": [COMPLETE_NEEDS_SCM],
    "invalid attempt to set completionTime before startTime": [COMPLETE_NEEDS_SCM],
    "invalid addition of both FailureTarget=True and Complete=True": [COMPLETE_NEEDS_SCM],
    "invalid addition of Failed for Job with SuccessCriteriaMet": [FAILED_NEEDS_TARGET, START],
    "valid addition of Complete for Job with SuccessCriteriaMet": [COMPLETION, START],
    "invalid addition of SuccessCriteriaMet for Job without SuccessPolicy": None,
    "invalid addition of Complete for Job with SuccessPolicy unless SuccessCriteriaMet": [
        COMPLETE_NEEDS_SCM,
        COMPLETION,
        START,
    ],
}


def _expected(name: str, want: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Upstream's errors with 1.37's added ones in kbatch's order (the interim-condition rules are
    checked with the other condition rules, before the field rules)."""
    if name not in LATER:
        return want
    later = LATER[name]
    if later is None:
        return []
    conds = [e for e in want + later if e[0] == "status.conditions"]
    return (
        conds
        + [e for e in later if e[0] != "status.conditions" and e not in want]
        + [e for e in want if e[0] != "status.conditions"]
    )


def _write(spec: dict[str, Any], old: dict[str, Any], new: dict[str, Any]) -> list[tuple[str, str]]:
    srv = server()
    stored = srv.create(job({"template": template("Never"), **spec}))
    wire = copy.deepcopy(stored.to_dict())
    wire["status"] = old
    del wire["metadata"]["resourceVersion"]  # the store's bytes do not carry it
    srv.store.put(srv.kind(Job).keys.key("default", "myjob"), Job.model_validate(wire).to_json())
    current = copy.deepcopy(srv.get(Job, "myjob", "default").to_dict())
    current["status"] = new
    try:
        srv.update_status(Job.model_validate(current))
    except Invalid as err:
        return [(f, r) for f, r, _ in causes_of(err)]
    return []


@pytest.mark.parametrize("name", CASES.keys())
def test_status_strategy_validate_update(name: str) -> None:
    spec, old, new, want = CASES[name]
    assert _write(spec, old, new) == _expected(name, want)
