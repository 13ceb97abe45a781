"""Topology-aware scheduling through MultiKueue: the manager delays the topology, the worker finds it.

Upstream: kubernetes-sigs/kueue v0.19.2 ``test/integration/multikueue/tas/tas_test.go`` ("Topology
has a single level": "should admit workload which fits in a required topology domain"),
``test/e2e/multikueue/baseline/tas_test.go`` ("Should admit a Job and assign topology in the worker
cluster", "Should handle implicit TAS"), ``pkg/scheduler/flavorassigner/tas_flavorassigner.go``
(``podSetTopologyRequest``: a ClusterQueue with a MultiKueue check leaves the TAS pod sets
``delayedTopologyRequest: Pending``) and ``pkg/controller/admissionchecks/multikueue/workload.go``
(``needsDelayedTopologyUpdate``, ``updateDelayedTopologyRequest``). As upstream's integration test,
the manager has no node of the TAS flavor at all: its quota is all it checks.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.api.kueue_v1beta2 import (
    Admission,
    PodSetAssignment,
    TopologyAssignment,
    Workload,
    WorkloadStatus,
)
from kbatch.api.meta import ObjectMeta
from kbatch.controllers.kueue.multikueue.delayed_topology import (
    needs_delayed_topology_update,
    update_delayed_topology_request,
)
from kbatch.sim.nodes import NodeTemplate, create_nodes
from kbatch.testing import make_job

from ..helpers import KUEUE, cluster_queue, local_queue, quota
from ..test_pod_groups import member
from .world import MKWorld, check_of

HOST = "kubernetes.io/hostname"
REQUIRED = "kueue.x-k8s.io/podset-required-topology"
TOPOLOGY = {"apiVersion": KUEUE, "kind": "Topology", "metadata": {"name": "default"},
            "spec": {"levels": [{"nodeLabel": HOST}]}}  # MakeDefaultOneLevelTopology
FLAVOR = {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "tas-flavor"},
          "spec": {"nodeLabels": {"node-group": "tas"}, "topologyName": "default"}}


def _tas_queues(cp: Any, checks: list[str] | None) -> None:
    extra = {"admissionChecksStrategy": {"admissionChecks": [{"name": c} for c in checks]}} if checks else {}
    cp.apply([TOPOLOGY, FLAVOR,
              cluster_queue("tas-cq", (["cpu"], [("tas-flavor", [quota("cpu", "5")])]), **extra),
              local_queue("tas-lq", "tas-cq")])


def tas_world(worker_queues: bool = True) -> MKWorld:
    """Two workers with one 5-cpu node of the TAS flavor each; the manager's TAS ClusterQueue has the
    MultiKueue check and no node."""
    world = MKWorld({"worker1": "4", "worker2": "4"})
    _tas_queues(world.manager, ["mk"])
    for worker in world.workers.values():
        if worker_queues:
            _tas_queues(worker, None)
        create_nodes(worker, 1, NodeTemplate(cpu="5", labels={"node-group": "tas"}), prefix="host-")
    world.manager.run_until_idle()
    return world


def _job(name: str = "job", annotate: bool = True, parallelism: int = 1) -> Job:
    job = (make_job(name).command("sleep 10").requests(cpu="1").parallelism(parallelism)
           .completions(parallelism).label("kueue.x-k8s.io/queue-name", "tas-lq").obj())
    if annotate:
        job.spec.template.metadata = ObjectMeta(annotations={REQUIRED: HOST})
    return job


def _workload(cp: Any) -> Workload:
    (wl,) = cp.client.list(Workload).items
    return wl


def _true(wl: Workload, kind: str) -> bool:
    conditions = (wl.status.conditions if wl.status else None) or ()
    return any(c.type == kind and c.status == "True" for c in conditions)


def _assignment(wl: Workload) -> PodSetAssignment:
    (psa,) = wl.status.admission.pod_set_assignments
    return psa


def test_should_admit_workload_which_fits_in_a_required_topology_domain() -> None:
    world = tas_world(worker_queues=False)
    world.manager.client.create(_job())
    world.manager.run_until_idle()
    # "verify the workload is created in manager cluster and has QuotaReserved": no worker admits yet
    wl = _workload(world.manager)
    assert _true(wl, "QuotaReserved") and not _true(wl, "Admitted")
    psa = _assignment(wl)
    assert (psa.delayed_topology_request, psa.topology_assignment) == ("Pending", None)
    for worker in world.workers.values():
        _tas_queues(worker, None)
    world.manager.advance(2)  # the workers' events reach the manager after the 1 s batch period
    wl = _workload(world.manager)
    selected = wl.status.cluster_name
    assert check_of(wl) == ("Ready", f'The workload was admitted on "{selected}"')
    remote = _workload(world.workers[selected])
    assert remote.spec.pod_sets[0].topology_request.required == HOST
    assert _true(remote, "Admitted")
    assert _assignment(remote).topology_assignment.to_dict() == {
        "levels": [HOST], "slices": [{"domainCount": 1, "podCounts": {"universal": 1},
                                      "valuesPerLevel": [{"universal": "host-0"}]}]}
    # "verify DelayedTopologyRequest is marked Ready on manager": the state only, no topology copied
    psa = _assignment(wl)
    assert (psa.delayed_topology_request, psa.topology_assignment) == ("Ready", None)
    assert _true(wl, "Admitted")


def test_the_job_runs_on_the_worker_and_finishes() -> None:
    """"Should admit a Job and assign topology in the worker cluster": the job's pods are placed on
    the worker's node, the job finishes, nothing is left on the workers."""
    world = tas_world()
    world.manager.client.create(_job(parallelism=2))
    world.manager.run_until_idle()
    selected = _workload(world.manager).status.cluster_name
    pods = world.workers[selected].client.list(Pod).items
    assert sorted(p.spec.node_name for p in pods) == ["host-0", "host-0"]
    world.manager.advance(15)
    wl = _workload(world.manager)
    assert _true(wl, "Finished")
    assert world.manager.client.get(Job, "job", "default").status.succeeded == 2
    assert all(w.client.list(Workload).items == [] for w in world.workers.values())


