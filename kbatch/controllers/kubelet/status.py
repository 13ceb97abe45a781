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
* ``containerStatuses`` and ``ephemeralContainerStatuses`` (only for a pod that has ephemeral
  containers) are sorted by name, ``initContainerStatuses`` keep spec order, as the status manager's
  ``normalizeStatus`` orders them (``SortedContainerStatuses``, ``SortInitContainerStatuses``);
  the prober manager sets ``started``/``ready`` for regular and init containers only, so an
  ephemeral container's status has no ``started`` and is never ``ready``; a regular init container
  is ``ready`` once it exited 0;
* the conditions come in ``generateAPIPodStatus``'s order after other writers' ones
  (``mergePodStatus``): ``PodReadyToStartContainers``, ``Initialized``, ``Ready``,
  ``ContainersReady``, ``PodScheduled``; ``Ready`` also waits for the pod's readiness gates
  (``GeneratePodReadyCondition``: ``ReadinessGatesNotReady``);
* ``image`` is the spec's as written and ``imageID`` empty: not yet what the runtime reports
  (the normalized image, its repo digest, the ``containerID``), nor the fields the container's
  spec fixes (``volumeMounts``, ``resources``, ``allocatedResources``, ``user``), for their memory
  cost (docs/simulation.md, "The pod status, field by field").

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

from kbatch.controllers.kubelet.engine import (
    EPHEMERAL,
    INIT,
    RUNNING,
    SIDECAR,
    TERMINATED,
    PodRun,
    Proc,
)

__all__ = [
    "KUBELET_CONDITIONS",
    "Seen",
    "container_fingerprint",
    "ready_condition",
    "render_status",
    "status_patch",
    "wanted_ready",
]

KUBELET_CONDITIONS = ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady")
UNKNOWN = "ContainerStatusUnknown"
Fmt = Callable[[float], str]  # timeline seconds -> RFC 3339
Wanted = tuple[str, str | None, str | None]  # a condition's (status, reason, message)
Seen = tuple[str, str | None, str | None, int | None]  # the same and its observedGeneration, as stored
Gates = dict[str, str] | None  # condition type -> status, for the readiness gates
_SCHEDULED: Wanted = ("True", None, None)


def _terminated(exit_code: int, reason: str, start: float | None, end: float | None, message: str,
                fmt: Fmt) -> dict[str, Any]:
    out: dict[str, Any] = {"exitCode": exit_code, "reason": reason}
    if message:
        out["message"] = message
    if reason == UNKNOWN:  # the status manager's stand-in for a container never seen to end
        return out
    if start is not None:
        out["startedAt"] = fmt(start)
    if end is not None:
        out["finishedAt"] = fmt(end)
    return out


def _container_status(proc: Proc, fmt: Fmt) -> dict[str, Any]:
    """One container's status (``convertToAPIContainerStatuses``; ``ready``/``started`` as the
    prober manager's ``UpdatePodStatus`` sets them)."""
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
    if proc.kind == INIT:  # a regular init container is ready once it exited 0, never started
        ready = proc.state == TERMINATED and proc.exit_code == 0
    else:  # an ephemeral one never (the prober manager leaves its status alone)
        ready = proc.state == RUNNING and proc.ready_ok and proc.kind != EPHEMERAL
    out: dict[str, Any] = {"name": proc.name, "state": state}
    if proc.last is not None:  # the container before this one (in back-off: the one that exited)
        out["lastState"] = {"terminated": _terminated(*proc.last, fmt)}
    out["ready"], out["restartCount"] = ready, proc.restart_count
    out["image"], out["imageID"] = proc.image, ""
    if proc.kind != EPHEMERAL:  # the prober manager leaves ephemeral statuses alone
        out["started"] = proc.state == RUNNING and proc.started_ok
    return out


def _containers(run: PodRun, fmt: Fmt) -> list[dict[str, Any]]:
    """``containerStatuses`` sorted by name (``normalizeStatus``: ``SortedContainerStatuses``)."""
    app = run.app if len(run.app) < 2 else sorted(run.app, key=_name)
    return [_container_status(p, fmt) for p in app]


def _inits(run: PodRun, fmt: Fmt) -> list[dict[str, Any]]:
    """``initContainerStatuses`` in spec order (``normalizeStatus``: ``SortInitContainerStatuses``)."""
    return [_container_status(p, fmt) for p in run.init]


def _name(proc: Proc) -> str:
    return proc.name


def _incomplete(run: PodRun) -> list[str]:
    """Init containers not done (``isInitContainerInitialized``): a regular one until it exited 0,
    a sidecar until it runs and is started."""
    return [p.name for p in run.init
            if not (p.state == RUNNING and p.started_ok if p.kind == SIDECAR
                    else p.state == TERMINATED and p.exit_code == 0)]


