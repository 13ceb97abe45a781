"""Properties of queueing hints (KEP-4247): no pod is stranded by a wrong QueueSkip, the final
placement is the one moving every pod on every event gives, and changes nobody registered for (or
whose hints all say QueueSkip) move nothing."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from kubelet.cluster import pod_yaml, sim_cluster

from kbatch.api.core_v1 import Node, Pod
from kbatch.controllers.scheduler.controller import hint_map
from kbatch.controllers.scheduler.defaults import default_profile
from kbatch.controllers.scheduler.events import NODE, ClusterEvent, node_update_events
from kbatch.controllers.scheduler.plugins.priority_sort import PrioritySort
from kbatch.controllers.scheduler.queue import SchedulingQueue
from kbatch.controllers.scheduler.types import (
    LabelSelector,
    PodAffinityTerm,
    SpreadConstraint,
    Taint,
    Toleration,
)
from kbatch.sim import NodeTemplate, create_nodes

from .sched_builders import node, pod

GPU_TAINT = {"key": "gpu", "value": "yes", "effect": "NoSchedule"}
ANTI = """
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {{matchLabels: {{app: {app}}}}}
        topologyKey: kubernetes.io/hostname"""

pod_specs = st.tuples(st.sampled_from([500, 1000, 2000, 3000]), st.sampled_from([None, "a", "b"]),
                      st.booleans(), st.sampled_from([None, "x", "y"]), st.sampled_from(["x", "y", "z"]))
node_events = st.one_of(
    st.tuples(st.just("add_node"), st.integers(1, 4), st.sampled_from(["a", "b"]), st.booleans()),
    st.tuples(st.just("zone"), st.integers(0, 9), st.sampled_from(["a", "b", None])),
    st.tuples(st.just("taint"), st.integers(0, 9), st.booleans()),
    st.tuples(st.just("cordon"), st.integers(0, 9), st.booleans()),
    st.tuples(st.just("cpu"), st.integers(0, 9), st.integers(1, 4)),
    st.tuples(st.just("unrelated"), st.integers(0, 9), st.text("abc", min_size=1, max_size=3)),
    st.tuples(st.just("delete_pod"), st.integers(0, 19)),
    st.tuples(st.just("add_pod"), pod_specs),
)


def _pod(name: str, spec: tuple[Any, ...]) -> str:
    cpu, zone, tolerates, hates, app = spec
    extra = f"\n  nodeSelector: {{zone: {zone}}}" if zone else ""
    if tolerates:
        extra += "\n  tolerations: [{key: gpu, operator: Exists}]"
    if hates:
        extra += ANTI.format(app=hates)
    text = pod_yaml(name, "sleep 100000", cpu=f"{cpu}m", grace=0, extra_spec=extra)
    return text.replace(f"metadata: {{name: {name}, namespace: default}}",
                        f"metadata: {{name: {name}, namespace: default, labels: {{app: {app}}}}}")


def _node_names(cp: Any) -> list[str]:
    return sorted(n.metadata.name for n in cp.client.list(Node).items)


def _apply(cp: Any, event: tuple[Any, ...], created: list[str]) -> None:
    kind = event[0]
    if kind == "add_node":
        _, cpu, zone, tainted = event
        index = len(_node_names(cp))
        create_nodes(cp, 1, NodeTemplate(cpu=str(cpu), labels={"zone": zone},
                                         taints=(GPU_TAINT,) if tainted else ()), start=index)
        return
    if kind == "add_pod":
        name = f"p{len(created)}"
        cp.apply(_pod(name, event[1]))
        created.append(name)
        return
    if kind == "delete_pod":
        if created:
            name = created[event[1] % len(created)]
            if any(p.metadata.name == name for p in cp.client.list(Pod, "default").items):
                cp.client.delete(Pod, name, "default")
        return
    names = _node_names(cp)
    if not names:
        return
    target = names[event[1] % len(names)]
    if kind == "zone":
        cp.client.patch(Node, target, {"metadata": {"labels": {"zone": event[2]}}})
    elif kind == "unrelated":
        cp.client.patch(Node, target, {"metadata": {"labels": {f"team-{event[2]}": "1"}}})
    elif kind == "taint":
        cp.client.patch(Node, target, {"spec": {"taints": [GPU_TAINT] if event[2] else None}})
    elif kind == "cordon":
        cp.client.patch(Node, target, {"spec": {"unschedulable": event[2]}})
    elif kind == "cpu":
        cp.client.patch_status(Node, target, {"status": {"allocatable": {"cpu": str(event[2])}}})


def _run(hints: bool, nodes: list[tuple[int, str, bool]], pods: list[Any], events: list[Any]) -> Any:
    cp = sim_cluster(options={"scheduler": {"queueing_hints": hints, "events": False}})
    created: list[str] = []
    for cpu, zone, tainted in nodes:
        _apply(cp, ("add_node", cpu, zone, tainted), created)
    for spec in pods:
        _apply(cp, ("add_pod", spec), created)
    cp.advance(30)
    for event in events:
        _apply(cp, event, created)
        cp.advance(30)  # every back-off (at most 10 s) has expired; far less than the 5-minute flush
    return cp


def _stranded(cp: Any) -> list[str]:
    """Pending pods the scheduler could place right now (a wrong QueueSkip leaves such a pod)."""
    scheduler = cp.manager.get("scheduler").reconciler
    out = []
    for p in cp.client.list(Pod, "default").items:
        if p.spec.node_name or p.metadata.deletion_timestamp is not None:
            continue
        info = scheduler._infos[f"default/{p.metadata.name}"]
        if scheduler.algorithm.schedule(info).node is not None:
            out.append(p.metadata.name)
    return out


nodes_st = st.lists(st.tuples(st.integers(1, 4), st.sampled_from(["a", "b"]), st.booleans()),
                    min_size=0, max_size=4)


@settings(max_examples=60, deadline=None)
@given(nodes_st, st.lists(pod_specs, max_size=10), st.lists(node_events, max_size=8))
def test_no_pod_that_fits_is_left_waiting(nodes, pods, events) -> None:
    """After every event settles (well within the 5-minute flush), every pending pod is truly
    unschedulable, with hints as without them."""
    for hints in (True, False):
        assert _stranded(_run(hints, nodes, pods, events)) == []


def _pinned(text: str, node_name: str) -> str:
    """The pod text with ``kubernetes.io/hostname: node_name`` added to its nodeSelector."""
    host = f"kubernetes.io/hostname: {node_name}"
    if "nodeSelector" in text:
        return text.replace("nodeSelector: {", f"nodeSelector: {{{host}, ")
    return text.replace("restartPolicy: Never", f"restartPolicy: Never\n  nodeSelector: {{{host}}}")


slot_events = st.one_of(
    st.tuples(st.just("zone"), st.integers(0, 9), st.sampled_from(["a", "b", None])),
    st.tuples(st.just("taint"), st.integers(0, 9), st.booleans()),
    st.tuples(st.just("cordon"), st.integers(0, 9), st.booleans()),
    st.tuples(st.just("cpu"), st.integers(0, 9), st.integers(1, 4)),
    st.tuples(st.just("unrelated"), st.integers(0, 9), st.text("abc", min_size=1, max_size=3)),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4), st.sampled_from(["a", "b"]), st.booleans(), pod_specs),
                min_size=1, max_size=5),
       st.lists(slot_events, max_size=8))
def test_final_placement_equals_moving_every_pod(slots, events) -> None:
    """One pod per node (its nodeName-like selector on the node's own hostname), so placement
    does not depend on the order of retries: moving only what the hints accept ends where moving
    every pod on every event ends."""
    placements = []
    for hints in (True, False):
        cp = sim_cluster(options={"scheduler": {"queueing_hints": hints, "events": False}})
        for index, (cpu, zone, tainted, spec) in enumerate(slots):
            create_nodes(cp, 1, NodeTemplate(cpu=str(cpu), labels={"zone": zone},
                                             taints=(GPU_TAINT,) if tainted else ()), start=index)
            cp.apply(_pinned(_pod(f"p{index}", (*spec[:3], None, spec[4])), f"node-{index}"))
        cp.advance(30)
        for event in events:
            _apply(cp, event, [])
            cp.advance(30)
        placements.append(sorted((p.metadata.name, p.spec.node_name or "")
                                 for p in cp.client.list(Pod, "default").items))
    assert placements[0] == placements[1]


# -- pure: what moves nothing -----------------------------------------------------------------------
REJECTORS = st.sets(st.sampled_from(["NodeResourcesFit", "NodeAffinity", "TaintToleration",
                                     "NodeUnschedulable", "NodePorts", "InterPodAffinity",
                                     "PodTopologySpread"]), min_size=1)
TERM = PodAffinityTerm(LabelSelector((("app", "db"),)), "zone")
SPREAD = SpreadConstraint(1, "zone", "DoNotSchedule", LabelSelector((("app", "db"),)))
pure_pods = st.tuples(st.integers(0, 4000), st.sampled_from([(), (("zone", "a"),)]),
                      st.sampled_from([(), (TERM,)]), st.sampled_from([(), (TERM,)]),
                      st.sampled_from([(), (SPREAD,)]), st.sampled_from([(), (Toleration("gpu", "Exists"),)]),
                      REJECTORS)
pure_nodes = st.tuples(st.integers(1, 8), st.sampled_from(["a", "b"]),
                       st.sampled_from([(), (Taint("gpu", "NoSchedule"),)]), st.booleans())


@settings(max_examples=200, deadline=None)
@given(st.lists(pure_pods, min_size=1, max_size=12), pure_nodes, st.text("xyz", min_size=1, max_size=4),
       st.sampled_from(["", "1", "2"]))
def test_a_label_nobody_selects_on_moves_no_pod(pods, base, key, value) -> None:
    profile = default_profile()
    q = SchedulingQueue(PrioritySort().sort_key, hints=hint_map(profile))
    for i, (cpu, selector, affinity, anti, spread, tolerations, rejectors) in enumerate(pods):
        p = pod(f"p{i}", cpu_m=cpu, node_selector=selector, affinity=affinity, anti_affinity=anti,
                spread_constraints=spread, tolerations=tolerations, labels={"app": "web"})
        q.add(p, 0.0)
        q.pop(0.0)
        q.unschedulable(p, 0.0, sorted(rejectors))
    cpu, zone, taints, cordoned = base
    before = node("n", cpu=cpu, labels={"zone": zone}, taints=taints, unschedulable=cordoned)
    after = replace(before, labels={**before.labels, f"unrelated-{key}": value})
    events = node_update_events(before, after)
    assert events == [ClusterEvent(NODE, events[0].action)]  # an UpdateNodeLabel
    assert sum(q.move(e, before, after, 50.0) for e in events) == 0
    assert all(q.where(f"default/p{i}") == "unschedulable" for i in range(len(pods)))
