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


def _refusal(err: Exception) -> dict[str, Any]:
    status = status_of(err)
    if status is None:
        raise err
    return status


def _assert_invalid(status: dict[str, Any], field: str, reason: str, detail: str) -> None:
    """``status`` is 422 Invalid with a cause on ``field`` with ``reason`` whose message carries
    ``detail``."""
    assert (status.get("code"), status.get("reason")) == (422, "Invalid"), status
    causes = (status.get("details") or {}).get("causes") or []
    hits = [c for c in causes if c.get("field") == field and c.get("reason") == reason]
    assert hits, f"no {reason} cause on {field}: {causes}"
    assert any(detail in (c.get("message") or "") for c in hits), f"{detail!r} not in {hits}"
    assert field in (status.get("message") or ""), status


def expect_invalid(target: Target, manifest: Obj, field: str, reason: str, detail: str) -> None:
    """Creating ``manifest`` fails with 422 Invalid, a cause on ``field`` with ``reason`` whose message
    carries ``detail``; the object does not exist afterwards."""
    try:
        target.apply(manifest)
    except Exception as err:  # each target raises its own error classes
        status = _refusal(err)
    else:
        pytest.fail(f"{manifest['kind']} {manifest['metadata']['name']} was accepted")
    _assert_invalid(status, field, reason, detail)
    assert target.get(manifest["kind"], manifest["metadata"]["name"]) is None


def expect_invalid_update(target: Target, manifest: Obj, patch: Obj, field: str, reason: str,
                          detail: str) -> None:
    """``manifest`` is accepted; the merge ``patch`` of it fails with 422 Invalid as
    :func:`expect_invalid` describes, and the stored spec is unchanged."""
    kind, name = manifest["kind"], manifest["metadata"]["name"]
    target.apply(manifest)
    before = (target.get(kind, name) or {}).get("spec")
    try:
        target.patch(kind, name, patch)
    except Exception as err:
        status = _refusal(err)
    else:
        pytest.fail(f"{kind} {name}: the update was accepted")
    _assert_invalid(status, field, reason, detail)
    assert (target.get(kind, name) or {}).get("spec") == before


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


def _indexed(name: str, completions: int, **spec: Any) -> Obj:
    return _job(name, completionMode="Indexed", completions=completions, **spec)


