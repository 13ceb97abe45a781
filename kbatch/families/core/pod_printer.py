"""The ``kubectl get pods`` row: READY, STATUS, RESTARTS and the wide columns.

Rules from k8s.io/kubernetes ``pkg/printers/internalversion/printers.go`` ``printPod`` (with its
table test ``TestPrintPod`` / ``TestPrintPodWithRestartableInitContainer``):

* READY counts ready running containers over the containers plus the restartable init containers
  (sidecars, ``restartPolicy: Always``); a started sidecar that is ready counts as ready.
* STATUS starts from ``status.reason`` else the phase (``SchedulingGated`` when the PodScheduled
  condition says so); while an init container has not finished it is ``Init:<reason>`` or
  ``Init:i/n``; otherwise the last container (walking backwards) with a waiting or terminated reason
  wins (``ExitCode:n`` / ``Signal:n`` without a reason); ``Completed`` with a ready running container
  left is ``Running`` (Ready condition) or ``NotReady``; a deleted pod is ``Unknown`` when its node
  was lost, ``Terminating`` unless its phase is terminal.
* RESTARTS: while initializing, the init containers' restarts; afterwards the sidecars' restarts
  plus the containers', with ``(age ago)`` of the newest ``lastState.terminated.finishedAt``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kbatch.api.base import parse_time
from kbatch.api.humanize import age, human_duration
from kbatch.api.printing import Obj

__all__ = ["pod_cells"]

NODE_LOST = "NodeLost"  # pkg/util/node NodeUnreachablePodReason


@dataclass(slots=True)
class _Tally:
    """Restarts and the newest restart time of a group of container statuses."""

    restarts: int = 0
    last: datetime | None = None

    def add(self, st: dict[str, Any]) -> None:
        self.restarts += int(st.get("restartCount") or 0)
        finished = ((st.get("lastState") or {}).get("terminated") or {}).get("finishedAt")
        if finished:
            when = parse_time(finished)
            if self.last is None or when > self.last:
                self.last = when


def _terminated_reason(term: dict[str, Any]) -> str:
    if term.get("reason"):
        return str(term["reason"])
    return f"Signal:{term['signal']}" if term.get("signal") else f"ExitCode:{term.get('exitCode', 0)}"


def _init_pass(spec: dict[str, Any], statuses: list[dict[str, Any]], reason: str
               ) -> tuple[str, bool, int, _Tally, _Tally]:
    """Walk the init container statuses: (reason, initializing, ready sidecars, all, sidecars)."""
    sidecars = {c.get("name") for c in spec.get("initContainers") or () if c.get("restartPolicy") == "Always"}
    total = len(spec.get("initContainers") or ())
    everything, restartable, ready = _Tally(), _Tally(), 0
    for i, st in enumerate(statuses):
        everything.add(st)
        is_sidecar = st.get("name") in sidecars
        if is_sidecar:
            restartable.add(st)
        state = st.get("state") or {}
        term, wait = state.get("terminated"), state.get("waiting")
        if term is not None and int(term.get("exitCode") or 0) == 0:
            continue
        if is_sidecar and st.get("started"):
            ready += 1 if st.get("ready") else 0
            continue
        if term is not None:
            return "Init:" + _terminated_reason(term), True, ready, everything, restartable
        if wait and wait.get("reason") and wait["reason"] != "PodInitializing":
            return "Init:" + wait["reason"], True, ready, everything, restartable
        return f"Init:{i}/{total}", True, ready, everything, restartable
    return reason, False, ready, everything, restartable


def _containers_pass(status: dict[str, Any], reason: str, tally: _Tally) -> tuple[str, int]:
    """Walk the container statuses backwards: (reason, ready containers); adds to ``tally``."""
    ready, running = 0, False
    for st in reversed(status.get("containerStatuses") or []):
        tally.add(st)
        state = st.get("state") or {}
        term, wait = state.get("terminated"), state.get("waiting")
        if wait and wait.get("reason"):
            reason = wait["reason"]
        elif term is not None:
            reason = _terminated_reason(term)
        elif st.get("ready") and state.get("running") is not None:
            running, ready = True, ready + 1
    if reason == "Completed" and running:
        ready_cond = any(c.get("type") == "Ready" and c.get("status") == "True"
                         for c in status.get("conditions") or ())
        reason = "Running" if ready_cond else "NotReady"
    return reason, ready


def _status_and_restarts(pod: Obj) -> tuple[str, int, int, _Tally]:
    """(STATUS, ready, total, restart tally) of one pod."""
    status, spec = pod.get("status") or {}, pod.get("spec") or {}
    reason = status.get("reason") or status.get("phase") or ""
    if any(c.get("type") == "PodScheduled" and c.get("reason") == "SchedulingGated"
           for c in status.get("conditions") or ()):
        reason = "SchedulingGated"
    reason, initializing, ready, tally, restartable = _init_pass(
        spec, status.get("initContainerStatuses") or [], reason)
    initialized = any(c.get("type") == "Initialized" and c.get("status") == "True"
                      for c in status.get("conditions") or ())
    if not initializing or initialized:
        tally = restartable
        reason, running_ready = _containers_pass(status, reason, tally)
        ready += running_ready
    deleting = (pod.get("metadata") or {}).get("deletionTimestamp")
    if deleting and status.get("reason") == NODE_LOST:
        reason = "Unknown"
    elif deleting and status.get("phase") not in ("Succeeded", "Failed"):
        reason = "Terminating"
    sidecars = sum(1 for c in spec.get("initContainers") or () if c.get("restartPolicy") == "Always")
    return reason, ready, len(spec.get("containers") or ()) + sidecars, tally


def _readiness_gates(spec: dict[str, Any], status: dict[str, Any]) -> str:
    gates = spec.get("readinessGates") or []
    if not gates:
        return "<none>"
    wanted = {g.get("conditionType") for g in gates}
    done = sum(1 for c in status.get("conditions") or ()
               if c.get("type") in wanted and c.get("status") == "True")
    return f"{done}/{len(gates)}"


def pod_cells(pod: Obj, now: datetime) -> list[Any]:
    """One row per pod (the short columns then the wide ones)."""
    status, meta, spec = pod.get("status") or {}, pod.get("metadata") or {}, pod.get("spec") or {}
    reason, ready, total, tally = _status_and_restarts(pod)
    shown = str(tally.restarts)
    if tally.restarts and tally.last is not None:
        shown = f"{tally.restarts} ({human_duration((now - tally.last).total_seconds())} ago)"
    return [meta.get("name") or "", f"{ready}/{total}", reason, shown,
            age(meta.get("creationTimestamp"), now), status.get("podIP") or "<none>",
            spec.get("nodeName") or "<none>",
            status.get("nominatedNodeName") or "<none>", _readiness_gates(spec, status)]