def _kubelet_conditions(run: PodRun, gates: Gates = None) -> dict[str, Wanted]:
    """The kubelet's conditions in the order ``generateAPIPodStatus`` appends them
    (``pkg/kubelet/status/generate.go``); ``gates``: the status of each condition the pod's
    readiness gates name (absent: it does not exist)."""
    unready = [p.name for p in [*run.init, *run.app]
               if p.kind != INIT and (p.state != RUNNING or not p.ready_ok)]
    init: Wanted
    ready: Wanted
    if run.terminal:
        # generateContainersReadyConditionForTerminalPhase / generatePodReadyConditionForTerminalPhase:
        # reason PodFailed for a Failed pod, PodCompleted otherwise
        done: Wanted = ("False", "PodFailed" if run.phase == "Failed" else "PodCompleted", None)
        if run.phase == "Succeeded":
            init = ("True", "PodCompleted", None)
        elif run.initialized:  # HasAnyRegularContainerStarted: initialized before, no reason
            init = ("True", None, None)
        else:
            init = _not_initialized(run)
        return {"PodReadyToStartContainers": ("False", None, None), "Initialized": init,
                "Ready": done, "ContainersReady": done}
    sandbox = ("True", None, None) if run.started else ("False", None, None)
    # a restart of all containers re-runs the init containers, but a pod once initialized stays so
    # (KEP-5532 "Existing Pod Conditions"; HasAnyRegularContainerStarted over the kept statuses)
    again = run.restart_all and any(p.rerun for p in run.app)
    init = ("True", None, None) if run.initialized or not run.init or again else _not_initialized(run)
    if run.initialized and not unready:
        ready = ("True", None, None)
    else:
        names = " ".join(unready)
        ready = ("False", "ContainersNotReady", f"containers with unready status: [{names}]")
    pod_ready = _gated(ready, run.gates, gates or {}) if run.gates and ready[0] == "True" else ready
    return {"PodReadyToStartContainers": sandbox, "Initialized": init,
            "Ready": pod_ready, "ContainersReady": ready}


def _restarting(run: PodRun) -> Wanted:
    """``AllContainersRestarting`` (KEP-5532; upstream ``GenerateAllContainersRestartingCondition``,
    reported only for a pod some container of which may restart them all,
    ``AllContainersCouldRestart``): True while the restart's termination phase lasts, False
    otherwise, with ``PodCompleted``/``PodFailed`` once the pod is terminal."""
    if run.terminal:
        return ("False", "PodFailed" if run.phase == "Failed" else "PodCompleted", None)
    if run.restarting:
        return ("True", "RestartAllContainersStarted", "container exited with restart policy rule")
    return ("False", None, None)


def _gated(ready: Wanted, types: tuple[str, ...], gates: dict[str, str]) -> Wanted:
    """``GeneratePodReadyCondition``: with its containers ready, the pod is ``Ready`` only when every
    readiness gate's condition is ``True`` (reason ``ReadinessGatesNotReady`` otherwise)."""
    messages = []
    for type_ in types:
        status = gates.get(type_)
        if status is None:
            messages.append(f'corresponding condition of pod readiness gate "{type_}" does not exist.')
        elif status != "True":
            messages.append(f'the status of pod readiness gate "{type_}" is not "True", but {status}')
    return ("False", "ReadinessGatesNotReady", ", ".join(messages)) if messages else ready


def _not_initialized(run: PodRun) -> Wanted:
    names = " ".join(_incomplete(run))
    return ("False", "ContainersNotInitialized", f"containers with incomplete status: [{names}]")


def wanted_ready(run: PodRun, gates: Gates = None) -> str:
    """The ``Ready`` condition status the kubelet reports for ``run`` (``gates``: the statuses of
    the readiness gates' conditions, when the pod has any)."""
    return _kubelet_conditions(run, gates)["Ready"][0]


def ready_condition(run: PodRun, gates: Gates = None) -> Wanted:
    """The ``Ready`` condition (status, reason, message) the kubelet reports for ``run``."""
    return _kubelet_conditions(run, gates)["Ready"]


