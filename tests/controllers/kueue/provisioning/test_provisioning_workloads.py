"""Kueue's ProvisioningRequest check on Workloads, through the API: rows of kueue v0.19.2
``pkg/controller/admissionchecks/provisioning/controller_test.go`` ``TestReconcile`` that need a
Workload holding quota (here reserved by kbatch's Kueue scheduler), with the autoscaler's answers
written by hand."""

from __future__ import annotations

from kbatch.api.kueue_v1beta2 import ProvisioningRequestConfig, Workload

from ..helpers import workload
from .world import answer, check, prov_world, requests, submit, templates

PR1 = "wl-check1-1"
PT1 = "ppt-wl-check1-1-main"


def test_with_config_a_request_and_its_template_are_created_owned_and_labelled() -> None:
    w = prov_world(parameters={"p1": "v1"})
    w.apply(
        {
            **workload("wl", "lq", cpu="1", count=3),
            "metadata": {
                "name": "wl",
                "namespace": "default",
                "annotations": {"provreq.kueue.x-k8s.io/ValidUntilSeconds": "0", "other": "x"},
            },
        }
    )
    w.settle(rounds=2)
    prs, pts = requests(w), templates(w)
    assert list(prs) == [PR1] and list(pts) == [PT1]
    pr, pt, wl = prs[PR1], pts[PT1], w.wl("wl")
    assert pr.spec.provisioning_class_name == "check-capacity.autoscaling.x-k8s.io"
    assert pr.spec.parameters == {"p1": "v1", "ValidUntilSeconds": "0"}  # "workload with provreq annotation"
    assert [(ps.pod_template_ref.name, ps.count) for ps in pr.spec.pod_sets] == [(PT1, 3)]
    assert pr.metadata.labels == {"kueue.x-k8s.io/managed": "true"}
    ref = pr.metadata.controller_ref()
    assert (ref.kind, ref.name, ref.uid) == ("Workload", "wl", wl.metadata.uid)
    # the template passes from the Workload to the request
    assert pt.metadata.controller_ref().uid == pr.metadata.uid
    assert pt.template.spec.containers[0].resources.requests["cpu"] == "1"
    assert check(w).state == "Pending" and not w.admitted("wl")
    assert ("Normal", "ProvisioningRequestCreated", f'Created ProvisioningRequest: "{PR1}"') in w.events("wl")


def test_when_request_is_provisioned_the_check_is_ready_with_the_consume_annotations() -> None:
    w = prov_world()
    submit(w)
    answer(w, PR1, "Provisioned", message="Provisioned by the test")
    w.settle(rounds=2)
    c = check(w)
    assert (c.state, c.message) == ("Ready", "Provisioned by the test")
    assert [u.to_dict() for u in c.pod_set_updates] == [
        {
            "name": "main",
            "annotations": {
                "autoscaling.x-k8s.io/consume-provisioning-request": PR1,
                "autoscaling.x-k8s.io/provisioning-class-name": "check-capacity.autoscaling.x-k8s.io",
            },
        }
    ]
    assert w.admitted("wl")
    assert any(
        e[1] == "AdmissionCheckUpdated" and "updated state from Pending to Ready" in e[2]
        for e in w.events("wl")
    )


def test_node_selector_from_provisioning_class_details() -> None:
    """ "when request is provisioned and has NodeSelector specified via ProvisioningClassDetail" and
    the row with the detail missing (the key is skipped)."""
    w = prov_world(
        podSetUpdates={
            "nodeSelector": [
                {"key": "node-pool", "valueFromProvisioningClassDetail": "pool"},
                {"key": "missing", "valueFromProvisioningClassDetail": "absent"},
            ]
        }
    )
    submit(w)
    answer(w, PR1, "Provisioned", details={"pool": "pool-a"})
    w.settle(rounds=2)
    assert check(w).pod_set_updates[0].node_selector == {"node-pool": "pool-a"}


def test_accepted_carries_the_provisioned_message_and_no_conditions_clear_it() -> None:
    w = prov_world()
    submit(w)
    answer(w, PR1, "Provisioned", status="False", message="ETA: 5 min")
    assert check(w).message == ""  # not Accepted yet: Pending, no message
    answer(w, PR1, "Accepted")
    assert (check(w).state, check(w).message) == ("Pending", "ETA: 5 min")


def test_when_no_request_is_needed_the_check_is_ready_at_once() -> None:
    """ "when no request is needed": managedResources the workload does not use."""
    w = prov_world(managedResources=["example.com/gpu"])
    submit(w)
    assert (check(w).state, check(w).message) == ("Ready", "the provisioning request is not needed")
    assert requests(w) == {} and w.admitted("wl")


def test_a_managed_resource_in_a_limit_makes_a_request_needed() -> None:
    """ "when request is needed for one PodSet (resource limit)"."""
    w = prov_world(managedResources=["example.com/gpu"])
    wl = workload("wl", "lq")
    wl["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]["limits"] = {
        "example.com/gpu": "1"
    }
    w.apply(wl)
    w.settle(rounds=2)
    assert list(requests(w)) == [PR1] and check(w).state == "Pending"


