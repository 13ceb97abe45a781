"""``kubectl get`` columns of Kueue's kinds: the CRDs' ``additionalPrinterColumns``.

From kubernetes-sigs/kueue ``config/components/crd/bases/kueue.x-k8s.io_*.yaml`` (v0.19.2). As
kube-apiextensions-apiserver does, a CRD that declares columns gets ``Name`` plus exactly those (no
``Age`` unless declared, so ``kubectl get clusterqueues`` has none); a CRD without any gets ``Name``,
``Age``. v1beta1's ClusterQueue ``Cohort`` column reads ``.spec.cohort``, v1beta2's ``.spec.cohortName``.
"""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Any

from kbatch.api.printing import AGE, NAME, Column, Obj, Printer, at, condition, creation_age, name_of

__all__ = [
    "CLUSTER_QUEUE",
    "CLUSTER_QUEUE_V1BETA1",
    "LOCAL_QUEUE",
    "MULTIKUEUE_CLUSTER",
    "WORKLOAD",
    "WORKLOAD_PRIORITY_CLASS",
]


def _int(value: Any) -> Any:
    return value if isinstance(value, int) else ("" if value is None else value)


def _cq_cells(cohort_field: str, obj: Obj, now: datetime) -> list[Any]:
    return [
        name_of(obj),
        at(obj, "spec", cohort_field) or "",
        at(obj, "spec", "queueingStrategy") or "",
        _int(at(obj, "status", "pendingWorkloads")),
        _int(at(obj, "status", "admittedWorkloads")),
    ]


_CQ_COLUMNS = (
    NAME,
    Column("Cohort", description="Cohort that this ClusterQueue belongs to"),
    Column("Strategy", priority=1, description="The queueing strategy used to prioritize workloads"),
    Column("Pending Workloads", type="integer", description="Number of pending workloads"),
    Column(
        "Admitted Workloads",
        type="integer",
        priority=1,
        description="Number of admitted workloads that haven't finished yet",
    ),
)

# partials of a module-level function, not closures: a control plane (and its printers) pickles
CLUSTER_QUEUE = Printer(_CQ_COLUMNS, partial(_cq_cells, "cohortName"))
CLUSTER_QUEUE_V1BETA1 = Printer(_CQ_COLUMNS, partial(_cq_cells, "cohort"))


def _lq_cells(obj: Obj, now: datetime) -> list[Any]:
    return [
        name_of(obj),
        at(obj, "spec", "clusterQueue") or "",
        _int(at(obj, "status", "pendingWorkloads")),
        _int(at(obj, "status", "admittedWorkloads")),
    ]


LOCAL_QUEUE = Printer(
    (
        NAME,
        Column("ClusterQueue", description="Backing ClusterQueue"),
        Column("Pending Workloads", type="integer", description="Number of pending workloads"),
        Column(
            "Admitted Workloads",
            type="integer",
            description="Number of admitted workloads that haven't finished yet.",
        ),
    ),
    _lq_cells,
)


def _status_of(obj: Obj, kind: str) -> str:
    cond = condition(obj, kind)
    return str(cond.get("status", "")) if cond else ""


def _wl_cells(obj: Obj, now: datetime) -> list[Any]:
    return [
        name_of(obj),
        at(obj, "spec", "queueName") or "",
        at(obj, "status", "admission", "clusterQueue") or "",
        _status_of(obj, "Admitted"),
        _status_of(obj, "Finished"),
        creation_age(obj, now),
    ]


WORKLOAD = Printer(
    (
        NAME,
        Column("Queue", description="Name of the queue this workload was submitted to"),
        Column("Reserved in", description="Name of the ClusterQueue where the workload is reserving quota"),
        Column("Admitted", description="Admission status"),
        Column("Finished", description="Workload finished"),
        Column(AGE.name, type="date", description="Time this workload was created"),
    ),
    _wl_cells,
)


def _wpc_cells(obj: Obj, now: datetime) -> list[Any]:
    return [name_of(obj), _int(obj.get("value"))]


WORKLOAD_PRIORITY_CLASS = Printer(
    (
        NAME,
        Column("Value", type="integer", description="Value of workloadPriorityClass's Priority"),
    ),
    _wpc_cells,
)


def _mkc_cells(obj: Obj, now: datetime) -> list[Any]:
    return [name_of(obj), _status_of(obj, "Active"), creation_age(obj, now)]


MULTIKUEUE_CLUSTER = Printer(
    (
        NAME,
        Column("Connected", description="MultiKueueCluster is connected"),
        Column(AGE.name, type="date", description="Time this workload was created"),
    ),
    _mkc_cells,
)
