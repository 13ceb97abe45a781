"""Properties of TAS flavors that share nodes (``TASHandleOverlappingFlavors``, beta, on), through
Kueue's scheduler: two hostname-leaf flavors, ``tas-a`` (the zone-a nodes) and ``tas-any`` (every
node), and Workloads queued one cycle after another on either.

* each flavor's snapshot counts every admitted pod on a node it holds exactly once, whichever flavor
  admitted it (``snapshotTopologyDomainUsages``);
* so no node is booked beyond its capacity across the flavors. Without the gate each flavor counts
  only its own pods and hypothesis finds a node booked twice (the last test).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/cache/scheduler/snapshot.go``, ``tas_flavor.go``;
kueue#10659.
"""

from __future__ import annotations

from typing import Any

from hypothesis import find, given, settings
from hypothesis import strategies as st

from kbatch.api.kueue_v1beta1.topology import slices_to_domains
from kbatch.api.kueue_v1beta2 import ResourceFlavor
from kbatch.controllers.kueue.tas.cycle import TASCycle
from kbatch.sim.nodes import NodeTemplate, create_nodes
from tests.controllers.kueue.helpers import KUEUE, World, cluster_queue, flavor, local_queue, quota, workload

HOST = "kubernetes.io/hostname"
ONE_LEVEL = {"apiVersion": KUEUE, "kind": "Topology", "metadata": {"name": "topology"},
             "spec": {"levels": [{"nodeLabel": HOST}]}}
CAPACITY = 2000  # each node's cpu (millis)

steps = st.lists(st.tuples(st.sampled_from(["tas-a", "tas-any"]), st.integers(1, 3)), min_size=1, max_size=4)


def _run(gate: bool, queued: list[tuple[str, int]]) -> tuple[World, dict[str, int]]:
    """Queue the Workloads one cycle apart; the cpu admitted pods take on each node."""
    flavors = []
    for name, labels in (("tas-a", {"zone": "a"}), ("tas-any", {"pool": "tas"})):
        rf = flavor(name, labels)
        rf["spec"]["topologyName"] = "topology"
        flavors.append(rf)
    w = World(ONE_LEVEL, *flavors, feature_gates={"TASHandleOverlappingFlavors": gate})
    create_nodes(w.cp, 2, NodeTemplate(cpu="2", labels={"zone": "a", "pool": "tas"}), prefix="a-")
    create_nodes(w.cp, 1, NodeTemplate(cpu="2", labels={"zone": "b", "pool": "tas"}), prefix="b-")
    for name in ("tas-a", "tas-any"):
        w.apply(cluster_queue(f"cq-{name}", (["cpu"], [(name, [quota("cpu", "100")])])),
                local_queue(f"lq-{name}", f"cq-{name}"))
    booked: dict[str, int] = {}
    for i, (name, count) in enumerate(queued):
        w.apply(workload(f"w{i}", f"lq-{name}", cpu="1", count=count))
        w.cp.run_until_idle()
        status = w.wl(f"w{i}").status
        adm = status.admission if status is not None else None
        for psa in adm.pod_set_assignments if adm is not None else ():
            for d in slices_to_domains(psa.topology_assignment.to_dict())["domains"]:
                booked[d["values"][-1]] = booked.get(d["values"][-1], 0) + 1000 * int(d["count"])
    return w, booked


def _snapshot_usage(w: World, gate: bool) -> dict[str, dict[str, int]]:
    mgr = w.cp.manager.get("kueue-workload").reconciler.mgr
    flavors = {f.metadata.name: f for f in mgr.ctx.cache.list(ResourceFlavor)}
    admitted = [info.obj for cq in mgr.cache.cluster_queues.values() for info in cq.workloads.values()]
    cycle = TASCycle(mgr.ctx.cache, flavors, lambda: admitted, overlapping=gate)
    return {
        name: {leaf[-1]: u.get("cpu", 0) for leaf, u in cycle.snapshot(name).usage.items()}
        for name in sorted(flavors)
    }


@settings(max_examples=8, deadline=None)
@given(steps)
def test_every_flavor_counts_each_admitted_pod_once_and_no_node_is_overbooked(
    queued: list[tuple[str, int]],
) -> None:
    w, booked = _run(True, queued)
    assert all(cpu <= CAPACITY for cpu in booked.values()), booked
    usage = _snapshot_usage(w, True)
    for name, per_node in usage.items():
        held = {"a-0", "a-1"} if name == "tas-a" else {"a-0", "a-1", "b-0"}
        assert {n: c for n, c in per_node.items() if c} == {n: c for n, c in booked.items() if n in held}


def test_without_the_gate_a_node_is_booked_twice() -> None:
    def overbooked(queued: list[tuple[str, int]]) -> bool:
        return any(cpu > CAPACITY for cpu in _run(False, queued)[1].values())

    quick = settings(max_examples=30, database=None, deadline=None, derandomize=True)
    found: Any = find(steps, overbooked, settings=quick)
    assert {name for name, _ in found} == {"tas-a", "tas-any"}
