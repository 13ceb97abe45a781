"""Server-side table printers: the ``kubectl get`` columns of each kind, computed from plain dicts.

kube-apiserver answers ``kubectl get`` with a ``meta.k8s.io/v1`` ``Table`` whose columns come from
the printers in k8s.io/kubernetes ``pkg/printers/internalversion/printers.go`` (v1.32): one column
list per kind, ``priority: 1`` columns shown only with ``-o wide``. This module holds the same
column lists and cell rules for the kinds kbatch serves; kinds without a printer get the
custom-resource default (Name, Age). ``kbatch get`` renders the very same tables locally.

A printer is ``(columns, cells)`` where ``cells(obj, now)`` returns one value per column.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kbatch.api.base import parse_time
from kbatch.server.humanize import age, human_duration

__all__ = ["PRINTERS", "Column", "Printer", "printer_for"]

Obj = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Column:
    """One ``TableColumnDefinition``."""

    name: str
    type: str = "string"
    priority: int = 0
    format: str = ""
    description: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type, "format": self.format,
                "description": self.description, "priority": self.priority}


@dataclass(frozen=True, slots=True)
class Printer:
    columns: tuple[Column, ...]
    cells: Callable[[Obj, datetime], list[Any]]


def _at(obj: Any, *path: str | int) -> Any:
    for key in path:
        if isinstance(obj, dict):
            obj = obj.get(key)  # type: ignore[arg-type]
        elif isinstance(obj, list) and isinstance(key, int) and -len(obj) <= key < len(obj):
            obj = obj[key]
        else:
            return None
    return obj


def _name(obj: Obj) -> str:
    return _at(obj, "metadata", "name") or ""


def _age(obj: Obj, now: datetime) -> str:
    return age(_at(obj, "metadata", "creationTimestamp"), now)


def _condition(obj: Obj, kind: str) -> dict[str, Any] | None:
    for cond in _at(obj, "status", "conditions") or ():
        if cond.get("type") == kind:
            return cond
    return None


def _is_true(obj: Obj, kind: str) -> bool:
    cond = _condition(obj, kind)
    return bool(cond and cond.get("status") == "True")


def _containers(pod_spec: Any) -> tuple[str, str]:
    containers = _at(pod_spec, "containers") or []
    return (",".join(c.get("name", "") for c in containers),
            ",".join(c.get("image", "") for c in containers))


def _selector(selector: Any) -> str:
    """``metav1.FormatLabelSelector``: ``a=b,c in (d,e)``; ``<none>`` when empty."""
    if not selector:
        return "<none>"
    parts = [f"{k}={v}" for k, v in sorted((selector.get("matchLabels") or {}).items())]
    for expr in selector.get("matchExpressions") or ():
        op, key, values = expr.get("operator"), expr.get("key"), ",".join(expr.get("values") or ())
        parts.append({"In": f"{key} in ({values})", "NotIn": f"{key} notin ({values})",
                      "Exists": key, "DoesNotExist": f"!{key}"}.get(op, f"{key} {op}"))
    return ",".join(parts) or "<none>"


NAME = Column("Name", format="name", description="Name must be unique within a namespace.")
AGE = Column("Age", description="CreationTimestamp is the time this object was created.")


# --- Pod -----------------------------------------------------------------------------------

def _init_reason(pod: Obj, reason: str) -> tuple[str, bool]:
    """The ``Init:…`` status while init containers run; returns (reason, initializing)."""
    statuses = (pod.get("status") or {}).get("initContainerStatuses")
    if not statuses:
        return reason, False
    total = len(_at(pod, "spec", "initContainers") or [])
    for i, st in enumerate(statuses):
        term, wait = _at(st, "state", "terminated"), _at(st, "state", "waiting")
        if term and term.get("exitCode") == 0:
            continue
        if term:
            why = term.get("reason") or (f"Signal:{term['signal']}" if term.get("signal")
                                         else f"ExitCode:{term.get('exitCode', 0)}")
            return "Init:" + why, True
        if wait and wait.get("reason") and wait["reason"] != "PodInitializing":
            return "Init:" + wait["reason"], True
        return f"Init:{i}/{total}", True
    return reason, False


def _pod_cells(pod: Obj, now: datetime) -> list[Any]:
    """One row per pod: this runs for every pod of a ``kubectl get pods``, so it reads the dicts
    directly rather than through ``_at``."""
    status = pod.get("status") or {}
    meta = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    reason = status.get("reason") or status.get("phase") or ""
    if any(c.get("type") == "PodScheduled" and c.get("reason") == "SchedulingGated"
           for c in status.get("conditions") or ()):
        reason = "SchedulingGated"
    reason, initializing = _init_reason(pod, reason)
    restarts, ready, last_restart, running = 0, 0, None, False
    statuses = status.get("containerStatuses") or []
    for st in reversed(statuses):
        restarts += st.get("restartCount", 0)
        finished = ((st.get("lastState") or {}).get("terminated") or {}).get("finishedAt")
        if finished and (last_restart is None or parse_time(finished) > last_restart):
            last_restart = parse_time(finished)
        if initializing:
            continue
        state = st.get("state") or {}
        term, wait = state.get("terminated"), state.get("waiting")
        if wait and wait.get("reason"):
            reason = wait["reason"]
        elif term and term.get("reason"):
            reason = term["reason"]
        elif term:
            code = term.get("exitCode", 0)
            reason = f"Signal:{term['signal']}" if term.get("signal") else f"ExitCode:{code}"
        elif st.get("ready") and state.get("running") is not None:
            running, ready = True, ready + 1
    if reason == "Completed" and running:
        reason = "Running" if _is_true(pod, "Ready") else "NotReady"
    deleting = meta.get("deletionTimestamp")
    if deleting and status.get("reason") == "NodeLost":
        reason = "Unknown"
    elif deleting and status.get("phase") not in ("Succeeded", "Failed"):
        reason = "Terminating"
    shown = str(restarts)
    if restarts and last_restart is not None:
        shown = f"{restarts} ({human_duration((now - last_restart).total_seconds())} ago)"
    gates = spec.get("readinessGates") or []
    gates_text = "<none>"
    if gates:
        wanted = {g.get("conditionType") for g in gates}
        done = sum(1 for c in status.get("conditions") or () if c.get("type") in wanted
                   and c.get("status") == "True")
        gates_text = f"{done}/{len(gates)}"
    total = len(spec.get("containers") or ())
    return [meta.get("name") or "", f"{ready}/{total}", reason, shown,
            age(meta.get("creationTimestamp"), now), status.get("podIP") or "<none>",
            spec.get("nodeName") or "<none>", status.get("nominatedNodeName") or "<none>", gates_text]


POD = Printer((NAME, Column("Ready"), Column("Status"), Column("Restarts", "string"), AGE,
               Column("IP", priority=1), Column("Node", priority=1),
               Column("Nominated Node", priority=1), Column("Readiness Gates", priority=1)), _pod_cells)


# --- Job and CronJob -------------------------------------------------------------------------

def _job_status(job: Obj) -> str:
    if _is_true(job, "Complete"):
        return "Complete"
    if _is_true(job, "Failed"):
        return "Failed"
    if _at(job, "metadata", "deletionTimestamp"):
        return "Terminating"
    for kind in ("Suspended", "FailureTarget", "SuccessCriteriaMet"):
        if _is_true(job, kind):
            return kind
    return "Running"


def _job_cells(job: Obj, now: datetime) -> list[Any]:
    succeeded = _at(job, "status", "succeeded") or 0
    completions, parallelism = _at(job, "spec", "completions"), _at(job, "spec", "parallelism") or 0
    if completions is not None:
        done = f"{succeeded}/{completions}"
    elif parallelism > 1:
        done = f"{succeeded}/1 of {parallelism}"
    else:
        done = f"{succeeded}/1"
    start, end = _at(job, "status", "startTime"), _at(job, "status", "completionTime")
    took = ""
    if start:
        took = human_duration(((parse_time(end) if end else now) - parse_time(start)).total_seconds())
    names, images = _containers(_at(job, "spec", "template", "spec"))
    return [_name(job), _job_status(job), done, took, _age(job, now), names, images,
            _selector(_at(job, "spec", "selector"))]


WIDE_TEMPLATE = (Column("Containers", priority=1), Column("Images", priority=1),
                 Column("Selector", priority=1))
JOB = Printer((NAME, Column("Status"), Column("Completions"), Column("Duration"), AGE, *WIDE_TEMPLATE),
              _job_cells)


def _cronjob_cells(cj: Obj, now: datetime) -> list[Any]:
    suspend = _at(cj, "spec", "suspend")
    last = _at(cj, "status", "lastScheduleTime")
    names, images = _containers(_at(cj, "spec", "jobTemplate", "spec", "template", "spec"))
    return [_name(cj), _at(cj, "spec", "schedule") or "", _at(cj, "spec", "timeZone") or "<none>",
            "<unset>" if suspend is None else str(bool(suspend)),
            len(_at(cj, "status", "active") or []), age(last, now) if last else "<none>",
            _age(cj, now), names, images, _selector(_at(cj, "spec", "jobTemplate", "spec", "selector"))]


CRONJOB = Printer((NAME, Column("Schedule"), Column("Timezone"), Column("Suspend", "boolean"),
                   Column("Active", "integer"), Column("Last Schedule"), AGE, *WIDE_TEMPLATE),
                  _cronjob_cells)


# --- Node, Namespace, Service, Event, PriorityClass -----------------------------------------------

def _node_cells(node: Obj, now: datetime) -> list[Any]:
    ready = _condition(node, "Ready")
    status = "Unknown" if ready is None else ("Ready" if ready.get("status") == "True" else "NotReady")
    if _at(node, "spec", "unschedulable"):
        status += ",SchedulingDisabled"
    labels = _at(node, "metadata", "labels") or {}
    roles = sorted({k.split("/", 1)[1] for k in labels if k.startswith("node-role.kubernetes.io/")
                    and k != "node-role.kubernetes.io/"} | ({labels["kubernetes.io/role"]}
                                                            if labels.get("kubernetes.io/role") else set()))
    addresses = _at(node, "status", "addresses") or []

    def address(kind: str) -> str:
        return next((a.get("address") for a in addresses if a.get("type") == kind), "<none>")

    info = _at(node, "status", "nodeInfo") or {}
    return [_name(node), status, ",".join(roles) or "<none>", _age(node, now),
            info.get("kubeletVersion", ""), address("InternalIP"), address("ExternalIP"),
            info.get("osImage") or "<unknown>", info.get("kernelVersion") or "<unknown>",
            info.get("containerRuntimeVersion") or "<unknown>"]


NODE = Printer((NAME, Column("Status"), Column("Roles"), AGE, Column("Version"),
                Column("Internal-IP", priority=1), Column("External-IP", priority=1),
                Column("OS-Image", priority=1), Column("Kernel-Version", priority=1),
                Column("Container-Runtime", priority=1)), _node_cells)

NAMESPACE = Printer((NAME, Column("Status"), AGE),
                    lambda ns, now: [_name(ns), _at(ns, "status", "phase") or "Active", _age(ns, now)])


def _service_cells(svc: Obj, now: datetime) -> list[Any]:
    spec = svc.get("spec") or {}
    kind = spec.get("type") or "ClusterIP"
    external = ",".join(spec.get("externalIPs") or ())
    if kind == "ExternalName":
        external = spec.get("externalName") or ""
    ports = ",".join(
        (f"{p['port']}:{p['nodePort']}" if p.get("nodePort") else str(p.get("port", "")))
        + "/" + (p.get("protocol") or "TCP") for p in spec.get("ports") or ())
    selector = ",".join(f"{k}={v}" for k, v in sorted((spec.get("selector") or {}).items()))
    return [_name(svc), kind, spec.get("clusterIP") or "<none>", external or "<none>",
            ports or "<none>", _age(svc, now), selector or "<none>"]


SERVICE = Printer((NAME, Column("Type"), Column("Cluster-IP"), Column("External-IP"), Column("Port(s)"),
                   AGE, Column("Selector", priority=1)), _service_cells)


def _event_cells(ev: Obj, now: datetime) -> list[Any]:
    last = ev.get("lastTimestamp") or ev.get("eventTime") or _at(ev, "metadata", "creationTimestamp")
    first = ev.get("firstTimestamp") or ev.get("eventTime") or last
    involved = ev.get("involvedObject") or {}
    source = ev.get("source") or {}
    src = source.get("component") or ev.get("reportingComponent") or ""
    if source.get("host"):
        src += ", " + source["host"]
    count = ev.get("count") or (_at(ev, "series", "count") or 1)
    return [age(last, now), ev.get("type") or "", ev.get("reason") or "",
            f"{(involved.get('kind') or '').lower()}/{involved.get('name', '')}",
            involved.get("fieldPath") or "", src, (ev.get("message") or "").strip(),
            age(first, now), count, _name(ev)]


EVENT = Printer((Column("Last Seen"), Column("Type"), Column("Reason"), Column("Object"),
                 Column("Subobject", priority=1), Column("Source", priority=1), Column("Message"),
                 Column("First Seen", priority=1), Column("Count", "integer", priority=1),
                 Column("Name", format="name", priority=1)), _event_cells)

PRIORITY_CLASS = Printer(
    (NAME, Column("Value", "integer"), Column("Global-Default", "boolean"), AGE, Column("PreemptionPolicy")),
    lambda pc, now: [_name(pc), pc.get("value", 0), bool(pc.get("globalDefault")), _age(pc, now),
                     pc.get("preemptionPolicy") or "PreemptLowerPriority"])


def _pdb_cells(pdb: Obj, now: datetime) -> list[Any]:
    """``printPodDisruptionBudget``: each bound as written (int or percent), ``N/A`` when unset."""
    spec = pdb.get("spec") or {}
    bounds = [spec.get(f) for f in ("minAvailable", "maxUnavailable")]
    return [_name(pdb), *("N/A" if b is None else str(b) for b in bounds),
            int(_at(pdb, "status", "disruptionsAllowed") or 0), _age(pdb, now)]


POD_DISRUPTION_BUDGET = Printer(
    (NAME, Column("Min Available", description="The minimum number of pods that must be available."),
     Column("Max Unavailable", description="The maximum number of pods that may be unavailable."),
     Column("Allowed Disruptions", "integer",
            description="Calculated number of pods that may be disrupted at this time."), AGE),
    _pdb_cells)

LEASE = Printer(  # printLease: an unset holderIdentity is an empty cell
    (NAME, Column("Holder", description="holderIdentity contains the identity of the holder of a current "
                  "lease."), AGE),
    lambda lease, now: [_name(lease), _at(lease, "spec", "holderIdentity") or "", _age(lease, now)])

DEFAULT = Printer((NAME, AGE), lambda obj, now: [_name(obj), _age(obj, now)])

PRINTERS: dict[tuple[str, str], Printer] = {
    ("", "Pod"): POD,
    ("batch", "Job"): JOB,
    ("batch", "CronJob"): CRONJOB,
    ("", "Node"): NODE,
    ("", "Namespace"): NAMESPACE,
    ("", "Service"): SERVICE,
    ("", "Event"): EVENT,
    ("events.k8s.io", "Event"): EVENT,
    ("scheduling.k8s.io", "PriorityClass"): PRIORITY_CLASS,
    ("policy", "PodDisruptionBudget"): POD_DISRUPTION_BUDGET,
    ("coordination.k8s.io", "Lease"): LEASE,
}
"""(group, kind) → printer. Other kinds may add theirs here (the seam for JobSet, Workload, …)."""


def printer_for(group: str, kind: str) -> Printer:
    return PRINTERS.get((group, kind), DEFAULT)
