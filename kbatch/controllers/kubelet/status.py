"""From a :class:`PodRun` to ``pod.status`` as the kubelet reports it (a JSON-shaped dict).

Upstream ``pkg/kubelet/kubelet_pods.go`` ``generateAPIPodStatus`` and ``pkg/kubelet/status``:

* ``startTime`` is when the kubelet took the pod (bind observed);
* conditions owned by the kubelet (``pkg/kubelet/types/pod_status.go`` ``PodConditionsByKubelet``):
  ``PodScheduled`` (``True``; added at the bind time when the pod was bound without the scheduler),
  ``PodReadyToStartContainers`` (sandbox ready; False again once the pod is terminal),
  ``Initialized`` (reason ``ContainersNotInitialized`` with the list of incomplete init containers),
  ``ContainersReady`` and ``Ready`` (reason ``ContainersNotReady``, or once terminal ``PodCompleted``
  — ``PodFailed`` for a Failed pod); other conditions (``DisruptionTarget``, custom ones such as
  ``ConfigIssue``) are kept as they are; a condition's ``lastTransitionTime`` changes only when its
  status does;
* ``status.observedGeneration`` and each owned condition's ``observedGeneration`` are the
  ``metadata.generation`` of the pod the kubelet acted on (KEP-5067 Pod Generation, feature gate
  PodObservedGenerationTracking, beta and on by default since 1.34: ``SetPodStatus`` in
  ``status_manager.go`` and ``CalculatePodStatusObservedGeneration`` /
  ``CalculatePodConditionObservedGeneration`` in ``pkg/api/v1/pod/util.go``); a generation of 0
  or none sets neither;
* each container status has ``state`` (waiting/running/terminated), ``lastState`` after a
  restart, ``ready``, ``started`` and ``restartCount``; ``started`` is running with the startup
  probe passed (or none), ``ready`` started with the readiness probe passing (or none)
  (``prober_manager.go`` ``UpdatePodStatus``);
* ``ephemeralContainerStatuses`` (only for a pod that has ephemeral containers) are sorted by name,
  as the status manager's ``normalizeStatus`` sorts them (``kubetypes.SortedContainerStatuses``);
  the prober manager sets ``started``/``ready`` for regular and init containers only, so an
  ephemeral container's status has no ``started`` and is never ``ready``.

What is sent is :func:`status_patch`: upstream's status manager (``pkg/kubelet/status/
status_manager.go``) skips a status equal to the one it last set ("ignoring same status") and
otherwise sends ``PatchPodStatus`` (``pkg/util/pod``): the two-way strategic merge patch from the
API server's current status to the new one, so unchanged fields are not sent and a field the new
status drops (a condition's ``reason``/``message``) is sent as ``null``. :func:`render_status` is
the full status that patch leads to.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kbatch.controllers.kubelet.engine import EPHEMERAL, RUNNING, SIDECAR, TERMINATED, PodRun, Proc

__all__ = [
    "KUBELET_CONDITIONS",
    "Seen",
    "container_fingerprint",
    "render_status",
    "status_patch",
    "wanted_ready",
]

KUBELET_CONDITIONS = ("PodReadyToStartContainers", "Initialized", "ContainersReady", "Ready")
Fmt = Callable[[float], str]  # timeline seconds -> RFC 3339
Wanted = tuple[str, str | None, str | None]  # a condition's (status, reason, message)
Seen = tuple[str, str | None, str | None, int | None]  # the same and its observedGeneration, as stored
_SCHEDULED: Wanted = ("True", None, None)


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
        "ready": proc.state == RUNNING and proc.ready_ok, "restartCount": proc.restart_count,
        "started": proc.state == RUNNING and proc.started_ok,
    }
    if proc.kind == EPHEMERAL:  # the prober manager leaves ephemeral statuses alone
        out["ready"] = False
        del out["started"]
    if proc.last is not None:
        out["lastState"] = {"terminated": _terminated(*proc.last, fmt)}
    return out


def _kubelet_conditions(run: PodRun) -> dict[str, Wanted]:
    incomplete = [p.name for p in run.init
                  if p.kind != SIDECAR and not (p.state == TERMINATED and p.exit_code == 0)]
    unready = [p.name for p in [*run.init, *run.app]
               if p.kind != "init" and (p.state != RUNNING or not p.ready_ok)]
    init: Wanted
    ready: Wanted
    if run.terminal:
        # generateContainersReadyConditionForTerminalPhase / generatePodReadyConditionForTerminalPhase
        # (pkg/kubelet/status/generate.go): reason PodFailed for a Failed pod, PodCompleted otherwise
        done: Wanted = ("False", "PodFailed" if run.phase == "Failed" else "PodCompleted", None)
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


def wanted_ready(run: PodRun) -> str:
    """The ``Ready`` condition status the kubelet reports for ``run``."""
    return _kubelet_conditions(run)["Ready"][0]


def merge_conditions(
    existing: list[dict[str, Any]], wanted: dict[str, Wanted], now: str, generation: int | None = None,
) -> list[dict[str, Any]]:
    """Set the wanted conditions, keep every other one, keep transition times that did not change;
    the wanted ones observe ``generation`` (when set; else they keep the stored value, as the API
    server keeps a cleared one)."""
    by_type = {c.get("type"): c for c in existing}
    out = [c for c in existing if c.get("type") not in wanted]
    for type_, (status, reason, message) in wanted.items():
        old = by_type.get(type_)
        cond: dict[str, Any] = {"type": type_, "status": status}
        observed = generation or (old.get("observedGeneration") if old else None)
        if observed:
            cond["observedGeneration"] = observed
        same = old is not None and old.get("status") == status
        cond["lastTransitionTime"] = old.get("lastTransitionTime", now) if same and old else now
        if reason:
            cond["reason"] = reason
        if message:
            cond["message"] = message
        out.append(cond)
    return out


def render_status(run: PodRun, existing: dict[str, Any], fmt: Fmt, now: float,
                  generation: int | None = None) -> dict[str, Any]:
    """The new ``status`` (a full replacement for the old one, other writers' conditions kept) of the
    pod at ``generation``."""
    status = {k: v for k, v in existing.items()
              if k not in ("phase", "conditions", "containerStatuses", "initContainerStatuses", "startTime",
                           "ephemeralContainerStatuses")}
    conditions = list(existing.get("conditions") or [])
    if not any(c.get("type") == "PodScheduled" for c in conditions):
        scheduled = {"type": "PodScheduled", "status": "True", "lastTransitionTime": fmt(run.bound_at)}
        conditions.insert(0, scheduled)
    if generation:
        status["observedGeneration"] = generation
    status["phase"] = run.phase
    status["startTime"] = existing.get("startTime") or fmt(run.bound_at)
    wanted = {"PodScheduled": _SCHEDULED, **_kubelet_conditions(run)}
    status["conditions"] = merge_conditions(conditions, wanted, fmt(now), generation)
    if run.init:
        status["initContainerStatuses"] = [_container_status(p, fmt) for p in run.init]
    status["containerStatuses"] = [_container_status(p, fmt) for p in run.app]
    if run.ephemeral:
        status["ephemeralContainerStatuses"] = _ephemeral_statuses(run, fmt)
    return status


def _ephemeral_statuses(run: PodRun, fmt: Fmt) -> list[dict[str, Any]]:
    """By name (``normalizeStatus``: ``sort.Sort(SortedContainerStatuses(...))``), not spec order."""
    return [_container_status(p, fmt) for p in sorted(run.ephemeral, key=lambda p: p.name)]


def container_fingerprint(run: PodRun) -> tuple[Any, ...]:
    """Everything the container statuses are rendered from: equal fingerprints, equal statuses.
    One flat tuple, ten values per container (a fixed width, so still one-to-one): it is kept for
    every running pod."""
    out: tuple[Any, ...] = ()
    for p in run.procs():
        out += (p.state, p.reason, p.message, p.started_at, p.finished_at, p.exit_code, p.restart_count,
                p.last, p.ready_ok, p.started_ok)
    return out


def _condition_patch(type_: str, old: Seen | None, new: Wanted, stamp: str,
                     generation: int | None) -> dict[str, Any] | None:
    """One ``conditions`` item of the two-way patch (merge key ``type``), None when unchanged; the
    transition time moves only with ``status``; ``observedGeneration`` is sent when it moves."""
    status, reason, message = new
    if old is None:
        item: dict[str, Any] = {"type": type_, "status": status, "lastTransitionTime": stamp}
        item.update({k: v for k, v in (("reason", reason), ("message", message)) if v})
        if generation:
            item["observedGeneration"] = generation
        return item
    item = {"type": type_}
    if old[0] != status:
        item["status"], item["lastTransitionTime"] = status, stamp
    for key, before, after in (("reason", old[1], reason), ("message", old[2], message)):
        if (before or None) != (after or None):
            item[key] = after or None  # null deletes the field the new status lacks
    if generation and old[3] != generation:
        item["observedGeneration"] = generation
    return item if len(item) > 1 else None


def status_patch(
    run: PodRun, phase: str | None, has_start: bool, conditions: dict[str, Seen], observed: int | None,
    fmt: Fmt, now: float, containers_sent: bool, generation: int | None = None,
) -> dict[str, Any]:
    """The ``status`` patch from the current status (its ``phase``, whether it has ``startTime``, its
    conditions by type, its ``observedGeneration``) to the kubelet's view of ``run`` for the pod at
    ``generation``; ``{}`` when nothing changed.
    ``containers_sent``: the container statuses the API holds are this run's (the kubelet is their
    only writer; the list has no merge key, so a change replaces it whole)."""
    patch: dict[str, Any] = {}
    if generation and observed != generation:
        patch["observedGeneration"] = generation
    if phase != run.phase:
        patch["phase"] = run.phase
    if not has_start:
        patch["startTime"] = fmt(run.bound_at)
    items: list[dict[str, Any]] = []
    stamp = fmt(now)
    for type_, wanted in _kubelet_conditions(run).items():
        item = _condition_patch(type_, conditions.get(type_), wanted, stamp, generation)
        if item is not None:
            items.append(item)
    # last, as upstream's generateAPIPodStatus appends it; absent: bound without the scheduler
    scheduled = conditions.get("PodScheduled")
    item = _condition_patch("PodScheduled", scheduled, _SCHEDULED,
                            stamp if scheduled is not None else fmt(run.bound_at), generation)
    if item is not None:
        items.append(item)
    if items:
        patch["conditions"] = items
    if not containers_sent:
        if run.init:
            patch["initContainerStatuses"] = [_container_status(p, fmt) for p in run.init]
        patch["containerStatuses"] = [_container_status(p, fmt) for p in run.app]
        if run.ephemeral:
            patch["ephemeralContainerStatuses"] = _ephemeral_statuses(run, fmt)
    return patch
