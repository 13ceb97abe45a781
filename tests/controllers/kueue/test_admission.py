"""Admission of Workloads through LocalQueue -> ClusterQueue quota: the conditions, the queues'
status, finishing frees quota, requeue on a quota change, missing queues.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/scheduler_test.go`` (admission, messages),
``pkg/workload/admissionchecks.go``/``workload.go`` (``SyncAdmittedCondition``, the condition
reasons), ``pkg/controller/core/clusterqueue_controller.go`` (status counts and usage),
``test/integration/singlecluster/scheduler`` (finish frees quota; requeue after a quota change).
"""

from __future__ import annotations

import json

from kbatch.apiserver.client_apply import LAST_APPLIED
from kbatch.controllers.kueue.manager import UPDATES_BATCH_PERIOD

from .helpers import World, cluster_queue, flavor, local_queue, quota, workload


def _world(nominal: str = "4", **spec) -> World:
    return World(flavor("default"),
                 cluster_queue("cq", (["cpu"], [("default", [quota("cpu", nominal)])]), **spec),
                 local_queue("lq", "cq"))


def test_workload_is_admitted_within_quota_and_the_next_waits_with_upstreams_message() -> None:
    w = _world()
    w.apply(workload("a", "lq", cpu="3"), workload("b", "lq", cpu="2"))
    w.cp.run_until_idle()

    reserved, admitted = w.cond("a", "QuotaReserved"), w.cond("a", "Admitted")
    assert (reserved.status, reserved.reason, reserved.message) == (
        "True", "QuotaReserved", "Quota reserved in ClusterQueue cq")
    assert (admitted.status, admitted.reason) == ("True", "Admitted")
    assert w.wl("a").status.admission.cluster_queue == "cq"
    assert w.flavors("a") == {"cpu": "default"}
    assert str(w.wl("a").status.admission.pod_set_assignments[0].resource_usage["cpu"]) == "3"

    pending = w.cond("b", "QuotaReserved")
    assert (pending.status, pending.reason) == ("False", "Pending")
    assert pending.message == ("couldn't assign flavors to pod set main: insufficient unused quota for cpu "
                               "in flavor default, 1 more needed")
    assert w.cond("b", "Admitted") is None  # UnadmittedWorkloadsObservability is off in v0.19.2
    assert w.wl("b").status.admission is None


def test_queue_status_counts_and_usage() -> None:
    w = _world()
    w.apply(workload("a", "lq", cpu="3"), workload("b", "lq", cpu="2"))
    w.cp.run_until_idle()
    assert w.cq("cq").status.pending_workloads in (None, 0)  # written a batch period later, as upstream
    w.cp.advance(UPDATES_BATCH_PERIOD)
    cq, lq = w.cq("cq").status, w.lq("lq").status
    assert (cq.pending_workloads, cq.reserving_workloads, cq.admitted_workloads) == (1, 1, 1)
    assert (lq.pending_workloads, lq.reserving_workloads, lq.admitted_workloads) == (1, 1, 1)
    usage = cq.flavors_usage[0]
    assert (usage.name, usage.resources[0].name, str(usage.resources[0].total)) == ("default", "cpu", "3")
    assert [(c.type, c.status, c.reason) for c in cq.conditions] == [("Active", "True", "Ready")]
    assert str(lq.flavors_usage[0].resources[0].total) == "3"


def test_finishing_a_workload_frees_its_quota_for_the_next() -> None:
    w = _world()
    w.apply(workload("a", "lq", cpu="3"), workload("b", "lq", cpu="2"))
    w.cp.run_until_idle()
    w.finish("a")
    w.cp.advance(2)  # the inadmissible workloads come back after the requeue batch period
    assert w.admitted("b")
    assert w.usage() == {"cq": 2000}
    status = w.cq("cq").status
    assert (status.pending_workloads, status.admitted_workloads) == (0, 1)
    assert str(status.flavors_usage[0].resources[0].total) == "2"


def test_raising_the_quota_requeues_inadmissible_workloads() -> None:
    w = _world(nominal="2")
    w.apply(workload("big", "lq", cpu="3"))
    w.cp.run_until_idle()
    assert not w.reserved("big")
    w.apply(cluster_queue("cq", (["cpu"], [("default", [quota("cpu", "3")])])))
    w.cp.advance(2)
    assert w.admitted("big")


def test_a_workload_larger_than_the_quota_never_fits() -> None:
    w = _world(nominal="2")
    w.apply(workload("huge", "lq", cpu="5"))
    w.cp.advance(5)
    cond = w.cond("huge", "QuotaReserved")
    assert (cond.status, cond.reason) == ("False", "Pending")
    assert "insufficient quota for cpu in flavor default" in cond.message


def test_a_workload_in_a_missing_local_queue_is_inadmissible() -> None:
    w = _world()
    w.apply(workload("lost", "nowhere"))
    w.cp.advance(2)
    cond = w.cond("lost", "QuotaReserved")
    assert (cond.status, cond.reason) == ("False", "Inadmissible")
    assert "nowhere" in cond.message
    w.apply(local_queue("nowhere", "cq"))
    w.cp.advance(2)
    assert w.admitted("lost")


def test_stop_policy_hold_keeps_admitting_nothing_new() -> None:
    w = _world(stopPolicy="Hold")
    w.apply(workload("a", "lq"))
    w.cp.advance(2)
    assert not w.reserved("a")
    active = next(c for c in w.cq("cq").status.conditions if c.type == "Active")
    assert (active.status, active.reason) == ("False", "Stopped")
    w.apply(cluster_queue("cq", (["cpu"], [("default", [quota("cpu", "4")])])))
    w.cp.advance(2)
    assert w.admitted("a")


def test_a_v1beta1_manifest_is_converted_to_the_stored_version() -> None:
    w = World(flavor("default"))
    v1 = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue", "metadata": {"name": "cq"},
          "spec": {"cohort": "team", "namespaceSelector": {}, "resourceGroups": [
              {"coveredResources": ["cpu"], "flavors": [{"name": "default", "resources": [
                  {"name": "cpu", "nominalQuota": "2"}]}]}]}}
    w.apply(v1)
    cq = w.cq("cq")
    assert (cq.api_version, cq.spec.cohort_name) == ("kueue.x-k8s.io/v1beta2", "team")
    w.apply(v1)  # re-applying the same manifest changes nothing
    assert w.cq("cq").metadata.generation == 1


def test_a_v1beta1_manifest_is_applied_in_its_own_version() -> None:
    """As kubectl applies against the v1beta1 endpoint: the last-applied annotation holds the v1beta1
    manifest, and the next apply's three-way diff is taken there, so a field removed from the
    manifest (``cohort``, v1beta2's ``cohortName``) is removed from the object."""
    w = World(flavor("default"))
    groups = [{"coveredResources": ["cpu"], "flavors": [{"name": "default", "resources": [
        {"name": "cpu", "nominalQuota": "2"}]}]}]
    v1 = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue", "metadata": {"name": "cq"},
          "spec": {"cohort": "team", "namespaceSelector": {}, "resourceGroups": groups}}
    w.apply(v1)
    recorded = json.loads((w.cq("cq").metadata.annotations or {})[LAST_APPLIED])
    assert recorded["apiVersion"] == "kueue.x-k8s.io/v1beta1" and recorded["spec"]["cohort"] == "team"
    w.apply({**v1, "spec": {"namespaceSelector": {}, "resourceGroups": groups}})
    cq = w.cq("cq")
    assert cq.spec.cohort_name is None and cq.metadata.generation == 2
