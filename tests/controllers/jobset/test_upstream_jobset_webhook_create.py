"""Upstream's ``TestValidateCreate`` table, case by case, through kbatch's API.

Source: kubernetes-sigs/jobset v0.12.0 ``pkg/webhooks/jobset_webhook_test.go`` (``TestValidateCreate``:
its ``uncategorizedTests``, ``jobsetControllerNameTests``, ``failurePolicyTests``,
``dependsOnTests``, ``volumeClaimPolicyTests``, ``inPlaceRestartTests``) and ``jobset_webhook.go``.
Upstream calls ``ValidateCreate`` on a Go struct and checks a ``422 Invalid`` whose message contains
every wanted line; here a user's manifest is created through the API (the CRD's defaults and schema,
``mjobset.kb.io``, ``vjobset.kb.io``), and the refusal must be the webhook's 422 containing every
wanted text, with nothing stored.

Translation notes: upstream's structs skip the CRD, so a few inputs change to pass the schema the way
upstream's own integration suite writes them: rules that upstream leaves without ``action`` get
``FailJobSet`` (the CRD requires it); upstream's empty ``SuccessPolicy{}`` is the defaulted one. A rule
whose name is empty is named by ``mjobset.kb.io`` before validation, so that case is also run on
:func:`validate_create` directly, as upstream runs it.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.core_v1 import PersistentVolumeClaim
from kbatch.api.errors import Invalid
from kbatch.api.jobset_v1alpha2 import JobSet
from kbatch.controllers.jobset.views import Gates
from kbatch.controllers.jobset.webhook_rules import validate_create

from .upstream_helpers import MAX_INT32, create, indexed, jobset, plane, pod_spec, rjob

WEBHOOK = 'admission webhook "vjobset.kb.io" denied the request: JobSet.jobset.x-k8s.io'
DNS1035 = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
           "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
           "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")
RULE_NAME = ("a failure policy rule name must start with an alphabetic character, optionally followed by a "
             "string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'")
RESTART_JOB_GATE = ("RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed "
                    "when RestartJob feature gate is disabled")
REPLICAS_1024 = ("JobSet cannot have a failure policy rule with RestartJob or RestartJobAndIgnoreMaxRestarts "
                 "action and a replicated job with replicas > 1024")
PVC = {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "1Gi"}}}


def _rule(**fields: Any) -> dict[str, Any]:
    return {"action": "FailJobSet", **fields}


def _fp(*rules: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"failurePolicy": {"rules": list(rules), **extra}}


def _coord(rj: str, job: int = 0, pod: int = 0) -> dict[str, Any]:
    return {"coordinator": {"replicatedJob": rj, "jobIndex": job, "podIndex": pod}}


def _two(a_completions: int | None = 2) -> list[dict[str, Any]]:
    a = indexed("replicatedjob-a", 2, 2)
    if a_completions is None:
        del a["template"]["spec"]["completions"]
    return [a, indexed("replicatedjob-b", 2, 2)]


def _dep(name: str, *on: str) -> dict[str, Any]:
    out = rjob(name)
    if on:
        out["dependsOn"] = [{"name": n, "status": "Complete"} for n in on]
    return out


def _mounting(name: str, mount: str | None, *, init: bool = False, volume: bool = False) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "test-init" if init else "test", "image": "bash:latest"}
    if mount is not None:
        container["volumeMounts"] = [{"name": mount, "mountPath": "/test/path"}]
    pod = pod_spec(initContainers=[container]) if init else {"containers": [container]}
    if volume:
        pod["volumes"] = [{"name": mount, "emptyDir": {}}]
    return rjob(name, pod=pod)


def _claims(*names: str, retain: tuple[str, ...] = (), spec: dict[str, Any] = PVC) -> dict[str, Any]:
    return {"volumeClaimPolicies": [
        {"templates": [{"metadata": {"name": n}, "spec": spec}],
         "retentionPolicy": {"whenDeleted": "Retain" if n in retain else "Delete"}} for n in names]}


def _in_place(**job: Any) -> dict[str, Any]:
    base = {"parallelism": 1, "completions": 1, "backoffLimit": MAX_INT32, "podReplacementPolicy": "Failed"}
    base.update(job)
    spec = {k: v for k, v in base.items() if v is not None}
    return jobset({"name": "job-1", "template": {"spec": {**spec, "template": {"spec": pod_spec()}}}},
                  failurePolicy={"restartStrategy": "InPlaceRestart"})


def _named(name: str, *rjobs: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return jobset(*rjobs, name=name, **spec)


IN_PLACE = "InPlaceRestart=true"
RESTART_JOB = "RestartJob=true"

# (upstream case name, manifest, feature gates, wanted texts; [] = admitted)
CASES: list[tuple[str, dict[str, Any], str, list[str]]] = [
    # uncategorizedTests
    ("number of pods exceeds the limit",
     jobset(rjob("test-jobset-replicated-job-0", MAX_INT32, parallelism=MAX_INT32),
            rjob("test-jobset-replicated-job-1", -MAX_INT32 - 1, parallelism=-MAX_INT32 - 1)), "",
     ["the product of replicas and parallelism must not exceed 2147483647 for replicatedJob "
      "'test-jobset-replicated-job-0'",
      "the product of replicas and parallelism must not exceed 2147483647 for replicatedJob "
      "'test-jobset-replicated-job-1'"]),
    ("number of pods within the limit", jobset(rjob("test-jobset-replicated-job-0")), "", []),
    ("success policy has non matching replicated job",
     jobset(rjob("test-jobset-replicated-job-0"), successPolicy={"operator": "All",
                                                                 "targetReplicatedJobs": ["does not exist"]}),
     "", ["invalid replicatedJob name 'does not exist' does not appear in .spec.ReplicatedJobs"]),
    ("network has invalid dns name",
     jobset(rjob("test-jobset-replicated-job-0"),
            network={"enableDNSHostnames": True, "subdomain": "a" * 64}),
     "", [".spec.network.subdomain is too long, must be less than 63 characters"]),
    ("jobset name with invalid character", jobset(rjob("username.llama65b")), "", [DNS1035]),
    ("group name is not DNS 1035 compliant", jobset(rjob("rj", groupName="a" * 64)), "",
     [".spec.replicatedJob[].groupName is too long, must be less than 63 characters"]),
    ("jobset name will result in job name being too long", _named("a" * 62, rjob("rj", 101)), "",
     ["JobSet name is too long, job names generated for this JobSet will exceed 63 characters"]),
    ("jobset name will result in a pod name being too long", _named("a" * 56, indexed("rj")), "",
     ["JobSet name is too long, pod names generated for this JobSet will exceed 63 characters"]),
    # jobsetControllerNameTests
    ("jobset controller name is not a domain-prefixed path",
     jobset(indexed(), managedBy="notDomainPrefixedPathControllerName"), "",
     ['spec.managedBy: Invalid value: "notDomainPrefixedPathControllerName": must be a domain-prefixed path '
      "(such as \"acme.io/foo\")"]),
    ("jobset controller name is too long", jobset(indexed(), managedBy="foo.bar/" + "a" * 63), "",
     ["spec.managedBy: Too long: may not be more than 63 bytes"]),
    ("jobset controller name is set and valid",
     jobset(indexed(), managedBy="jobset.sigs.k8s.io/jobset-controller"), "", []),
    ("jobset controller name is unset", jobset(indexed()), "", []),
    # failurePolicyTests
    ("failure policy rule name is valid",
     jobset(indexed(), **_fp(_rule(name="superAwesomeFailurePolicyRule"))), "", []),
    ("jobset failure policy has an invalid on job failure reason",
     jobset(indexed(), **_fp(_rule(onJobFailureReasons=["fakeReason"]), maxRestarts=1)), "",
     ["invalid job failure reason 'fakeReason' in failure policy is not a recognized job failure reason"]),
    ("jobset failure policy has an invalid replicated job",
     jobset(indexed(), **_fp(_rule(targetReplicatedJobs=["fakeReplicatedJob"]), maxRestarts=1)), "",
     ["invalid replicatedJob name 'fakeReplicatedJob' in failure policy does not appear in "
      ".spec.ReplicatedJobs"]),
    ("jobset failure policy rule name is greater than 128 characters long",
     jobset(indexed(), **_fp(_rule(name="a" * 129))), "",
     ["invalid failure policy rule name of length 129, the rule name must be at least 1 characters long and "
      "at most 128 characters long"]),
    ("there are two failure policy rules with the same name",
     jobset(indexed(), **_fp(_rule(name="repeatedRuleName"), _rule(name="repeatedRuleName"))), "",
     ["rule names are not unique, rules with indices [0 1] all have the same name 'repeatedRuleName'"]),
    ("failure policy rule name does not start with an alphabetic character",
     jobset(indexed(), **_fp(_rule(name="1ruleToRuleThemAll"))), "",
     [f"invalid failure policy rule name '1ruleToRuleThemAll', {RULE_NAME}"]),
    ("failure policy rule name does not end with an alphanumeric nor '_'",
     jobset(indexed(), **_fp(_rule(name="ruleToRuleThemAll,"))), "",
     [f"invalid failure policy rule name 'ruleToRuleThemAll,', {RULE_NAME}"]),
    ("coordinator replicated job does not exist", jobset(*_two(), **_coord("fake-rjob")), "",
     ["coordinator replicatedJob fake-rjob does not exist"]),
    ("coordinator replicated job missing completions", jobset(*_two(None), **_coord("replicatedjob-a")), "",
     ["job for coordinator pod must be indexed completion mode, and completions number must be set"]),
    ("coordinator job index invalid", jobset(*_two(), **_coord("replicatedjob-a", job=2)), "",
     ["coordinator job index 2 is invalid for replicatedJob replicatedjob-a"]),
    ("coordinator pod index invalid", jobset(*_two(), **_coord("replicatedjob-a", pod=2)), "",
     ["coordinator pod index 2 is invalid for replicatedJob replicatedjob-a job index 0"]),
    ("coordinator label value is too long due to long JobSet name",
     _named("a" * 60, indexed("replicatedjob-a"), **_coord("replicatedjob-a")), "",
     ["spec will lead to invalid label value"]),
    ("coordinator label value is too long due to long ReplicatedJob name",
     _named("jobset", indexed("a" * 60), **_coord("a" * 60)), "", ["spec will lead to invalid label value"]),
    ("coordinator label value is too long due to long SubDomain",
     _named("jobset", indexed("replicatedjob-a"), network={"subdomain": "a" * 60},
            **_coord("replicatedjob-a")),
     "", ["spec will lead to invalid label value"]),
    ("jobset failure policy rule has RestartJob action and a replicated job with replicas > 1024",
     jobset(indexed("rj", 1025), **_fp({"action": "RestartJob", "name": "restartJobRule"})), RESTART_JOB,
     [REPLICAS_1024]),
    ("jobset failure policy rule has RestartJobAndIgnoreMaxRestarts action and a replicated job with "
     "replicas > 1024",
     jobset(indexed("rj", 1025), **_fp({"action": "RestartJobAndIgnoreMaxRestarts",
                                        "name": "restartJobAndIgnoreMaxRestartsRule"})), RESTART_JOB,
     [REPLICAS_1024]),
    ("jobset failure policy rule has RestartJob action and RestartJob feature gate is disabled",
     jobset(indexed(), **_fp({"action": "RestartJob", "name": "restartJobRule"})), "", [RESTART_JOB_GATE]),
    ("jobset failure policy rule has RestartJobAndIgnoreMaxRestarts action and RestartJob feature gate is "
     "disabled",
     jobset(indexed(), **_fp({"action": "RestartJobAndIgnoreMaxRestarts",
                              "name": "restartJobAndIgnoreMaxRestartsRule"})), "", [RESTART_JOB_GATE]),
    # dependsOnTests
    ("DependsOn is valid since job-2 depends on job-1 and job-3 depends on job-1",
     jobset(_dep("job-1"), _dep("job-2", "job-1"), _dep("job-3", "job-1")), "", []),
    ("DependsOn is valid since job-2 depends on job-1 and job-3 depends on job-2",
     jobset(_dep("job-1"), _dep("job-2", "job-1"), _dep("job-3", "job-2")), "", []),
    ("DependsOn is valid since job-3 depends on job-1 and job-2",
     jobset(_dep("job-1"), _dep("job-2"), _dep("job-3", "job-1", "job-2")), "", []),
    ("DependsOn is invalid since job-2 depends on job-3",
     jobset(_dep("job-1"), _dep("job-2", "job-3"), _dep("job-3", "job-1")), "",
     ["replicatedJob: job-2 cannot depend on replicatedJob: job-3"]),
    ("DependsOn is invalid since job-2 depends on job-3 and job-1",
     jobset(_dep("job-1"), _dep("job-2", "job-1", "job-3"), _dep("job-3", "job-1")), "",
     ["replicatedJob: job-2 cannot depend on replicatedJob: job-3"]),
    ("job-2 depends on invalid ReplicatedJob", jobset(_dep("job-1"), _dep("job-2", "invalid")), "",
     ["replicatedJob: job-2 cannot depend on replicatedJob: invalid"]),
    ("dependsOn cannot be set for first replicated job", jobset(_dep("job-1", "invalid")), "",
     ["DependsOn can't be set for the first ReplicatedJob"]),
    # volumeClaimPolicyTests
    ("volumeClaimPolicy is valid since volume exists in the container",
     jobset(_mounting("job-1", "test-volume"), **_claims("test-volume")), "", []),
    ("volumeClaimPolicy is valid since volume exists in the initContainer",
     jobset(_mounting("job-1", None), _mounting("job-2", "test-volume", init=True), **_claims("test-volume")),
     "", []),
    ("volumeClaimPolicy is invalid since template names are not unique",
     jobset(_mounting("job-1", "duplicate-volume"),
            **{"volumeClaimPolicies": _claims("duplicate-volume")["volumeClaimPolicies"]
               + _claims("duplicate-volume", retain=("duplicate-volume",))["volumeClaimPolicies"]}), "",
     ["names must be unique for VolumeClaimPolicies template"]),
    ("volumeClaimPolicy is invalid since template name has uppercase letters",
     jobset(_mounting("job-1", "InvalidVolumeName"), **_claims("InvalidVolumeName")), "",
     ["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters"]),
    ("volumeClaimPolicy is invalid since template name is too long",
     jobset(_mounting("job-1", "a" * 64), **_claims("a" * 64)), "",
     ["VolumeClaimPolicies template name is too long"]),
    ("volumeClaimPolicy is invalid since no matching volumeMount in containers",
     jobset(_mounting("job-1", None), **_claims("test-volume")), "",
     ["replicatedJob containers don't have a matching volumeMount"]),
    ("volumeClaimPolicy is invalid since volume name conflicts with existing volume",
     jobset(_mounting("job-1", "conflicting-volume", volume=True), **_claims("conflicting-volume")), "",
     ["volume name conflicts with VolumeClaimPolicy template name"]),
    # inPlaceRestartTests
    ("InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled",
     jobset(rjob("job-1"), failurePolicy={"restartStrategy": "InPlaceRestart"}), "",
     ["InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled"]),
    ("InPlaceRestart restart strategy can be set when InPlaceRestart feature gate is enabled", _in_place(),
     IN_PLACE, []),
    ("InPlaceRestart enabled: backoffLimit is not MaxInt32", _in_place(backoffLimit=0), IN_PLACE,
     ["replicatedJob job-1: must be set to 2147483647 (MaxInt32) when in-place restart is enabled"]),
    ("InPlaceRestart enabled: podReplacementPolicy is not Failed",
     _in_place(podReplacementPolicy="TerminatingOrFailed"), IN_PLACE,
     ["replicatedJob job-1: must be set to Failed when in-place restart is enabled"]),
    ("InPlaceRestart enabled: completions != parallelism", _in_place(completions=2), IN_PLACE,
     ["replicatedJob job-1: completions and parallelism must be set and equal to each other when in-place "
      "restart is enabled"]),
    ("InPlaceRestart enabled: completions is nil", _in_place(completions=None), IN_PLACE,
     ["replicatedJob job-1: completions and parallelism must be set and equal to each other when in-place "
      "restart is enabled"]),
    ("InPlaceRestart enabled: parallelism is nil", _in_place(parallelism=None), IN_PLACE,
     ["replicatedJob job-1: completions and parallelism must be set and equal to each other when in-place "
      "restart is enabled"]),
]


@pytest.mark.parametrize(("case", "manifest", "gates", "want"), CASES, ids=[c[0] for c in CASES])
def test_validate_create(case: str, manifest: dict[str, Any], gates: str, want: list[str]) -> None:
    err = create(plane(gates), manifest)
    if not want:
        assert err is None, f"{case}: {err}"
        return
    assert isinstance(err, Invalid), f"{case}: {err!r}"
    assert err.status.code == 422 and err.status.reason == "Invalid"
    assert err.message.startswith(WEBHOOK), err.message
    for text in want:
        assert text in err.message, f"{case}: {text!r} not in {err.message!r}"


def test_dependson_should_not_fail_if_there_are_no_replicated_jobs() -> None:
    """Upstream's "dependsOn should not fail if there are no replicated jobs": admitted (the CRD does
    not require ``replicatedJobs``), through the API and on the pure rule."""
    manifest = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js"},
                "spec": {"successPolicy": {"operator": "All"}}}
    assert create(plane(), manifest) is None
    js = JobSet.model_validate({"metadata": {"name": "js"}, "spec": {"successPolicy": {"operator": "All"}}})
    assert validate_create(js, Gates(), lambda ns, name: None) == []


def test_rule_name_of_0_characters() -> None:
    """Upstream's "jobset failure policy rule name is 0 characters long a.k.a unset": ValidateCreate
    alone refuses it; a user's JobSet never reaches it unnamed (``Default`` names it
    ``failurePolicyRule0`` first, see the defaulting table)."""
    js = JobSet.model_validate({"metadata": {"name": "js"}, "spec": {
        "successPolicy": {"operator": "All"}, "replicatedJobs": [indexed()],
        "failurePolicy": {"rules": [{"action": "FailJobSet"}]}}})
    got = [e.detail for e in validate_create(js, Gates(), lambda ns, name: None)]
    assert ("invalid failure policy rule name of length 0, the rule name must be at least 1 characters long "
            "and at most 128 characters long") in got
    assert create(plane(), jobset(indexed(), **_fp(_rule()))) is None


def _existing_claim(cp: Any, spec: dict[str, Any]) -> None:
    cp.client.create(PersistentVolumeClaim.model_validate(
        {"metadata": {"name": "test-volume-js", "namespace": "default"}, "spec": spec}))


# A claim created through the API is stored with ``volumeMode: Filesystem`` (PVC defaulting) and the
# cluster's default class ``standard`` (DefaultStorageClass admission); upstream's fake client stores
# it as given. A template written as the stored claim reads is what matches in a cluster
# (``reflect.DeepEqual`` of the specs), so the matching case spells both defaults out.
STORED = {**PVC, "volumeMode": "Filesystem", "storageClassName": "standard"}


@pytest.mark.parametrize(("case", "retain", "claim_spec", "want"), [
    ("volumeClaimPolicy is valid when existing PVC matches template spec", True, STORED, []),
    ("volumeClaimPolicy retention policy must be retain for existing PVC", False, PVC,
     ["retentionPolicy must be retain when PVC exist"]),
    ("volumeClaimPolicy is invalid when existing PVC does not match template spec", True,
     {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "2Gi"}}},
     ["spec does not match existing PVC"]),
])
def test_validate_create_with_an_existing_claim(case: str, retain: bool, claim_spec: dict[str, Any],
                                                want: list[str]) -> None:
    cp = plane()
    _existing_claim(cp, claim_spec)
    manifest = jobset(_mounting("job-1", "test-volume"),
                      **_claims("test-volume", retain=("test-volume",) if retain else (),
                                spec=STORED if not want else PVC))
    err = create(cp, manifest)
    if not want:
        assert err is None, f"{case}: {err}"
        return
    assert isinstance(err, Invalid) and err.message.startswith(WEBHOOK), err
    for text in want:
        assert text in err.message, err.message


# --- the rule-name checks on inputs the table does not try (same source) -------------------------------
def test_a_rule_name_ending_in_a_newline_is_refused() -> None:
    """``ruleNameRegexp.MatchString``: Go's ``$`` matches only at the end of the text, so ``"rule\\n"``
    is not a valid rule name (Python's ``$`` would also match before the final newline)."""
    err = create(plane(), jobset(indexed(), **_fp(_rule(name="rule\n"))))
    assert isinstance(err, Invalid)
    assert "invalid failure policy rule name 'rule\n', " + RULE_NAME in err.message


def test_a_rule_names_length_is_counted_in_bytes() -> None:
    """``len(rule.Name)`` is Go's byte length: 100 two-byte characters are 200, over the 128 limit."""
    err = create(plane(), jobset(indexed(), **_fp(_rule(name="é" * 100))))
    assert isinstance(err, Invalid)
    assert ("invalid failure policy rule name of length 200, the rule name must be at least 1 characters "
            "long and at most 128 characters long") in err.message
