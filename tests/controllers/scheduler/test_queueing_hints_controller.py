"""Queueing hints on a ControlPlane: unrelated changes leave unschedulable pods alone, the changes
their rejecting plugins registered for bring them back."""

from __future__ import annotations

from kubelet.cluster import get_pod, pod_yaml, sim_cluster

from kbatch.api.core_v1 import Node
from kbatch.sim import NodeTemplate, create_nodes


def _attempts(cp, name: str) -> int:  # type: ignore[no-untyped-def]
    entry = cp.manager.get("scheduler").reconciler.queue.entry(f"default/{name}")
    return entry.attempts if entry is not None else -1


def test_a_label_change_nobody_selects_on_does_not_requeue() -> None:
    cp = sim_cluster(1, NodeTemplate(cpu="1"))
    cp.apply(pod_yaml("big", "sleep 5", cpu="2"))
    cp.advance(20)
    assert _attempts(cp, "big") == 1
    reconciles = cp.manager.get("scheduler").reconciles
    cp.client.patch(Node, "node-0", {"metadata": {"labels": {"team": "x"}}})
    cp.advance(20)
    assert _attempts(cp, "big") == 1 and cp.manager.get("scheduler").reconciles == reconciles
    # upstream's standing workaround: NodeResourcesFit registers Node/Add, so it also gets
    # UpdateNodeTaint without a hint (kubernetes#109437) and a taint change retries the pod
    cp.client.patch(Node, "node-0", {"spec": {"taints": [{"key": "k", "effect": "NoSchedule"}]}})
    cp.advance(20)
    assert _attempts(cp, "big") == 2
    # now TaintToleration alone rejects it (static filters run first): more cpu or another label
    # cannot help, removing the taint can
    cp.client.patch_status(Node, "node-0", {"status": {"allocatable": {"cpu": "4"}}})
    cp.client.patch(Node, "node-0", {"metadata": {"labels": {"team": "y"}}})
    cp.advance(20)
    assert _attempts(cp, "big") == 2
    cp.client.patch(Node, "node-0", {"spec": {"taints": None}})
    cp.advance(20)
    assert get_pod(cp, "big").spec.node_name == "node-0"


def test_a_node_matching_the_selector_brings_the_pod_back_and_others_do_not() -> None:
    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "sleep 5", extra_spec="\n  nodeSelector: {pool: gpu}"))
    cp.advance(20)
    create_nodes(cp, 3, NodeTemplate(labels={"pool": "cpu"}), prefix="cpu-")
    cp.advance(20)
    assert _attempts(cp, "p") == 1 and not get_pod(cp, "p").spec.node_name
    create_nodes(cp, 1, NodeTemplate(labels={"pool": "gpu"}), prefix="gpu-")
    cp.advance(20)
    assert get_pod(cp, "p").spec.node_name == "gpu-0"


def test_an_affinity_peer_binding_brings_the_pod_back_before_the_flush() -> None:
    cp = sim_cluster(2, NodeTemplate(labels={"zone": "a"}))
    affinity = """
  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: db}}
        topologyKey: zone"""
    cp.apply(pod_yaml("follower", "sleep 100", extra_spec=affinity))
    cp.advance(20)
    assert not get_pod(cp, "follower").spec.node_name
    cp.apply(pod_yaml("db", "sleep 100").replace("metadata: {name: db, namespace: default}",
                                                  "metadata: {name: db, namespace: default, "
                                                  "labels: {app: db}}"))
    cp.advance(15)  # far less than the 5-minute flush
    assert get_pod(cp, "follower").spec.node_name


def test_hints_off_moves_every_pod_on_any_change() -> None:
    cp = sim_cluster(1, NodeTemplate(cpu="1"), options={"scheduler": {"queueing_hints": False}})
    cp.apply(pod_yaml("big", "sleep 5", cpu="2"))
    cp.advance(20)
    cp.client.patch(Node, "node-0", {"metadata": {"labels": {"team": "x"}}})
    cp.advance(20)
    assert _attempts(cp, "big") == 2
