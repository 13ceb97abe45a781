"""Upstream's node-lifecycle tables, through kbatch's control plane.

Source: kubernetes/kubernetes ``pkg/controller/nodelifecycle/node_lifecycle_controller_test.go``
(``TestTaintsNodeByCondition``, ``TestNodeEventGeneration``) against
``node_lifecycle_controller.go`` (``doNoScheduleTaintingPass``, ``monitorNodeHealth``) and
``pkg/controller/util/node/controller_utils.go`` (``SwapNodeControllerTaint`` stamps ``timeAdded``
on every taint it adds). Upstream calls one pass on a fake client; here ``node-lifecycle`` alone runs
on a one-node cluster, so the zone is fully disrupted when the node is not ready and no ``NoExecute``
condition taint is added (master disruption mode): the ``NoSchedule`` taints are the pass's answer.

``TestReconcileNodeLabels`` is not translated: kbatch does not model ``reconcileNodeLabels`` (the
``beta.kubernetes.io/os``/``arch`` labels mirrored from the stable ones; docs/simulation.md).
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.core_v1 import Event, Node
from kbatch.runtime.controlplane import ControlPlane

ZONE = {"topology.kubernetes.io/region": "region1", "topology.kubernetes.io/zone": "zone1",
        "failure-domain.beta.kubernetes.io/region": "region1",
        "failure-domain.beta.kubernetes.io/zone": "zone1"}

CASES = [
    ("NetworkUnavailable is true", [("Ready", "True"), ("NetworkUnavailable", "True")],
     {"node.kubernetes.io/network-unavailable"}),
    ("Ready is false", [("Ready", "False")], {"node.kubernetes.io/not-ready"}),
    ("Ready is unknown", [("Ready", "Unknown")], {"node.kubernetes.io/unreachable"}),
    ("(kbatch) Ready is true", [("Ready", "True")], set()),
]


def _plane() -> ControlPlane:
    cp = ControlPlane(controllers="node-lifecycle")
    cp.run_until_idle()
    return cp


def _node(conditions: list[tuple[str, str]]) -> Node:
    status: dict[str, Any] = {"conditions": [
        {"type": t, "status": s, "lastHeartbeatTime": "2015-01-01T12:00:00Z",
         "lastTransitionTime": "2015-01-01T12:00:00Z"} for t, s in conditions]}
    return Node.model_validate({"metadata": {"name": "node0", "labels": ZONE}, "status": status})


@pytest.mark.parametrize(("conditions", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_taints_node_by_condition(conditions: list[tuple[str, str]], expected: set[str]) -> None:
    """TestTaintsNodeByCondition: exactly the condition's ``NoSchedule`` taint, stamped ``timeAdded``
    now (``SwapNodeControllerTaint``)."""
    cp = _plane()
    cp.advance(7)
    cp.client.create(_node(conditions))
    cp.run_until_idle()
    taints = cp.client.get(Node, "node0").spec.taints or []
    assert {t.key for t in taints if t.effect == "NoSchedule"} == expected
    assert all(t.effect == "NoSchedule" for t in taints)  # the one zone is fully disrupted
    assert {t.time_added.isoformat() for t in taints} <= {"2025-01-01T00:00:07+00:00"}


def test_taints_node_by_condition_follow_the_updates() -> None:
    """TestTaintsNodeByCondition runs its cases on one node in turn: each update replaces the
    previous condition taint."""
    cp = _plane()
    cp.client.create(_node([("Ready", "True")]))
    cp.run_until_idle()
    for _, conditions, expected in CASES:
        cp.client.patch_status(Node, "node0", {"status": {"conditions": [
            {"type": t, "status": s} for t, s in conditions]}}, patch_type="merge")
        cp.run_until_idle()
        taints = cp.client.get(Node, "node0").spec.taints or []
        assert {t.key for t in taints if t.effect == "NoSchedule"} == expected, conditions


def test_node_event_generation() -> None:
    """TestNodeEventGeneration: a node first seen (even Unknown) gets exactly one event,
    ``RegisteredNode``, naming it by uid."""
    cp = _plane()
    created = cp.client.create(_node([("Ready", "Unknown")]))
    cp.run_until_idle()
    events = [e for e in cp.client.list(Event, "default").items if e.involved_object.kind == "Node"]
    assert [e.reason for e in events] == ["RegisteredNode"]
    assert events[0].involved_object.uid == created.metadata.uid
    assert events[0].message == "Node node0 event: Registered Node node0 in Controller"