HIGH = 200_000  # above completionsSoftLimit (100,000)
RULE_IGNORE_DISRUPTION = {"action": "Ignore",
                          "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}


@pytest.mark.semantic("validation: maxFailedIndexes at most completions",
                      source=f"{VALIDATION} validateJobSpec; KEP-3850")
def test_max_failed_indexes_at_most_completions(target: Target) -> None:
    expect_invalid(target, _indexed("v-mfi-completions", 2, backoffLimitPerIndex=1, maxFailedIndexes=3),
                   "spec.maxFailedIndexes", "FieldValueInvalid", "must be less than or equal to completions")


@pytest.mark.semantic("validation: maxFailedIndexes at most 100000",
                      source=f"{VALIDATION} validateJobSpec (maxFailedIndexesForIndexedJob); KEP-3850")
def test_max_failed_indexes_at_most_100000(target: Target) -> None:
    expect_invalid(target, _indexed("v-mfi-limit", HIGH, parallelism=10, backoffLimitPerIndex=1,
                                    maxFailedIndexes=100_001),
                   "spec.maxFailedIndexes", "FieldValueInvalid", "must be less than or equal to 100000")


@pytest.mark.semantic("validation: completions above 100000 with backoffLimitPerIndex require "
                      "maxFailedIndexes",
                      source=f"{VALIDATION} validateJobSpec (completionsSoftLimit); KEP-3850")
def test_high_completions_per_index_require_max_failed_indexes(target: Target) -> None:
    expect_invalid(target, _indexed("v-high-mfi", HIGH, parallelism=10, backoffLimitPerIndex=1),
                   "spec.maxFailedIndexes", "FieldValueRequired",
                   "must be specified when completions is above 100000")


@pytest.mark.semantic("validation: completions above 100000 with backoffLimitPerIndex cap parallelism "
                      "at 10000",
                      source=f"{VALIDATION} validateJobSpec (parallelismLimitForHighCompletions); KEP-3850")
def test_high_completions_per_index_cap_parallelism(target: Target) -> None:
    expect_invalid(target, _indexed("v-high-par", HIGH, parallelism=10_001, backoffLimitPerIndex=1,
                                    maxFailedIndexes=10),
                   "spec.parallelism", "FieldValueInvalid", "must be less than or equal to 10000 when "
                   "completions are above 100000 and used with backoff limit per index")


@pytest.mark.semantic("validation: completions above 100000 with backoffLimitPerIndex cap maxFailedIndexes "
                      "at 10000", source=f"{VALIDATION} validateJobSpec "
                      "(maxFailedIndexesLimitForHighCompletions); KEP-3850")
def test_high_completions_per_index_cap_max_failed_indexes(target: Target) -> None:
    expect_invalid(target, _indexed("v-high-cap", HIGH, parallelism=10, backoffLimitPerIndex=1,
                                    maxFailedIndexes=10_001),
                   "spec.maxFailedIndexes", "FieldValueInvalid", "must be less than or equal to 10000 when "
                   "completions are above 100000 and used with backoff limit per index")


@pytest.mark.semantic("validation: podReplacementPolicy must be Failed with a podFailurePolicy",
                      source=f"{VALIDATION} validatePodReplacementPolicy; KEP-3939")
def test_pod_replacement_policy_failed_with_pod_failure_policy(target: Target) -> None:
    expect_invalid(target, _job("v-prp-pfp", podReplacementPolicy="TerminatingOrFailed",
                                podFailurePolicy={"rules": [RULE_IGNORE_DISRUPTION]}),
                   "spec.podReplacementPolicy", "FieldValueNotSupported", 'supported values: "Failed"')


@pytest.mark.semantic("validation: podReplacementPolicy is Failed or TerminatingOrFailed",
                      source=f"{VALIDATION} validatePodReplacementPolicy; KEP-3939")
def test_pod_replacement_policy_unknown_value(target: Target) -> None:
    expect_invalid(target, _job("v-prp-value", podReplacementPolicy="Sometimes"),
                   "spec.podReplacementPolicy", "FieldValueNotSupported",
                   'supported values: "Failed", "TerminatingOrFailed"')


@pytest.mark.semantic("validation: managedBy at most 63 bytes",
                      source=f"{VALIDATION} validateJobSpec (maxManagedByLength); KEP-4368")
def test_managed_by_length(target: Target) -> None:
    expect_invalid(target, _job("v-mb-long", managedBy="example.com/" + "x" * 60), "spec.managedBy",
                   "FieldValueTooLong", "may not be more than 63 bytes")


@pytest.mark.semantic("validation: managedBy is a domain-prefixed path",
                      source=f"{VALIDATION} validateJobSpec (IsDomainPrefixedPath); KEP-4368")
def test_managed_by_format(target: Target) -> None:
    expect_invalid(target, _job("v-mb-format", managedBy="invalid custom controller name"), "spec.managedBy",
                   "FieldValueInvalid", 'must be a domain-prefixed path (such as "acme.io/foo")')


@pytest.mark.semantic("validation: managedBy is immutable",
                      source=f"{VALIDATION} ValidateJobSpecUpdate; KEP-4368")
def test_managed_by_immutable(target: Target) -> None:
    # suspended, so no controller runs pods for it meanwhile
    expect_invalid_update(target, _job("v-mb-immutable", suspend=True, managedBy="example.com/foo"),
                          {"spec": {"managedBy": "example.com/bar"}}, "spec.managedBy", "FieldValueInvalid",
                          "field is immutable")


@pytest.mark.semantic("validation: successPolicy needs at least one rule",
                      source=f"{VALIDATION} validateSuccessPolicy; KEP-3998")
def test_success_policy_needs_rules(target: Target) -> None:
    expect_invalid(target, _indexed("v-sp-norules", 5, successPolicy={"rules": []}),
                   "spec.successPolicy.rules", "FieldValueRequired",
                   "at least one rules must be specified when the successPolicy is specified")


@pytest.mark.semantic("validation: successPolicy has at most 20 rules",
                      source=f"{VALIDATION} validateSuccessPolicy (maxSuccessPolicyRule); KEP-3998")
def test_success_policy_at_most_20_rules(target: Target) -> None:
    expect_invalid(target, _indexed("v-sp-many", 5, successPolicy={"rules": [{"succeededCount": 1}] * 21}),
                   "spec.successPolicy.rules", "FieldValueTooMany", "must have at most 20 items")


@pytest.mark.semantic("validation: successPolicy succeededIndexes in increasing order",
                      source=f"{VALIDATION} validateSuccessPolicyRule, validateIndexesFormat; KEP-3998")
def test_success_policy_indexes_in_order(target: Target) -> None:
    expect_invalid(target, _indexed("v-sp-order", 5, successPolicy={"rules": [{"succeededIndexes": "3-1"}]}),
                   "spec.successPolicy.rules[0].succeededIndexes", "FieldValueInvalid",
                   "error parsing succeededIndexes: non-increasing order, previous: 3, current: 1")


@pytest.mark.semantic("validation: successPolicy succeededIndexes below completions",
                      source=f"{VALIDATION} validateSuccessPolicyRule, parseIndexInterval; KEP-3998")
def test_success_policy_indexes_below_completions(target: Target) -> None:
    expect_invalid(target, _indexed("v-sp-large", 5, successPolicy={"rules": [{"succeededIndexes": "0-5"}]}),
                   "spec.successPolicy.rules[0].succeededIndexes", "FieldValueInvalid",
                   'error parsing succeededIndexes: too large index: "5"')


@pytest.mark.semantic("validation: successPolicy succeededCount at most the succeededIndexes it counts",
                      source=f"{VALIDATION} validateSuccessPolicyRule; KEP-3998")
def test_success_policy_count_at_most_its_indexes(target: Target) -> None:
    rule = {"succeededIndexes": "0-1", "succeededCount": 3}
    expect_invalid(target, _indexed("v-sp-count-ix", 5, successPolicy={"rules": [rule]}),
                   "spec.successPolicy.rules[0].succeededCount", "FieldValueInvalid",
                   "must be less than or equal to 2 (the number of indexes in the specified succeededIndexes "
                   "field)")


@pytest.mark.semantic("validation: successPolicy succeededCount not negative",
                      source=f"{VALIDATION} validateSuccessPolicyRule (ValidateNonnegativeField); KEP-3998")
def test_success_policy_count_not_negative(target: Target) -> None:
    expect_invalid(target, _indexed("v-sp-negative", 5, successPolicy={"rules": [{"succeededCount": -1}]}),
                   "spec.successPolicy.rules[0].succeededCount", "FieldValueInvalid",
                   "must be greater than or equal to 0")


@pytest.mark.semantic("validation: successPolicy is immutable",
                      source=f"{VALIDATION} ValidateJobSpecUpdate; KEP-3998")
def test_success_policy_immutable(target: Target) -> None:
    job = _indexed("v-sp-immutable", 5, suspend=True, successPolicy={"rules": [{"succeededCount": 1}]})
    expect_invalid_update(target, job, {"spec": {"successPolicy": {"rules": [{"succeededCount": 2}]}}},
                          "spec.successPolicy", "FieldValueInvalid", "field is immutable")


@pytest.mark.semantic("validation: activeDeadlineSeconds not negative (no rule ties it to suspend)",
                      source=f"{VALIDATION} validateJobSpec (ValidateNonnegativeField)")
def test_active_deadline_seconds_not_negative(target: Target) -> None:
    expect_invalid(target, _job("v-ads", suspend=True, activeDeadlineSeconds=-1),
                   "spec.activeDeadlineSeconds", "FieldValueInvalid", "must be greater than or equal to 0")


def _resources(cpu: str) -> Obj:
    """A merge patch (which replaces the container list) giving the container a CPU request."""
    container = {**CONTAINERS[0], "resources": {"requests": {"cpu": cpu}}}
    return {"spec": {"template": {"spec": {"containers": [container]}}}}


@pytest.mark.semantic("validation: a suspended Job's container resources may change (beta, on since 1.36)",
                      source=f"{VALIDATION} validatePodTemplateUpdate; KEP-5440 "
                             "(MutablePodResourcesForSuspendedJobs)")
def test_suspended_job_resources_mutable(target: Target) -> None:
    target.apply(_job("v-resize", suspend=True))
    target.patch("Job", "v-resize", _resources("250m"))
    stored = (target.get("Job", "v-resize") or {})["spec"]["template"]["spec"]["containers"][0]
    assert stored["resources"]["requests"] == {"cpu": "250m"}


@pytest.mark.semantic("validation: an unsuspended Job's pod template is immutable, resources included",
                      source=f"{VALIDATION} validatePodTemplateUpdate (ValidateImmutableField); KEP-5440")
def test_unsuspended_job_template_immutable(target: Target) -> None:
    # managed by another controller, so no controller runs pods for it meanwhile
    expect_invalid_update(target, _job("v-no-resize", managedBy="example.com/foo"), _resources("250m"),
                          "spec.template", "FieldValueInvalid", "field is immutable")
