"""Admission fair sharing and the TAS second pass: the second pass does not push the entry penalty
again for a Workload that already holds quota.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/scheduler_afs_secondpass_test.go``
(``TestSecondPassDoesNotRepushEntryPenalty``) against ``shouldApplyEntryPenalty`` in
``pkg/scheduler/scheduler.go``. Upstream starts from the mid-second-pass state (quota reserved, the
ProvisioningRequest check Ready, the delayed topology request Pending) and runs one scheduling
cycle; here the whole control plane reaches that state (the ProvisioningRequest answered by hand)
and the ledger's penalty pushes are counted. kbatch's second pass (``Scheduler._second_pass``)
writes the topology without the assume that pushes penalties, and its ledger keeps one record per
Workload (a second push would not show in the pending penalty once settled): the pushes are
counted, so a second pass that went through the assume would fail here.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.autoscaling_x_v1 import ProvisioningRequest

from ..helpers import World, cluster_queue, local_queue, quota, workload
from .test_tas_provisioning import HOST, TAS_FLAVOR, TOPOLOGY, _node
from .world import admission_check, answer, check, config

AFS = {
    "apiVersion": "config.kueue.x-k8s.io/v1beta2",
    "kind": "Configuration",
    "admissionFairSharing": {"usageHalfLifeTime": "10s", "usageSamplingInterval": "1s"},
}


def _mgr(w: World) -> Any:
    (controller,) = [c for c in w.cp.manager.controllers if c.name == "kueue-scheduler"]
    return controller.reconciler.mgr


def test_the_second_pass_does_not_repush_the_entry_penalty() -> None:
    checks = {"admissionChecks": [{"name": "provisioning"}]}
    w = World(
        TOPOLOGY, TAS_FLAVOR, admission_check("provisioning", "prov-config"), config("prov-config"),
        cluster_queue("cq", (["cpu"], [("tas-flavor", [quota("cpu", "5")])]), admissionChecksStrategy=checks,
                      admissionScope={"admissionMode": "UsageBasedAdmissionFairSharing"}),
        local_queue("lq", "cq", fairSharing={"weight": "1"}),
        kueue_config=AFS,
    )
    _node(w, "x1", "r1")
    ledger = _mgr(w).queues.afs_ledger
    pushes: list[str] = []
    push = ledger.push_penalty

    def counted(lq: str, wl: str, penalty: Any, now: Any) -> None:
        pushes.append(wl)
        push(lq, wl, penalty, now)

    ledger.push_penalty = counted
    wl = workload("wl1", "lq", cpu="1")
    wl["spec"]["podSets"][0]["topologyRequest"] = {"required": HOST}
    w.apply(wl)
    w.settle(rounds=2)
    psa = w.wl("wl1").status.admission.pod_set_assignments[0]
    assert (psa.delayed_topology_request, w.reserved("wl1"), w.admitted("wl1")) == ("Pending", True, False)
    assert pushes == ["default/wl1"] and ledger.has_pending_penalty("default/lq")
    (request,) = [r.metadata.name for r in w.cp.client.list(ProvisioningRequest, "default").items]
    answer(w, request, "Provisioned", reason="Provisioned", message="")
    w.settle(rounds=4)
    assert check(w, "wl1", "provisioning").state == "Ready"
    psa = w.wl("wl1").status.admission.pod_set_assignments[0]
    assert (psa.delayed_topology_request, w.admitted("wl1")) == ("Ready", True)  # the second pass ran
    assert pushes == ["default/wl1"]
    assert not ledger.has_pending_penalty("default/lq")
