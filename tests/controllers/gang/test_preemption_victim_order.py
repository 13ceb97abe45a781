"""Which units workload-aware preemption gives back (KEP-5710), through the control plane: the reprieve
tries the units a PodDisruptionBudget protects first, then the rest, each most important first
(kubernetes/kubernetes ``pkg/scheduler/framework/preemption/util.go`` ``MoreImportantVictim``,
``FilterVictimsWithPDBViolation``). Each case offers two candidate units of which one is enough:
the one given back is the one upstream's order puts first. They share one node, so the in-place reprieve
(the preemptor keeps the node it was proposed) can give back either."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gang.builders import NATIVE, bound, gpu_cluster, gpu_pod, native_group, node_of, pod, priority_class
from kbatch.api.core_v1 import Pod
from kbatch.api.meta import LabelSelector
from kbatch.api.policy_v1 import PodDisruptionBudget
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import NodeTemplate, create_nodes


def cluster(nodes: int) -> ControlPlane:
    """One node with ``nodes`` x 8 GPUs: the candidates share the node the preemptor is proposed, so
    the in-place reprieve can give back whichever comes first (upstream's table rows put their
    victims on one node the same way, ``podgrouppreemption_test.go``)."""
    cp = gpu_cluster(1, 8 * nodes, gates=NATIVE)
    cp.apply([priority_class("high", 1000), priority_class("low", 10)])
    return cp


def low_pod(name: str, group: str | None = None, labels: dict[str, str] | None = None) -> dict[str, Any]:
    doc = gpu_pod(name, group=group, priority_class="low", command="sleep 600")
    if labels:
        doc["metadata"]["labels"] = labels
    return doc


def preempt(cp: ControlPlane) -> list[str]:
    """A one-pod high-priority gang arrives; the pods it evicts, by name."""
    cp.apply(native_group("high", 1, priority_class="high"))
    cp.apply(gpu_pod("h", group="high", priority_class="high"))
    pods = cp.client.list(Pod, "default").items
    return sorted(p.metadata.name or "" for p in pods
                  if p.metadata.name != "h" and p.metadata.deletion_timestamp)


def test_the_larger_all_mode_group_is_more_important() -> None:
    cp = cluster(3)
    cp.apply([native_group("z-big", 2, all_disruption=True, priority_class="low"),
              native_group("a-small", 1, all_disruption=True, priority_class="low")])
    cp.apply([low_pod("big-0", "z-big"), low_pod("big-1", "z-big"), low_pod("small", "a-small")])
    assert bound(cp, ["big-0", "big-1", "small"]) == ["big-0", "big-1", "small"]
    assert preempt(cp) == ["small"]


def test_the_pod_that_started_earlier_is_more_important() -> None:
    cp = cluster(2)
    cp.apply(low_pod("z-old"))
    cp.advance(10)
    cp.apply(low_pod("a-new"))
    cp.advance(10)
    assert pod(cp, "z-old").status.start_time < pod(cp, "a-new").status.start_time  # type: ignore[union-attr,operator]
    assert preempt(cp) == ["a-new"]


def test_a_lone_pod_of_a_pod_group_outranks_an_ungrouped_pod() -> None:
    """``NewPodVictim`` gives a pod naming a scheduling group the PodGroup key type."""
    cp = cluster(2)
    cp.apply(native_group("zg", priority_class="low"))  # basic policy, disruptionMode single
    cp.apply([low_pod("z-member", "zg"), low_pod("a-loose")])
    assert bound(cp, ["a-loose", "z-member"]) == ["a-loose", "z-member"]
    assert preempt(cp) == ["a-loose"]


def budget(name: str, app: str, **limit: int) -> dict[str, Any]:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name},
            "spec": {**limit, "selector": {"matchLabels": {"app": app}}}}


def two_pods_and_a_budget(**limit: int) -> ControlPlane:
    """``a-old`` starts first, ``z-new`` ten seconds later under a budget ``limit``."""
    cp = cluster(2)
    cp.apply(low_pod("a-old", labels={"app": "old"}))
    cp.advance(10)
    cp.apply([low_pod("z-new", labels={"app": "new"}), budget("keep-new", "new", **limit)])
    cp.advance(10)
    return cp


def allowed(cp: ControlPlane) -> int | None:
    status = cp.client.get(PodDisruptionBudget, "keep-new", "default").status
    return status.disruptions_allowed if status else None


def test_a_unit_a_budget_protects_is_given_back_first() -> None:
    """``z-new`` is the less important pod, but evicting it would break its budget."""
    cp = two_pods_and_a_budget(minAvailable=1)
    assert allowed(cp) == 0
    assert preempt(cp) == ["a-old"]


def test_a_budget_with_room_changes_nothing() -> None:
    cp = two_pods_and_a_budget(minAvailable=0)
    assert allowed(cp) == 1
    assert preempt(cp) == ["z-new"]


class _CountingSpec:
    """A budget's spec that counts how often its selector is read (each parse reads it)."""

    def __init__(self, app: str) -> None:
        self._selector = LabelSelector(match_labels={"app": app})
        self.reads = 0

    @property
    def selector(self) -> LabelSelector:
        self.reads += 1
        return self._selector


