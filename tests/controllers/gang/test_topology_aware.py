"""Topology-aware workload scheduling (KEP-5732, gate ``TopologyAwareWorkloadScheduling``, alpha in
1.37): a PodGroup's ``schedulingConstraints.topology`` keeps it within one domain of a node label.

Cases after the KEP's "Story 1" (a training job in one rack), its integration-test list
(``test/integration/scheduler/podgroup/topology_aware_scheduling/tas_test.go``: fits / pending,
scoring, consecutive groups, minCount below the pod count) and the plugins' unit tables
(``topology_placement_test.go``, ``podgroup_pods_count_test.go``), plus a hypothesis property."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gang.builders import bound, gpu_cluster, gpu_pod, native_group, node_of, scheduled_message
from kbatch.api.errors import Invalid
from kbatch.api.scheduling_v1beta1 import PodGroup
from kbatch.controllers.scheduler.group_placements import (
    Placement,
    generate_placements,
    pods_count_scores,
)
from kbatch.controllers.scheduler.snapshot import Snapshot
from kbatch.controllers.scheduler.types import NodeShape
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import NodeTemplate, create_nodes

TAS = "GenericWorkload=true,TopologyAwareWorkloadScheduling=true"
RACK = "topology.kubernetes.io/rack"


def racks(cp: ControlPlane, sizes: dict[str, int], gpus: int = 8) -> None:
    for rack, count in sizes.items():
        create_nodes(cp, count, NodeTemplate(gpus=gpus, labels={RACK: rack}), prefix=f"{rack}-")


def constrained(name: str, min_count: int | None, key: str = RACK) -> dict[str, Any]:
    doc = native_group(name, min_count)
    doc["spec"]["schedulingConstraints"] = {"topology": [{"key": key}]}
    return doc


def causes(err: Invalid) -> list[tuple[str, str]]:
    """(reason, field) of each cause: upstream's (type, field)."""
    return [(c["reason"], c["field"]) for c in err.status.to_dict()["details"]["causes"]]


def rack_of(node: str | None) -> str | None:
    return node.rsplit("-", 1)[0] if node else None


def condition(cp: ControlPlane, name: str) -> tuple[str, str, str | None] | None:
    pg = cp.client.get(PodGroup, name, "default")
    for c in (pg.status.conditions if pg.status else None) or ():
        if c.type == "PodGroupInitiallyScheduled":
            return (c.status, c.reason or "", c.message)
    return None


# -- the API --------------------------------------------------------------------------------------

def test_with_the_gate_off_the_constraint_is_dropped_and_the_group_spans_racks() -> None:
    cp = gpu_cluster(0, gates="GenericWorkload=true")
    racks(cp, {"r1": 2, "r2": 2})
    cp.apply(constrained("pg", 4))
    assert cp.client.get(PodGroup, "pg", "default").spec.scheduling_constraints is None
    cp.apply([gpu_pod(f"w{i}", group="pg") for i in range(4)])
    assert {rack_of(node_of(cp, f"w{i}")) for i in range(4)} == {"r1", "r2"}


def test_with_the_gate_on_the_constraint_is_served_and_immutable() -> None:
    cp = gpu_cluster(0, gates=TAS, controllers="")
    cp.apply(constrained("pg", 2))
    got = cp.client.get(PodGroup, "pg", "default")
    assert got.spec.scheduling_constraints is not None
    assert got.spec.scheduling_constraints.to_dict() == {"topology": [{"key": RACK}]}
    with pytest.raises(Invalid) as info:
        cp.client.patch(PodGroup, "pg", {"spec": {"schedulingConstraints": {"topology": [{"key": "zone"}]}}},
                        "default")
    assert causes(info.value) == [("FieldValueInvalid", "spec.schedulingConstraints")]
    assert info.value.message.endswith("field is immutable")


