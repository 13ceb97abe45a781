"""The workload-slice cases of upstream's flavor-assigner table.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/flavorassigner/flavorassigner_test.go``
``TestAssignFlavors`` "workload slice preemption fits in the original workload resource flavor" and
"... does not fit in the original workload resource flavor": a replacement slice keeps its
predecessor's flavor for each resource and asks the quota for the delta only (3 cpu against the old
slice's 2: 1 cpu, and no memory). The attempts' reasons are not compared (upstream's expected
attempts list each reason once where its status lists it per resource).
"""

from __future__ import annotations

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.model.info import WorkloadInfo

from .upstream_tables import assign_flavors, cq, pod_set, r


def _old(flavor: str) -> WorkloadInfo:
    """The replaced slice: 2 cpu and 10Mi admitted in ``flavor`` (``TotalRequests`` of its admission)."""
    admission = {"clusterQueue": "test-clusterqueue", "podSetAssignments": [{
        "name": "main", "count": 1, "flavors": {"cpu": flavor, "memory": flavor},
        "resourceUsage": {"cpu": "2", "memory": "10Mi"}}]}
    wl = Workload.model_validate({"metadata": {"name": "old", "namespace": "default"},
                                  "spec": {"podSets": [pod_set("main", 1, {"cpu": "2", "memory": "10Mi"})]},
                                  "status": {"admission": admission}})
    return WorkloadInfo.of(wl)


def _queue(one_cpu: str) -> dict:
    return cq("test-clusterqueue", [("one", [r("cpu", one_cpu), r("memory", "1Gi")]),
                                    ("two", [r("cpu", "4"), r("memory", "2Gi")])])


PODS = [pod_set("main", 1, {"cpu": "3", "memory": "10Mi"})]


def test_workload_slice_preemption_fits_in_the_original_workload_resource_flavor() -> None:
    got = assign_flavors(PODS, _queue("3"), replace=_old("two"))
    assert got.mode == "Fit"
    assert got.pod_sets == [("main", {"cpu": ("two", "Fit", -1), "memory": ("two", "Fit", -1)}, "")]
    assert got.usage == {("two", "cpu"): 1000, ("two", "memory"): 0}


def test_workload_slice_preemption_does_not_fit_in_the_original_workload_resource_flavor() -> None:
    got = assign_flavors(PODS, _queue("500m"), replace=_old("one"))
    assert got.mode == "NoFit"
    (name, flavors, message), = got.pod_sets
    assert (name, flavors) == ("main", {})
    mismatch = "could not assign two flavor since the original workload is assigned: one"
    exceeds = ("insufficient quota for cpu in flavor one, previously considered podsets requests (0) + "
               "current podset request (1) > maximum capacity (500m)")
    assert message == ", ".join(sorted([exceeds, mismatch, mismatch]))  # one mismatch per resource
    assert got.usage == {}
