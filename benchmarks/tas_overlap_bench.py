"""TAS snapshot building with flavors sharing nodes (``TASHandleOverlappingFlavors``, beta, on).

    python benchmarks/tas_overlap_bench.py                        # 6 flavors, 1000 nodes, 4000 workloads
    python benchmarks/tas_overlap_bench.py --flavors 8 --workloads 2000 --repeat 3

A cycle that needs TAS builds each TAS flavor's snapshot: its nodes, then the TAS usage of the
admitted Workloads. With the gate each hostname-leaf flavor counts every such flavor's usage
(upstream v0.19.2 ``pkg/cache/scheduler/snapshot.go`` ``snapshotTopologyDomainUsages``). The scenario:
``--flavors`` hostname-leaf flavors over three-level topologies (block, rack, hostname), each
selecting an overlapping part of ``--nodes`` nodes (one all of them, the others a zone, a pool or
both); ``--workloads`` admitted Workloads of one pod set (2 to 8 pods of 1 to 4 cpus over up to four
hosts) on random flavors (seeded).

Measured in the same run, gate on and off, the best of ``--repeat``: every flavor's snapshot built
"before" (each flavor's snapshot walking the admitted Workloads again, as ``tas/cycle.py`` did
before the walk was shared: N flavors, N walks) and "after" (``TASCycle.snapshot``: one walk,
:mod:`kbatch.controllers.kueue.tas.admitted`), the node part alone (``build_snapshot`` for every
flavor, common to both), and the after/before ratio. Both sides' usages are checked equal first.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from typing import Any

from kbatch.api.core_v1 import Node
from kbatch.api.errors import NotFound
from kbatch.api.kueue_v1beta1.topology import domains_to_slices
from kbatch.api.kueue_v1beta2 import ResourceFlavor, Topology, Workload
from kbatch.controllers.kueue.tas.cluster import assigned_pod_sets, build_snapshot
from kbatch.controllers.kueue.tas.cycle import TASCycle
from kbatch.controllers.kueue.tas.snapshot import HOSTNAME

BLOCK, RACK = "example.com/block", "example.com/rack"
LEVELS = (BLOCK, RACK, HOSTNAME)


class Cache:
    """What the snapshots read: the nodes, the pods (none bound here) and the Topology."""

    def __init__(self, nodes: list[Node]) -> None:
        self.nodes = nodes
        self.topology = Topology.model_validate(
            {"metadata": {"name": "default"}, "spec": {"levels": [{"nodeLabel": k} for k in LEVELS]}}
        )

    def list(self, kind: type) -> list[Any]:
        return self.nodes if kind is Node else []  # no pods bound

    def get(self, kind: type, name: str) -> Any:
        if kind is Topology and name == "default":
            return self.topology
        raise NotFound(f"{name} not found")


def _labels(i: int) -> dict[str, str]:
    return {HOSTNAME: f"n{i}", RACK: f"r{i // 8}", BLOCK: f"b{i // 64}", "zone": f"z{i % 4}",
            "pool": f"p{i % 3}"}


def nodes(count: int) -> list[Node]:
    ready = [{"type": "Ready", "status": "True"}]
    return [
        Node.model_validate({"metadata": {"name": f"n{i}", "labels": _labels(i)},
                             "status": {"allocatable": {"cpu": "64", "pods": "110"}, "conditions": ready}})
        for i in range(count)
    ]


def flavors(count: int) -> list[ResourceFlavor]:
    """f0 holds every node; the others a zone, a pool, or both (overlapping)."""
    out = []
    for i in range(count):
        labels = {} if i == 0 else {"zone": f"z{i % 4}"} if i % 3 == 1 else {"pool": f"p{i % 3}"}
        if i >= 4 and i % 3 != 1:
            labels["zone"] = f"z{i % 4}"
        out.append(ResourceFlavor.model_validate(
            {"metadata": {"name": f"f{i}"}, "spec": {"topologyName": "default", "nodeLabels": labels}}))
    return out


def _held(flavor: ResourceFlavor, node_count: int) -> list[int]:
    want = (flavor.spec.node_labels if flavor.spec else None) or {}
    return [i for i in range(node_count) if all(_labels(i).get(k) == v for k, v in want.items())]


def workloads(count: int, fls: list[ResourceFlavor], node_count: int, seed: int) -> list[Workload]:
    rng = random.Random(seed)
    held = {f.metadata.name: _held(f, node_count) for f in fls}
    out = []
    for n in range(count):
        fl = fls[rng.randrange(len(fls))].metadata.name or ""
        hosts = sorted(rng.sample(held[fl], min(len(held[fl]), rng.randint(1, 4))))
        counts = [rng.randint(1, 2) for _ in hosts]
        domains = [{"values": [f"n{h}"], "count": c} for h, c in zip(hosts, counts, strict=True)]
        pods = sum(counts)
        cpu = rng.randint(1, 4)
        container = {"name": "c", "resources": {"requests": {"cpu": str(cpu)}}}
        out.append(Workload.model_validate({
            "metadata": {"name": f"w{n}", "namespace": "default"},
            "spec": {"podSets": [
                {"name": "main", "count": pods, "template": {"spec": {"containers": [container]}}}
            ]},
            "status": {"admission": {"clusterQueue": "cq", "podSetAssignments": [{
                "name": "main", "flavors": {"cpu": fl}, "count": pods,
                "topologyAssignment": domains_to_slices({"levels": [HOSTNAME], "domains": domains}),
            }]}},
        }))
    return out


Flavors = dict[str, ResourceFlavor]


def before(cache: Cache, fls: Flavors, admitted: list[Workload], gate: bool) -> dict[str, Any]:
    """Every flavor's snapshot as ``TASCycle.snapshot`` built it before the shared walk: one walk of
    the admitted Workloads per flavor (the hostname-leaf flavors' usage with the gate)."""
    shared = tuple(sorted(fls)) if gate else ()  # every flavor here has hostname leaves
    out = {}
    for name in sorted(fls):
        snap = build_snapshot(cache, fls[name], "default", LEVELS)
        sources = shared if name in shared else (name,)
        for wl in admitted:
            for on, read in assigned_pod_sets(wl):
                if any(f in sources for f in on):
                    domains, one = read()
                    snap.add_usage(domains, one)
        out[name] = snap.usage
    return out


def after(cache: Cache, fls: Flavors, admitted: list[Workload], gate: bool) -> dict[str, Any]:
    cycle = TASCycle(cache, fls, lambda: admitted, overlapping=gate)
    return {name: cycle.snapshot(name).usage for name in sorted(fls)}


def nodes_only(cache: Cache, fls: Flavors, _: list[Workload], __: bool) -> dict[str, Any]:
    """The part common to both: every flavor's nodes, no usage."""
    return {n: build_snapshot(cache, fls[n], "default", LEVELS).usage for n in sorted(fls)}


def best(fn: Callable[..., Any], repeat: int, *args: Any) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flavors", type=int, default=6)
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--workloads", type=int, default=4000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    cache = Cache(nodes(args.nodes))
    fls = flavors(args.flavors)
    admitted = workloads(args.workloads, fls, args.nodes, args.seed)
    by_name = {f.metadata.name or "": f for f in fls}
    print(f"{args.flavors} hostname-leaf flavors, {args.nodes} nodes, {args.workloads} admitted workloads, "
          f"best of {args.repeat}")
    for gate in (True, False):
        assert before(cache, by_name, admitted, gate) == after(cache, by_name, admitted, gate)
        t_nodes = best(nodes_only, args.repeat, cache, by_name, admitted, gate)
        t_before = best(before, args.repeat, cache, by_name, admitted, gate)
        t_after = best(after, args.repeat, cache, by_name, admitted, gate)
        print(f"gate {'on ' if gate else 'off'}: before {t_before * 1000:8.1f} ms  "
              f"after {t_after * 1000:8.1f} ms  (nodes alone {t_nodes * 1000:6.1f} ms)  "
              f"after/before {t_after / t_before:.3f}  "
              f"usage part after/before {(t_after - t_nodes) / (t_before - t_nodes):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