@pytest.mark.parametrize(("topology", "want", "detail"), [
    ([{"key": "a"}, {"key": "b"}], [("FieldValueTooMany", "spec.schedulingConstraints.topology")],
     "must have at most 1 item"),
    ([{"key": ""}], [("FieldValueRequired", "spec.schedulingConstraints.topology[0].key")], "Required value"),
    ([{"key": "bad key"}], [("FieldValueInvalid", "spec.schedulingConstraints.topology[0].key")],
     "name part must consist of alphanumeric characters"),
    ([{"key": "example.com/rack"}], [], ""),
    # pkg/registry/scheduling/podgroup/strategy_test.go testDeclarativeValidate's TAS rows
    ([], [], ""),  # "valid with empty schedulingConstraints"
    ([{"key": "example.com/Foo"}], [], ""),
    ([{"key": "a" * 253 + "/" + "b" * 63}], [], ""),
    ([{"key": "a" * 254 + "/foo"}], [("FieldValueInvalid", "spec.schedulingConstraints.topology[0].key")],
     "prefix part must be no more than 253 bytes"),
    ([{"key": "foo/" + "b" * 64}], [("FieldValueInvalid", "spec.schedulingConstraints.topology[0].key")],
     "name part must be no more than 63 bytes"),
    ([{"key": "b" * 64}], [("FieldValueInvalid", "spec.schedulingConstraints.topology[0].key")],
     "name part must be no more than 63 bytes"),
    ([{"key": "Example.com/Foo"}], [("FieldValueInvalid", "spec.schedulingConstraints.topology[0].key")],
     "prefix part a lowercase RFC 1123 subdomain"),
])
def test_validation_of_the_topology_constraint(topology: list[dict[str, str]], want: list[tuple[str, str]],
                                               detail: str) -> None:
    cp = gpu_cluster(0, gates=TAS, controllers="")
    doc = native_group("pg", 2)
    doc["spec"]["schedulingConstraints"] = {"topology": topology}
    if not want:
        cp.apply(doc)
        return
    with pytest.raises(Invalid) as info:
        cp.apply(doc)
    assert causes(info.value) == want and detail in info.value.message


def test_a_workload_template_carries_the_constraint_too() -> None:
    cp = gpu_cluster(0, gates=TAS, controllers="")
    cp.apply({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload", "metadata": {"name": "w"},
              "spec": {"podGroupTemplates": [{"name": "t", "schedulingPolicy": {"gang": {"minCount": 2}},
                                              "schedulingConstraints": {"topology": [{"key": RACK}]}}]}})
    from kbatch.api.scheduling_v1beta1 import Workload

    template = cp.client.get(Workload, "w", "default").spec.pod_group_templates[0]  # type: ignore[index]
    assert template.scheduling_constraints is not None


# -- the cycle ------------------------------------------------------------------------------------

def test_a_gang_that_fits_in_one_rack_only_lands_there() -> None:
    """The KEP's story: a group of 4 eight-GPU pods, racks of 2 and 4 nodes."""
    cp = gpu_cluster(0, gates=TAS)
    racks(cp, {"r1": 2, "r2": 4})
    cp.apply(constrained("train", 4))
    cp.apply([gpu_pod(f"w{i}", group="train") for i in range(4)])
    assert {rack_of(node_of(cp, f"w{i}")) for i in range(4)} == {"r2"}
    assert condition(cp, "train") == ("True", "Scheduled", "")


def test_no_rack_fits_the_group_stays_pending_with_upstreams_message() -> None:
    cp = gpu_cluster(0, gates=TAS)
    racks(cp, {"r1": 2, "r2": 2})
    cp.apply(constrained("train", 3))
    cp.apply([gpu_pod(f"w{i}", group="train") for i in range(3)])
    assert bound(cp, [f"w{i}" for i in range(3)]) == []
    why = ("0/2 placements are available, first placement status: "
           "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining")
    assert condition(cp, "train") == ("False", "Unschedulable", f"pod group is unschedulable, {why}")
    messages = sorted(scheduled_message(cp, f"w{i}")[1] or "" for i in range(3))
    assert messages[0] == "0/2 nodes are available: 2 Insufficient nvidia.com/gpu."  # the placement's nodes
    # a node in a third rack lets it through, all in that rack
    create_nodes(cp, 3, NodeTemplate(gpus=8, labels={RACK: "r3"}), prefix="r3-")
    cp.advance(20)
    assert {rack_of(node_of(cp, f"w{i}")) for i in range(3)} == {"r3"}


