"""TAS through MultiKueue: the manager reserves quota with the topology delayed, the worker finds it.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/workload.go``
(``needsDelayedTopologyUpdate``, ``updateDelayedTopologyRequest``, ``syncAdmittingRemoteState``;
table ``workload_test.go``) and ``pkg/scheduler/flavorassigner/tas_flavorassigner.go``
(``podSetTopologyRequest``: a ClusterQueue with a MultiKueue check leaves every TAS pod set
``delayedTopologyRequest: Pending``, :mod:`kbatch.controllers.kueue.tas.delayed`).

Once the admitting worker's copy has a topology assignment for a pod set the manager admitted with
its topology pending, the manager's pod set is marked ``Ready`` in the same status write that turns
the check Ready. Only the state moves: the topology itself stays on the worker (upstream copies no
``topologyAssignment`` back), and the manager's Workload, its checks Ready and nothing pending, is
admitted.
"""

from __future__ import annotations

from kbatch.api.kueue_v1beta2 import PodSetAssignment, Workload, WorkloadStatus
from kbatch.controllers.kueue.workloads import DELAYED_PENDING, DELAYED_READY

__all__ = ["needs_delayed_topology_update", "update_delayed_topology_request"]


def _assignments(status: WorkloadStatus | None) -> list[PodSetAssignment] | None:
    admission = status.admission if status is not None else None
    return list(admission.pod_set_assignments or ()) if admission is not None else None


def _placed(remote: Workload | None, local: WorkloadStatus | None) -> list[PodSetAssignment]:
    """The local pod set assignments whose pod set the remote copy has a topology for."""
    mine = _assignments(local)
    theirs = _assignments(remote.status if remote is not None else None)
    if mine is None or theirs is None:
        return []
    by_name = {psa.name: psa for psa in mine}
    return [
        by_name[psa.name]
        for psa in theirs
        if psa.topology_assignment is not None and psa.name in by_name
    ]


def needs_delayed_topology_update(local: Workload | None, remote: Workload | None) -> bool:
    """``needsDelayedTopologyUpdate``: a pod set the remote placed is, locally, without a topology
    or still ``Pending``."""
    return any(
        psa.topology_assignment is None or psa.delayed_topology_request == DELAYED_PENDING
        for psa in _placed(remote, local.status if local is not None else None)
    )


def update_delayed_topology_request(local: WorkloadStatus, remote: Workload | None) -> bool:
    """``updateDelayedTopologyRequest``: each local ``Pending`` request whose pod set the remote
    placed becomes ``Ready`` (in place); whether one changed."""
    changed = False
    for psa in _placed(remote, local):
        if psa.delayed_topology_request == DELAYED_PENDING:
            psa.delayed_topology_request = DELAYED_READY
            changed = True
    return changed
