"""The JobSet API: the CRD's defaults, schema and CEL rules, and the webhooks' defaulting and
validation with upstream's messages (kubernetes-sigs/jobset v0.12.0
``pkg/webhooks/jobset_webhook_test.go``, ``test/integration/webhook``). Nothing is stored when a
JobSet is refused."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch import ControlPlane
from kbatch.api.core_v1 import PersistentVolumeClaim
from kbatch.api.errors import Invalid, NotFound, StatusError
from kbatch.api.jobset_v1alpha2 import JobSet

DNS1035 = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
           "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
           "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")
WEBHOOK = 'admission webhook "vjobset.kb.io" denied the request: JobSet.jobset.x-k8s.io "js" is invalid: '


def rjob(name: str = "rj", **extra: Any) -> dict[str, Any]:
    return {"name": name, "template": {"spec": {"parallelism": 1, "completions": 1, "template": {"spec": {
        "containers": [{"name": "c", "image": "busybox"}]}}}}, **extra}


def container(manifest: dict[str, Any]) -> dict[str, Any]:
    return manifest["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]


def jobset(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js"},
            "spec": {"replicatedJobs": [rjob()], **spec}}


@pytest.fixture
def cp() -> ControlPlane:
    return ControlPlane(seed=1, controllers="")


def refused(cp: ControlPlane, manifest: dict[str, Any], feature_gates: str = "") -> StatusError:
    with pytest.raises(StatusError) as info:
        cp.apply(manifest)
    with pytest.raises(NotFound):
        cp.client.get(JobSet, manifest["metadata"]["name"], "default")
    return info.value


def test_defaults_of_the_crd_and_the_webhook(cp: ControlPlane) -> None:
    claim = {"metadata": {"name": "data"},
             "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
    manifest = jobset(failurePolicy={"rules": [{"action": "FailJobSet"}, {"action": "RestartJobSet"}]},
                      volumeClaimPolicies=[{"templates": [claim]}])
    container(manifest)["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
    cp.apply(manifest)
    spec = cp.client.get(JobSet, "js", "default").to_dict()["spec"]
    assert spec["successPolicy"] == {"operator": "All"}
    assert spec["startupPolicy"] == {"startupPolicyOrder": "AnyOrder"}
    assert spec["network"] == {"enableDNSHostnames": True, "publishNotReadyAddresses": True}
    rj = spec["replicatedJobs"][0]
    assert (rj["groupName"], rj["replicas"]) == ("default", 1)
    assert rj["template"]["spec"]["completionMode"] == "Indexed"
    assert rj["template"]["spec"]["template"]["spec"]["restartPolicy"] == "OnFailure"
    assert [r["name"] for r in spec["failurePolicy"]["rules"]] == ["failurePolicyRule0", "failurePolicyRule1"]
    assert spec["failurePolicy"]["restartStrategy"] == "Recreate"
    assert spec["volumeClaimPolicies"][0]["retentionPolicy"] == {"whenDeleted": "Delete"}


def test_without_the_mutating_webhook_only_the_crd_defaults_apply() -> None:
    cp = ControlPlane(seed=1, controllers="", disable_admission_plugins="mjobset.kb.io")
    cp.apply(jobset())
    spec = cp.client.get(JobSet, "js", "default").to_dict()["spec"]
    assert "successPolicy" not in spec and "network" not in spec
    assert spec["replicatedJobs"][0]["replicas"] == 1


@pytest.mark.parametrize(("spec", "message"), [
    ({"failurePolicy": {"rules": [{"name": "r", "action": "Ignore"}]}},
     'spec.failurePolicy.rules[0].action: Unsupported value: "Ignore": supported values: "FailJobSet", '
     '"RestartJobSet", "RestartJobSetAndIgnoreMaxRestarts", "RestartJob", "RestartJobAndIgnoreMaxRestarts"'),
    ({"ttlSecondsAfterFinished": -1},
     "spec.ttlSecondsAfterFinished: Invalid value: -1: spec.ttlSecondsAfterFinished in body should be "
     "greater than or equal to 0"),
    ({"replicatedJobs": [rjob(), rjob()]},
     'spec.replicatedJobs[1]: Duplicate value: map[string]interface {}{"name":"rj"}'),
    ({"startupPolicy": {"startupPolicyOrder": "InOrder"},
      "replicatedJobs": [rjob(), rjob("b", dependsOn=[{"name": "rj", "status": "Ready"}])]},
     'spec: Invalid value: "object": StartupPolicy and DependsOn APIs are mutually exclusive'),
    ({"replicatedJobs": [rjob(), rjob("b", dependsOn=[{"name": "rj", "status": "Done"}])]},
     'spec.replicatedJobs[1].dependsOn[0].status: Unsupported value: "Done": supported values: "Ready", '
     '"Complete"'),
])
def test_the_crd_schema_and_cel_rules(cp: ControlPlane, spec: dict[str, Any], message: str) -> None:
    err = refused(cp, jobset(**spec))
    assert isinstance(err, Invalid) and err.status.code == 422
    assert message in err.message and not err.message.startswith("admission webhook")


def test_an_enum_error_stops_the_cel_rules(cp: ControlPlane) -> None:
    err = refused(cp, jobset(successPolicy={"operator": "Some"}))
    assert err.message.endswith('<nil>: Invalid value: "null": some validation rules were not checked '
                                "because the object was invalid; correct the existing errors to complete "
                                "validation]")


@pytest.mark.parametrize(("spec", "message"), [
    ({"replicatedJobs": [rjob(dependsOn=[{"name": "x", "status": "Ready"}])]},
     "<nil>: Internal error: DependsOn can't be set for the first ReplicatedJob"),
    ({"replicatedJobs": [rjob(), rjob("b", dependsOn=[{"name": "c", "status": "Ready"}])]},
     "<nil>: Internal error: replicatedJob: b cannot depend on replicatedJob: c"),
    ({"successPolicy": {"operator": "All", "targetReplicatedJobs": ["nope"]}},
     "<nil>: Internal error: invalid replicatedJob name 'nope' does not appear in .spec.ReplicatedJobs"),
    ({"managedBy": "controller"},
     'spec.managedBy: Invalid value: "controller": must be a domain-prefixed path (such as "acme.io/foo")'),
    ({"managedBy": "a.io/" + "x" * 60}, "spec.managedBy: Too long: may not be more than 63 bytes"),
    ({"network": {"subdomain": "a" * 64}},
     'spec.network.subdomain: Invalid value: "' + "a" * 64 + '": .spec.network.subdomain is too long, '
     'must be less than 63 characters'),
    ({"failurePolicy": {"rules": [{"name": "1rule", "action": "FailJobSet"}]}},
     "<nil>: Internal error: invalid failure policy rule name '1rule', a failure policy rule name must start "
     "with an alphabetic character"),
    ({"failurePolicy": {"rules": [{"name": "a", "action": "FailJobSet"},
                                  {"name": "a", "action": "FailJobSet"}]}},
     "<nil>: Internal error: rule names are not unique, rules with indices [0 1] all have the same name 'a'"),
    ({"failurePolicy": {"rules": [{"name": "a", "action": "FailJobSet", "onJobFailureReasons": ["Boom"]}]}},
     "<nil>: Internal error: invalid job failure reason 'Boom' in failure policy is not a recognized job "
     "failure reason"),
    ({"failurePolicy": {"rules": [{"name": "a", "action": "RestartJob"}]}},
     "<nil>: Internal error: RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not "
     "allowed when RestartJob feature gate is disabled"),
    ({"failurePolicy": {"restartStrategy": "InPlaceRestart"}},
     "<nil>: Internal error: InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate "
     "is disabled"),
    ({"coordinator": {"replicatedJob": "nope"}}, "<nil>: Internal error: coordinator replicatedJob nope does "
                                                 "not exist"),
    ({"coordinator": {"replicatedJob": "rj", "jobIndex": 1}},
     "<nil>: Internal error: coordinator job index 1 is invalid for replicatedJob rj"),
    ({"coordinator": {"replicatedJob": "rj", "podIndex": 1}},
     "<nil>: Internal error: coordinator pod index 1 is invalid for replicatedJob rj job index 0"),
    ({"replicatedJobs": [rjob(groupName="Group")]},
     'spec.replicatedJobs[0].groupName: Invalid value: "Group": ' + DNS1035),
    ({"replicatedJobs": [rjob(replicas=3, template={"spec": {"parallelism": 2**30, "template": {"spec": {
        "containers": [{"name": "c", "image": "i"}]}}}})]},
     "<nil>: Internal error: the product of replicas and parallelism must not exceed 2147483647 for "
     "replicatedJob 'rj'"),
])
def test_the_webhook_validation(cp: ControlPlane, spec: dict[str, Any], message: str) -> None:
    err = refused(cp, jobset(**spec))
    assert isinstance(err, Invalid) and err.status.code == 422, err
    assert err.message.startswith(WEBHOOK) and message in err.message, err.message


def test_names_that_make_children_too_long_are_refused(cp: ControlPlane) -> None:
    name = "a" * 57  # a-…-rj-0 is 62 characters: the Job name fits, the pod name does not
    manifest = jobset()
    manifest["metadata"]["name"] = name
    err = refused(cp, manifest)
    assert err.message.endswith(f'spec.replicatedJobs[0].name: Invalid value: "{name}-rj-0": JobSet name is '
                                "too long, pod names generated for this JobSet will exceed 63 characters")
    manifest["metadata"]["name"] = "a" * 60
    assert "job names generated for this JobSet will exceed 63 characters" in refused(cp, manifest).message


def test_a_repeated_message_is_reported_once_but_every_cause_kept(cp: ControlPlane) -> None:
    err = refused(cp, jobset(replicatedJobs=[rjob("Bad")]))
    assert err.message.count(DNS1035) == 1
    assert len(err.status.details.causes) == 2  # the Job name and the pod name check


def test_the_gates_switch_the_alpha_actions_on() -> None:
    cp = ControlPlane(seed=1, controllers="", feature_gates="RestartJob=true,InPlaceRestart=true")
    cp.apply(jobset(failurePolicy={"rules": [{"name": "a", "action": "RestartJob"}]}))
    err = refused(cp, {**jobset(failurePolicy={"restartStrategy": "InPlaceRestart"}),
                       "metadata": {"name": "ip"}})
    assert ('spec.replicatedJobs[0].template.spec.backoffLimit: Invalid value: "null": replicatedJob rj: '
            "must be set to 2147483647 (MaxInt32) when in-place restart is enabled") in err.message


def test_claims_need_a_mount_and_a_matching_retained_existing_claim(cp: ControlPlane) -> None:
    template = {"metadata": {"name": "data"},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
    err = refused(cp, jobset(volumeClaimPolicies=[{"templates": [template]}]))
    assert ("replicatedJob containers don't have a matching volumeMount: data from VolumeClaimPolicies"
            in err.message)
    mounted = jobset(volumeClaimPolicies=[{"templates": [template]}])
    container(mounted)["volumeMounts"] = [{"name": "data", "mountPath": "/d"}]
    cp.client.create(PersistentVolumeClaim.model_validate(
        {"metadata": {"name": "data-js", "namespace": "default"}, "spec": template["spec"]}))
    err = refused(cp, mounted)
    # the stored claim was defaulted (volumeMode: Filesystem): reflect.DeepEqual differs, as upstream
    assert "spec.volumeClaimPolicies[0].template[0].spec: Invalid value:" in err.message
    assert ('spec.volumeClaimPolicies[0].retentionPolicy.whenDeleted: Invalid value: "Delete": '
            "retentionPolicy must be retain when PVC exists") in err.message


def test_updates_keep_replicated_jobs_and_managed_by(cp: ControlPlane) -> None:
    cp.apply(jobset(managedBy="example.com/mine"))
    with pytest.raises(Invalid, match=r'spec.managedBy: Invalid value: "example.com/new": field is '
                                      "immutable"):
        cp.client.patch(JobSet, "js", {"spec": {"managedBy": "example.com/new"}}, "default")
    with pytest.raises(Invalid, match=r"spec.replicatedJobs: Invalid value: .*: field is immutable"):
        cp.client.patch(JobSet, "js", {"spec": {"replicatedJobs": [rjob(replicas=2)]}}, "default")
    with pytest.raises(Invalid, match=r'spec.successPolicy: Invalid value: "object": Value is immutable'):
        cp.client.patch(JobSet, "js", {"spec": {"successPolicy": {"operator": "Any"}}}, "default")


def test_a_suspended_jobsets_pod_templates_take_kueues_changes(cp: ControlPlane) -> None:
    cp.apply(jobset(suspend=True))
    change = {"nodeSelector": {"zone": "a"}, "tolerations": [{"key": "k", "operator": "Exists"}],
              "schedulingGates": [{"name": "g"}]}
    js = cp.client.get(JobSet, "js", "default").to_dict()
    pod = js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    pod["spec"].update(change)
    pod["metadata"] = {"labels": {"kueue.x-k8s.io/podset": "rj"}}
    cp.client.update(JobSet.model_validate(js))
    js["spec"]["suspend"] = False
    js["metadata"]["resourceVersion"] = cp.client.get(JobSet, "js", "default").metadata.resource_version
    cp.client.update(JobSet.model_validate(js))
    js = cp.client.get(JobSet, "js", "default").to_dict()
    js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["nodeSelector"] = {"zone": "b"}
    with pytest.raises(Invalid, match="field is immutable"):  # running: no longer mutable
        cp.client.update(JobSet.model_validate(js))


def test_elastic_jobsets_scale_indexed_templates_only_with_the_gate() -> None:
    cp = ControlPlane(seed=1, controllers="", feature_gates="ElasticJobSet=true")
    cp.apply(jobset())
    grown = rjob(groupName="default", replicas=1)
    grown["template"]["spec"].update(parallelism=3, completions=3, completionMode="Indexed")
    grown["template"]["spec"]["template"]["spec"]["restartPolicy"] = "OnFailure"
    cp.client.patch(JobSet, "js", {"spec": {"replicatedJobs": [grown]}}, "default")
    grown["template"]["spec"]["completions"] = 4
    with pytest.raises(Invalid, match="completions must be equal to parallelism for Elastic Indexed Jobs"):
        cp.client.patch(JobSet, "js", {"spec": {"replicatedJobs": [grown]}}, "default")


_NAMES = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=40)


@settings(max_examples=40, deadline=None)
@given(name=_NAMES, rj=_NAMES, replicas=st.integers(1, 200), completions=st.integers(1, 2000))
def test_accepted_jobsets_always_have_valid_child_and_pod_names(name: str, rj: str, replicas: int,
                                                                completions: int) -> None:
    """Invariant: whatever the webhook admits, every Job name and the longest pod name are DNS-1035
    labels of at most 63 characters."""
    cp = ControlPlane(seed=1, controllers="")
    manifest = copy.deepcopy(jobset(replicatedJobs=[rjob(rj, replicas=replicas)]))
    manifest["metadata"]["name"] = name
    manifest["spec"]["replicatedJobs"][0]["template"]["spec"].update(completions=completions,
                                                                     parallelism=1)
    try:
        cp.apply(manifest)
    except StatusError:
        return
    from kbatch.api.validation import is_dns1035_label

    assert not is_dns1035_label(f"{name}-{rj}-{replicas - 1}")
    assert not is_dns1035_label(f"{name}-{rj}-{replicas - 1}-{completions - 1}-abcde")


@pytest.mark.parametrize(("field", "value"), [("reason", "Boom"), ("reason", "Pod:Failed_1"),
                                              ("type", "Failed"), ("type", "example.com/Suspended")])
def test_a_condition_field_ending_in_a_newline_does_not_match_its_pattern(
        cp: ControlPlane, field: str, value: str) -> None:
    """The CRD's ``pattern`` on a condition's ``reason`` and ``type`` is matched as Go's regexp matches:
    ``$`` only at the end of the text, so ``"Boom\\n"`` is refused (Python's ``$`` matched before it)."""
    cp.apply(jobset())

    def write(text: str) -> None:
        stored = cp.client.get(JobSet, "js", "default").to_dict()
        condition = {"type": "Failed", "status": "True", "reason": "Boom", "message": "m",
                     "lastTransitionTime": "2026-01-01T00:00:00Z", field: text}
        stored["status"] = {"conditions": [condition]}
        cp.client.update_status(JobSet.model_validate(stored))

    write(value)
    with pytest.raises(Invalid) as info:
        write(value + "\n")
    pattern = ("^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$" if field == "reason" else
               r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
               r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$")
    at = f"status.conditions[0].{field}"
    assert f'{at}: Invalid value: "{value}\\n": {at} in body should match \'{pattern}\'' in info.value.message
