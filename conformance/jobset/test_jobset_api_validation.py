"""JobSet API validation: the CRD's schema and CEL rules and the ``vjobset.kb.io`` webhook refuse an
invalid JobSet with ``422 Invalid`` and upstream's message; nothing is stored
(kubernetes-sigs/jobset v0.12.0 ``config/components/crd``, ``pkg/webhooks/jobset_webhook.go`` and
its tests). Nothing here runs pods or moves time: it runs on every target with JobSet installed.
"""

from __future__ import annotations

import pytest

from conformance.jobset.driver import expect_refused, jobset, rjob

pytestmark = pytest.mark.api_validation
WEBHOOK = "kubernetes-sigs/jobset pkg/webhooks/jobset_webhook.go"
CRD = "kubernetes-sigs/jobset config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml"


@pytest.mark.semantic("webhook: dependsOn is not allowed on the first replicated job",
                      source=f"{WEBHOOK} ValidateCreate")
def test_depends_on_first(target):
    first = rjob("a", dependsOn=[{"name": "b", "status": "Ready"}])
    expect_refused(target, jobset("v-dep", first, rjob("b")), 422, "Invalid",
                   "DependsOn can't be set for the first ReplicatedJob")


@pytest.mark.semantic("webhook: a JobSet name whose pod names would exceed 63 characters is refused",
                      source=f"{WEBHOOK} ValidateCreate (podNameTooLongErrorMsg)")
def test_name_too_long(target):
    expect_refused(target, jobset("v" * 56, rjob("w")), 422, "Invalid",
                   "JobSet name is too long, pod names generated for this JobSet will exceed 63 characters",
                   field="spec.replicatedJobs[0].name")


@pytest.mark.semantic("webhook: success policy targets must name replicated jobs",
                      source=f"{WEBHOOK} ValidateCreate")
def test_success_targets(target):
    policy = {"operator": "All", "targetReplicatedJobs": ["x"]}
    expect_refused(target, jobset("v-succ", successPolicy=policy), 422, "Invalid",
                   "invalid replicatedJob name 'x' does not appear in .spec.ReplicatedJobs")


@pytest.mark.semantic("webhook: failure policy rule names are unique",
                      source=f"{WEBHOOK} validateFailurePolicy")
def test_rule_names_unique(target):
    rules = [{"name": "a", "action": "FailJobSet"}, {"name": "a", "action": "RestartJobSet"}]
    expect_refused(target, jobset("v-rules", failurePolicy={"rules": rules}), 422, "Invalid",
                   "rule names are not unique, rules with indices [0 1] all have the same name 'a'")


@pytest.mark.semantic("webhook: the coordinator must name an existing replicated job",
                      source=f"{WEBHOOK} validateCoordinator")
def test_coordinator(target):
    expect_refused(target, jobset("v-coord", coordinator={"replicatedJob": "nope"}), 422, "Invalid",
                   "coordinator replicatedJob nope does not exist")


@pytest.mark.semantic("CRD: a failure policy action outside the enum is an Unsupported value",
                      source=f"{CRD} (FailurePolicyRule.action enum)")
def test_action_enum(target):
    expect_refused(target, jobset("v-enum", failurePolicy={"rules": [{"name": "a", "action": "Ignore"}]}),
                   422, "Invalid", 'Unsupported value: "Ignore"', field="spec.failurePolicy.rules[0].action")


@pytest.mark.semantic("CRD CEL: startupPolicy InOrder and dependsOn are mutually exclusive",
                      source=f"{CRD} (x-kubernetes-validations on spec)")
def test_in_order_and_depends_on(target):
    manifest = jobset("v-cel", rjob("a"), rjob("b", dependsOn=[{"name": "a", "status": "Ready"}]),
                      startupPolicy={"startupPolicyOrder": "InOrder"})
    expect_refused(target, manifest, 422, "Invalid",
                   "StartupPolicy and DependsOn APIs are mutually exclusive", field="spec")


@pytest.mark.semantic("update: replicatedJobs are immutable while the JobSet runs; the failure policy "
                      "is immutable (CEL)", source=f"{WEBHOOK} ValidateUpdate; {CRD} (self == oldSelf)")
def test_immutable_updates(target):
    from conformance.errors import status_of

    target.apply(jobset("v-upd", failurePolicy={"maxRestarts": 1}))
    for patch, text in (({"spec": {"failurePolicy": {"maxRestarts": 2}}}, "Value is immutable"),
                        ({"spec": {"managedBy": "example.com/other"}}, "field is immutable")):
        try:
            target.patch("JobSet", "v-upd", patch)
        except Exception as err:
            status = status_of(err)
            assert status is not None and status["code"] == 422 and text in status["message"], status
        else:
            raise AssertionError(f"{patch} was accepted")
