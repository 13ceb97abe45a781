"""Upstream's Coscheduling integration tables, through kbatch's control plane in virtual time.

Source: kubernetes-sigs/scheduler-plugins HEAD 903da7df (2026-08-16)
``test/integration/coscheduling_test.go`` (``TestCoschedulingPlugin``, ``TestPodCompleted``,
``TestPodgroupBackoff``: every case) and ``test/integration/podgroup_controller_test.go``
(``TestPodGroupController``: every case). Upstream runs a real API server and scheduler and polls in
wall-clock time (up to 120 s); here the same objects are created one by one and the clock advances.
Priorities as upstream's ``test/integration/utils.go``: mid 100, high 1000.
"""

from __future__ import annotations

from typing import Any

import pytest
from gang.builders import X_LABEL, bound, priority_class, x_group

from kbatch.api.core_v1 import Pod
from kbatch.api.scheduling_x_v1alpha1 import PodGroup
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import NodeTemplate, create_nodes


def _config(**args: object) -> dict[str, Any]:
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": [{"schedulerName": "default-scheduler",
                          "pluginConfig": [{"name": "Coscheduling", "args": args}]}]}


def _pod(name: str, *, group: str | None = None, memory: str | None = None, cpu: str | None = None,
         priority: str = "mid", node: str | None = None, command: str = "sleep 600") -> dict[str, Any]:
    requests = {k: v for k, v in (("memory", memory), ("cpu", cpu)) if v}
    container: dict[str, Any] = {"name": "c", "image": "pause", "command": ["sh", "-c", command]}
    if requests:
        container["resources"] = {"requests": requests}
    spec: dict[str, Any] = {"restartPolicy": "Never", "terminationGracePeriodSeconds": 0,
                            "priorityClassName": priority, "containers": [container]}
    if node:
        spec["nodeName"] = node
    meta: dict[str, Any] = {"name": name}
    if group:
        meta["labels"] = {X_LABEL: group}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def _cluster(controllers: str = "*", **args: object) -> ControlPlane:
    cp = ControlPlane(seed=0, controllers=controllers, scheduler_config=_config(**args))
    cp.apply([priority_class("mid", 100), priority_class("high", 1000)])
    return cp


def _create_one_by_one(cp: ControlPlane, docs: list[dict[str, Any]]) -> None:
    for doc in docs:
        cp.apply(doc)