def test_each_budget_is_parsed_once_per_preemption(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three labelled candidate pods and two budgets: the split reads each budget's selector once
    (before: once for every candidate pod of the budget's namespace)."""
    from kbatch.controllers.scheduler import group_preemption

    cp = cluster(3)
    cp.apply([low_pod(f"p{i}", labels={"app": "a"}) for i in range(3)])
    cp.advance(10)
    budgets = [SimpleNamespace(metadata=SimpleNamespace(namespace="default", name=app),
                               spec=_CountingSpec(app),
                               status=SimpleNamespace(disruptions_allowed=5, disrupted_pods=None))
               for app in ("a", "b")]
    monkeypatch.setattr(group_preemption, "_budgets", lambda cycle: budgets)
    assert len(preempt(cp)) == 1
    assert [b.spec.reads for b in budgets] == [1, 1]


TAS = "GenericWorkload=true,TopologyAwareWorkloadScheduling=true"
RACK = "topology.kubernetes.io/rack"


def in_rack(doc: dict[str, Any], rack: str) -> dict[str, Any]:
    doc["spec"]["nodeSelector"] = {RACK: rack}
    return doc


def test_a_constrained_group_preempts_in_the_best_scored_rack() -> None:
    """Racks ``a`` and ``b`` of one 8-GPU node each, a low pod on each (``first`` on ``b``, the older
    and so the more important; ``second`` on ``a``) and a high-priority 6-CPU pod on ``b``. With both
    low pods gone the group fits in either rack; ``PlacementBinPacking`` prefers the fuller ``b``, and
    the reprieve stays there: ``first`` goes although it is the more important one. Re-placing the
    group in whichever rack fits at each reprieve trial (kbatch before) gave ``first`` back and
    evicted ``second``."""
    cp = gpu_cluster(0, gates=TAS)
    for rack in ("a", "b"):
        create_nodes(cp, 1, NodeTemplate(gpus=8, labels={RACK: rack}), prefix=f"{rack}-")
    cp.apply([priority_class("high", 1000), priority_class("low", 10)])
    busy = gpu_pod("b-busy", gpus=0, priority_class="high", command="sleep 600")
    busy["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "6"}}
    cp.apply([in_rack(low_pod("first"), "b"), in_rack(busy, "b")])
    cp.advance(10)
    cp.apply(in_rack(low_pod("second"), "a"))
    cp.advance(10)
    assert bound(cp, ["b-busy", "first", "second"]) == ["b-busy", "first", "second"]
    group = native_group("high", 1, priority_class="high")
    group["spec"]["schedulingConstraints"] = {"topology": [{"key": RACK}]}
    cp.apply(group)
    cp.apply(gpu_pod("h", group="high", priority_class="high"))
    pods = cp.client.list(Pod, "default").items
    assert sorted(p.metadata.name or "" for p in pods if p.metadata.deletion_timestamp) == ["first"]
    cp.advance(10)
    assert node_of(cp, "h") == "b-0"


def test_the_reprieve_keeps_the_preemptor_on_the_node_it_was_proposed() -> None:
    """Zones ``x`` and ``y`` of one 8-GPU node each: ``mid`` (priority 500, the more important) on
    ``x-0``, ``low`` on ``y-0``; the gang's pod prefers zone ``x``. With both gone it is proposed
    ``x-0``, and the in-place reprieve (upstream #139980, ``selectVictimsOnDomain``) re-runs Filter
    there only: ``mid`` does not fit beside it and goes, ``low`` stays. Re-placing the gang at each
    trial (kbatch before) moved it to ``y-0``, gave ``mid`` back and evicted ``low``."""
    cp = gpu_cluster(0, gates=NATIVE)
    for zone in ("x", "y"):
        create_nodes(cp, 1, NodeTemplate(gpus=8, labels={"zone": zone}), prefix=f"{zone}-")
    cp.apply([priority_class("high", 1000), priority_class("mid", 500), priority_class("low", 10)])
    mid = gpu_pod("mid", priority_class="mid", command="sleep 600")
    mid["spec"]["nodeSelector"] = {"zone": "x"}
    low = low_pod("low")
    low["spec"]["nodeSelector"] = {"zone": "y"}
    cp.apply([mid, low])
    assert (node_of(cp, "mid"), node_of(cp, "low")) == ("x-0", "y-0")
    cp.apply(native_group("high", 1, priority_class="high"))
    h = gpu_pod("h", group="high", priority_class="high")
    prefer_x = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["x"]}]}
    h["spec"]["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 100, "preference": prefer_x}]}}
    cp.apply(h)
    pods = cp.client.list(Pod, "default").items
    assert sorted(p.metadata.name or "" for p in pods if p.metadata.deletion_timestamp) == ["mid"]
    assert pod(cp, "h").status.nominated_node_name == "x-0"  # type: ignore[union-attr]
    cp.advance(10)
    assert (node_of(cp, "h"), node_of(cp, "low")) == ("x-0", "y-0")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from([2, 4, 8]), st.sampled_from(["low", "mid"]), st.integers(0, 2)),
                min_size=1, max_size=6),
       st.lists(st.sampled_from([2, 4, 8]), min_size=1, max_size=3))
