"""Upstream's ``TestSetDefaultJob`` and ``TestSetDefaultCronJob`` tables, through kbatch's API
server (a dry-run create shows the defaulted object).

Source: kubernetes/kubernetes ``pkg/apis/batch/v1/defaults_test.go`` (the stored copy read for
this audit still toggles ``JobPodReplacementPolicy``). That gate is locked on in 1.37, so the
cases run with it off expect the 1.37 default: ``TerminatingOrFailed``, or ``Failed`` with a pod
failure policy. A manual selector must match the template to pass validation, so the cases that
set ``manualSelector: true`` also select the template's label. ``expectLabels``: the Job's labels
are the template's (with the generated selector labels, which a create adds to both).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kbatch.api.batch_v1 import CronJob, Job
from tests.api.upstream_batch import server

LABELS = {"default": "default"}
TEMPLATE = {
    "metadata": {"labels": LABELS},
    "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]},
}
MAX_INT32 = 2**31 - 1
PFP_IN = {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [1]}}


def _pfp(*rules: dict[str, Any]) -> dict[str, Any]:
    return {"rules": list(rules)}


def _cond(type_: str, status: str | None = None) -> dict[str, Any]:
    return {"type": type_, **({"status": status} if status else {})}


DEFAULTS = {
    "completions": 1,
    "parallelism": 1,
    "backoffLimit": 6,
    "completionMode": "NonIndexed",
    "suspend": False,
    "manualSelector": False,
    "podReplacementPolicy": "TerminatingOrFailed",
}
MANUAL = {"manualSelector": True, "selector": {"matchLabels": LABELS}}

# name -> (spec sent, Job labels sent, expected spec fields, expect the Job's labels = template's)
CASES: dict[str, tuple[dict[str, Any], dict[str, str] | None, dict[str, Any], bool]] = {
    "Pod failure policy with some field values unspecified -> set default values": (
        {
            "podFailurePolicy": _pfp(
                {
                    "action": "FailJob",
                    "onPodConditions": [
                        _cond("DisruptionTarget", "True"),
                        _cond("MemoryLimitExceeded", "False"),
                        _cond("DiskLimitExceeded"),
                    ],
                },
                PFP_IN,
                {"action": "FailJob", "onPodConditions": [_cond("DisruptionTarget")]},
            )
        },
        None,
        {
            **DEFAULTS,
            "podReplacementPolicy": "Failed",
            "podFailurePolicy": _pfp(
                {
                    "action": "FailJob",
                    "onPodConditions": [
                        _cond("DisruptionTarget", "True"),
                        _cond("MemoryLimitExceeded", "False"),
                        _cond("DiskLimitExceeded", "True"),
                    ],
                },
                PFP_IN,
                {"action": "FailJob", "onPodConditions": [_cond("DisruptionTarget", "True")]},
            ),
        },
        True,
    ),
    "Pod failure policy and defaulting for pod replacement policy": (
        {"podFailurePolicy": _pfp(PFP_IN)},
        None,
        {**DEFAULTS, "podReplacementPolicy": "Failed", "podFailurePolicy": _pfp(PFP_IN)},
        True,
    ),
    "All unspecified and podReplacementPolicyEnabled -> sets all to default values": (
        {},
        None,
        DEFAULTS,
        True,
    ),
    "All unspecified -> sets all to default values": ({}, None, DEFAULTS, True),
    "All unspecified, suspend job enabled -> sets all to default values": ({}, None, DEFAULTS, True),
    "suspend set, everything else is defaulted": (
        {"suspend": True},
        None,
        {**DEFAULTS, "suspend": True},
        True,
    ),
    "All unspecified -> all pointers are defaulted and no default labels": (
        {},
        {"mylabel": "myvalue"},
        DEFAULTS,
        False,
    ),
    "WQ: Parallelism explicitly 0 and completions unset -> BackoffLimit is defaulted": (
        {"parallelism": 0},
        None,
        {**DEFAULTS, "parallelism": 0, "completions": None},
        True,
    ),
    "WQ: Parallelism explicitly 2 and completions unset -> BackoffLimit is defaulted": (
        {"parallelism": 2},
        None,
        {**DEFAULTS, "parallelism": 2, "completions": None},
        True,
    ),
    "Completions explicitly 2 and others unset -> parallelism and BackoffLimit are defaulted": (
        {"completions": 2},
        None,
        {**DEFAULTS, "completions": 2},
        True,
    ),
    "BackoffLimit explicitly 5 and others unset -> parallelism and completions are defaulted": (
        {"backoffLimit": 5},
        None,
        {**DEFAULTS, "backoffLimit": 5},
        True,
    ),
    "All set -> no change": (
        {
            "completions": 8,
            "parallelism": 9,
            "backoffLimit": 10,
            "completionMode": "NonIndexed",
            "suspend": False,
            "podReplacementPolicy": "TerminatingOrFailed",
            "manualSelector": False,
        },
        None,
        {
            "completions": 8,
            "parallelism": 9,
            "backoffLimit": 10,
            "completionMode": "NonIndexed",
            "suspend": False,
            "podReplacementPolicy": "TerminatingOrFailed",
            "manualSelector": False,
        },
        True,
    ),
    "All set, flipped -> no change": (
        {
            "completions": 11,
            "parallelism": 10,
            "backoffLimit": 9,
            "completionMode": "Indexed",
            "suspend": True,
            "podReplacementPolicy": "Failed",
            **MANUAL,
        },
        None,
        {
            "completions": 11,
            "parallelism": 10,
            "backoffLimit": 9,
            "completionMode": "Indexed",
            "suspend": True,
            "podReplacementPolicy": "Failed",
            "manualSelector": True,
        },
        True,
    ),
    "BackoffLimitPerIndex specified, but no BackoffLimit -> default BackoffLimit to max int32": (
        {
            "completions": 11,
            "parallelism": 10,
            "backoffLimitPerIndex": 1,
            "completionMode": "Indexed",
            "suspend": True,
            "manualSelector": False,
        },
        None,
        {
            **DEFAULTS,
            "completions": 11,
            "parallelism": 10,
            "backoffLimit": MAX_INT32,
            "backoffLimitPerIndex": 1,
            "completionMode": "Indexed",
            "suspend": True,
        },
        True,
    ),
    "BackoffLimitPerIndex and BackoffLimit specified -> no change": (
        {
            "completions": 11,
            "parallelism": 10,
            "backoffLimit": 3,
            "backoffLimitPerIndex": 1,
            "completionMode": "Indexed",
            "suspend": True,
            **MANUAL,
        },
        None,
        {
            **DEFAULTS,
            "completions": 11,
            "parallelism": 10,
            "backoffLimit": 3,
            "backoffLimitPerIndex": 1,
            "completionMode": "Indexed",
            "suspend": True,
            "manualSelector": True,
        },
        True,
    ),
}


@pytest.mark.parametrize(("spec", "labels", "want", "same_labels"), CASES.values(), ids=CASES.keys())
def test_set_default_job(
    spec: dict[str, Any], labels: dict[str, str] | None, want: dict[str, Any], same_labels: bool
) -> None:
    meta: dict[str, Any] = {"name": "myjob", "namespace": "default"}
    if labels:
        meta["labels"] = labels
    job = Job.model_validate({"metadata": meta, "spec": {"template": copy.deepcopy(TEMPLATE), **spec}})
    got = server().create(job, dry_run=True).to_dict()
    assert {k: got["spec"].get(k) for k in want} == want
    assert (got["metadata"].get("labels") == got["spec"]["template"]["metadata"]["labels"]) == same_labels


CRON: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "empty batchv1.CronJob should default batchv1.ConcurrencyPolicy and Suspend": (
        {},
        {
            "concurrencyPolicy": "Allow",
            "suspend": False,
            "successfulJobsHistoryLimit": 3,
            "failedJobsHistoryLimit": 1,
        },
    ),
    "set fields should not be defaulted": (
        {
            "concurrencyPolicy": "Forbid",
            "suspend": True,
            "successfulJobsHistoryLimit": 5,
            "failedJobsHistoryLimit": 5,
        },
        {
            "concurrencyPolicy": "Forbid",
            "suspend": True,
            "successfulJobsHistoryLimit": 5,
            "failedJobsHistoryLimit": 5,
        },
    ),
}


@pytest.mark.parametrize(("spec", "want"), CRON.values(), ids=CRON.keys())
def test_set_default_cronjob(spec: dict[str, Any], want: dict[str, Any]) -> None:
    cj = CronJob.model_validate(
        {
            "metadata": {"name": "cj", "namespace": "default"},
            "spec": {
                "schedule": "* * * * *",
                "jobTemplate": {"spec": {"template": copy.deepcopy(TEMPLATE)}},
                **spec,
            },
        }
    )
    got = server().create(cj, dry_run=True).to_dict()["spec"]
    assert {k: got.get(k) for k in want} == want
