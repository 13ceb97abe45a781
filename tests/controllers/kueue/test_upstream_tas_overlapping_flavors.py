"""TAS flavors that select the same nodes (``TASHandleOverlappingFlavors``, beta, on; kueue#10659).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/cache/scheduler/snapshot.go`` (``Cache.Snapshot``,
``snapshotTopologyDomainUsages``), ``tas_flavor.go`` (``snapshot``: the aggregated usage for a flavor
whose lowest level is the hostname), ``tas_flavor_snapshot.go`` (``addTASUsageForHeldDomains``,
``FindTopologyAssignmentsForFlavor``'s assumed usage) and ``clusterqueue_snapshot.go``
(``FindTopologyAssignmentsForWorkload``). The snapshot rows translate ``snapshot_test.go``'s three
``TASHandleOverlappingFlavors`` cases ("overlapping flavors selecting disjoint nodes take only their
own usage", "… differing only in taints share the usage of their node (#10659)", "overlapping
flavor that moved to other nodes still counts on the node holding its usage"); the admission tests
run them through Kueue's scheduler, with the gate on and off.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.kueue_v1beta1.topology import slices_to_domains
from kbatch.api.kueue_v1beta2 import ResourceFlavor
from kbatch.controllers.kueue.tas.cycle import TASCycle
from kbatch.sim.nodes import NodeTemplate, create_nodes
from tests.controllers.kueue.helpers import KUEUE, World, cluster_queue, flavor, local_queue, quota, workload

HOST = "kubernetes.io/hostname"
ONE_LEVEL = {"apiVersion": KUEUE, "kind": "Topology", "metadata": {"name": "topology"},
             "spec": {"levels": [{"nodeLabel": HOST}]}}
TAINT = {"key": "dedicated", "value": "special", "effect": "NoSchedule"}
TOLERATE = [{"key": "dedicated", "operator": "Equal", "value": "special", "effect": "NoSchedule"}]
GATE = "TASHandleOverlappingFlavors"


def _tas_flavor(name: str, zone: str, taints: list[dict[str, str]] | None = None) -> dict[str, Any]:
    rf = flavor(name, {"zone": zone}, taints=taints)
    rf["spec"]["topologyName"] = "topology"
    return rf


def _world(gate: bool, flavors: list[dict[str, Any]], zones: dict[str, str]) -> World:
    """Nodes (name -> zone, 2 cpus, 10 pods each), one ClusterQueue and LocalQueue per flavor."""
    w = World(ONE_LEVEL, *flavors, feature_gates={GATE: gate})
    for name, zone in zones.items():
        create_nodes(w.cp, 1, NodeTemplate(cpu="2", labels={"zone": zone}), prefix=f"{name}-")
    for rf in flavors:
        name = rf["metadata"]["name"]
        w.apply(cluster_queue(f"cq-{name}", (["cpu"], [(name, [quota("cpu", "100")])])),
                local_queue(f"lq-{name}", f"cq-{name}"))
    return w


def _usage(
    w: World, gate: bool, relabelled: dict[str, ResourceFlavor] | None = None
) -> dict[str, dict[str, dict[str, int]]]:
    """Each TAS flavor's snapshot usage, per hostname, as the next cycle builds it."""
    mgr = w.cp.manager.get("kueue-workload").reconciler.mgr
    flavors = {f.metadata.name: f for f in mgr.ctx.cache.list(ResourceFlavor)} | (relabelled or {})
    admitted = [info.obj for cq in mgr.cache.cluster_queues.values() for info in cq.workloads.values()]
    cycle = TASCycle(mgr.ctx.cache, flavors, lambda: admitted, overlapping=gate)
    out = {}
    for name in sorted(flavors):
        snap = cycle.snapshot(name)
        out[name] = {leaf[-1]: dict(u) for leaf, u in snap.usage.items() if any(u.values())}
    return out


def _one_pod(name: str, queue: str, tolerate: bool = False) -> dict[str, Any]:
    return workload(name, queue, cpu="1", tolerations=TOLERATE if tolerate else None)


ONE_POD = {"cpu": 1000, "pods": 1}
TWO_PODS = {"cpu": 2000, "pods": 2}


@pytest.mark.parametrize("gate", [True, False])
def test_flavors_selecting_disjoint_nodes_take_only_their_own_usage(gate: bool) -> None:
    w = _world(gate, [_tas_flavor("tas-zone-a", "a"), _tas_flavor("tas-zone-b", "b")], {"x1": "a", "x2": "b"})
    w.apply(_one_pod("wa", "lq-tas-zone-a"), _one_pod("wb", "lq-tas-zone-b"))
    w.cp.run_until_idle()
    assert w.admitted("wa") and w.admitted("wb")
    assert _usage(w, gate) == {"tas-zone-a": {"x1-0": ONE_POD}, "tas-zone-b": {"x2-0": ONE_POD}}


