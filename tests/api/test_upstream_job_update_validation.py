"""Upstream's ``TestValidateJobUpdate`` and ``TestValidateJobUpdateStatus`` tables, through
kbatch's API server.

Source: kubernetes/kubernetes ``pkg/apis/batch/validation/validation_test.go`` (same stored copy
as ``test_upstream_job_validation.py``). A Job is created, then updated as a user would (update,
or the status subresource); upstream compares the whole error list by field and type, and so do
these tests, on the 422's causes. Upstream's ``AllowMutableSchedulingDirectives`` option is what
``validationOptionsForJob`` derives for a suspended Job that never started, so the "mutable ..."
cases create the Job suspended; ``AllowElasticIndexedJobs`` is always on (GA), so "immutable
completions for indexed job when AllowElasticIndexedJobs is false" runs as its twin for a
NonIndexed Job.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from kbatch.api.batch_v1 import Job
from kbatch.apiserver import APIServer
from tests.api.upstream_batch import job, rejected, server, template

NEVER = template("Never")
INDEXED = {"completionMode": "Indexed"}
AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "foo", "operator": "In", "values": ["bar", "value2"]}]}
            ]
        }
    }
}
OLD_AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "foo", "operator": "In", "values": ["bar", "value"]}]}
            ]
        }
    }
}
TOLERATIONS = [{"key": "foo", "operator": "Equal", "value": "bar", "effect": "PreferNoSchedule"}]
PFP = {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}]}
SP = {"rules": [{"succeededIndexes": "1-3"}]}
SUSPENDED = {"suspend": True}


def _set(**fields: Any) -> Callable[[dict[str, Any]], None]:
    def apply(spec: dict[str, Any]) -> None:
        for k, v in fields.items():
            if v is None:
                spec.pop(k, None)
            else:
                spec[k] = v

    return apply


def _pod(**fields: Any) -> Callable[[dict[str, Any]], None]:
    def apply(spec: dict[str, Any]) -> None:
        for k, v in fields.items():
            if v is None:
                spec["template"]["spec"].pop(k, None)
            else:
                spec["template"]["spec"][k] = v

    return apply


def _template_meta(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def apply(spec: dict[str, Any]) -> None:
        spec["template"].setdefault("metadata", {})[key] = {
            **spec["template"]["metadata"].get(key, {}),
            **value,
        }

    return apply


def _append_rule(key: str, rule: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    def apply(spec: dict[str, Any]) -> None:
        spec[key]["rules"].append(rule)

    return apply


def _remove_node_affinity(spec: dict[str, Any]) -> None:
    del spec["template"]["spec"]["affinity"]["nodeAffinity"]


# upstream case name -> (spec at create, change to the stored spec, expected (field, reason) causes)
CASES: dict[str, tuple[dict[str, Any], Callable[[dict[str, Any]], None], list[tuple[str, str]]]] = {
    "mutable fields": (
        {"parallelism": 5, "activeDeadlineSeconds": 2, "ttlSecondsAfterFinished": 1},
        _set(parallelism=2, activeDeadlineSeconds=3, ttlSecondsAfterFinished=2),
        [],
    ),
    "invalid attempt to set managedBy field": (
        {},
        _set(managedBy="example.com/custom-controller"),
        [("spec.managedBy", "FieldValueInvalid")],
    ),
    "invalid update of the managedBy field": (
        {"managedBy": "example.com/custom-controller1"},
        _set(managedBy="example.com/custom-controller2"),
        [("spec.managedBy", "FieldValueInvalid")],
    ),
    # parallelism set so that SetDefaults_Job leaves completions nil, as upstream's old Job has it
    "immutable completions for non-indexed jobs": (
        {"parallelism": 1},
        _set(completions=1),
        [("spec.completions", "FieldValueInvalid")],
    ),
    "immutable completions for indexed job when AllowElasticIndexedJobs is false": (
        {"parallelism": 1},
        _set(completions=1),
        [("spec.completions", "FieldValueInvalid")],
    ),
    # the strategy's ValidateUpdate runs ValidateJob first: a changed generated selector is also
    # "`selector` not auto-generated" (pkg/registry/batch/job/strategy.go ValidateUpdate)
    "immutable selector": (
        {"template": template(labels={"foo": "bar"})},
        lambda s: s["selector"]["matchLabels"].update(foo="bar"),
        [("spec.selector", "FieldValueInvalid"), ("spec.selector", "FieldValueInvalid")],
    ),
    "add success policy": (
        {**INDEXED, "completions": 5, "template": NEVER},
        _set(successPolicy={"rules": [{"succeededCount": 2}]}),
        [("spec.successPolicy", "FieldValueInvalid")],
    ),
    "update success policy": (
        {**INDEXED, "completions": 5, "template": NEVER, "successPolicy": SP},
        _append_rule("successPolicy", {"succeededCount": 3}),
        [("spec.successPolicy", "FieldValueInvalid")],
    ),
    "remove success policy": (
        {**INDEXED, "completions": 5, "template": NEVER, "successPolicy": SP},
        _set(successPolicy=None),
        [("spec.successPolicy", "FieldValueInvalid")],
    ),
    # podReplacementPolicy is given: SetDefaults_Job's TerminatingOrFailed (no podFailurePolicy at
    # create) would also be refused next to the added policy
    "add pod failure policy": (
        {"template": NEVER, "podReplacementPolicy": "Failed"},
        _set(podFailurePolicy=PFP),
        [("spec.podFailurePolicy", "FieldValueInvalid")],
    ),
    "update pod failure policy": (
        {"template": NEVER, "podFailurePolicy": PFP},
        _append_rule(
            "podFailurePolicy",
            {"action": "Count", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]},
        ),
        [("spec.podFailurePolicy", "FieldValueInvalid")],
    ),
    "remove pod failure policy": (
        {"template": NEVER, "podFailurePolicy": PFP},
        _set(podFailurePolicy=None),
        [("spec.podFailurePolicy", "FieldValueInvalid")],
    ),
    "set backoff limit per index": (
        {**INDEXED, "completions": 3, "template": NEVER},
        _set(backoffLimitPerIndex=1),
        [("spec.backoffLimitPerIndex", "FieldValueInvalid")],
    ),
    "unset backoff limit per index": (
        {**INDEXED, "completions": 3, "template": NEVER, "backoffLimitPerIndex": 1},
        _set(backoffLimitPerIndex=None),
        [("spec.backoffLimitPerIndex", "FieldValueInvalid")],
    ),
    "update backoff limit per index": (
        {**INDEXED, "completions": 3, "template": NEVER, "backoffLimitPerIndex": 1},
        _set(backoffLimitPerIndex=2),
        [("spec.backoffLimitPerIndex", "FieldValueInvalid")],
    ),
    "set max failed indexes": (
        {**INDEXED, "completions": 3, "template": NEVER, "backoffLimitPerIndex": 1},
        _set(maxFailedIndexes=1),
        [],
    ),
    "unset max failed indexes": (
        {**INDEXED, "completions": 3, "template": NEVER, "backoffLimitPerIndex": 1, "maxFailedIndexes": 1},
        _set(maxFailedIndexes=None),
        [],
    ),
    "update max failed indexes": (
        {**INDEXED, "completions": 3, "template": NEVER, "backoffLimitPerIndex": 1, "maxFailedIndexes": 1},
        _set(maxFailedIndexes=2),
        [],
    ),
    "immutable pod template": (
        {**INDEXED, "completions": 3},
        _pod(dnsPolicy="ClusterFirstWithHostNet"),
        [("spec.template", "FieldValueInvalid")],
    ),
    "immutable completion mode": (
        {**INDEXED, "completions": 2},
        _set(completionMode="NonIndexed"),
        [("spec.completionMode", "FieldValueInvalid")],
    ),
    "immutable completions for non-indexed job when AllowElasticIndexedJobs is true": (
        {"completionMode": "NonIndexed", "completions": 2},
        _set(completions=4),
        [("spec.completions", "FieldValueInvalid")],
    ),
    "immutable node affinity": ({}, _pod(affinity=AFFINITY), [("spec.template", "FieldValueInvalid")]),
    "add node affinity": (SUSPENDED, _pod(affinity=AFFINITY), []),
    "update node affinity": (
        {**SUSPENDED, "template": template(affinity=OLD_AFFINITY)},
        _pod(affinity=AFFINITY),
        [],
    ),
    "remove node affinity": (
        {**SUSPENDED, "template": template(affinity=OLD_AFFINITY)},
        _remove_node_affinity,
        [],
    ),
    "remove affinity": ({**SUSPENDED, "template": template(affinity=OLD_AFFINITY)}, _pod(affinity=None), []),
    "immutable tolerations": ({}, _pod(tolerations=TOLERATIONS), [("spec.template", "FieldValueInvalid")]),
    "mutable tolerations": (SUSPENDED, _pod(tolerations=TOLERATIONS), []),
    "immutable node selector": (
        {},
        _pod(nodeSelector={"foo": "bar"}),
        [("spec.template", "FieldValueInvalid")],
    ),
    "mutable node selector": (SUSPENDED, _pod(nodeSelector={"foo": "bar"}), []),
    "immutable annotations": (
        {},
        _template_meta("annotations", {"foo": "baz"}),
        [("spec.template", "FieldValueInvalid")],
    ),
    "mutable annotations": (SUSPENDED, _template_meta("annotations", {"foo": "baz"}), []),
    "immutable labels": (
        {},
        _template_meta("labels", {"bar": "baz"}),
        [("spec.template", "FieldValueInvalid")],
    ),
    "mutable labels": (SUSPENDED, _template_meta("labels", {"bar": "baz"}), []),
    "immutable schedulingGates": (
        {},
        _pod(schedulingGates=[{"name": "gate"}]),
        [("spec.template", "FieldValueInvalid")],
    ),
    "mutable schedulingGates": (SUSPENDED, _pod(schedulingGates=[{"name": "gate"}]), []),
    "update completions and parallelism to same value is valid": (
        {**INDEXED, "completions": 1, "parallelism": 1},
        _set(completions=2, parallelism=2),
        [],
    ),
    "previous parallelism != previous completions, new parallelism == new completions": (
        {**INDEXED, "completions": 1, "parallelism": 2},
        _set(completions=3, parallelism=3),
        [],
    ),
    "indexed job updating completions and parallelism to different values is invalid": (
        {**INDEXED, "completions": 1, "parallelism": 1},
        _set(completions=2, parallelism=3),
        [("spec.completions", "FieldValueInvalid")],
    ),
    "indexed job with completions set updated to nil does not panic": (
        {**INDEXED, "completions": 1, "parallelism": 1},
        _set(completions=None, parallelism=3),
        [("spec.completions", "FieldValueRequired")],
    ),
    "indexed job with completions unchanged, parallelism reduced to less than completions": (
        {**INDEXED, "completions": 2, "parallelism": 2},
        _set(parallelism=1),
        [],
    ),
    "indexed job with completions unchanged, parallelism increased higher than completions": (
        {**INDEXED, "completions": 2, "parallelism": 2},
        _set(parallelism=3),
        [],
    ),
}


def _updated(srv: APIServer, stored: Job, change: Callable[[dict[str, Any]], None]) -> Job:
    wire = copy.deepcopy(stored.to_dict())
    change(wire["spec"])
    return Job.model_validate(wire)


@pytest.mark.parametrize(("spec", "change", "want"), CASES.values(), ids=CASES.keys())
def test_validate_job_update(
    spec: dict[str, Any], change: Callable[[dict[str, Any]], None], want: list[tuple[str, str]]
) -> None:
    srv = server()
    stored = srv.create(job(spec))
    new = _updated(srv, stored, change)
    if not want:
        srv.update(new)
        return
    assert [(f, r) for f, r, _ in rejected(srv.update, new)] == want


def test_manual_selector_may_be_set_on_update() -> None:
    """ "mutable fields" also sets manualSelector to true: not an immutable field."""
    srv = server()
    stored = srv.create(job({}))
    srv.update(_updated(srv, stored, _set(manualSelector=True)))


# TestValidateJobUpdateStatus: status written through the status subresource
STATUS_CASES: dict[str, tuple[dict[str, Any], dict[str, Any], list[tuple[str, str]]]] = {
    "valid": (
        {"active": 1, "succeeded": 2, "failed": 3, "terminating": 4},
        {"active": 2, "succeeded": 3, "failed": 4, "ready": 1, "terminating": 4},
        [],
    ),
    "nil ready and terminating": (
        {"active": 1, "succeeded": 2, "failed": 3},
        {"active": 2, "succeeded": 3, "failed": 4},
        [],
    ),
    "negative counts": (
        {"active": 1, "succeeded": 2, "failed": 3, "terminating": 4},
        {"active": -1, "succeeded": -2, "failed": -3, "ready": -1, "terminating": -2},
        [
            ("status.active", "FieldValueInvalid"),
            ("status.succeeded", "FieldValueInvalid"),
            ("status.failed", "FieldValueInvalid"),
            ("status.ready", "FieldValueInvalid"),
            ("status.terminating", "FieldValueInvalid"),
            # the strategy's status options (getStatusValidationOptions) reject a
            # decreasing failed or succeeded counter when it changes
            ("status.failed", "FieldValueInvalid"),
            ("status.succeeded", "FieldValueInvalid"),
        ],
    ),
    "empty and duplicated uncounted pods": (
        {},
        {
            "uncountedTerminatedPods": {
                "succeeded": ["a", "b", "c", "a", ""],
                "failed": ["c", "d", "e", "d", ""],
            }
        },
        [
            ("status.uncountedTerminatedPods.succeeded[3]", "FieldValueDuplicate"),
            ("status.uncountedTerminatedPods.succeeded[4]", "FieldValueInvalid"),
            ("status.uncountedTerminatedPods.failed[0]", "FieldValueDuplicate"),
            ("status.uncountedTerminatedPods.failed[3]", "FieldValueDuplicate"),
            ("status.uncountedTerminatedPods.failed[4]", "FieldValueInvalid"),
        ],
    ),
}


def _with_status(srv: APIServer, stored: Job, status: dict[str, Any]) -> Job:
    wire = copy.deepcopy(stored.to_dict())
    wire["status"] = status
    return Job.model_validate(wire)


@pytest.mark.parametrize(("old", "new", "want"), STATUS_CASES.values(), ids=STATUS_CASES.keys())
def test_validate_job_update_status(
    old: dict[str, Any], new: dict[str, Any], want: list[tuple[str, str]]
) -> None:
    srv = server()
    stored = srv.create(job({}))
    if old:
        stored = srv.update_status(_with_status(srv, stored, old))
    update = _with_status(srv, stored, new)
    if not want:
        srv.update_status(update)
        return
    assert [(f, r) for f, r, _ in rejected(srv.update_status, update)] == want


def test_a_job_stored_before_the_prefixed_labels_stays_updatable() -> None:
    """TestValidateJob "do not allow new batch labels" (``RequirePrefixedLabels`` false): a Job an
    older server stored with only the legacy ``controller-uid``/``job-name`` labels is validated
    with the options ``validationOptionsForJob`` derives from it, so a change of parallelism
    passes (pkg/registry/batch/job/strategy.go ``ValidateUpdate``)."""
    srv = server()
    stored = srv.create(job({}))
    wire = copy.deepcopy(stored.to_dict())
    uid = wire["metadata"]["uid"]
    wire["spec"]["selector"] = {"matchLabels": {"controller-uid": uid}}
    wire["spec"]["template"]["metadata"]["labels"] = {"controller-uid": uid, "job-name": "myjob"}
    wire["metadata"]["labels"] = {"controller-uid": uid, "job-name": "myjob"}
    del wire["metadata"]["resourceVersion"]  # the store's bytes do not carry it
    srv.store.put(srv.kind(Job).keys.key("default", "myjob"), Job.model_validate(wire).to_json())
    legacy = copy.deepcopy(srv.get(Job, "myjob", "default").to_dict())
    legacy["spec"]["parallelism"] = 2
    assert srv.update(Job.model_validate(legacy)).spec.parallelism == 2
