"""From a :class:`PodRun` to ``pod.status`` as the kubelet reports it (a JSON-shaped dict).

Upstream ``pkg/kubelet/kubelet_pods.go`` ``generateAPIPodStatus`` and ``pkg/kubelet/status``:

* ``startTime`` is when the kubelet took the pod (bind observed);
* conditions owned by the kubelet: ``PodReadyToStartContainers`` (sandbox ready; False again once
  the pod is terminal), ``Initialized`` (reason ``ContainersNotInitialized`` with the list of
  incomplete init containers), ``ContainersReady`` and ``Ready`` (reason ``ContainersNotReady``,
  or ``PodCompleted`` once terminal); other conditions (``PodScheduled``, ``DisruptionTarget``,
  custom ones such as ``ConfigIssue``) are kept as they are; a condition's ``lastTransitionTime``
  changes only when its status does;
* each container status has ``state`` (waiting/running/terminated), ``lastState`` after a
  restart, ``ready``, ``started`` and ``restartCount``; there are no probes, so running is ready.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kbatch.controllers.kubelet.engine import RUNNING, SIDECAR, TERMINATED, PodRun, Proc

__all__ = ["KUBELET_CONDITIONS", "render_status"]

KUBELET_CONDITIONS = ("PodReadyToStartContainers", "Initialized", "ContainersReady", "Ready")
Fmt = Callable[[float], str]  # timeline seconds -> RFC 3339


def _terminated(exit_code: int, reason: str, start: float | None, end: float | None, message: str,
                fmt: Fmt) -> dict[str, Any]:
    out: dict[str, Any] = {"exitCode": exit_code, "reason": reason}
    if message:
        out["message"] = message
    if start is not None:
        out["startedAt"] = fmt(start)
    if end is not None:
        out["finishedAt"] = fmt(end)
    return out


def _container_status(proc: Proc, fmt: Fmt) -> dict[str, Any]:
    if proc.state == RUNNING:
        state: dict[str, Any] = {"running": {"startedAt": fmt(proc.started_at or 0.0)}}
    elif proc.state == TERMINATED:
        state = {"terminated": _terminated(proc.exit_code or 0, proc.reason, proc.started_at,
                                           proc.finished_at, proc.message, fmt)}
    else:
        waiting: dict[str, Any] = {"reason": proc.reason}
        if proc.message:
            waiting["message"] = proc.message
        state = {"waiting": waiting}
    out: dict[str, Any] = {
        "name": proc.name, "image": proc.image, "imageID": "", "state": state,
        "ready": proc.state == RUNNING, "restartCount": proc.restart_count,
        "started": proc.state == RUNNING,
    }
    if proc.last is not None:
        out["lastState"] = {"terminated": _terminated(*proc.last, fmt)}
    return out


def _kubelet_conditions(run: PodRun) -> dict[str, tuple[str, str | None, str | None]]:
    incomplete = [p.name for p in run.init
                  if p.kind != SIDECAR and not (p.state == TERMINATED and p.exit_code == 0)]
    unready = [p.name for p in [*run.init, *run.app] if (p.kind != "init") and p.state != RUNNING]
    if run.terminal:
        done = ("False", "PodCompleted", None)
        names = " ".join(incomplete)
        not_init = ("False", "ContainersNotInitialized", f"containers with incomplete status: [{names}]")
        init = ("True", "PodCompleted", None) if run.initialized else not_init
        return {"PodReadyToStartContainers": ("False", None, None), "Initialized": init,
                "ContainersReady": done, "Ready": done}
    sandbox = ("True", None, None) if run.started else ("False", None, None)
    if run.initialized or not run.init:
        init = ("True", None, None)
    else:
        init = ("False", "ContainersNotInitialized",
                f"containers with incomplete status: [{' '.join(incomplete)}]")
    if run.initialized and not unready:
        ready = ("True", None, None)
    else:
        names = " ".join(unready)
        ready = ("False", "ContainersNotReady", f"containers with unready status: [{names}]")
    return {"PodReadyToStartContainers": sandbox, "Initialized": init,
            "ContainersReady": ready, "Ready": ready}


def merge_conditions(
    existing: list[dict[str, Any]], wanted: dict[str, tuple[str, str | None, str | None]], now: str
) -> list[dict[str, Any]]:
    """Set the wanted conditions, keep every other one, keep transition times that did not change."""
    by_type = {c.get("type"): c for c in existing}
    out = [c for c in existing if c.get("type") not in wanted]
    for type_, (status, reason, message) in wanted.items():
        old = by_type.get(type_)
        cond: dict[str, Any] = {"type": type_, "status": status}
        same = old is not None and old.get("status") == status
        cond["lastTransitionTime"] = old.get("lastTransitionTime", now) if same and old else now
        if reason:
            cond["reason"] = reason
        if message:
            cond["message"] = message
        out.append(cond)
    return out


def render_status(run: PodRun, existing: dict[str, Any], fmt: Fmt, now: float) -> dict[str, Any]:
    """The new ``status`` (a full replacement for the old one, other writers' conditions kept)."""
    status = {k: v for k, v in existing.items()
              if k not in ("phase", "conditions", "containerStatuses", "initContainerStatuses", "startTime")}
    conditions = list(existing.get("conditions") or [])
    if not any(c.get("type") == "PodScheduled" for c in conditions):
        scheduled = {"type": "PodScheduled", "status": "True", "lastTransitionTime": fmt(run.bound_at)}
        conditions.insert(0, scheduled)
    status["phase"] = run.phase
    status["startTime"] = existing.get("startTime") or fmt(run.bound_at)
    status["conditions"] = merge_conditions(conditions, _kubelet_conditions(run), fmt(now))
    if run.init:
        status["initContainerStatuses"] = [_container_status(p, fmt) for p in run.init]
    status["containerStatuses"] = [_container_status(p, fmt) for p in run.app]
    return status