def merge_conditions(
    existing: list[dict[str, Any]], wanted: dict[str, Wanted], now: str, generation: int | None = None,
) -> list[dict[str, Any]]:
    """Set the wanted conditions, keep every other one, keep transition times that did not change;
    the wanted ones observe ``generation`` (when set; else they keep the stored value, as the API
    server keeps a cleared one). The others come first, in their order, then the wanted ones in
    theirs (the status manager's ``mergePodStatus``)."""
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
    bound = fmt(run.bound_at)
    if generation:
        status["observedGeneration"] = generation
    status["phase"] = run.phase
    status["startTime"] = existing.get("startTime") or bound
    gates = {c.get("type"): c.get("status") for c in conditions} if run.gates else None
    wanted = {**_kubelet_conditions(run, gates), "PodScheduled": _SCHEDULED}
    if run.restart_all:  # appended after PodScheduled, as generateAPIPodStatus does
        wanted[RESTARTING] = _restarting(run)
    if not any(c.get("type") == "PodScheduled" for c in conditions):  # bound without the scheduler
        conditions.append({"type": "PodScheduled", "status": "True", "lastTransitionTime": bound})
    status["conditions"] = merge_conditions(conditions, wanted, fmt(now), generation)
    if run.init:
        status["initContainerStatuses"] = _inits(run, fmt)
    status["containerStatuses"] = _containers(run, fmt)
    if run.ephemeral:
        status["ephemeralContainerStatuses"] = _ephemeral_statuses(run, fmt)
    return status


def _ephemeral_statuses(run: PodRun, fmt: Fmt) -> list[dict[str, Any]]:
    """By name (``normalizeStatus``: ``sort.Sort(SortedContainerStatuses(...))``), not spec order."""
    return [_container_status(p, fmt) for p in sorted(run.ephemeral, key=_name)]


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


RESTARTING = "AllContainersRestarting"  # KEP-5532, only on a pod that may restart all its containers
_ORDER = (*KUBELET_CONDITIONS, "PodScheduled", RESTARTING)  # mergePodStatus: others' first, then these
_ORDER_ITEMS = [{"type": t} for t in _ORDER[:-1]]
_KUBELET_OWNED = frozenset(_ORDER)


def _order_of(conditions: dict[str, Seen],
              sent: set[str] | frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    """``$setElementOrder/conditions``: the order of the whole list after the patch (the
    ``AllContainersRestarting`` condition only on a pod that has it)."""
    others = [{"type": t} for t in conditions if t not in _KUBELET_OWNED]
    ours = [*_ORDER_ITEMS, {"type": RESTARTING}] if RESTARTING in conditions or RESTARTING in sent \
        else _ORDER_ITEMS
    return [*others, *ours] if others else list(ours)


def _condition_order(conditions: dict[str, Seen], items: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """``$setElementOrder/conditions`` when the strategic merge of ``items`` into the stored list
    would not give upstream's order by itself, else None.

    Upstream's two-way patch (``strategicpatch.CreateTwoWayMergePatch``) names the order on every
    change of the list. The merge (``mergeSortedSlice``) keeps the stored order of what it had, puts
    the patch's items in the patch's order, and an item the list lacks before the stored items the
    patch leaves out. So with the stored list already in order, the directive changes the result
    only when a new item must follow one of those: another writer's condition (they come first) or
    one of the kubelet's later in the order. Sent only then: the same stored list, one directive less
    on almost every write (the merge's ordering pass cost ~9% of a cluster run's function calls)."""
    current = list(conditions)
    others = [t for t in current if t not in _KUBELET_OWNED]
    sent = {item["type"] for item in items}
    if current != [*others, *(t for t in _ORDER if t in conditions)]:
        return _order_of(conditions, sent)
    new = [t for t in sent if t not in conditions]
    if not new:
        return None
    last_new = max(_ORDER.index(t) for t in new)
    left_out = [t for t in current if t not in sent]
    if any(t not in _KUBELET_OWNED or _ORDER.index(t) < last_new for t in left_out):
        return _order_of(conditions, sent)
    return None


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
    gates = {t: seen[0] for t, seen in conditions.items()} if run.gates else None
    for type_, wanted in _kubelet_conditions(run, gates).items():
        item = _condition_patch(type_, conditions.get(type_), wanted, stamp, generation)
        if item is not None:
            items.append(item)
    # last, as upstream's generateAPIPodStatus appends it; absent: bound without the scheduler
    scheduled = conditions.get("PodScheduled")
    item = _condition_patch("PodScheduled", scheduled, _SCHEDULED,
                            stamp if scheduled is not None else fmt(run.bound_at), generation)
    if item is not None:
        items.append(item)
    if run.restart_all:
        item = _condition_patch(RESTARTING, conditions.get(RESTARTING), _restarting(run), stamp, generation)
        if item is not None:
            items.append(item)
    order = _condition_order(conditions, items)
    if items or order is not None:
        patch["conditions"] = items
    if order is not None:  # only when the merge alone would not give the order (see _condition_order)
        patch["$setElementOrder/conditions"] = order
    if not containers_sent:
        if run.init:
            patch["initContainerStatuses"] = _inits(run, fmt)
        patch["containerStatuses"] = _containers(run, fmt)
        if run.ephemeral:
            patch["ephemeralContainerStatuses"] = _ephemeral_statuses(run, fmt)
    return patch