# -- TestCoschedulingPlugin (one node: 300 bytes of memory, 32 pods; permitWaitingTimeSeconds 3) ------
M, H = "mid", "high"
PLUGIN_CASES = [
    ("equal priority, sequentially pg1 meet min and pg2 not meet min",
     [("t1-p1-1", "pg1-1", "50", M), ("t1-p1-2", "pg1-1", "50", M), ("t1-p1-3", "pg1-1", "50", M),
      ("t1-p2-1", "pg1-2", "100", M), ("t1-p2-2", "pg1-2", "100", M), ("t1-p2-3", "pg1-2", "100", M),
      ("t1-p2-4", "pg1-2", "100", M)],
     [("pg1-1", 3, None), ("pg1-2", 4, None)], ["t1-p1-1", "t1-p1-2", "t1-p1-3"]),
    ("equal priority, not sequentially pg1 meet min and pg2 not meet min",
     [("t2-p1-1", "pg2-1", "50", M), ("t2-p2-1", "pg2-2", "100", M), ("t2-p1-2", "pg2-1", "50", M),
      ("t2-p2-2", "pg2-2", "100", M), ("t2-p1-3", "pg2-1", "50", M), ("t2-p2-3", "pg2-2", "100", M),
      ("t2-p2-4", "pg2-2", "100", M)],
     [("pg2-1", 3, None), ("pg2-2", 4, None)], ["t2-p1-1", "t2-p1-2", "t2-p1-3"]),
    ("equal priority, not sequentially pg1 not meet min and 3 regular pods",
     [("t3-p1-1", "pg3-1", "50", M), ("t3-p2", None, "100", M), ("t3-p1-2", "pg3-1", "50", M),
      ("t3-p3", None, "100", M), ("t3-p1-3", "pg3-1", "50", M)],
     [("pg3-1", 4, None)], ["t3-p2", "t3-p3"]),
    ("different priority, sequentially pg1 meet min and pg2 meet min",
     [("t4-p1-1", "pg4-1", "100", M), ("t4-p1-2", "pg4-1", "100", M), ("t4-p1-3", "pg4-1", "100", M),
      ("t4-p2-1", "pg4-2", "50", H), ("t4-p2-2", "pg4-2", "50", H), ("t4-p2-3", "pg4-2", "50", H)],
     [("pg4-1", 3, None), ("pg4-2", 3, None)], ["t4-p2-1", "t4-p2-2", "t4-p2-3"]),
    ("different priority, not sequentially pg1 meet min and pg2 meet min",
     [("t5-p1-1", "pg5-1", "100", M), ("t5-p2-1", "pg5-2", "50", H), ("t5-p1-2", "pg5-1", "100", M),
      ("t5-p2-2", "pg5-2", "50", H), ("t5-p1-3", "pg5-1", "100", M), ("t5-p2-3", "pg5-2", "50", H)],
     [("pg5-1", 3, None), ("pg5-2", 3, None)], ["t5-p2-1", "t5-p2-2", "t5-p2-3"]),
    ("different priority, not sequentially pg1 meet min and 3 regular pods",
     [("t6-p1-1", "pg6-1", "50", M), ("t6-p2", None, "100", H), ("t6-p1-2", "pg6-1", "50", M),
      ("t6-p3", None, "100", H), ("t6-p1-3", "pg6-1", "50", M), ("t6-p4", None, "100", H)],
     [("pg6-1", 3, None)], ["t6-p2", "t6-p3", "t6-p4"]),
    ("equal priority, not sequentially pg1 meet min and p2 p3 not meet min",
     [("t7-p1-1", "pg7-1", "50", M), ("t7-p2-1", "pg7-2", "100", M), ("t7-p3-1", "pg7-3", "100", M),
      ("t7-p1-2", "pg7-1", "50", M), ("t7-p2-2", "pg7-2", "100", M), ("t7-p3-2", "pg7-3", "100", M),
      ("t7-p1-3", "pg7-1", "50", M), ("t7-p2-3", "pg7-2", "100", M), ("t7-p3-3", "pg7-3", "100", M),
      ("t7-p2-4", "pg7-2", "100", M), ("t7-p3-4", "pg7-3", "100", M)],
     [("pg7-1", 3, None), ("pg7-2", 4, None), ("pg7-3", 4, None)], ["t7-p1-1", "t7-p1-2", "t7-p1-3"]),
    ("equal priority, not sequentially pg1 meet min and p2 p3 not meet min, pgs have min resources",
     [("t8-p1-1", "pg8-1", "50", M), ("t8-p2-1", "pg8-2", "100", M), ("t8-p3-1", "pg8-3", "100", M),
      ("t8-p1-2", "pg8-1", "50", M), ("t8-p2-2", "pg8-2", "100", M), ("t8-p3-2", "pg8-3", "100", M),
      ("t8-p1-3", "pg8-1", "50", M), ("t8-p2-3", "pg8-2", "100", M), ("t8-p3-3", "pg8-3", "100", M),
      ("t8-p2-4", "pg8-2", "100", M), ("t8-p3-4", "pg8-3", "100", M)],
     [("pg8-1", 3, "150"), ("pg8-2", 4, "400"), ("pg8-3", 4, "400")], ["t8-p1-1", "t8-p1-2", "t8-p1-3"]),
    ("equal priority, not sequentially pg1 meet min and pg2 not meet min, pgs have min resources",
     [("t9-p1-1", "pg9-1", "50", M), ("t9-p2-1", "pg9-2", "100", M), ("t9-p1-2", "pg9-1", "50", M),
      ("t9-p2-2", "pg9-2", "100", M), ("t9-p1-3", "pg9-1", "50", M), ("t9-p2-3", "pg9-2", "100", M),
      ("t9-p2-4", "pg9-2", "100", M)],
     [("pg9-1", 3, "150"), ("pg9-2", 4, "400")], ["t9-p1-1", "t9-p1-2", "t9-p1-3"]),
]


@pytest.mark.parametrize(("name", "pods", "groups", "expected"), PLUGIN_CASES,
                         ids=[c[0] for c in PLUGIN_CASES])
def test_coscheduling_plugin(name: str, pods: list[tuple], groups: list[tuple],
                             expected: list[str]) -> None:
    cp = _cluster(permitWaitingTimeSeconds=3)
    create_nodes(cp, 1, NodeTemplate(memory="300", pods=32))
    cp.apply([x_group(g, n, min_resources={"memory": mem} if mem else None) for g, n, mem in groups])
    _create_one_by_one(cp, [_pod(n, group=g, memory=m, priority=p) for n, g, m, p in pods])
    cp.advance(120)
    # upstream waits for the expected pods to be scheduled and checks nothing else (with different
    # priorities the high group preempts the mid one's pods, as many as it needs)
    assert set(expected) <= set(bound(cp, [p[0] for p in pods]))


