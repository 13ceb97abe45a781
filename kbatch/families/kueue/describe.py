"""``kubectl describe`` lines of Kueue's kinds, after the common header.

kubectl describes custom resources generically (the object's fields as a tree); kbatch gives the
Kueue kinds readable lines instead, with what a user asks first: for a Workload, where it is queued,
what it requests, where its quota is reserved and, while pending, *why* (the ``QuotaReserved``
condition's message, which is the scheduler's or the workload controller's explanation).
"""

from __future__ import annotations

from typing import Any

from kbatch.api.printing import Obj, at, condition, format_selector, kv_lines

__all__ = [
    "describe_cluster_queue",
    "describe_cohort",
    "describe_local_queue",
    "describe_resource_flavor",
    "describe_workload",
]

Lines = list[tuple[str, str]]


def _resources(values: dict[str, Any] | None) -> str:
    return ", ".join(f"{k}: {v}" for k, v in sorted((values or {}).items())) or "<none>"


def _pending_reason(obj: Obj) -> str | None:
    """Why a workload without quota is waiting: its ``QuotaReserved=False`` message."""
    reserved = condition(obj, "QuotaReserved")
    finished = condition(obj, "Finished")
    if finished and finished.get("status") == "True":
        return None
    if reserved is None:
        return "waiting for the scheduler's first evaluation"
    if reserved.get("status") == "False":
        return f"{reserved.get('reason', '')}: {reserved.get('message', '')}"
    return None


def describe_workload(obj: Obj) -> Lines:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    ref = spec.get("priorityClassRef") or {}
    out: Lines = [
        ("Queue Name", spec.get("queueName") or "<none>"),
        ("Priority", str(spec.get("priority", 0))),
        ("Priority Class", f"{ref.get('name')} ({ref.get('kind')})" if ref else "<none>"),
        ("Active", str(spec.get("active", True)).lower()),
    ]
    if spec.get("maximumExecutionTimeSeconds") is not None:
        out.append(("Maximum Execution Time", f"{spec['maximumExecutionTimeSeconds']}s"))
    out.append(("Pod Sets", ""))
    for ps in spec.get("podSets") or []:
        containers = at(ps, "template", "spec", "containers") or []
        requests: dict[str, Any] = {}
        for c in containers:
            requests.update(at(c, "resources", "requests") or {})
        count = f"{ps.get('count')}" + (f" (min {ps['minCount']})" if ps.get("minCount") is not None else "")
        out.append(("", f"{ps.get('name')}: {count} pods, each {_resources(requests)}"))
    admission = status.get("admission")
    if admission:
        out.append(("Reserved In", admission.get("clusterQueue", "")))
        for psa in admission.get("podSetAssignments") or []:
            flavors = ", ".join(f"{r}={f}" for r, f in sorted((psa.get("flavors") or {}).items()))
            out.append(
                (
                    "",
                    f"{psa.get('name')}: {psa.get('count')} pods, flavors {flavors or '<none>'}, "
                    f"usage {_resources(psa.get('resourceUsage'))}",
                )
            )
    why = _pending_reason(obj)
    if why is not None:
        out.append(("Pending Reason", why))
    requeue = status.get("requeueState")
    if requeue:
        out.append(
            ("Requeue State", f"count {requeue.get('count', 0)}, at {requeue.get('requeueAt', '<none>')}")
        )
    return out  # the conditions follow as kubectl's table (kbatch/cli/describe.py)


def _usage_lines(title: str, usage: list[dict[str, Any]] | None) -> Lines:
    if not usage:
        return [(title, "<none>")]
    out: Lines = []
    for i, f in enumerate(usage):
        parts = []
        for r in f.get("resources") or []:
            text = f"{r.get('name')}={r.get('total', 0)}"
            if r.get("borrowed") not in (None, "0"):
                text += f" (borrowed {r['borrowed']})"
            parts.append(text)
        out.append((title if i == 0 else "", f"{f.get('name')}: {', '.join(parts)}"))
    return out


def describe_cluster_queue(obj: Obj) -> Lines:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    pre = spec.get("preemption") or {}
    out: Lines = [
        ("Cohort", spec.get("cohortName") or "<none>"),
        ("Queueing Strategy", spec.get("queueingStrategy", "")),
        ("Stop Policy", spec.get("stopPolicy", "None")),
        (
            "Namespace Selector",
            format_selector(spec.get("namespaceSelector"))
            if spec.get("namespaceSelector") is not None
            else "<nil> (no namespaces)",
        ),
        (
            "Preemption",
            f"withinClusterQueue={pre.get('withinClusterQueue')}, "
            f"reclaimWithinCohort={pre.get('reclaimWithinCohort')}, "
            f"borrowWithinCohort={(pre.get('borrowWithinCohort') or {}).get('policy')}",
        ),
        ("Quotas", ""),
    ]
    for rg in spec.get("resourceGroups") or []:
        for f in rg.get("flavors") or []:
            for r in f.get("resources") or []:
                text = f"{f.get('name')}/{r.get('name')}: nominal {r.get('nominalQuota')}"
                if r.get("borrowingLimit") is not None:
                    text += f", borrowing limit {r['borrowingLimit']}"
                if r.get("lendingLimit") is not None:
                    text += f", lending limit {r['lendingLimit']}"
                out.append(("", text))
    out += [
        ("Pending Workloads", str(status.get("pendingWorkloads", 0))),
        ("Reserving Workloads", str(status.get("reservingWorkloads", 0))),
        ("Admitted Workloads", str(status.get("admittedWorkloads", 0))),
    ]
    out += _usage_lines("Flavors Reservation", status.get("flavorsReservation"))
    out += _usage_lines("Flavors Usage", status.get("flavorsUsage"))
    return out  # the conditions follow as kubectl's table (kbatch/cli/describe.py)


def describe_local_queue(obj: Obj) -> Lines:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    out: Lines = [
        ("Cluster Queue", spec.get("clusterQueue", "")),
        ("Stop Policy", spec.get("stopPolicy", "None")),
        ("Pending Workloads", str(status.get("pendingWorkloads", 0))),
        ("Reserving Workloads", str(status.get("reservingWorkloads", 0))),
        ("Admitted Workloads", str(status.get("admittedWorkloads", 0))),
    ]
    out += _usage_lines("Flavors Usage", status.get("flavorsUsage"))
    return out  # the conditions follow as kubectl's table (kbatch/cli/describe.py)


def describe_cohort(obj: Obj) -> Lines:
    spec = obj.get("spec") or {}
    return [
        ("Parent", spec.get("parentName") or "<none>"),
        ("Weight", str((spec.get("fairSharing") or {}).get("weight", 1))),
    ]


def describe_resource_flavor(obj: Obj) -> Lines:
    spec = obj.get("spec") or {}
    taints = [f"{t.get('key')}={t.get('value', '')}:{t.get('effect')}" for t in spec.get("nodeTaints") or []]
    return [*kv_lines("Node Labels", spec.get("nodeLabels")), ("Node Taints", ", ".join(taints) or "<none>")]
