"""The ``kubectl get`` columns of the core kinds (Pod, Node, Namespace, Service, Event) and of
PriorityClass, RuntimeClass, PodDisruptionBudget and Lease, computed from wire dicts.

Column lists and cell rules from k8s.io/kubernetes ``pkg/printers/internalversion/printers.go``
(v1.32; unchanged through 1.37 for these kinds; PersistentVolumeClaim as of 1.37): one column list per
kind, ``priority: 1`` columns shown only with ``-o wide``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kbatch.api import events_v1
from kbatch.api.humanize import age
from kbatch.api.printing import (
    AGE,
    NAME,
    Column,
    Obj,
    Printer,
    at,
    condition,
    containers,
    creation_age,
    name_of,
)
from kbatch.families.core.pod_printer import pod_cells

__all__ = ["CONFIG_MAP", "EVENT", "EVENT_V1", "LEASE", "NAMESPACE", "NODE", "PERSISTENT_VOLUME_CLAIM", "POD",
           "POD_DISRUPTION_BUDGET", "POD_TEMPLATE", "PRIORITY_CLASS", "RUNTIME_CLASS", "SECRET", "SERVICE",
           "SERVICE_ACCOUNT"]


# --- Pod (rules in pod_printer) ------------------------------------------------------------

POD = Printer((NAME, Column("Ready"), Column("Status"), Column("Restarts", "string"), AGE,
               Column("IP", priority=1), Column("Node", priority=1),
               Column("Nominated Node", priority=1), Column("Readiness Gates", priority=1)), pod_cells)


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
    """``printNamespace``: the phase as stored (empty when unset)."""
    return [name_of(ns), at(ns, "status", "phase") or "", creation_age(ns, now)]


NAMESPACE = Printer((NAME, Column("Status"), AGE), _namespace_cells)


def _service_external_ip(spec: dict[str, Any], status: dict[str, Any]) -> str:
    """``getServiceExternalIP`` (wide, as kube-apiserver's Table is): a LoadBalancer shows its
    ingress IPs (else hostnames; sorted, deduplicated) then ``spec.externalIPs``, ``<pending>`` with
    neither; ExternalName shows the name."""
    kind = spec.get("type") or "ClusterIP"
    external = list(spec.get("externalIPs") or ())
    if kind == "ExternalName":
        return str(spec.get("externalName") or "")
    if kind != "LoadBalancer":
        return ",".join(external) or "<none>"
    ingress = sorted({i.get("ip") or i.get("hostname") for i in at(status, "loadBalancer", "ingress") or ()
                      if i.get("ip") or i.get("hostname")})
    return ",".join(ingress + external) or "<pending>"


def _service_cells(svc: Obj, now: datetime) -> list[Any]:
    spec = svc.get("spec") or {}
    kind = spec.get("type") or "ClusterIP"
    cluster_ip = (spec.get("clusterIPs") or [spec.get("clusterIP")])[0]
    ports = ",".join(
        (f"{p['port']}:{p['nodePort']}" if p.get("nodePort") else str(p.get("port", "")))
        + "/" + (p.get("protocol") or "TCP") for p in spec.get("ports") or ())
    selector = ",".join(f"{k}={v}" for k, v in sorted((spec.get("selector") or {}).items()))
    return [name_of(svc), kind, cluster_ip or "<none>", _service_external_ip(spec, svc.get("status") or {}),
            ports or "<none>", creation_age(svc, now), selector or "<none>"]


SERVICE = Printer((NAME, Column("Type"), Column("Cluster-IP"), Column("External-IP"), Column("Port(s)"),
                   AGE, Column("Selector", priority=1)), _service_cells)


def _event_cells(ev: Obj, now: datetime) -> list[Any]:
    """``printEvent``: First Seen falls back to ``eventTime``, Last Seen to First Seen; a series
    (events.k8s.io-style) shows its ``lastObservedTime`` and count; a singleton without a count is 1.
    Source is component (else ``reportingComponent``), then host (else ``reportingInstance``)."""
    first = age(ev.get("firstTimestamp") or ev.get("eventTime"), now)
    last = age(ev["lastTimestamp"], now) if ev.get("lastTimestamp") else first
    count = ev.get("count") or 1
    if ev.get("series") is not None:
        last, count = age(at(ev, "series", "lastObservedTime"), now), at(ev, "series", "count") or 0
    involved = ev.get("involvedObject") or {}
    target = (involved.get("kind") or "").lower()
    if involved.get("name"):
        target += "/" + involved["name"]
    source = ev.get("source") or {}
    component = source.get("component") or ev.get("reportingComponent") or ""
    instance = source.get("host") or ev.get("reportingInstance") or ""
    src = f"{component}, {instance}" if instance else component
    return [last, ev.get("type") or "", ev.get("reason") or "", target, involved.get("fieldPath") or "",
            src, (ev.get("message") or "").strip(), first, count, name_of(ev)]


EVENT = Printer((Column("Last Seen"), Column("Type"), Column("Reason"), Column("Object"),
                 Column("Subobject", priority=1), Column("Source", priority=1), Column("Message"),
                 Column("First Seen", priority=1), Column("Count", priority=1),
                 Column("Name", format="name", priority=1)), _event_cells)

# events.k8s.io/v1: the same columns (upstream's events.k8s.io storage prints the internal Event with
# ``printEvent``), read from the stored form
def _event_v1_cells(ev: Obj, now: datetime) -> list[Any]:
    return _event_cells(events_v1.to_storage(ev), now)


EVENT_V1 = Printer(EVENT.columns, _event_v1_cells)


def _priority_class_cells(pc: Obj, now: datetime) -> list[Any]:
    return [name_of(pc), pc.get("value", 0), bool(pc.get("globalDefault")), creation_age(pc, now),
            pc.get("preemptionPolicy") or ""]


PRIORITY_CLASS = Printer(
    (NAME, Column("Value", "integer"), Column("Global-Default", "boolean"), AGE, Column("PreemptionPolicy")),
    _priority_class_cells)


def _runtime_class_cells(rc: Obj, now: datetime) -> list[Any]:
    return [name_of(rc), rc.get("handler") or "", creation_age(rc, now)]


# printRuntimeClass: the handler only; overhead and scheduling are not columns
RUNTIME_CLASS = Printer((NAME, Column("Handler"), AGE), _runtime_class_cells)


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


# printers.go declares the Data (and the Event Count) column "string" although the cell is a number
CONFIG_MAP = Printer((NAME, Column("Data"), AGE), _config_map_cells)


def _pod_template_cells(pt: Obj, _now: datetime) -> list[Any]:
    """``printPodTemplate``: the template's container names and images, its labels
    (``labels.FormatLabels``: ``k=v`` sorted, ``<none>`` when there are none); no Age column."""
    names, images = containers(at(pt, "template", "spec"))
    labels = at(pt, "template", "metadata", "labels") or {}
    return [name_of(pt), names, images, ",".join(f"{k}={v}" for k, v in sorted(labels.items())) or "<none>"]


POD_TEMPLATE = Printer((NAME, Column("Containers"), Column("Images"), Column("Pod Labels")),
                       _pod_template_cells)


def _secret_cells(secret: Obj, now: datetime) -> list[Any]:
    """``printSecret``: the type and the number of keys in ``data``."""
    data = secret.get("data") or {}
    return [name_of(secret), secret.get("type") or "", len(data), creation_age(secret, now)]


SECRET = Printer((NAME, Column("Type"), Column("Data"), AGE), _secret_cells)


def _service_account_cells(sa: Obj, now: datetime) -> list[Any]:
    """``printServiceAccount``: the number of ``secrets`` entries (a column printers.go declares
    "string", like Secret's Data)."""
    return [name_of(sa), len(sa.get("secrets") or []), creation_age(sa, now)]


SERVICE_ACCOUNT = Printer((NAME, Column("Secrets"), AGE), _service_account_cells)