def test_should_handle_implicit_tas() -> None:
    """A job without the annotation on a TAS-only ClusterQueue: implied TAS, delayed as well."""
    world = tas_world()
    world.manager.client.create(_job(annotate=False))
    world.manager.run_until_idle()
    wl = _workload(world.manager)
    assert _assignment(wl).delayed_topology_request == "Ready"
    assert _assignment(_workload(world.workers[wl.status.cluster_name])).topology_assignment is not None
    assert _true(wl, "Admitted")


def test_a_pod_group_with_a_topology_runs_on_one_worker() -> None:
    world = tas_world()
    members = [member(n, cpu="1", script="sleep 10", annotations={REQUIRED: HOST}) for n in ("a", "b")]
    for m in members:
        m["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] = "tas-lq"
    world.manager.apply(members)
    world.manager.run_until_idle()
    wl = _workload(world.manager)
    assert _assignment(wl).delayed_topology_request == "Ready" and _true(wl, "Admitted")
    selected = wl.status.cluster_name
    placed = {p.metadata.name: p.spec.node_name for p in world.workers[selected].client.list(Pod).items}
    assert placed == {"a": "host-0", "b": "host-0"}
    others = [w for n, w in world.workers.items() if n != selected]
    assert all(w.client.list(Pod).items == [] for w in others)


# --- needsDelayedTopologyUpdate / updateDelayedTopologyRequest, case by case ------------------------
def _wl(*assignments: PodSetAssignment, admitted: bool = True) -> Workload:
    admission = Admission(cluster_queue="cq", pod_set_assignments=list(assignments)) if admitted else None
    meta = ObjectMeta(name="wl", namespace="ns")
    return Workload(metadata=meta, status=WorkloadStatus(admission=admission))


TOPO = TopologyAssignment.model_validate({"levels": [HOST], "slices": [
    {"domainCount": 1, "podCounts": {"universal": 1}, "valuesPerLevel": [{"universal": "h"}]}]})


def _psa(name: str, delayed: str | None = None,
         topology: TopologyAssignment | None = None) -> PodSetAssignment:
    return PodSetAssignment(name=name, delayed_topology_request=delayed, topology_assignment=topology)


def test_needs_delayed_topology_update_cases() -> None:
    placed = _wl(_psa("main", topology=TOPO))
    assert not needs_delayed_topology_update(_wl(_psa("main", "Pending")), None)  # no remote
    assert not needs_delayed_topology_update(_wl(_psa("main", "Pending")), _wl(admitted=False))
    assert not needs_delayed_topology_update(_wl(admitted=False), placed)  # no local admission
    assert not needs_delayed_topology_update(_wl(_psa("main", "Pending")), _wl(_psa("main")))  # not placed
    assert not needs_delayed_topology_update(_wl(_psa("other", "Pending")), placed)  # no such pod set
    assert needs_delayed_topology_update(_wl(_psa("main", "Pending")), placed)
    assert needs_delayed_topology_update(_wl(_psa("main")), placed)  # no local topology at all
    assert not needs_delayed_topology_update(_wl(_psa("main", "Ready", TOPO)), placed)


def test_update_delayed_topology_request_marks_only_the_placed_pending_pod_sets() -> None:
    local = _wl(_psa("a", "Pending"), _psa("b", "Pending"), _psa("c"))
    remote = _wl(_psa("a", topology=TOPO), _psa("b"), _psa("c", topology=TOPO))
    assert update_delayed_topology_request(local.status, remote)
    assert [(p.name, p.delayed_topology_request, p.topology_assignment) for p in _assignments(local)] == [
        ("a", "Ready", None), ("b", "Pending", None), ("c", None, None)]
    assert not update_delayed_topology_request(local.status, remote)  # nothing left to mark


def _assignments(wl: Workload) -> list[PodSetAssignment]:
    return list(wl.status.admission.pod_set_assignments)