def test_pod_completed_pg_cannot_be_scheduled_with_completed_pod() -> None:
    """TestPodCompleted "pg cannot be scheduled with completed pod": minMember 6, one member already
    Succeeded on the node, five pending: the finished pod is no member any more (the scheduler's pod
    informer leaves terminal pods out), so none of the five is scheduled."""
    cp = _cluster(permitWaitingTimeSeconds=3, podGroupBackoffSeconds=1)
    create_nodes(cp, 1, NodeTemplate(cpu="6", pods=32))
    cp.apply(x_group("pg1-1", 6))
    cp.apply(_pod("t1-p1-1", group="pg1-1", cpu="1", node="node-0", command="true"))
    cp.advance(5)
    assert cp.client.get(Pod, "t1-p1-1", "default").status.phase == "Succeeded"
    names = [f"t1-p1-{i}" for i in range(2, 7)]
    _create_one_by_one(cp, [_pod(n, group="pg1-1", cpu="1") for n in names])
    cp.advance(10)
    assert bound(cp, names) == []


def test_podgroup_backoff_pg1_can_not_be_scheduled_and_pg2_can_be_scheduled() -> None:
    """TestPodgroupBackoff: nodes of 6, 2, 2 and 2 CPUs; pg1-1 wants six 4-CPU pods (one fits),
    pg2-1 one 2-CPU pod; podGroupBackoffSeconds 1."""
    cp = _cluster(permitWaitingTimeSeconds=3, podGroupBackoffSeconds=1)
    create_nodes(cp, 1, NodeTemplate(cpu="6", pods=32))
    create_nodes(cp, 3, NodeTemplate(cpu="2", pods=32), start=1)
    cp.apply([x_group("pg1-1", 6), x_group("pg2-1", 1)])
    pods = [_pod(f"t1-p1-{i}", group="pg1-1", cpu="4") for i in range(1, 7)]
    _create_one_by_one(cp, [*pods, _pod("t1-p2-1", group="pg2-1", cpu="2")])
    cp.advance(120)
    assert bound(cp, [f"t1-p1-{i}" for i in range(1, 7)] + ["t1-p2-1"]) == ["t1-p2-1"]


# -- podgroup_controller_test.go TestPodGroupController --------------------------------------------
# (name, labelled, existing phase, intermediate status, incoming phases, expected status)
# status: (phase, occupiedBy, running, succeeded, failed); scheduleStartTime ignored, as upstream
CONTROLLER_CASES = [
    ("Statuses of all pods change from pending to running", True, None, ("Scheduling", "", 0, 0, 0),
     ["Running", "Running", "Running"], ("Running", "", 3, 0, 0)),
    ("Statuses of all pods change from running to succeeded", True, "Running", ("Running", "", 3, 0, 0),
     ["Succeeded", "Succeeded", "Succeeded"], ("Finished", "", 0, 3, 0)),
    ("The status of one pod changes from running to succeeded", True, "Running", ("Running", "", 3, 0, 0),
     ["Succeeded"], ("Running", "", 2, 1, 0)),
    ("The status of the pod changes from running to failed", True, "Running", ("Running", "", 3, 0, 0),
     ["Failed"], ("Failed", "", 2, 0, 1)),
    ("The status of no podGroup label pod changes from pending to running", False, None,
     ("Pending", "", 0, 0, 0), ["Running", "Running", "Running"], ("Pending", "", 0, 0, 0)),
]


def _status(cp: ControlPlane) -> tuple[str, str, int, int, int]:
    s = cp.client.get(PodGroup, "pg1-1", "default").status
    return (s.phase or "", s.occupied_by or "", s.running or 0, s.succeeded or 0, s.failed or 0)


@pytest.mark.parametrize(("name", "labelled", "existing", "intermediate", "incoming", "expected"),
                         CONTROLLER_CASES, ids=[c[0] for c in CONTROLLER_CASES])
def test_pod_group_controller(name: str, labelled: bool, existing: str | None, intermediate: tuple,
                              incoming: list[str], expected: tuple) -> None:
    """The pods are bound to the node from the start (upstream's ``.Node(nodeName)``) and their phases
    written through the status subresource; only the PodGroup controller runs (upstream's test runs
    no kubelet either)."""
    cp = _cluster(controllers="coscheduling")
    create_nodes(cp, 1, NodeTemplate(memory="300", pods=32))
    cp.apply(x_group("pg1-1", 3))
    names = [f"t1-p1-{i}" for i in (1, 2, 3)]
    for n in names:
        cp.apply(_pod(n, group="pg1-1" if labelled else None, memory="50", node="node-0"))
        if existing:
            cp.client.patch_status(Pod, n, {"status": {"phase": existing}}, "default")
    cp.run_until_idle()
    assert _status(cp) == intermediate
    for n, phase in zip(names, incoming, strict=False):
        cp.client.patch_status(Pod, n, {"status": {"phase": phase}}, "default")
    cp.run_until_idle()
    assert _status(cp) == expected
