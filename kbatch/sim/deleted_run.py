"""The run of a container in a pod being deleted, for readers that recompute a run from the pod
(the log endpoint, :func:`kbatch.server.actions.pod_log_lines`) rather than ask the kubelet.

The API server sets ``deletionTimestamp`` to the delete's time plus the grace period and
``deletionGracePeriodSeconds`` to that period (``pkg/registry/rest/delete.go``
``BeforeDelete``); kbatch's kubelet sends the stop signal when it sees the deletion, at the
delete's time, and SIGKILL at ``deletionTimestamp`` (:mod:`kbatch.sim.signals`). So a recomputed
run is the one that signal, sent ``deletionTimestamp - grace - startedAt`` seconds into the run,
makes (:func:`kbatch.sim.command.stopped_run`), its lines cut at the kill. A container's
``preStop`` ``sleep`` or ``exec`` hook delays the signal by its run (at most the grace period) and
SIGKILL follows what is left of the grace period, at least 2 s (``killContainer``, as the kubelet's
:mod:`kbatch.controllers.kubelet.termination`); a sidecar's turn is not recomputed here. The pod's
``lifecycle.stopSignal`` (gated) is not read here: the image's signal is.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from kbatch.sim.command import ContainerRun, FilesFactory, interpret, stopped_run
from kbatch.sim.images import stop_rule
from kbatch.sim.signals import StopSignal, signal_name

__all__ = ["deleted_run"]


def deleted_run(pod: Mapping[str, Any], container: Mapping[str, Any], argv: tuple[str, ...],
                env: Mapping[str, str], started: datetime, deletion: datetime | None, default: float,
                files: FilesFactory | None = None) -> ContainerRun | None:
    """The run of ``container`` (started at ``started``) as the stop signal of the pod's deletion
    (``deletion``: its ``deletionTimestamp``) makes it; None when the pod is not being deleted, the
    container started after the signal, or the signal changes nothing."""
    grace = (pod.get("metadata") or {}).get("deletionGracePeriodSeconds")
    if deletion is None or grace is None:
        return None
    at = (deletion - timedelta(seconds=int(grace)) - started).total_seconds()
    if at < 0:
        return None
    delay = _hook_delay(container, env, files, int(grace))
    left = int(grace) if delay is None else max(int(grace) - int(delay) if delay < int(grace) else 0, 2)
    at += delay or 0.0
    signal, exits = stop_rule(str(container.get("image") or ""), tuple(container.get("command") or ()),
                              tuple(container.get("args") or ()))
    pid1 = not (pod.get("spec") or {}).get("shareProcessNamespace")
    run = stopped_run(argv, env, StopSignal(signal_name(signal) or "TERM", at, pid1), exits, default, files)
    if run is None:
        return None
    until = min(run.duration, at + left)
    kept = [(line, offset) for line, offset in zip(run.logs, run.log_offsets, strict=True) if offset <= until]
    return ContainerRun(until, run.exit_code, tuple(line for line, _ in kept),
                        tuple(offset for _, offset in kept))


def _hook_delay(container: Mapping[str, Any], env: Mapping[str, str], files: FilesFactory | None,
                grace: int) -> float | None:
    """How long the container's preStop hook holds its stop signal back (None: no hook)."""
    hook = (container.get("lifecycle") or {}).get("preStop")
    if not hook or grace <= 0:
        return None
    if hook.get("sleep") is not None:
        return min(float(hook["sleep"].get("seconds") or 0), float(grace))
    if hook.get("exec") is not None:
        run = interpret(tuple(hook["exec"].get("command") or ()), env, 0.0, files)
        return min(run.duration, float(grace))
    return 0.0  # httpGet, tcpSocket: answered at once
