"""The TAS usage each flavor's snapshot starts with, read in one walk over the admitted Workloads
(:mod:`kbatch.controllers.kueue.tas.admitted`), against a naive per-flavor, per-node reference.

With ``TASHandleOverlappingFlavors`` a flavor whose lowest level is the hostname counts on each node
it holds the usage of every such flavor's pod sets there (each pod set once); any other flavor, or
every flavor with the gate off, its own pod sets' only. Upstream: kubernetes-sigs/kueue v0.19.2
``pkg/cache/scheduler/snapshot.go`` (``Cache.Snapshot``, ``snapshotTopologyDomainUsages``),
``tas_flavor.go`` (``snapshot``), ``tas_flavor_snapshot.go`` (``addTASUsageForHeldDomains``).

Generated: flavors on one- and two-level hostname topologies and a rack-only one, selecting
overlapping node sets; pod sets admitted on one or two flavors (a non-TAS one among them), with
assignments naming hostnames alone or full values, some on nodes no flavor holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Node
from kbatch.api.errors import NotFound
from kbatch.api.kueue_v1beta1.topology import domains_to_slices
from kbatch.api.kueue_v1beta2 import ResourceFlavor, Topology, Workload
from kbatch.controllers.kueue.tas.cycle import TASCycle

HOST, RACK, ZONE = "kubernetes.io/hostname", "rack", "zone"
TOPOLOGIES = {"host": [HOST], "rack-host": [RACK, HOST], "rack": [RACK]}
HOSTS = [f"h{i}" for i in range(6)] + ["gone"]  # "gone": no such node


def _labels(host: str) -> dict[str, str]:
    i = HOSTS.index(host)
    return {HOST: host, RACK: f"r{i % 2}", ZONE: f"z{i % 3}"}


def _node(host: str) -> Node:
    return Node.model_validate({
        "metadata": {"name": host, "labels": _labels(host)},
        "status": {"allocatable": {"cpu": "64", "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True"}]},
    })


class _Cache:
    def __init__(self) -> None:
        self.nodes = [_node(h) for h in HOSTS if h != "gone"]

    def list(self, kind: type) -> list[Any]:
        return self.nodes if kind is Node else []

    def get(self, kind: type, name: str) -> Any:
        if kind is Topology and name in TOPOLOGIES:
            levels = [{"nodeLabel": label} for label in TOPOLOGIES[name]]
            return Topology.model_validate({"metadata": {"name": name}, "spec": {"levels": levels}})
        raise NotFound(f'{name} not found')


flavor_specs = st.lists(
    st.tuples(st.sampled_from(sorted(TOPOLOGIES)), st.sampled_from([None, "z0", "z1", "z2"])),
    min_size=1, max_size=4,
)
pod_sets = st.tuples(
    st.integers(0, 3),  # the cpu flavor (index, modulo the flavors)
    st.sampled_from([None, "plain", 0, 1, 2, 3]),  # a second resource's flavor
    st.integers(1, 4),  # cpu (x100m)
    st.sampled_from(["host", "full", "none"]),  # how the assignment names its domains
    st.lists(st.tuples(st.sampled_from(HOSTS), st.integers(1, 3)), min_size=1, max_size=3,
             unique_by=lambda d: d[0]),
)
scenarios = st.tuples(
    flavor_specs, st.lists(st.lists(pod_sets, min_size=1, max_size=3), max_size=6), st.booleans()
)


@dataclass(frozen=True)
class _Flavor:
    name: str
    topology: str
    zone: str | None  # the nodeLabels' zone; None: every node

    def resource_flavor(self) -> ResourceFlavor:
        spec = {"topologyName": self.topology, "nodeLabels": {ZONE: self.zone} if self.zone else {}}
        return ResourceFlavor.model_validate({"metadata": {"name": self.name}, "spec": spec})

    def held(self) -> list[str]:
        return [h for h in HOSTS if h != "gone" and self.zone in (None, _labels(h)[ZONE])]


def _named(flavors: list[_Flavor], cpu_flavor: int, other: str | int | None) -> dict[str, str]:
    """The pod set's flavors per resource: cpu on a TAS flavor, maybe memory on another one."""
    named = {"cpu": flavors[cpu_flavor % len(flavors)].name}
    if other is not None:
        named["memory"] = other if isinstance(other, str) else flavors[other % len(flavors)].name
    return named


def _domains(form: str, topology: str, hosts: list[tuple[str, int]]) -> dict[str, Any]:
    """A v1beta2 topologyAssignment naming the hosts alone (``host``) or with the flavor's levels."""
    levels = TOPOLOGIES[topology] if form == "full" else [HOST]
    domains = [{"values": [_labels(h)[k] for k in levels], "count": c} for h, c in hosts]
    return domains_to_slices({"levels": levels, "domains": domains})