@pytest.mark.parametrize("gate", [True, False])
def test_flavors_differing_only_in_taints_share_the_usage_of_their_node(gate: bool) -> None:
    """Both flavors select x1 (2 cpus): with the gate each sees both workloads' usage, and a third
    1-cpu workload no longer fits; without it each counts only its own and x1 is booked thrice."""
    flavors = [_tas_flavor("tas-shared", "a"), _tas_flavor("tas-dedicated", "a", [TAINT])]
    w = _world(gate, flavors, {"x1": "a"})
    w.apply(_one_pod("shared", "lq-tas-shared"), _one_pod("dedicated", "lq-tas-dedicated", tolerate=True))
    w.cp.run_until_idle()
    assert w.admitted("shared") and w.admitted("dedicated")
    own = {"tas-dedicated": {"x1-0": ONE_POD}, "tas-shared": {"x1-0": ONE_POD}}
    both = {"tas-dedicated": {"x1-0": TWO_PODS}, "tas-shared": {"x1-0": TWO_PODS}}
    assert _usage(w, gate) == (both if gate else own)

    w.apply(_one_pod("third", "lq-tas-shared"))
    w.cp.run_until_idle()
    assert w.admitted("third") is not gate
    if gate:
        assert w.cond("third", "QuotaReserved").message == (
            'couldn\'t assign flavors to pod set main: topology "topology" doesn\'t allow to fit any of '
            '1 pod(s). Total nodes: 1; excluded: resource "cpu": 1')


def test_a_flavor_that_moved_to_other_nodes_still_counts_on_the_node_holding_its_usage() -> None:
    """tas-moved's workload runs on x1; with the flavor relabelled to zone b (as the upstream row
    relabels it in the cache: ``nodeLabels`` are immutable beside a topology here) it holds no node,
    but tas-stay, which still selects x1, counts that usage."""
    flavors = [_tas_flavor("tas-stay", "a"), _tas_flavor("tas-moved", "a")]
    w = _world(True, flavors, {"x1": "a"})
    w.apply(_one_pod("stay", "lq-tas-stay"), _one_pod("moved", "lq-tas-moved"))
    w.cp.run_until_idle()
    assert w.admitted("stay") and w.admitted("moved")
    moved = ResourceFlavor.model_validate(_tas_flavor("tas-moved", "b"))
    assert _usage(w, True, {"tas-moved": moved}) == {"tas-moved": {}, "tas-stay": {"x1-0": TWO_PODS}}


@pytest.mark.parametrize("gate", [True, False])
def test_a_workloads_pod_sets_on_two_flavors_of_one_node_see_each_other(gate: bool) -> None:
    """``FindTopologyAssignmentsForWorkload``: the aggregated map is the assumed usage of every
    hostname-leaf flavor, so a pod set on one flavor sees what an earlier pod set took on the other.
    x1 holds 2 cpus; two pod sets of 1 and 2 pods, on two flavors selecting x1."""
    flavors = [_tas_flavor("tas-one", "a"), _tas_flavor("tas-two", "a", [TAINT])]
    w = _world(gate, flavors, {"x1": "a"})
    groups = (["cpu"], [("tas-one", [quota("cpu", "1")]), ("tas-two", [quota("cpu", "100")])])
    w.apply(cluster_queue("cq-both", groups), local_queue("lq-both", "cq-both"))
    wl = workload("pair", "lq-both", cpu="1", tolerations=TOLERATE)
    first = wl["spec"]["podSets"][0]
    wl["spec"]["podSets"] = [{**first, "name": "a", "count": 1}, {**first, "name": "b", "count": 2}]
    w.apply(wl)
    w.cp.run_until_idle()
    adm = w.wl("pair").status.admission
    if not gate:  # each flavor sees x1 free: 3 pods of 1 cpu on a 2-cpu node
        assert adm is not None
        got = [dict(p.flavors or {}) for p in adm.pod_set_assignments]
        assert got == [{"cpu": "tas-one"}, {"cpu": "tas-two"}]
        return
    assert adm is None
    assert w.cond("pair", "QuotaReserved").message == (
        'couldn\'t assign flavors to pod set b: topology "topology" allows to fit only 1 out of 2 pod(s)')


@pytest.mark.parametrize("gate", [True, False])
def test_a_flavor_without_hostname_leaves_keeps_its_own_usage(gate: bool) -> None:
    """``tas_cache_test.go`` "non-hostname-leaf topology: prior c.usage must be applied even when
    aggregatedDomainUsages is non-nil empty": a block/rack topology takes no part in the sharing,
    and its own usage still counts: b1's two 1-cpu racks are taken, the third pod lands in b2."""
    block, rack = "cloud.com/topology-block", "cloud.com/topology-rack"
    topology = {"apiVersion": KUEUE, "kind": "Topology", "metadata": {"name": "racks"},
                "spec": {"levels": [{"nodeLabel": block}, {"nodeLabel": rack}]}}
    rf = flavor("tas-racks", {"pool": "racks"})
    rf["spec"]["topologyName"] = "racks"
    w = World(topology, rf, feature_gates={GATE: gate})
    for b, r in (("b1", "r1"), ("b1", "r2"), ("b2", "r1"), ("b2", "r2")):
        labels = {"pool": "racks", block: b, rack: r}
        create_nodes(w.cp, 1, NodeTemplate(cpu="1", labels=labels), prefix=f"{b}-{r}-")
    w.apply(cluster_queue("cq", (["cpu"], [("tas-racks", [quota("cpu", "100")])])), local_queue("lq", "cq"))
    for i in range(3):
        wl = workload(f"w{i}", "lq", cpu="1")
        wl["spec"]["podSets"][0]["topologyRequest"] = {"required": rack}
        w.apply(wl)
        w.cp.run_until_idle()
    adm = w.wl("w2").status.admission
    assert adm is not None
    ta = adm.pod_set_assignments[0].topology_assignment
    assert ta is not None
    assert slices_to_domains(ta.to_dict())["domains"] == [{"values": ["b2", "r1"], "count": 1}]
