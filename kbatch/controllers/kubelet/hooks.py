"""What a container's ``preStop`` hook does, as the simulated kubelet runs it.

Upstream ``pkg/kubelet/lifecycle/handlers.go`` ``handlerRunner.Run``, one case per handler:

* ``exec``: the command runs in the container (``ExecSync``) and fails when it exits non-zero.
  Here the shell of :mod:`kbatch.sim.command` runs it with the container's environment and over its
  files as its own command leaves them (:func:`.volume_files.after_run`, what an exec probe sees);
  what the hook writes is not seen by the container's stopped run. A command nothing models answers
  at once with 0, as an exec probe's.
* ``httpGet``: a GET to the pod's IP (or ``host``) and port; only a failed connection fails it, any
  HTTP status passes. kbatch containers serve no sockets, so a hook passes when the container runs
  an HTTP server of the image table — ``nginx``, ``httpd``, or ``agnhost`` with a subcommand that
  serves HTTP (``netexec``, ``serve-hostname``, ``test-webserver``, ``fake-gitserver``, ``porter``,
  ``liveness``, ``guestbook``) — at once; any other container refuses the connection (fails at
  once). A ``host`` other than the pod is not modelled (taken as the pod).
* ``sleep``: the kubelet waits ``seconds`` (PodLifecycleSleepAction, GA; zero is allowed since
  PodLifecycleSleepActionAllowZero went GA in 1.34).
* ``tcpSocket``: not a lifecycle handler upstream (kept in the API for compatibility, never
  validated): ``Run`` answers "invalid handler", so the hook fails at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from kbatch.controllers.kubelet.behaviour import Vars, container_env, touches_files
from kbatch.controllers.kubelet.engine import (
    FAILED_POST_START,
    KILLED_EXIT_CODE,
    KILLED_POST_START,
    PreStop,
    Proc,
    Stopper,
)
from kbatch.controllers.kubelet.termination import Hook, hook_failure, stop_times
from kbatch.controllers.kubelet.volume_files import after_run
from kbatch.sim.command import ContainerRun, interpret
from kbatch.sim.images import image_name

__all__ = ["handler_run", "make_prestop", "post_started", "serves_http"]


_HTTP_PROGRAMS = frozenset({"nginx", "httpd"})
_AGNHOST_HTTP = frozenset({"netexec", "serve-hostname", "test-webserver", "fake-gitserver", "porter",
                           "liveness", "guestbook"})


def serves_http(container: Any) -> bool:
    """Does the container run one of the image table's HTTP servers (its own ENTRYPOINT)?"""
    if container.command:
        return False
    name, args = image_name(container.image or ""), tuple(container.args or ())
    if name in _HTTP_PROGRAMS:
        return not args or args[0].startswith("-") or args[0] == name
    return name == "agnhost" and bool(args) and args[0] in _AGNHOST_HTTP


def handler_run(pod: Any, container: Any, handler: Any, services: Vars | None = None) -> Hook:
    """One run of a lifecycle ``handler`` of ``container`` (module docstring); an ``exec`` one sees
    the container's environment, ``services`` its service variables."""
    if handler.sleep is not None:
        return Hook(float(handler.sleep.seconds or 0))
    if handler.exec is not None:
        argv = tuple(handler.exec.command or ())
        files = after_run(pod, container, None, lambda c: container_env(pod, c, services=services)) \
            if touches_files(argv) else None
        run = interpret(argv, container_env(pod, container, services=services), 0.0, files)
        return Hook(run.duration, run.exit_code != 0, in_container=True)
    if handler.http_get is not None:
        return Hook(0.0, not serves_http(container))
    return Hook(0.0, True)  # tcpSocket: "invalid handler"


def make_prestop(pod: Any, services: Callable[[], Vars] | None = None) -> PreStop | None:
    """The pod's preStop hooks by container (None when no container has one: nothing per pod);
    ``services`` gives the containers' service variables (read once, when a pod has a hook)."""
    containers = {c.name: c for c in [*(pod.spec.init_containers or ()), *pod.spec.containers]
                  if c.lifecycle is not None and c.lifecycle.pre_stop is not None}
    if not containers:
        return None
    env = services() if services is not None else None

    def prestop(proc: Proc, at: float) -> Hook | None:
        container = containers.get(proc.name)
        if container is None:
            return None
        return handler_run(pod, container, container.lifecycle.pre_stop, env)

    return prestop


def post_started(pod: Any, container: Any, run: ContainerRun, proc: Proc, stop: Stopper,
                 services: Vars | None = None) -> ContainerRun:
    """The run of a container with a ``postStart`` hook (``startContainer``): the hook runs as the
    container starts, and the kubelet's start of the container returns only when it has (its
    ``hold``: the status shows the container only then, and the next container starts only then).
    When it fails (:func:`.termination.hook_failure`: its command failed, or the container exited
    while an ``exec`` hook still ran) the kubelet records ``FailedPostStartHook`` "PostStartHook
    failed" (the hook's output kept out, as for preStop) and kills the container with the pod's
    grace period (``killContainer`` with the message "FailedPostStartHook", its ``Killing`` event's:
    its preStop hook, its stop signal, SIGKILL), so the run ends as that stop makes it end, unless
    it ended by itself first; the start returns when the kill is done. Both events carry the
    instant of the failure. The container then restarts or not by the pod's ``restartPolicy``."""
    hook = handler_run(pod, container, container.lifecycle.post_start, services)
    failed_at = hook_failure(hook, run.duration)
    if failed_at is None:
        return replace(run, hold=hook.duration) if hook.duration > 0 else run
    events = ((*FAILED_POST_START, failed_at), (*KILLED_POST_START, failed_at))
    if run.duration <= failed_at:
        return replace(run, events=events, hold=failed_at)
    grace = pod.spec.termination_grace_period_seconds
    pre_stop = container.lifecycle.pre_stop
    hook_run = handler_run(pod, container, pre_stop, services) if pre_stop is not None else None
    times = stop_times(failed_at, float(30 if grace is None else grace), hook_run, None)
    stopped = stop(proc, times.signal_at) if run.duration > times.signal_at else None
    source = stopped if stopped is not None else run
    end, code = min(source.duration, times.kill_at), source.exit_code
    if source.duration > times.kill_at:
        code = KILLED_EXIT_CODE
    kept = [(line, at) for line, at in zip(source.logs, source.log_offsets, strict=True) if at <= end]
    return ContainerRun(end, code, tuple(line for line, _ in kept), tuple(at for _, at in kept), run.warning,
                        events, end)