def _workload(n: int, sets: list[Any], flavors: list[_Flavor]) -> Workload:
    specs, assignments = [], []
    for i, (cpu_flavor, other, cpu, form, hosts) in enumerate(sets):
        main = flavors[cpu_flavor % len(flavors)]
        named = _named(flavors, cpu_flavor, other)
        container = {"name": "c", "resources": {"requests": {"cpu": f"{cpu * 100}m"}}}
        specs.append({"name": f"ps{i}", "count": 1, "template": {"spec": {"containers": [container]}}})
        psa: dict[str, Any] = {"name": f"ps{i}", "flavors": named, "count": 1}
        if form != "none":
            psa["topologyAssignment"] = _domains(form, main.topology, hosts)
        assignments.append(psa)
    return Workload.model_validate({
        "metadata": {"name": f"w{n}", "namespace": "default"},
        "spec": {"podSets": specs},
        "status": {"admission": {"clusterQueue": "cq", "podSetAssignments": assignments}},
    })


def _leaf(values: tuple[str, ...], levels: list[str], held: list[str]) -> tuple[str, ...] | None:
    """The leaf a domain names: its values at the flavor's levels, or (hostname leaves) its
    hostname alone."""
    leaves = [tuple(_labels(h)[k] for k in levels) for h in held]
    if len(values) == len(levels) and values in leaves:
        return values
    if len(values) == 1 and levels[-1] == HOST:
        return next((leaf for leaf in leaves if leaf[-1] == values[0]), None)
    return None


def _expected(
    flavors: list[_Flavor], scenario: list[list[Any]], gate: bool
) -> dict[str, dict[tuple[str, ...], dict[str, int]]]:
    """Per flavor, per leaf it holds: the pods (and their cpu) of the pod sets it counts there."""
    on_host = {f.name for f in flavors if TOPOLOGIES[f.topology][-1] == HOST}
    out: dict[str, dict[tuple[str, ...], dict[str, int]]] = {}
    for f in flavors:
        lv, held = TOPOLOGIES[f.topology], f.held()
        counted = on_host if gate and f.name in on_host else {f.name}
        usage: dict[tuple[str, ...], dict[str, int]] = {}
        for sets in scenario:
            for cpu_flavor, other, cpu, form, hosts in sets:
                main = flavors[cpu_flavor % len(flavors)]
                if form == "none" or not set(_named(flavors, cpu_flavor, other).values()) & counted:
                    continue
                named_levels = TOPOLOGIES[main.topology] if form == "full" else [HOST]
                for host, count in hosts:
                    leaf = _leaf(tuple(_labels(host)[k] for k in named_levels), lv, held)
                    if leaf is None:
                        continue
                    have = usage.setdefault(leaf, {"cpu": 0, "pods": 0})
                    have["cpu"] += cpu * 100 * count
                    have["pods"] += count
        out[f.name] = usage
    return out


def _cycle(
    flavors: list[_Flavor], workloads: list[Workload], gate: bool, walks: list[int]
) -> TASCycle:
    def admitted() -> list[Workload]:
        walks.append(1)
        return workloads

    by_name = {f.name: f.resource_flavor() for f in flavors}
    return TASCycle(_Cache(), by_name, admitted, overlapping=gate)


@settings(max_examples=150, deadline=None)
@given(scenarios)
def test_each_flavor_counts_on_each_leaf_the_pod_sets_it_shares_or_owns(scenario: Any) -> None:
    specs, workloads_spec, gate = scenario
    flavors = [_Flavor(f"f{i}", topology, zone) for i, (topology, zone) in enumerate(specs)]
    workloads = [_workload(n, sets, flavors) for n, sets in enumerate(workloads_spec)]
    cycle = _cycle(flavors, workloads, gate, [])
    got = {f.name: cycle.snapshot(f.name).usage for f in flavors}
    assert got == _expected(flavors, workloads_spec, gate)


def test_the_admitted_workloads_are_walked_once_for_every_flavor() -> None:
    """Four hostname flavors over the same nodes: one walk serves every snapshot (before, each
    flavor's snapshot walked the admitted Workloads again)."""
    flavors = [_Flavor(f"f{i}", "host", None) for i in range(4)]
    sets = [(i, None, 1, "host", [(f"h{i}", 2)]) for i in range(4)]
    walks: list[int] = []
    cycle = _cycle(flavors, [_workload(0, sets, flavors)], True, walks)
    every = {(f"h{i}",): {"cpu": 200, "pods": 2} for i in range(4)}
    for f in flavors:
        assert cycle.snapshot(f.name).usage == every
    assert len(walks) == 1
