"""Properties of TAS-aware preemption (``pkg/scheduler/preemption/preemption.go`` ``workloadFits``
with the preemptor's topology requests), on random hosts and random lower-priority workloads
each required on one host, and a high-priority preemptor required on one host:

* no victim is taken when the preemptor's pods fit on a host as things stand;
* when they fit on no host even empty, nothing is taken either;
* otherwise victims are taken, every one of them needed (with it back, and the others gone, no host
  holds the preemptor: ``fillBackWorkloads``), and once they are gone the preemptor is admitted on
  a host whose capacity holds what is placed there;
* the same inputs give the same victims.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbatch.api.kueue_v1beta1.topology import slices_to_domains
from kbatch.sim.nodes import NodeTemplate, create_nodes
from tests.controllers.kueue.helpers import KUEUE, World, cluster_queue, local_queue, quota

HOST = "kubernetes.io/hostname"
TOPOLOGY = {"apiVersion": KUEUE, "kind": "Topology", "metadata": {"name": "hosts"},
            "spec": {"levels": [{"nodeLabel": HOST}]}}
FLAVOR = {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "tas"},
          "spec": {"nodeLabels": {"tas": "true"}, "topologyName": "hosts"}}


def _wl(name: str, priority: int, count: int, cpu: int) -> dict[str, Any]:
    return {"apiVersion": KUEUE, "kind": "Workload", "metadata": {"name": name, "namespace": "default"},
            "spec": {"queueName": "lq", "priority": priority, "podSets": [{
                "name": "main", "count": count, "topologyRequest": {"required": HOST},
                "template": {"spec": {"restartPolicy": "Never", "containers": [
                    {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": str(cpu)}}}]}}}]}}


def _hosts_of(w: World, name: str) -> dict[str, int]:
    adm = w.wl(name).status.admission  # type: ignore[union-attr]
    ta = adm.pod_set_assignments[0].topology_assignment  # type: ignore[union-attr]
    return {d["values"][-1]: d["count"] for d in slices_to_domains(ta.to_dict())["domains"]}


def _run(caps: list[int], lows: list[tuple[int, int]], high: tuple[int, int]) -> dict[str, Any]:
    w = World(TOPOLOGY, FLAVOR)
    for i, cap in enumerate(caps):
        create_nodes(w.cp, 1, NodeTemplate(cpu=str(cap), labels={"tas": "true"}), prefix="n", start=i)
    w.apply(cluster_queue("cq", (["cpu"], [("tas", [quota("cpu", "100")])]),
                          preemption={"withinClusterQueue": "LowerPriority"}),
            local_queue("lq", "cq"))
    per_pod: dict[str, int] = {}
    used = {f"n{i}": 0 for i in range(len(caps))}
    # highest priority first, so that no lower-priority workload preempts an earlier one
    for j, (prio, cpu) in enumerate(sorted(lows, key=lambda low: -low[0])):
        name = f"low-{j}"
        w.apply(_wl(name, prio, 1, cpu))
        w.cp.run_until_idle()
        if w.admitted(name):
            per_pod[name] = cpu
            for host, count in _hosts_of(w, name).items():
                used[host] += count * cpu
    on_host = {name: next(iter(_hosts_of(w, name))) for name in per_pod}
    w.apply(_wl("high", 10, *high))
    w.cp.run_until_idle()
    victims = w.names_where("Preempted")
    w.settle()
    admitted = w.admitted("high")
    return {"caps": {f"n{i}": c for i, c in enumerate(caps)}, "used": used, "per_pod": per_pod,
            "on_host": on_host, "victims": victims, "admitted": admitted,
            "high_hosts": _hosts_of(w, "high") if admitted else {}, "world": w}


def _fits(caps: dict[str, int], used: dict[str, int], need: int) -> bool:
    return any(caps[h] - used[h] >= need for h in caps)


_caps = st.lists(st.integers(2, 6), min_size=1, max_size=3)
_lows = st.lists(st.tuples(st.integers(1, 3), st.integers(1, 3)), min_size=1, max_size=5)
_high = st.tuples(st.integers(1, 2), st.integers(1, 4))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(caps=_caps, lows=_lows, high=_high)
def test_tas_preemption_takes_needed_victims_only_and_the_preemptor_fits(
    caps: list[int], lows: list[tuple[int, int]], high: tuple[int, int]
) -> None:
    got = _run(caps, lows, high)
    need = high[0] * high[1]
    c, used, per_pod = got["caps"], got["used"], got["per_pod"]
    if _fits(c, used, need) or need > max(c.values()):
        assert got["victims"] == []
        return
    victims = got["victims"]
    assert victims, "a preemptor that fits an emptied host finds victims"
    freed = dict(used)
    for v in victims:
        freed[got["on_host"][v]] -= per_pod[v]
    assert _fits(c, freed, need)
    for v in victims:  # every victim is needed
        back = dict(freed)
        back[got["on_host"][v]] += per_pod[v]
        assert not _fits(c, back, need), v
    assert got["admitted"]
    (host, count), = got["high_hosts"].items()
    assert count == high[0]
    kept = sum(per_pod[n] for n, h in got["on_host"].items() if h == host and n not in victims)
    assert kept + need <= c[host]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(caps=_caps, lows=_lows, high=_high)
def test_the_same_inputs_give_the_same_victims(
    caps: list[int], lows: list[tuple[int, int]], high: tuple[int, int]
) -> None:
    assert _run(caps, lows, high)["victims"] == _run(caps, lows, high)["victims"]
