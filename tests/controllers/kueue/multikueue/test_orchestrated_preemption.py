"""MultiKueue's orchestrated preemption (``MultiKueueOrchestratedPreemption``, alpha, off).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/workload.go``
(``cloneForCreate``, step 7 ``workloadToOpenPreemptionGate``, ``singleClusterPreemptionTimeout``),
KEP ``keps/8303-multikueue-orchestrated-preemption``. Two workers, each full with a low-priority
job of its own; a high-priority job dispatched by the manager needs a preemption on either. With
the gate on, only the worker whose copy signalled first (ties: by name) preempts; with it off,
both do.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue import preemption_gates as G
from kbatch.controllers.kueue.multikueue import attach_worker
from kbatch.controllers.kueue.multikueue.group import clone_for_create
from kbatch.controllers.kueue.multikueue.orchestrated_preemption import (
    SINGLE_CLUSTER_PREEMPTION_TIMEOUT,
    gate_to_open,
)
from kbatch.sim import NodeTemplate, create_nodes
from kbatch.testing import make_job

from ..helpers import cluster_queue, flavor, local_queue, quota
from .world import NAMESPACE, kubeconfig, mk_check, mk_cluster, mk_config, queues, secret

KUEUE = "kueue.x-k8s.io/v1beta2"
ON = "MultiKueueOrchestratedPreemption=true"
HIGH = {"apiVersion": KUEUE, "kind": "WorkloadPriorityClass", "metadata": {"name": "high"}, "value": 100}


def _job(cp: ControlPlane, name: str, cpu: str, high: bool = False) -> None:
    j = make_job(name).command("sleep 600").requests(cpu=cpu).label("kueue.x-k8s.io/queue-name", "lq")
    if high:
        j = j.label("kueue.x-k8s.io/priority-class", "high")
    cp.client.create(j.obj())
    cp.run_until_idle()


def _world(gates: str | None) -> tuple[ControlPlane, dict[str, ControlPlane]]:
    manager = ControlPlane(seed=0, feature_gates=gates)
    workers: dict[str, ControlPlane] = {}
    for i, name in enumerate(("w1", "w2")):
        worker = ControlPlane(seed=i + 1, clock=manager.clock, feature_gates=gates)
        create_nodes(worker, 1, NodeTemplate(cpu="8", memory="32Gi"))
        worker.apply([flavor("default"), HIGH, local_queue("lq", "cq"),
                      cluster_queue("cq", (["cpu"], [("default", [quota("cpu", "2")])]),
                                    preemption={"withinClusterQueue": "LowerPriority"})])
        _job(worker, "low", "2")
        attach_worker(manager, name, worker)
        workers[name] = worker
    create_nodes(manager, 1, NodeTemplate(cpu="8", memory="32Gi"))
    manager.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
    manager.apply([HIGH, mk_check(), mk_config("mkconf", list(workers)), *queues("4", ["mk"])])
    for name in workers:
        config = secret(f"{name}-kubeconfig", kubeconfig(f"kbatch+inprocess://{name}"))
        manager.apply([config, mk_cluster(name)], namespace=NAMESPACE)
    manager.run_until_idle()
    return manager, workers


def _preempted(worker: ControlPlane) -> list[str]:
    """The worker's Workloads ever preempted (a ``Preempted`` condition, True or since re-admitted)."""
    return sorted(wl.metadata.name for wl in worker.client.list(Workload).items
                  if any(c.type == "Preempted" for c in (wl.status.conditions or ())))


def _settle(manager: ControlPlane, seconds: int = 10) -> None:
    for _ in range(seconds):
        manager.advance(1)


def test_only_the_first_signalling_worker_preempts() -> None:
    manager, workers = _world(ON)
    _job(manager, "urgent", "1", high=True)
    _settle(manager)
    assert [_preempted(w) != [] for w in workers.values()] == [True, False]
    (copy,) = [wl for wl in workers["w1"].client.list(Workload).items
               if wl.metadata.name.startswith("job-urgent")]
    assert [g.name for g in copy.spec.preemption_gates] == [G.MULTIKUEUE_GATE]
    assert G.is_open(copy.status, G.MULTIKUEUE_GATE)
    left = [wl.metadata.name for wl in workers["w2"].client.list(Workload).items]
    assert not any(n.startswith("job-urgent") for n in left)  # the copy on w2 went once w1 admitted


def test_without_the_gate_every_worker_preempts() -> None:
    manager, workers = _world(None)
    _job(manager, "urgent", "1", high=True)
    _settle(manager)
    assert [_preempted(w) != [] for w in workers.values()] == [True, True]  # w2's low re-admitted since


# --- the pure parts -------------------------------------------------------------------------------

T0 = datetime(2026, 1, 1, tzinfo=UTC)
TIMEOUT = SINGLE_CLUSTER_PREEMPTION_TIMEOUT


def _remote(blocked_at: datetime | None = None, opened_at: datetime | None = None) -> Workload:
    status: dict[str, Any] = {}
    if blocked_at is not None:
        status["conditions"] = [{"type": "BlockedOnPreemptionGates", "status": "True",
                                 "reason": "PreemptionGated", "message": "",
                                 "lastTransitionTime": blocked_at.isoformat()}]
    position, at = ("Open", opened_at) if opened_at is not None else ("Closed", T0)
    status["preemptionGates"] = [{"name": G.MULTIKUEUE_GATE, "position": position,
                                  "lastTransitionTime": at.isoformat()}]
    spec = {"preemptionGates": [{"name": G.MULTIKUEUE_GATE}]}
    return Workload.model_validate({"apiVersion": KUEUE, "kind": "Workload", "metadata": {"name": "wl"},
                                    "spec": spec, "status": status})


@pytest.mark.parametrize("remotes, now, want", [
    ({"a": _remote(), "b": None}, T0, (None, 0.0)),  # nobody asked to preempt
    ({"a": _remote(T0 + timedelta(seconds=5)), "b": _remote(T0)}, T0, ("b", TIMEOUT)),
    ({"b": _remote(T0), "a": _remote(T0)}, T0, ("a", TIMEOUT)),  # tie: by name
    # one gate opened 60 s ago: the next waits out the rest of the timeout
    ({"a": _remote(opened_at=T0), "b": _remote(T0)}, T0 + timedelta(seconds=60),
     (None, TIMEOUT - 60)),
    ({"a": _remote(opened_at=T0), "b": _remote(T0)}, T0 + timedelta(seconds=TIMEOUT), ("b", TIMEOUT)),
])
def test_workload_to_open_preemption_gate(remotes: dict, now: datetime, want: tuple) -> None:
    assert gate_to_open(remotes, now) == want


def test_clone_for_create_carries_only_the_multikueue_gate() -> None:
    local = Workload.model_validate({"apiVersion": KUEUE, "kind": "Workload",
                                     "metadata": {"name": "wl", "namespace": "default"},
                                     "spec": {"preemptionGates": [{"name": "mine"}]}})
    assert [g.name for g in clone_for_create(local, "o").spec.preemption_gates] == ["mine"]
    assert [g.name for g in clone_for_create(local, "o", True).spec.preemption_gates] == [G.MULTIKUEUE_GATE]
