"""API validation of Job and CronJob specs: an invalid object is refused with ``422 Invalid``, a
``details.causes`` entry naming the upstream field path, reason and message, and nothing is stored.

Upstream: pkg/apis/batch/validation/validation.go (``validateJobSpec``, ``validatePodFailurePolicy*``,
``validateSuccessPolicy*``, ``validateCronJobSpec``/``validateScheduleFormat``/``validateTimeZone``);
the cron parse message is robfig/cron's. The messages are compared by their upstream detail text
(the part after ``Invalid value: …:``/``Required value:``), so a value's rendering may differ.

Nothing here plays the kubelet, runs pods or moves time: this family runs on every target (in
process, ``kbatch serve``, a real cluster).
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.errors import status_of
from conformance.target import Obj, Target

pytestmark = pytest.mark.api_validation

VALIDATION = "pkg/apis/batch/validation/validation.go"
CONTAINERS = [{"name": "c", "image": "busybox:1.36", "command": ["sh", "-c", "exit 0"]}]
TEMPLATE = {"spec": {"restartPolicy": "Never", "containers": CONTAINERS}}


def _job(name: str, **spec: Any) -> Obj:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {"template": TEMPLATE, **spec}}


def _cronjob(name: str, **spec: Any) -> Obj:
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": name},
            "spec": {"jobTemplate": {"spec": {"template": TEMPLATE}}, **spec}}


def expect_invalid(target: Target, manifest: Obj, field: str, reason: str, detail: str) -> None:
    """Creating ``manifest`` fails with 422 Invalid, a cause on ``field`` with ``reason`` whose message
    carries ``detail``; the object does not exist afterwards."""
    try:
        target.apply(manifest)
    except Exception as err:  # each target raises its own error classes
        status = status_of(err)
        if status is None:
            raise
    else:
        pytest.fail(f"{manifest['kind']} {manifest['metadata']['name']} was accepted")
    assert (status.get("code"), status.get("reason")) == (422, "Invalid"), status
    causes = (status.get("details") or {}).get("causes") or []
    hits = [c for c in causes if c.get("field") == field and c.get("reason") == reason]
    assert hits, f"no {reason} cause on {field}: {causes}"
    assert any(detail in (c.get("message") or "") for c in hits), f"{detail!r} not in {hits}"
    assert field in (status.get("message") or ""), status
    assert target.get(manifest["kind"], manifest["metadata"]["name"]) is None


@pytest.mark.semantic("validation: Indexed completion mode requires completions "
                      "(spec.completions Required)", source=f"{VALIDATION} validateJobSpec")
def test_indexed_requires_completions(target: Target) -> None:
    expect_invalid(target, _job("v-indexed", completionMode="Indexed", parallelism=2),
                   "spec.completions", "FieldValueRequired", "when completion mode is Indexed")


@pytest.mark.semantic("validation: backoffLimitPerIndex requires Indexed completion mode",
                      source=f"{VALIDATION} validateJobSpec; KEP-3850")
def test_backoff_limit_per_index_requires_indexed(target: Target) -> None:
    expect_invalid(target, _job("v-bli", completions=2, backoffLimitPerIndex=1),
                   "spec.backoffLimitPerIndex", "FieldValueInvalid", "requires indexed completion mode")


@pytest.mark.semantic("validation: maxFailedIndexes requires backoffLimitPerIndex",
                      source=f"{VALIDATION} validateJobSpec; KEP-3850")
def test_max_failed_indexes_requires_backoff_limit_per_index(target: Target) -> None:
    expect_invalid(target, _job("v-mfi", completions=2, completionMode="Indexed", maxFailedIndexes=1),
                   "spec.backoffLimitPerIndex", "FieldValueRequired", "when maxFailedIndexes is specified")


@pytest.mark.semantic("validation: a Job's restartPolicy must be OnFailure or Never",
                      source=f"{VALIDATION} validateJobSpec")
def test_restart_policy_always_is_refused(target: Target) -> None:
    template = {"spec": {"restartPolicy": "Always", "containers": CONTAINERS}}
    expect_invalid(target, _job("v-always", template=template), "spec.template.spec.restartPolicy",
                   "FieldValueRequired", 'valid values: "OnFailure", "Never"')


@pytest.mark.semantic("validation: podFailurePolicy only with restartPolicy Never",
                      source=f"{VALIDATION} validateJobSpec; KEP-3329")
def test_pod_failure_policy_requires_restart_policy_never(target: Target) -> None:
    template = {"spec": {"restartPolicy": "OnFailure", "containers": CONTAINERS}}
    rules = [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}]
    expect_invalid(target, _job("v-pfp-onfailure", template=template, podFailurePolicy={"rules": rules}),
                   "spec.template.spec.restartPolicy", "FieldValueInvalid",
                   'only "Never" is supported when podFailurePolicy is specified')


@pytest.mark.semantic("validation: the FailIndex action requires backoffLimitPerIndex",
                      source=f"{VALIDATION} validatePodFailurePolicyRule; KEP-3850")
def test_fail_index_requires_backoff_limit_per_index(target: Target) -> None:
    rules = [{"action": "FailIndex", "onExitCodes": {"operator": "In", "values": [1]}}]
    expect_invalid(target, _job("v-failindex", completions=2, completionMode="Indexed",
                                podFailurePolicy={"rules": rules}),
                   "spec.podFailurePolicy.rules[0].action", "FieldValueInvalid",
                   "requires the backoffLimitPerIndex to be set")


@pytest.mark.semantic("validation: onExitCodes In must not list exit code 0",
                      source=f"{VALIDATION} validatePodFailurePolicyRuleOnExitCodes; KEP-3329")
def test_on_exit_codes_in_refuses_zero(target: Target) -> None:
    rules = [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [0, 1]}}]
    expect_invalid(target, _job("v-exit0", podFailurePolicy={"rules": rules}),
                   "spec.podFailurePolicy.rules[0].onExitCodes.values[0]", "FieldValueInvalid",
                   "must not be 0 for the In operator")


@pytest.mark.semantic("validation: successPolicy requires Indexed completion mode",
                      source=f"{VALIDATION} validateJobSpec; KEP-3998")
def test_success_policy_requires_indexed(target: Target) -> None:
    policy = {"rules": [{"succeededCount": 1}]}
    expect_invalid(target, _job("v-sp-nonindexed", completions=2, successPolicy=policy),
                   "spec.successPolicy", "FieldValueInvalid", "requires indexed completion mode")


@pytest.mark.semantic("validation: a successPolicy rule needs succeededCount or succeededIndexes",
                      source=f"{VALIDATION} validateSuccessPolicyRule; KEP-3998")
def test_success_policy_rule_must_not_be_empty(target: Target) -> None:
    expect_invalid(target, _job("v-sp-empty", completions=2, completionMode="Indexed",
                                successPolicy={"rules": [{}]}),
                   "spec.successPolicy.rules[0]", "FieldValueRequired",
                   "at least one of succeededCount or succeededIndexes must be specified")


@pytest.mark.semantic("validation: successPolicy succeededCount at most completions",
                      source=f"{VALIDATION} validateSuccessPolicyRule; KEP-3998")
def test_success_policy_count_at_most_completions(target: Target) -> None:
    expect_invalid(target, _job("v-sp-count", completions=2, completionMode="Indexed",
                                successPolicy={"rules": [{"succeededCount": 3}]}),
                   "spec.successPolicy.rules[0].succeededCount", "FieldValueInvalid",
                   "must be less than or equal to 2 (the number of specified completions)")


@pytest.mark.semantic("validation: CronJob schedule must parse as cron",
                      source=f"{VALIDATION} validateScheduleFormat; robfig/cron/v3 ParseStandard")
def test_cronjob_schedule_must_parse(target: Target) -> None:
    expect_invalid(target, _cronjob("v-cron", schedule="61 * * * *"), "spec.schedule", "FieldValueInvalid",
                   "end of range (61) above maximum (59)")


@pytest.mark.semantic("validation: CronJob schedule must not name TZ / CRON_TZ (use timeZone)",
                      source=f"{VALIDATION} validateScheduleFormat; KEP-3140")
def test_cronjob_schedule_refuses_tz(target: Target) -> None:
    expect_invalid(target, _cronjob("v-cron-tz", schedule="TZ=UTC 0 * * * *"), "spec.schedule",
                   "FieldValueInvalid", "cannot use TZ or CRON_TZ in schedule, use timeZone field instead")


@pytest.mark.semantic("validation: CronJob timeZone must be a known zone",
                      source=f"{VALIDATION} validateTimeZone; KEP-3140")
def test_cronjob_time_zone_must_be_known(target: Target) -> None:
    expect_invalid(target, _cronjob("v-cron-zone", schedule="0 * * * *", timeZone="Mars/Olympus_Mons"),
                   "spec.timeZone", "FieldValueInvalid", "unknown time zone Mars/Olympus_Mons")
