"""The run of a container in a pod being deleted, for readers that recompute a run from the pod
(the log endpoint, :func:`kbatch.server.actions.pod_log_lines`) rather than ask the kubelet.

The API server sets ``deletionTimestamp`` to the delete's time plus the grace period and
``deletionGracePeriodSeconds`` to that period (``pkg/registry/rest/delete.go``
``BeforeDelete``); kbatch's kubelet sends the stop signal when it sees the deletion, at the
delete's time, and SIGKILL at ``deletionTimestamp`` (:mod:`kbatch.sim.signals`). So a recomputed
run is the one that signal, sent ``deletionTimestamp - grace - startedAt`` seconds into the run,
makes (:func:`kbatch.sim.command.stopped_run`), its lines cut at the kill. The pod's
``lifecycle.stopSignal`` (gated) is not read here: the image's signal is.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from kbatch.sim.command import ContainerRun, FilesFactory, stopped_run
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
    signal, exits = stop_rule(str(container.get("image") or ""), tuple(container.get("command") or ()),
                              tuple(container.get("args") or ()))
    pid1 = not (pod.get("spec") or {}).get("shareProcessNamespace")
    run = stopped_run(argv, env, StopSignal(signal_name(signal) or "TERM", at, pid1), exits, default, files)
    if run is None:
        return None
    until = min(run.duration, at + int(grace))
    kept = [(line, offset) for line, offset in zip(run.logs, run.log_offsets, strict=True) if offset <= until]
    return ContainerRun(min(run.duration, at + int(grace)), run.exit_code, tuple(line for line, _ in kept),
                        tuple(offset for _, offset in kept))
