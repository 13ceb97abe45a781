"""Hand-built wire objects with known time stamps: the timelines report tests check numbers against.

Times are seconds after ``T0`` (2025-01-01T00:00:00Z); ``None`` leaves a stamp out.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

T0 = datetime(2025, 1, 1, tzinfo=UTC)
Obj = dict[str, Any]


def ts(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    at = T0 + timedelta(seconds=seconds)
    return at.isoformat().replace("+00:00", "Z")


def _meta(name: str, created: float | None, ns: str | None = "default", uid: str | None = None,
          owner: Obj | None = None, labels: dict[str, str] | None = None) -> Obj:
    m: Obj = {"name": name, "uid": uid or f"uid-{name}"}
    if ns is not None:
        m["namespace"] = ns
    if created is not None:
        m["creationTimestamp"] = ts(created)
    if owner is not None:
        m["ownerReferences"] = [{"apiVersion": owner["apiVersion"], "kind": owner["kind"],
                                 "name": owner["metadata"]["name"], "uid": owner["metadata"]["uid"],
                                 "controller": True}]
    if labels:
        m["labels"] = labels
    return m


def cond(kind: str, at: float | None, status: str = "True") -> Obj:
    return {"type": kind, "status": status, "lastTransitionTime": ts(at)}


def node(name: str, created: float = -10, *, cpu: str = "4", memory: str = "16Gi", gpu: int = 0,
         deleted: float | None = None) -> Obj:
    alloc = {"cpu": cpu, "memory": memory, "pods": "110"}
    if gpu:
        alloc["nvidia.com/gpu"] = str(gpu)
    m = _meta(name, created, ns=None)
    if deleted is not None:
        m["deletionTimestamp"] = ts(deleted)
    return {"apiVersion": "v1", "kind": "Node", "metadata": m, "status": {"allocatable": alloc}}


def job(name: str, created: float, *, started: float | None = None, complete: float | None = None,
        failed_at: float | None = None, parallelism: int = 1, completions: int | None = 1,
        failed: int = 0, suspend: bool = False, ns: str = "default",
        labels: dict[str, str] | None = None, owner: Obj | None = None) -> Obj:
    conditions = []
    if complete is not None:
        conditions.append(cond("Complete", complete))
    if failed_at is not None:
        conditions.append(cond("Failed", failed_at))
    status: Obj = {"conditions": conditions, "failed": failed}
    if started is not None:
        status["startTime"] = ts(started)
    spec: Obj = {"parallelism": parallelism, "suspend": suspend, "template": {}}
    if completions is not None:
        spec["completions"] = completions
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": _meta(name, created, ns, labels=labels, owner=owner), "spec": spec, "status": status}


def pod(name: str, created: float, *, owner: Obj | None = None, node_name: str | None = "node-0",
        scheduled: float | None = None, started: float | None = None, finished: float | None = None,
        phase: str | None = None, requests: dict[str, str] | None = None, restarts: int = 0,
        ns: str = "default", labels: dict[str, str] | None = None, exit_code: int = 0) -> Obj:
    state: Obj = {}
    if started is not None and finished is not None:
        state = {"terminated": {"startedAt": ts(started), "finishedAt": ts(finished), "exitCode": exit_code}}
    elif started is not None:
        state = {"running": {"startedAt": ts(started)}}
    if phase is None:
        phase = ("Failed" if exit_code else "Succeeded") if finished is not None else (
            "Running" if started is not None else "Pending")
    status: Obj = {"phase": phase, "conditions": [], "containerStatuses": [
        {"name": "c", "restartCount": restarts, "state": state}]}
    if scheduled is not None:
        status["conditions"].append(cond("PodScheduled", scheduled))
    spec: Obj = {"containers": [{"name": "c", "image": "busybox",
                                 "resources": {"requests": requests or {}}}]}
    if node_name is not None and scheduled is not None:
        spec["nodeName"] = node_name
    return {"apiVersion": "v1", "kind": "Pod", "spec": spec, "status": status,
            "metadata": _meta(name, created, ns, owner=owner, labels=labels)}


def custom(api_version: str, kind: str, name: str, created: float, *, spec: Obj | None = None,
           status: Obj | None = None, owner: Obj | None = None, ns: str = "default") -> Obj:
    return {"apiVersion": api_version, "kind": kind, "metadata": _meta(name, created, ns, owner=owner),
            "spec": spec or {}, "status": status or {}}