def test_the_gang_fits_where_it_is_nominated_and_no_victim_could_stay(
        victims: list[tuple[int, str, int]], gang: list[int]) -> None:
    """Through the control plane, three 8-GPU nodes: after a preemption every node holds its
    surviving pods plus the gang's pods nominated there within its 8 GPUs, and each victim, put
    back on its node, would overflow it (the in-place check is minimal; GPUs add up in any order)."""
    cp = gpu_cluster(3, gates=NATIVE)
    cp.apply([priority_class("high", 1000), priority_class("mid", 500), priority_class("low", 10)])
    docs, used = [], [0, 0, 0]
    for i, (gpus, prio, node) in enumerate(victims):
        if used[node] + gpus > 8:
            continue  # bound by name, it would not be admitted
        used[node] += gpus
        doc = gpu_pod(f"v{i}", gpus=gpus, priority_class=prio, command="sleep 600")
        doc["spec"]["nodeName"] = f"node-{node}"
        docs.append(doc)
    cp.apply(docs)
    cp.run_until_idle()
    cp.apply(native_group("high", len(gang), priority_class="high"))
    cp.apply([gpu_pod(f"h{i}", group="high", priority_class="high", gpus=g) for i, g in enumerate(gang)])
    pods = {p.metadata.name: p for p in cp.client.list(Pod, "default").items}
    evicted = [n for n, p in pods.items() if p.metadata.deletion_timestamp]
    nominated = {n: p.status.nominated_node_name for n, p in pods.items()
                 if n.startswith("h") and p.status and p.status.nominated_node_name}
    assume(evicted)
    need = dict(enumerate(gang))

    def gpus(name: str) -> int:
        return need[int(name[1:])] if name.startswith("h") else victims[int(name[1:])][0]

    def load(node: str, extra: str = "") -> int:
        here = [n for n, p in pods.items() if p.spec.node_name == node and n not in evicted]
        return sum(gpus(n) for n in [*here, *(h for h, at in nominated.items() if at == node)]
                   + ([extra] if extra else []))

    assert len(nominated) == len(gang)
    assert all(load(f"node-{i}") <= 8 for i in range(3))
    for victim in evicted:
        assert load(pods[victim].spec.node_name or "", victim) > 8
