"""The ``kubectl get`` columns of the core kinds (Pod, Node, Namespace, Service, Event) and of
PriorityClass, PodDisruptionBudget and Lease, computed from wire dicts.

Column lists and cell rules from k8s.io/kubernetes ``pkg/printers/internalversion/printers.go``
(v1.32; unchanged through 1.37 for these kinds; PersistentVolumeClaim as of 1.37): one column list per
kind, ``priority: 1`` columns shown only with ``-o wide``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kbatch.api.base import parse_time
from kbatch.api.humanize import age, human_duration
from kbatch.api.printing import (
    AGE,
    NAME,
    Column,
    Obj,
    Printer,
    at,
    condition,
    creation_age,
    is_true,
    name_of,
)

__all__ = ["CONFIG_MAP", "EVENT", "LEASE", "NAMESPACE", "NODE", "PERSISTENT_VOLUME_CLAIM", "POD",
           "POD_DISRUPTION_BUDGET", "PRIORITY_CLASS", "SERVICE", "SERVICE_ACCOUNT"]


# --- Pod -----------------------------------------------------------------------------------

def _init_reason(pod: Obj, reason: str) -> tuple[str, bool]:
    """The ``Init:…`` status while init containers run; returns (reason, initializing)."""
    statuses = (pod.get("status") or {}).get("initContainerStatuses")
    if not statuses:
        return reason, False
    total = len(at(pod, "spec", "initContainers") or [])
    for i, st in enumerate(statuses):
        term, wait = at(st, "state", "terminated"), at(st, "state", "waiting")
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
        reason = "Running" if is_true(pod, "Ready") else "NotReady"
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


# --- Node, Namespace, Service, Event, PriorityClass -----------------------------------------------

def _node_cells(node: Obj, now: datetime) -> list[Any]:
    ready = condition(node, "Ready")
    status = "Unknown" if ready is None else ("Ready" if ready.get("status") == "True" else "NotReady")
    if at(node, "spec", "unschedulable"):
        status += ",SchedulingDisabled"
    labels = at(node, "metadata", "labels") or {}
    roles = sorted({k.split("/", 1)[1] for k in labels if k.startswith("node-role.kubernetes.io/")
                    and k != "node-role.kubernetes.io/"} | ({labels["kubernetes.io/role"]}
                                                            if labels.get("kubernetes.io/role") else set()))
    addresses = at(node, "status", "addresses") or []

    def address(kind: str) -> str:
        return next((a.get("address") for a in addresses if a.get("type") == kind), "<none>")

    info = at(node, "status", "nodeInfo") or {}
    return [name_of(node), status, ",".join(roles) or "<none>", creation_age(node, now),
            info.get("kubeletVersion", ""), address("InternalIP"), address("ExternalIP"),
            info.get("osImage") or "<unknown>", info.get("kernelVersion") or "<unknown>",
            info.get("containerRuntimeVersion") or "<unknown>"]


NODE = Printer((NAME, Column("Status"), Column("Roles"), AGE, Column("Version"),
                Column("Internal-IP", priority=1), Column("External-IP", priority=1),
                Column("OS-Image", priority=1), Column("Kernel-Version", priority=1),
                Column("Container-Runtime", priority=1)), _node_cells)

def _namespace_cells(ns: Obj, now: datetime) -> list[Any]:
    return [name_of(ns), at(ns, "status", "phase") or "Active", creation_age(ns, now)]


NAMESPACE = Printer((NAME, Column("Status"), AGE), _namespace_cells)


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
    return [name_of(svc), kind, spec.get("clusterIP") or "<none>", external or "<none>",
            ports or "<none>", creation_age(svc, now), selector or "<none>"]


SERVICE = Printer((NAME, Column("Type"), Column("Cluster-IP"), Column("External-IP"), Column("Port(s)"),
                   AGE, Column("Selector", priority=1)), _service_cells)


def _event_cells(ev: Obj, now: datetime) -> list[Any]:
    last = ev.get("lastTimestamp") or ev.get("eventTime") or at(ev, "metadata", "creationTimestamp")
    first = ev.get("firstTimestamp") or ev.get("eventTime") or last
    involved = ev.get("involvedObject") or {}
    source = ev.get("source") or {}
    src = source.get("component") or ev.get("reportingComponent") or ""
    if source.get("host"):
        src += ", " + source["host"]
    count = ev.get("count") or (at(ev, "series", "count") or 1)
    return [age(last, now), ev.get("type") or "", ev.get("reason") or "",
            f"{(involved.get('kind') or '').lower()}/{involved.get('name', '')}",
            involved.get("fieldPath") or "", src, (ev.get("message") or "").strip(),
            age(first, now), count, name_of(ev)]


EVENT = Printer((Column("Last Seen"), Column("Type"), Column("Reason"), Column("Object"),
                 Column("Subobject", priority=1), Column("Source", priority=1), Column("Message"),
                 Column("First Seen", priority=1), Column("Count", "integer", priority=1),
                 Column("Name", format="name", priority=1)), _event_cells)

def _priority_class_cells(pc: Obj, now: datetime) -> list[Any]:
    return [name_of(pc), pc.get("value", 0), bool(pc.get("globalDefault")), creation_age(pc, now),
            pc.get("preemptionPolicy") or "PreemptLowerPriority"]


PRIORITY_CLASS = Printer(
    (NAME, Column("Value", "integer"), Column("Global-Default", "boolean"), AGE, Column("PreemptionPolicy")),
    _priority_class_cells)


def _pdb_cells(pdb: Obj, now: datetime) -> list[Any]:
    """``printPodDisruptionBudget``: each bound as written (int or percent), ``N/A`` when unset."""
    spec = pdb.get("spec") or {}
    bounds = [spec.get(f) for f in ("minAvailable", "maxUnavailable")]
    return [name_of(pdb), *("N/A" if b is None else str(b) for b in bounds),
            int(at(pdb, "status", "disruptionsAllowed") or 0), creation_age(pdb, now)]


POD_DISRUPTION_BUDGET = Printer(
    (NAME, Column("Min Available", description="The minimum number of pods that must be available."),
     Column("Max Unavailable", description="The maximum number of pods that may be unavailable."),
     Column("Allowed Disruptions", "integer",
            description="Calculated number of pods that may be disrupted at this time."), AGE),
    _pdb_cells)

def _lease_cells(lease: Obj, now: datetime) -> list[Any]:
    """``printLease``: an unset holderIdentity is an empty cell."""
    return [name_of(lease), at(lease, "spec", "holderIdentity") or "", creation_age(lease, now)]


LEASE = Printer(
    (NAME, Column("Holder", description="holderIdentity contains the identity of the holder of a current "
                  "lease."), AGE), _lease_cells)


# --- PersistentVolumeClaim -------------------------------------------------------------------

_ACCESS_MODE_SHORT = (("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"),
                      ("ReadWriteOncePod", "RWOP"))


def _claim_cells(claim: Obj, now: datetime) -> list[Any]:
    """``printPersistentVolumeClaim``: capacity and access modes only once bound to a volume; the
    class from the beta annotation, else ``spec.storageClassName``."""
    spec, status = claim.get("spec") or {}, claim.get("status") or {}
    volume = spec.get("volumeName") or ""
    capacity = modes = ""
    if volume:
        capacity = str((status.get("capacity") or {}).get("storage") or "")
        held = status.get("accessModes") or ()
        modes = ",".join(short for mode, short in _ACCESS_MODE_SHORT if mode in held)
    phase = "Terminating" if at(claim, "metadata", "deletionTimestamp") else status.get("phase") or ""
    annotations = at(claim, "metadata", "annotations") or {}
    storage_class = (annotations.get("volume.beta.kubernetes.io/storage-class")
                     or spec.get("storageClassName") or "")
    return [name_of(claim), phase, volume, capacity, modes, storage_class,
            spec.get("volumeAttributesClassName") or "<unset>", creation_age(claim, now),
            spec.get("volumeMode") or "<unset>"]


PERSISTENT_VOLUME_CLAIM = Printer(
    (NAME, Column("Status"), Column("Volume"), Column("Capacity"), Column("Access Modes"),
     Column("StorageClass"), Column("VolumeAttributesClass"), AGE, Column("VolumeMode", priority=1)),
    _claim_cells)


def _config_map_cells(cm: Obj, now: datetime) -> list[Any]:
    """``printConfigMap``: the number of keys in ``data`` and ``binaryData``."""
    return [name_of(cm), len(cm.get("data") or {}) + len(cm.get("binaryData") or {}), creation_age(cm, now)]


CONFIG_MAP = Printer((NAME, Column("Data", "integer"), AGE), _config_map_cells)


def _service_account_cells(sa: Obj, now: datetime) -> list[Any]:
    """``printServiceAccount``: the number of ``secrets`` entries."""
    return [name_of(sa), len(sa.get("secrets") or []), creation_age(sa, now)]


SERVICE_ACCOUNT = Printer((NAME, Column("Secrets", "integer"), AGE), _service_account_cells)
