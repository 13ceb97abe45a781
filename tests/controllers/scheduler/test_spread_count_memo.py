"""PodTopologySpread's per-node count memo (``NodeInfo.counts``) always equals counting the node's
pods again: pods added, replaced (terminating), removed, and preemption's clones in between."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.controllers.scheduler.plugins.pod_topology_spread import (
    HOSTNAME,
    SCHEDULE_ANYWAY,
    _count,
    _node_count,
)
from kbatch.controllers.scheduler.snapshot import Snapshot
from kbatch.controllers.scheduler.types import LabelSelector, SpreadConstraint

from .sched_builders import node, pod

_SELECTORS = [LabelSelector((("app", "a"),)), LabelSelector((("app", "b"),)),
              LabelSelector((("app", "a"), ("tier", "x")))]
_OPS = st.lists(st.tuples(st.sampled_from(["add", "terminate", "remove", "count", "clone"]),
                          st.integers(0, 5), st.integers(0, 1), st.sampled_from(["a", "b"]),
                          st.sampled_from(["ns1", "ns2"])), max_size=40)


@settings(max_examples=150, deadline=None)
@given(_OPS)
def test_memoised_counts_equal_a_fresh_count(ops: list[tuple[str, int, int, str, str]]) -> None:
    snapshot = Snapshot()
    for name in ("n0", "n1"):
        snapshot.set_node(node(name))
    pods = {}
    for op, index, where, app, namespace in ops:
        key = f"p{index}"
        if op == "add":
            p = pod(key, namespace=namespace, labels={"app": app, "tier": "x"})
            pods[key] = p
            snapshot.add_pod(p, f"n{where}")
        elif op == "terminate" and key in pods:
            pods[key] = replace(pods[key], terminating=True)
            snapshot.add_pod(pods[key], snapshot.node_of(pods[key].key) or "n0")
        elif op == "remove" and key in pods:
            snapshot.remove_pod(pods.pop(key).key)
        elif op == "clone":
            clone = snapshot.get(f"n{where}").clone()
            for p in list(clone.pods.values())[:1]:
                clone.remove_pod(p.key)
            for selector in _SELECTORS:
                c = SpreadConstraint(3, HOSTNAME, SCHEDULE_ANYWAY, selector)
                assert _node_count(clone, c, namespace) == _count(clone.pods.values(), c, namespace)
        for info in snapshot:
            for selector in _SELECTORS:
                c = SpreadConstraint(3, HOSTNAME, SCHEDULE_ANYWAY, selector)
                assert _node_count(info, c, namespace) == _count(info.pods.values(), c, namespace)