def test_nodes_without_the_label_are_in_no_placement() -> None:
    cp = gpu_cluster(4, gates=TAS)  # node-0..3: no rack label
    cp.apply(constrained("train", 2))
    cp.apply([gpu_pod(f"w{i}", group="train") for i in range(2)])
    assert bound(cp, ["w0", "w1"]) == []
    assert condition(cp, "train") == (
        "False", "Unschedulable", f"pod group is unschedulable, no nodes found with topology label '{RACK}'")


def test_the_tighter_rack_wins_when_both_fit() -> None:
    """PlacementBinPacking: the rack left fuller after placing (the smaller one) scores higher."""
    cp = gpu_cluster(0, gates=TAS)
    racks(cp, {"big": 4, "small": 2})
    cp.apply(constrained("train", 2))
    pods = [gpu_pod(f"w{i}", group="train") for i in range(2)]
    for doc in pods:  # 4 of a node's 8 CPUs each: the racks' CPU use then differs by whole points
        doc["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "4"
    cp.apply(pods)
    assert {rack_of(node_of(cp, f"w{i}")) for i in range(2)} == {"small"}


def test_the_rack_placing_more_pods_wins_when_min_count_is_below_the_pod_count() -> None:
    """PodGroupPodsCount: minCount 2 of 3 pods; a 2-node rack fits 2, a 3-node rack all 3."""
    cp = gpu_cluster(0, gates=TAS)
    racks(cp, {"a": 2, "b": 3})
    cp.apply(constrained("train", 2))
    cp.apply([gpu_pod(f"w{i}", group="train") for i in range(3)])
    assert sorted(rack_of(node_of(cp, f"w{i}")) or "" for i in range(3)) == ["b", "b", "b"]


def test_consecutive_gangs_take_different_racks_and_later_members_stay_in_their_rack() -> None:
    cp = gpu_cluster(0, gates=TAS)
    racks(cp, {"r1": 3, "r2": 3})
    cp.apply([constrained("g1", 2), constrained("g2", 2)])
    cp.apply([gpu_pod(f"a{i}", group="g1", command="sleep 600") for i in range(2)])
    cp.apply([gpu_pod(f"b{i}", group="g2", command="sleep 600") for i in range(2)])
    first = {rack_of(node_of(cp, f"a{i}")) for i in range(2)}
    second = {rack_of(node_of(cp, f"b{i}")) for i in range(2)}
    assert len(first) == 1 and len(second) == 1 and first != second
    # g1's rack has one node left: a third member goes there, a fourth fits nowhere in that rack
    cp.apply(gpu_pod("a2", group="g1", command="sleep 600"))
    assert rack_of(node_of(cp, "a2")) == first.pop()
    cp.apply(gpu_pod("a3", group="g1", command="sleep 600"))
    assert node_of(cp, "a3") is None  # the other rack's free node is not in the group's domain


def test_preemption_stays_within_one_rack() -> None:
    cp = gpu_cluster(0, gates=TAS)
    racks(cp, {"r1": 2, "r2": 2})
    from gang.builders import priority_class

    cp.apply([priority_class("high", 1000), priority_class("low", 10)])
    # one low pod in each rack: no rack has room for two 8-GPU pods
    cp.apply([gpu_pod(f"l{i}", priority_class="low", command="sleep 600") for i in range(2)])
    low_racks = sorted(rack_of(node_of(cp, f"l{i}")) or "" for i in range(2))
    assert low_racks == ["r1", "r2"]
    doc = constrained("high", 2)
    doc["spec"]["priorityClassName"] = "high"
    cp.apply(doc)
    cp.apply([gpu_pod(f"h{i}", group="high", priority_class="high") for i in range(2)])
    cp.advance(10)
    hosts = {rack_of(node_of(cp, f"h{i}")) for i in range(2)}
    assert len(hosts) == 1 and None not in hosts  # both high pods in one rack, one low pod evicted


# -- the plugins' tables ----------------------------------------------------------------------------

def _snapshot(labels: dict[str, dict[str, str]]) -> Snapshot:
    snapshot = Snapshot()
    for name, node_labels in labels.items():
        snapshot.set_node(NodeShape(name=name, labels=node_labels, allocatable={"cpu": 1000}))
    return snapshot


@pytest.mark.parametrize(("nodes", "scheduled", "want"), [
    # topology_placement_test.go: one placement per distinct value, nodes without the label left out
    ({"n1": {"rack": "a"}, "n2": {"rack": "b"}, "n3": {"rack": "a"}, "n4": {}}, [],
     [Placement("a", frozenset({"n1", "n3"})), Placement("b", frozenset({"n2"}))]),
    ({"n1": {}, "n2": {"zone": "z"}}, [], []),
    # scheduled members pin the domain
    ({"n1": {"rack": "a"}, "n2": {"rack": "b"}}, [("ns/p", "n2")], [Placement("b", frozenset({"n2"}))]),
    ({"n1": {"rack": "a"}, "n2": {"rack": "b"}}, [("ns/p", "n1"), ("ns/q", "n2")],
     "cannot determine domain for already scheduled pods: more than 1 domain found for pod group: a, b"),
    ({"n1": {}}, [("ns/p", "n1")],
     "cannot determine domain for already scheduled pods: no topology domain found for pod ns/p"),
])
def test_topology_placement_generation(nodes: dict[str, dict[str, str]], scheduled: list[tuple[str, str]],
                                       want: Any) -> None:
    assert generate_placements(_snapshot(nodes), "rack", scheduled) == want


@pytest.mark.parametrize(("scheduled", "proposed", "want"), [
    (0, [2, 4], [50, 100]),  # podgroup_pods_count_test.go: normalized against the best count
    (2, [0, 2], [50, 100]),  # scheduled members count for every placement
    (0, [3, 3], [100, 100]),
    (0, [1, 2, 3], [33, 66, 100]),
])
def test_pod_group_pods_count(scheduled: int, proposed: list[int], want: list[int]) -> None:
    assert pods_count_scores(scheduled, proposed) == want


# -- the property ----------------------------------------------------------------------------------

@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rack_sizes=st.lists(st.integers(1, 3), min_size=1, max_size=3),
       groups=st.lists(st.tuples(st.integers(1, 4), st.integers(0, 2)), min_size=1, max_size=3),
       seed=st.integers(0, 3))
def test_every_bound_member_of_a_constrained_group_sits_in_one_rack(
        rack_sizes: list[int], groups: list[tuple[int, int]], seed: int) -> None:
    cp = gpu_cluster(0, gates=TAS, seed=seed)
    racks(cp, {f"r{i}": n for i, n in enumerate(rack_sizes)}, gpus=4)
    for g, (min_count, extra) in enumerate(groups):
        cp.apply(constrained(f"g{g}", min_count))
        cp.apply([gpu_pod(f"g{g}-{i}", group=f"g{g}", gpus=4, command="sleep 600")
                  for i in range(min_count + extra)])
    cp.advance(30)
    for g, (min_count, extra) in enumerate(groups):
        hosts = [node_of(cp, f"g{g}-{i}") for i in range(min_count + extra)]
        placed = [h for h in hosts if h]
        assert len({rack_of(h) for h in placed}) <= 1
        assert not placed or len(placed) >= min_count  # all or nothing still holds
