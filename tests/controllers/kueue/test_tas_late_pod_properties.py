"""Properties of the TAS node controller with late pods (kbatch.controllers.kueue.tas.node_failure
and .late_pods, upstream ``node_controller.go``) over random nodes, Workloads and pods, one
reconcile of one node: the node enters a Workload's ``unhealthyNodes`` only when its assignment
names the node; a pod is failed only when it is a TAS pod sent to the node by its hostname
selector, unbound, ungated and pending, and its Workload is neither finished nor evicted; a bound
pod is never touched; every pod failed carries ``TerminatedByKueue`` /
``UnschedulableOnAssignedNode`` and one event."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.tas.node_failure import NodeFailureController
from kbatch.runtime.reconcile import Request

from .test_upstream_tas_node_failure import (
    FLAVOR,
    NODE,
    NODE2,
    _Mgr,
    _node,
    _pending,
    _pod,
    _Store,
    _workload,
)


@st.composite
def _worlds(draw: st.DrawFn) -> tuple[list[Any], dict[str, bool]]:
    node = draw(st.sampled_from([
        _node(), _node(ready="False"), _node(ready=None),
        _node(taints=[{"key": "foo", "effect": "NoSchedule"}]),
        _node(taints=[{"key": "foo", "effect": "NoExecute"}])]))
    assigned = draw(st.sampled_from([(NODE,), (NODE2,), (NODE, NODE2)]))
    condition = draw(st.sampled_from([None, "Finished", "Evicted"]))
    wl = _workload(*[(n, 1) for n in assigned], condition=condition,
                   unhealthy=draw(st.sampled_from([(), (NODE2,)])), admitted=draw(st.booleans()))
    objs: list[Any] = [node, wl, FLAVOR]
    for i in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["sent", "sent-elsewhere", "gated", "running", "failed", "non-tas"]))
        objs.append(_kind(kind, f"p{i}"))
    gates = {"TASReplaceNodeOnPodTermination": draw(st.booleans()),
             "TASReplaceNodeOnNodeTaints": draw(st.booleans())}
    return objs, gates


def _kind(kind: str, name: str) -> Pod:
    if kind in ("running", "failed"):
        return _pod(name, phase="Running" if kind == "running" else "Failed")
    return _pending(name, NODE2 if kind == "sent-elsewhere" else NODE, gated=kind == "gated",
                    tas=kind != "non-tas")


def _failed_by_kueue(pod: Pod) -> bool:
    return any(c.type == "TerminatedByKueue" for c in (pod.status.conditions if pod.status else None) or ())


@settings(max_examples=300, deadline=None)
@given(_worlds())
def test_one_reconcile_keeps_the_late_pod_rules(world: tuple[list[Any], dict[str, bool]]) -> None:
    objs, gates = world
    before = {o.metadata.name: o for o in objs if isinstance(o, Pod)}
    wl_before = next(o for o in objs if isinstance(o, Workload))
    store = _Store(objs)
    mgr = _Mgr(store, gates)
    NodeFailureController(mgr).reconcile(Request("", NODE))
    wl = store.get(Workload, "test-workload", "default")
    gained = {n.name for n in (wl.status.unhealthy_nodes if wl.status else None) or ()} - {
        n.name for n in (wl_before.status.unhealthy_nodes if wl_before.status else None) or ()}
    if gained:
        names = {v for psa in wl.status.admission.pod_set_assignments for v in  # type: ignore[union-attr]
                 _hosts(psa)}
        assert gained == {NODE} and NODE in names
    conditions = {c.type for c in (wl_before.status.conditions if wl_before.status else None) or ()}
    failed = []
    for name, old in before.items():
        new = store.get(Pod, name, "default")
        if new is old:
            continue
        failed.append(name)
        assert _failed_by_kueue(new) and new.status.phase == "Failed"
        assert not old.spec.node_name and old.status.phase == "Pending" and not old.spec.scheduling_gates
        assert (old.spec.node_selector or {}).get("kubernetes.io/hostname") == NODE
        assert "kueue.x-k8s.io/podset-unconstrained-topology" in (old.metadata.annotations or {})
        assert not conditions & {"Finished", "Evicted"}
    assert len([e for e in mgr.recorder.events if e[1] == "PodTerminatedByKueue"]) == len(failed)


def _hosts(psa: Any) -> set[str]:
    from kbatch.controllers.kueue.tas.cluster import assignment_domains

    return {values[-1] for values, _ in assignment_domains(psa.topology_assignment)[1] if values}
