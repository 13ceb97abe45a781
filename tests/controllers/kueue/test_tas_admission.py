"""Topology-aware admission through Kueue's scheduler (kbatch.controllers.kueue.tas.cycle): which
flavors serve a pod set asking for TAS, the implied request of a TAS-only ClusterQueue, the TAS
usage of admitted workloads (the next cycle's and the same cycle's), the messages of a pod set that
cannot be placed, and the Job webhook's checks of the topology annotations.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/scheduler_tas_test.go`` (the cases below
follow its "workload required TAS gets scheduled", "workload without TopologyRequest in a TAS-only
ClusterQueue", "flavor does not support TAS", "insufficient topology capacity" cases),
``pkg/controller/jobframework/tas_validation.go``."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.batch_v1 import Job
from kbatch.api.errors import Forbidden
from kbatch.api.kueue_v1beta1.topology import slices_to_domains
from kbatch.sim.nodes import NodeTemplate, create_nodes
from tests.controllers.kueue.helpers import KUEUE, World, cluster_queue, local_queue, quota, workload

BLOCK, RACK, HOST = "cloud.com/topology-block", "cloud.com/topology-rack", "kubernetes.io/hostname"
TOPOLOGY = {"apiVersion": KUEUE, "kind": "Topology", "metadata": {"name": "default"},
            "spec": {"levels": [{"nodeLabel": BLOCK}, {"nodeLabel": RACK}, {"nodeLabel": HOST}]}}
TAS_FLAVOR = {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "tas"},
              "spec": {"nodeLabels": {"group": "tas"}, "topologyName": "default"}}
PLAIN_FLAVOR = {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "plain"}, "spec": {}}


def _world(*flavors: str, **kwargs: Any) -> World:
    w = World(TOPOLOGY, TAS_FLAVOR, PLAIN_FLAVOR, **kwargs)
    for b, r in (("b1", "r1"), ("b1", "r2")):
        create_nodes(w.cp, 2, NodeTemplate(cpu="2", labels={"group": "tas", BLOCK: b, RACK: f"{b}-{r}"}),
                     prefix=f"{b}-{r}-")
    w.apply(cluster_queue("cq", (["cpu"], [(f, [quota("cpu", "100")]) for f in flavors])),
            local_queue("lq", "cq"))
    return w


def _tas_workload(name: str, count: int, **request: Any) -> dict[str, Any]:
    wl = workload(name, "lq", count=count)
    if request:
        wl["spec"]["podSets"][0]["topologyRequest"] = request
    return wl


def _assignment(w: World, name: str) -> Any:
    adm = w.wl(name).status.admission  # type: ignore[union-attr]
    ta = adm.pod_set_assignments[0].topology_assignment if adm else None
    return ta.to_dict() if ta is not None else None


def _hosts(prefix: str, roots: list[str], count: int) -> dict[str, Any]:
    return {"levels": [HOST], "slices": [{
        "domainCount": len(roots), "podCounts": {"universal": count},
        "valuesPerLevel": [{"individual": {"prefix": prefix, "roots": roots}}]}]}


def test_a_workload_requiring_a_rack_gets_a_topology_assignment_in_one_rack() -> None:
    w = _world("tas")
    w.apply(_tas_workload("wl", 4, required=RACK))
    w.cp.run_until_idle()
    assert w.admitted("wl")
    assert _assignment(w, "wl") == _hosts("b1-r1-", ["0", "1"], 2)


def test_the_same_cycle_and_the_next_see_the_tas_usage_of_what_was_admitted() -> None:
    w = _world("tas")
    w.apply(_tas_workload("a", 4, required=RACK), _tas_workload("b", 4, required=RACK))
    w.cp.run_until_idle()
    assert w.admitted("a") and w.admitted("b")
    assert _assignment(w, "a") == _hosts("b1-r1-", ["0", "1"], 2)
    assert _assignment(w, "b") == _hosts("b1-r2-", ["0", "1"], 2)  # the other rack
    w.apply(_tas_workload("c", 1, required=HOST))
    w.cp.run_until_idle()
    reserved = w.cond("c", "QuotaReserved")
    assert reserved.status == "False"
    assert reserved.message == ('couldn\'t assign flavors to pod set main: topology "default" doesn\'t allow '
                                'to fit any of 1 pod(s). Total nodes: 4; excluded: resource "cpu": 4')


def test_a_node_joining_the_topology_retries_a_workload_no_domain_could_hold() -> None:
    w = _world("tas")
    w.apply(_tas_workload("wl", 5, required=RACK))
    w.cp.advance(30)  # past the retries of the Workload's own status writes
    assert not w.reserved("wl")
    create_nodes(w.cp, 1, NodeTemplate(cpu="2", labels={"group": "tas", BLOCK: "b1", RACK: "b1-r1"}),
                 prefix="b1-r1-late-")
    w.cp.advance(2)  # the batched requeue of inadmissible workloads (1 s)
    assert w.admitted("wl")
    assert _assignment(w, "wl") == {"levels": [HOST], "slices": [{
        "domainCount": 3, "podCounts": {"individual": [2, 2, 1]},
        "valuesPerLevel": [{"individual": {"prefix": "b1-r1-", "roots": ["0", "1", "late-0"]}}]}]}


def test_with_unadmitted_workloads_observability_the_reason_is_topology_placement_failed() -> None:
    """``markFlavorAttempt(..., NoFit, TopologyPlacementFailed)`` then ``resolveNoFitReason``."""
    w = _world("tas", feature_gates={"UnadmittedWorkloadsObservability": True})
    w.apply(_tas_workload("wl", 5, required=RACK))
    w.cp.run_until_idle()
    reserved = w.cond("wl", "QuotaReserved")
    assert (reserved.status, reserved.reason) == ("False", "TopologyPlacementFailed")
    plain = _world("tas")
    plain.apply(_tas_workload("wl", 5, required=RACK))
    plain.cp.run_until_idle()
    assert plain.cond("wl", "QuotaReserved").reason == "Pending"


def test_a_tas_only_cluster_queue_implies_an_unconstrained_request() -> None:
    w = _world("tas")
    w.apply(_tas_workload("wl", 3))
    w.cp.run_until_idle()
    assert w.admitted("wl")
    # LeastFreeCapacity at the lowest level: the hosts in order, filled
    assert _assignment(w, "wl") == {"levels": [HOST], "slices": [{
        "domainCount": 2, "podCounts": {"individual": [2, 1]},
        "valuesPerLevel": [{"individual": {"prefix": "b1-r1-", "roots": ["0", "1"]}}]}]}


def test_a_pod_set_not_asking_for_tas_skips_a_tas_flavor_of_a_mixed_queue() -> None:
    w = _world("tas", "plain")
    w.apply(_tas_workload("wl", 1))
    w.cp.run_until_idle()
    assert w.flavors("wl") == {"cpu": "plain"}
    assert _assignment(w, "wl") is None


def test_a_pod_set_asking_for_tas_is_not_served_by_a_flavor_without_topology() -> None:
    w = _world("plain")
    w.apply(_tas_workload("wl", 1, required=RACK))
    w.cp.run_until_idle()
    assert w.cond("wl", "QuotaReserved").message == (
        'couldn\'t assign flavors to pod set main: Flavor "plain" does not support TopologyAwareScheduling')


def test_a_level_the_topology_lacks_does_not_match_the_flavor() -> None:
    w = _world("tas")
    w.apply(_tas_workload("wl", 1, required="cloud.com/topology-zone"))
    w.cp.run_until_idle()
    assert w.cond("wl", "QuotaReserved").message == (
        'couldn\'t assign flavors to pod set main: Flavor "tas" does not contain the requested level')


def test_preferred_falls_back_to_the_block_and_fills_the_fewest_racks_and_hosts() -> None:
    w = _world("tas")
    w.apply(_tas_workload("wl", 6, preferred=RACK))
    w.cp.run_until_idle()
    assert w.admitted("wl")
    # no rack holds 6: the block does; one rack whole, then the best-fitting host of the other
    assert _assignment(w, "wl") == _hosts("b1-r", ["1-0", "1-1", "2-0"], 2)


def _job(annotations: dict[str, str]) -> Job:
    return Job.model_validate({
        "metadata": {"name": "j", "namespace": "default", "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
        "spec": {"template": {"metadata": {"annotations": annotations}, "spec": {
            "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}},
    })


@pytest.mark.parametrize(("annotations", "message"), [
    ({"kueue.x-k8s.io/podset-required-topology": RACK, "kueue.x-k8s.io/podset-preferred-topology": RACK},
     'spec.template.metadata.annotations: Invalid value: must not contain more than one topology annotation: '
     '["kueue.x-k8s.io/podset-required-topology", "kueue.x-k8s.io/podset-preferred-topology", '
     '"kueue.x-k8s.io/podset-unconstrained-topology"]'),
    ({"kueue.x-k8s.io/podset-required-topology": "not a label"},
     "spec.template.metadata.annotations[kueue.x-k8s.io/podset-required-topology]: "
     'Invalid value: "not a label"'),
    ({"kueue.x-k8s.io/podset-unconstrained-topology": "maybe"},
     'spec.template.metadata.annotations[kueue.x-k8s.io/podset-unconstrained-topology]: Invalid value: '
     '"maybe": must be a boolean value'),
])
def test_the_job_webhook_refuses_bad_topology_annotations(annotations: dict[str, str], message: str) -> None:
    w = _world("tas")
    with pytest.raises(Forbidden) as err:  # a webhook's denial
        w.cp.client.create(_job(annotations))
    assert message in str(err.value)
    assert w.cp.client.list(Job).items == []


def test_a_podset_group_places_its_leader_with_its_workers() -> None:
    """``FindTopologyAssignmentsForFlavor`` with ``podSetGroupName``: the leader (the pod set with
    fewer pods) is searched with the workers, in one domain of the required level. Rack b1-r1 has
    hosts of 2 CPUs, b2-r1 hosts of 3: searched alone the 2-CPU leader would take b1-r1 and push the
    four workers to b2-r1; together both go to b2-r1."""
    w = World(TOPOLOGY, TAS_FLAVOR)
    for b, cpu in (("b1", "2"), ("b2", "3")):
        create_nodes(w.cp, 2, NodeTemplate(cpu=cpu, labels={"group": "tas", BLOCK: b, RACK: f"{b}-r1"}),
                     prefix=f"{b}-r1-")
    w.apply(cluster_queue("cq", (["cpu"], [("tas", [quota("cpu", "100")])])), local_queue("lq", "cq"))
    leader = workload("wl", "lq", cpu="2", count=1)["spec"]["podSets"][0]
    wl = workload("wl", "lq", cpu="1", count=4)
    workers = wl["spec"]["podSets"][0]
    leader["name"], workers["name"] = "leader", "workers"
    for ps in (leader, workers):
        ps["topologyRequest"] = {"required": RACK, "podSetGroupName": "g"}
    wl["spec"]["podSets"] = [leader, workers]
    w.apply(wl)
    w.cp.run_until_idle()
    assert w.admitted("wl")
    adm = w.wl("wl").status.admission  # type: ignore[union-attr]
    hosts = {}
    for psa in adm.pod_set_assignments:  # type: ignore[union-attr]
        decoded = slices_to_domains(psa.topology_assignment.to_dict())
        hosts[psa.name] = {d["values"][0]: d["count"] for d in decoded["domains"]}
    assert sum(hosts["leader"].values()) == 1 and sum(hosts["workers"].values()) == 4
    assert {h.rsplit("-", 1)[0] for ps in hosts.values() for h in ps} == {"b2-r1"}


@pytest.mark.parametrize(("gate", "counts"), [(True, [3, 3]), (False, [4, 2])])
def test_balanced_placement_spreads_a_preferred_pod_set_evenly(gate: bool, counts: list[int]) -> None:
    """``TASBalancedPlacement`` (alpha, off): 6 pods preferring a rack of two 4-CPU hosts take 3 + 3
    with the gate, 4 + 2 (BestFit) without (``tas_balanced_placement.go``)."""
    w = World(TOPOLOGY, TAS_FLAVOR, feature_gates={"TASBalancedPlacement": gate})
    for r in ("r1", "r2"):
        create_nodes(w.cp, 2, NodeTemplate(cpu="4", labels={"group": "tas", BLOCK: "b1", RACK: f"b1-{r}"}),
                     prefix=f"b1-{r}-")
    w.apply(cluster_queue("cq", (["cpu"], [("tas", [quota("cpu", "100")])])), local_queue("lq", "cq"))
    w.apply(_tas_workload("wl", 6, preferred=RACK))
    w.cp.run_until_idle()
    assert w.admitted("wl")
    domains = slices_to_domains(_assignment(w, "wl"))["domains"]
    assert [d["values"][0] for d in domains] == ["b1-r1-0", "b1-r1-1"]
    assert [d["count"] for d in domains] == counts