def test_a_missing_config_leaves_the_check_pending_and_inactive() -> None:
    """ "missing config": the check is Pending with "the check is not active", no request."""
    w = prov_world(managedResources=["example.com/gpu"])  # Ready at once: no request needed
    submit(w)
    assert check(w).state == "Ready"
    w.cp.client.delete(ProvisioningRequestConfig, "config1")  # prcHandler: the Workloads of its checks
    w.cp.run_until_idle()
    assert (check(w).state, check(w).message) == ("Pending", "the check is not active")
    assert requests(w) == {}


def test_request_out_of_sync_with_the_config_is_replaced() -> None:
    """ "request out of sync": a config whose class changed makes the old request unused (deleted) and
    a new one is created under the same attempt."""
    w = prov_world()
    submit(w)
    old_uid = requests(w)[PR1].metadata.uid
    w.cp.client.patch(
        ProvisioningRequestConfig, "config1", {"spec": {"provisioningClassName": "other.class"}}
    )
    w.settle(rounds=2)
    prs = requests(w)
    assert list(prs) == [PR1] and prs[PR1].metadata.uid != old_uid
    assert prs[PR1].spec.provisioning_class_name == "other.class"


def test_requests_are_removed_when_the_workload_finishes() -> None:
    w = prov_world()
    submit(w)
    w.finish("wl")
    w.cp.run_until_idle()
    assert requests(w) == {}


def test_requests_are_removed_on_eviction_unless_the_gate_is_off() -> None:
    """ "request removed on workload evicted" and "request preserved on workload evicted when cleanup
    is disabled" (``CleanupProvisioningRequestsOnEviction``)."""
    for gate_on, kept in ((True, []), (False, [PR1])):
        w = prov_world(kueue_config={"featureGates": {"CleanupProvisioningRequestsOnEviction": gate_on}})
        submit(w)
        w.cp.client.patch_status(
            Workload,
            "wl",
            {
                "status": {
                    "conditions": [
                        *[c.to_dict() for c in w.wl("wl").status.conditions],
                        {
                            "type": "Evicted",
                            "status": "True",
                            "reason": "Preempted",
                            "message": "m",
                            "lastTransitionTime": w.cp.now().isoformat(),
                        },
                    ]
                }
            },
            "default",
        )
        w.cp.run_until_idle()
        assert list(requests(w)) == kept, gate_on


def test_capacity_revoked_rejects_an_unfinished_workload_and_deactivates_it() -> None:
    w = prov_world()
    submit(w)
    answer(w, PR1, "Provisioned")
    w.settle(rounds=2)
    answer(w, PR1, "CapacityRevoked", message="nodes gone")
    w.settle(rounds=2)
    assert (
        "Normal",
        "AdmissionCheckUpdated",
        "Admission check check1 updated state from Ready to Rejected with message: nodes gone",
    ) in w.events("wl")
    assert w.wl("wl").spec.active is False  # deactivated, and the check reset by the eviction
    assert (check(w).state, check(w).message) == (
        "Pending",
        "Reset to Pending after eviction. Previously: Rejected",
    )


def test_booking_expired_after_admission_does_nothing() -> None:
    w = prov_world()
    submit(w)
    answer(w, PR1, "Provisioned")
    w.settle(rounds=2)
    answer(w, PR1, "BookingExpired", message="expired")
    w.settle(rounds=2)
    assert check(w).state == "Ready" and w.admitted("wl")
    assert list(requests(w)) == [PR1]


def test_a_request_creation_error_is_reported_on_the_check_and_retried_with_back_off() -> None:
    """"when provisioning request creation error" / ``handleError``: a request of that name the
    Workload does not own already exists (and the cache sees it), so the create fails: a
    ``FailedCreate`` warning, the error as the check's message, and the reconcile's error retried
    with the controller's back-off."""
    from kbatch.api.autoscaling_x_v1 import ProvisioningRequest

    w = prov_world()
    foreign = {
        "apiVersion": "autoscaling.x-k8s.io/v1",
        "kind": "ProvisioningRequest",
        "metadata": {"name": PR1, "namespace": "default"},
        "spec": {
            "provisioningClassName": "other",
            "podSets": [{"podTemplateRef": {"name": "x"}, "count": 1}],
        },
    }
    w.cp.client.create(ProvisioningRequest.model_validate(foreign))
    (ctl,) = [c for c in w.cp.manager.controllers if c.name == "kueue-provisioning-workload"]
    submit(w)
    message = (
        f'Error creating ProvisioningRequest "{PR1}": '
        f'provisioningrequests.autoscaling.x-k8s.io "{PR1}" already exists'
    )
    c = check(w)
    assert (c.state, c.message) == ("Pending", message)
    assert ("Warning", "FailedCreate", message) in w.events("wl")
    assert ctl.errors >= 5  # retried at 5 ms, 10 ms, 20 ms, … within the 3 s submit() waits
