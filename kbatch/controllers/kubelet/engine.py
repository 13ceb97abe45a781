"""The simulated kubelet's pod state machine: pure, in virtual time, one pod at a time.

A :class:`PodRun` holds what a container runtime would know about one pod: each container's
state, planned end, exit code, restart count and back-off. :func:`advance` applies every
transition due up to ``now`` *in time order* (so a late wake-up still produces exact timestamps);
:func:`next_wake` says when the next one is due. Rules (upstream ``pkg/kubelet``,
``kuberuntime_manager.go`` ``computePodActions`` and ``status/generate.go``; docs "Pod Lifecycle"):

* the pod starts ``start_delay`` seconds after it is bound; init containers run one at a time, in
  order; a restartable init container (sidecar) starts and the next init container follows at once;
  when every init container has succeeded, all app containers start together;
* a container that ends is restarted when the pod's ``restartPolicy`` says so (``Always``;
  ``OnFailure`` and a non-zero exit; sidecars always), or for a regular container with its own
  ``restartPolicy``/``restartPolicyRules`` (KEP-5307) when they say so
  (:func:`kbatch.api.container_restart.container_should_restart`): at once the first time (its
  terminated state
  is reported before the restart, as the kubelet writes the status its sync started from), then
  after the CrashLoopBackOff wait (:mod:`.backoff`); a failed init container under ``Never`` fails
  the pod;
* the pod is ``Succeeded`` when every app container has terminated with 0 and none will restart,
  ``Failed`` when they have all terminated and one did not exit 0; sidecars are then stopped;
* deletion (``deletionTimestamp``): nothing restarts any more; every running container is sent its
  stop signal (:func:`request_deletion` with the controller's :data:`Stopper`: it may end the
  container early, with the code the signal gives), and at the end of the grace period every one
  still running is killed with exit code 137 (SIGKILL), waiting ones end as
  ``ContainerStatusUnknown``, and the pod becomes terminal (phase by the same rule), ready for the
  kubelet's grace-0 delete;
* a fault ends a container now with the given exit code and reason (or at its start, if it has not
  started yet);
* a container whose configuration cannot be built (the planner answers a :class:`ConfigError`: a
  missing ConfigMap/Secret or key, :mod:`.references`) stays waiting with ``CreateContainerConfigError``
  and a ``Failed`` Warning event, and is tried again every :data:`CONFIG_RETRY` seconds (upstream the
  pod worker requeues a pod whose sync failed after ``backOffPeriod``, 10 s plus up to 50 % jitter:
  ``pkg/kubelet/pod_workers.go``; kbatch takes no jitter). An init container or a sidecar so blocked
  holds the containers after it; a pod whose app containers are all blocked stays ``Pending``;
* :func:`hold_start` keeps a bound pod from starting (its volumes are not mounted yet: the
  controller retries the mount);
* probes (:mod:`.probes`) decide a container's ``started`` and ``ready``; a liveness or startup
  failure sends it the stop signal, then kills it (exit 137) at the end of the grace period. A
  container without probes has no probe state and costs nothing more;
* ephemeral containers (``kubectl debug``) added to a running pod start when the kubelet sees them
  (:func:`add_ephemeral`; upstream ``computePodActions`` lists every ephemeral container without a
  runtime status in ``EphemeralContainersToStart``, even before initialization is done, once the
  sandbox exists), run their command and are never restarted; they change neither the phase nor
  the ``Ready`` condition. One whose ``targetContainerName`` names a container not created yet is
  not created (``startSpec.getTargetID``: "unable to find target container T", reported as
  ``CreateContainerConfigError`` and tried again as above). None starts in a pod that is being
  deleted or has terminated (its pod worker no longer runs ``SyncPod``); one still running when the
  app containers have finished for good, or at a deletion, is stopped as the others (a ``Killing``
  event, its stop signal, SIGKILL at the end of the grace period) and the pod finishes when it has
  exited. A pod without ephemeral containers has none of this;
* a container with a postStart hook runs from its start, but shows (and lets the next container
  start) only when the hook has returned (``startContainer`` blocks the pod's sync): the run's
  ``hold``. Events a hook failure records come at the instant it fails (``later``).

A pod never moves backwards: phases only go Pending → Running → Succeeded/Failed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from kbatch.api.container_restart import OwnRestart, container_should_restart, restarts_all_containers
from kbatch.controllers.kubelet.backoff import (
    backoff_event_message,
    backoff_message,
    restart_step,
)
from kbatch.controllers.kubelet.podips import AddressPool
from kbatch.controllers.kubelet.probes import (
    LIVENESS,
    READINESS,
    STARTUP,
    ProbeFault,
    ProbeSpec,
    ProbeState,
    answer,
    container_field_path,
    first_tick_at_or_after,
    new_states,
    record,
)
from kbatch.controllers.kubelet.termination import Hook, StopTimes, hook_failure, stop_times
from kbatch.sim.command import ContainerRun

__all__ = [
    "APP",
    "CONFIG_RETRY",
    "EPHEMERAL",
    "FAILED_POST_START",
    "INIT",
    "KILLED_POST_START",
    "SIDECAR",
    "ConfigError",
    "EphemeralProc",
    "Fault",
    "PodRun",
    "PreStop",
    "Proc",
    "Stopper",
    "add_ephemeral",
    "advance",
    "apply_fault",
    "hold_start",
    "next_wake",
    "request_deletion",
    "set_probe_faults",
    "take_events",
]

INIT, SIDECAR, APP, EPHEMERAL = "init", "sidecar", "app", "ephemeral"
WAITING, RUNNING, TERMINATED = "waiting", "running", "terminated"
KILLED_EXIT_CODE = 137
CONFIG_RETRY = 10.0  # seconds between attempts to create a container whose configuration failed


@dataclass(frozen=True, slots=True)
class ConfigError:
    """The container cannot be created: its environment references what does not exist."""

    message: str


Planner = Callable[["Proc", int], "ContainerRun | ConfigError"]  # (container, restart count) -> this run
Stopper = Callable[["Proc", float], "ContainerRun | None"]  # (container, seconds since it started) ->
# its run as the stop signal sent then changes it (None: the signal is dropped), :mod:`kbatch.sim.signals`
FAILED_POST_START = ("Warning", "FailedPostStartHook", "PostStartHook failed")
KILLED_POST_START = ("Normal", "Killing", "FailedPostStartHook")  # killContainer's message argument
PreStop = Callable[["Proc", float], "Hook | None"]  # (container, seconds since it started) -> the run
# of its preStop hook started then (None: it has none), :mod:`.termination`


class LogSink(Protocol):
    """Where a run's log lines go; ``replace``: they replace the run's lines (a stop signal changed
    what the run prints); ``offsets``: when each was printed, seconds after the run ``started`` (a
    ``date`` line gets its time from them: kbatch/sim/clock_text.py)."""

    def __call__(self, proc: Proc, restart: int, lines: tuple[str, ...], replace: bool = False,
                 offsets: tuple[float, ...] = (), started: float | None = None) -> None: ...


@dataclass(frozen=True, slots=True)
class Fault:
    exit_code: int = 1
    reason: str = "Error"
    message: str = ""


@dataclass(slots=True)
class Proc:
    """One container as the runtime sees it."""

    name: str
    kind: str
    image: str = ""
    state: str = WAITING
    reason: str = "ContainerCreating"
    message: str = ""
    started_at: float | None = None
    ends_at: float | None = None
    exit_code: int | None = None
    finished_at: float | None = None
    restart_count: int = 0
    restart_at: float | None = None  # a restart is due (waiting in back-off, or terminated: at once)
    config_retry_at: float | None = None  # CreateContainerConfigError: the next attempt to create it
    backoff: float = 0.0  # the back-off entry (0: none yet) and when it last moved
    backoff_moved_at: float = 0.0
    last: tuple[int, str, float | None, float | None, str] | None = None  # exit, reason, start, end, msg
    pending_fault: Fault | None = None
    ran: bool = False
    probe_specs: tuple[ProbeSpec, ...] = ()
    probes: list[ProbeState] | None = None  # this run's probe states (None: no probes, or stopped)
    started_ok: bool = True  # startup probe succeeded (or none): the status' ``started``
    ready_ok: bool = True  # started and readiness Success (or no readiness probe): ``ready``
    held: tuple[float, float, ContainerRun, int] | None = None  # started, its start returns then (its
    # postStart hook): (start, return, run, restart count); the status shows the state before it
    own_restart: OwnRestart | None = None  # the container's own policy (None: the pod's decides)
    rerun: bool = False  # removed by a restart of all containers (KEP-5532): its next start is a restart

    def terminate(self, t: float, exit_code: int, reason: str | None = None, message: str = "") -> None:
        self.state, self.exit_code, self.finished_at = TERMINATED, exit_code, t
        self.reason = reason or ("Completed" if exit_code == 0 else "Error")
        self.message, self.ends_at, self.restart_at, self.probes = message, None, None, None


@dataclass(slots=True)
class EphemeralProc(Proc):
    """An ephemeral container: a :class:`Proc` that may name the container whose namespaces it joins."""

    target: str = ""


@dataclass(slots=True)
class PodRun:
    namespace: str
    name: str
    uid: str
    restart_policy: str
    bound_at: float
    start_delay: float
    init: Sequence[Proc] = ()  # never appended to: a pod's containers are fixed
    app: list[Proc] = field(default_factory=list)
    ephemeral: Sequence[EphemeralProc] = ()  # spec order; () is shared: nothing per pod without any
    phase: str = "Pending"
    started: bool = False
    initialized: bool = False
    kill_at: float | None = None  # stopping: kill everything still running then (the last SIGKILL)
    deadline: float | None = None  # the grace period's end the stop started with (deletionTimestamp)
    grace: float = 30.0  # spec.terminationGracePeriodSeconds: the stop of sidecars after the app containers
    start_not_before: float | None = None  # volumes not mounted yet: no start before this retry
    finished_at: float | None = None
    probe_faults: tuple[ProbeFault, ...] = ()
    gates: tuple[str, ...] = ()  # spec.readinessGates' condition types (immutable), in spec order
    events: list[tuple[str, str, str, str]] | None = None  # (type, reason, message, fieldPath) to record
    later: list[tuple[float, str, str, str, str]] | None = None  # (at, ...): due later (a hook's failure)
    version: int = 0  # bumped on every change: the controller writes status when it moved
    # the controller's bookkeeping (kept here, not in per-pod maps: one object per running pod)
    written: int = -1  # the version whose status the controller last wrote
    sent: tuple[object, ...] | None = None  # the container fingerprint of that write
    # the pod's address (podips.py): its node's pool and the offset in it, taken when the sandbox
    # starts and given back when the run is forgotten; a hostNetwork pod takes none
    pool: AddressPool | None = None
    slot: int = -1
    # KEP-5532: some container may restart them all (the AllContainersRestarting condition is
    # reported); the restart's termination phase (the condition True) and when its startup is due
    restart_all: bool = False
    restarting: bool = False
    restart_all_at: float | None = None

    @property
    def terminal(self) -> bool:
        return self.phase in ("Succeeded", "Failed")

    def procs(self) -> list[Proc]:
        if self.ephemeral:
            return [*self.init, *self.app, *self.ephemeral]
        return [*self.init, *self.app]


# -- the clock of one pod ----------------------------------------------------------------------
def next_wake(run: PodRun) -> float | None:
    """The instant of the next transition, or None when nothing more will happen by itself."""
    if run.terminal:
        return None
    times: list[float] = []
    if not run.started:
        times.append(_start_due(run))
    for proc in run.procs():
        if proc.state == RUNNING and proc.ends_at is not None:
            times.append(proc.ends_at)
        elif proc.restart_at is not None:
            times.append(proc.restart_at)
        elif proc.config_retry_at is not None:
            times.append(proc.config_retry_at)
        elif proc.held is not None:
            times.append(proc.held[1])
        if proc.probes is not None and proc.state == RUNNING:
            times.extend(p.next_at for p in proc.probes if p.next_at is not None)
    if run.kill_at is not None:
        times.append(run.kill_at)
    if run.restart_all_at is not None:
        times.append(run.restart_all_at)
    if run.later:
        times.append(min(event[0] for event in run.later))
    finite = [t for t in times if t != float("inf")]
    return min(finite) if finite else None


def _start_due(run: PodRun) -> float:
    due = run.bound_at + run.start_delay
    return due if run.start_not_before is None else max(due, run.start_not_before)


def advance(run: PodRun, now: float, plan: Planner, log: LogSink | None = None,
            stop: Stopper | None = None, prestop: PreStop | None = None) -> bool:
    """Apply every transition due at or before ``now``; True if anything changed. ``stop``: what a
    container does with its stop signal when a failed probe kills it or its pod's app containers
    have finished (None: it is dropped, and sidecars end with the app containers); ``prestop``: its
    preStop hook then."""
    before = run.version
    while not run.terminal:
        due = next_wake(run)
        if due is None or due > now:
            break
        report = _fire(run, due, plan, log, stop, prestop)
        run.version += 1
        if report:  # an exit restarted at once: its status is written before the restart
            break
    return run.version != before


def _fire(run: PodRun, t: float, plan: Planner, log: LogSink | None, stop: Stopper | None = None,
          prestop: PreStop | None = None) -> bool:
    """Apply the first transition due at ``t``; True when its state is to be reported before the
    next one (an exit whose restart is due at once)."""
    if run.later and min(event[0] for event in run.later) <= t:
        _release_events(run, t)
        return False
    if not run.started and _start_due(run) <= t:
        run.started = True
        _start_next_init(run, t, plan, log)
        for waiting in run.ephemeral:  # added before the sandbox existed
            if not waiting.ran and waiting.state == WAITING and waiting.config_retry_at is None:
                _start(run, waiting, t, plan, log)
        return False
    if run.restart_all_at is not None and run.restart_all_at <= t:
        _rerun_all(run, t, plan, log)
        return False
    for proc in run.procs():
        if proc.state == RUNNING and proc.ends_at is not None and proc.ends_at <= t:
            return _container_ended(run, proc, t, plan, log, stop, prestop)
    for proc in run.procs():
        if proc.restart_at is not None and proc.restart_at <= t:
            proc.backoff_moved_at = t  # flowcontrol's Next: the entry moved at the restart
            _start(run, proc, t, plan, log, proc.restart_count + 1)
            return False
        if proc.held is not None and proc.held[1] <= t:
            _hook_returned(run, proc, t, plan, log)
            return False
    for proc in run.procs():
        if proc.config_retry_at is not None and proc.config_retry_at <= t:
            proc.config_retry_at = None
            _start(run, proc, t, plan, log)
            if proc.state == RUNNING and proc.kind == SIDECAR and not run.initialized and proc.started_ok:
                _start_next_init(run, t, plan, log)  # a sidecar no longer holds the next init container
            _app_running(run)
            return False
    for proc in run.procs():
        if proc.probes is not None and proc.state == RUNNING:
            for state in proc.probes:
                if state.next_at is not None and state.next_at <= t:
                    _probe(run, proc, state, t, plan, log, stop)
                    return False
    if run.kill_at is not None and run.kill_at <= t:
        _kill_all(run, t)
    return False


def _start(run: PodRun, proc: Proc, t: float, plan: Planner, log: LogSink | None,
           restart: int | None = None) -> None:
    """Create and start ``proc`` at ``t`` (``restart``: its new restart count). A run with a
    ``hold`` (its postStart hook) runs from ``t`` but is shown, and lets the next container start,
    only when the hook has returned (:func:`_hook_returned`; upstream ``startContainer`` blocks the
    pod's sync until then)."""
    count = proc.restart_count if restart is None else restart
    if proc.rerun:  # its first start since a restart of all containers
        proc.rerun, count = False, proc.restart_count + 1
    behaviour = plan(proc, count) if proc.kind != EPHEMERAL else \
        _missing_target(run, proc) or plan(proc, count)
    if isinstance(behaviour, ConfigError):  # kuberuntime startContainer: ErrCreateContainerConfig
        _keep_last(proc)
        proc.restart_count = count
        proc.state, proc.reason, proc.message = WAITING, "CreateContainerConfigError", behaviour.message
        proc.config_retry_at = t + CONFIG_RETRY
        _event(run, "Warning", "Failed", f"Error: {behaviour.message}", proc)
        return
    _announce(run, proc, t, behaviour, count, log)
    if behaviour.hold > 0 and proc.pending_fault is None:
        proc.held, proc.restart_at = (t, t + behaviour.hold, behaviour, count), None
        return
    _run(proc, t, behaviour, count)


def _hook_returned(run: PodRun, proc: Proc, t: float, plan: Planner, log: LogSink | None) -> None:
    """The postStart hook of ``proc`` has returned at ``t``: the container shows as started (at
    its real start), and the start goes on with the next container (the sidecar's next init
    container; the app containers after it, which upstream's ``SyncPod`` starts one by one)."""
    _unhold(proc)
    if proc.kind == SIDECAR and not run.initialized and proc.state == RUNNING and proc.started_ok:
        _start_next_init(run, t, plan, log)
    elif proc.kind == APP and run.initialized and run.kill_at is None:
        _start_apps(run, t, plan, log)
    _app_running(run)


def _unhold(proc: Proc) -> None:
    assert proc.held is not None
    since, _, behaviour, count = proc.held
    proc.held = None
    _run(proc, since, behaviour, count)


def _announce(run: PodRun, proc: Proc, t: float, behaviour: ContainerRun, count: int,
              log: LogSink | None) -> None:
    """What starting a run at ``t`` records: its log lines, what the simulation could not follow
    (a kbatch addition), its events (a failed postStart hook: when it fails)."""
    if log is not None and behaviour.logs:
        log(proc, count, behaviour.logs, offsets=behaviour.log_offsets, started=t)
    if behaviour.warning:
        _event(run, "Warning", "SimulationLimit", behaviour.warning, proc)
    for type_, reason, message, offset in behaviour.events:  # FailedPostStartHook, Killing (.hooks)
        _event_at(run, t + offset, t, type_, reason, message, proc)


def _keep_last(proc: Proc) -> None:
    """A new run of a container that ran: its last run becomes ``lastState``."""
    if proc.ran and proc.state == TERMINATED and proc.exit_code is not None:
        proc.last = (proc.exit_code, proc.reason, proc.started_at, proc.finished_at, proc.message)


def _run(proc: Proc, t: float, behaviour: ContainerRun, count: int) -> None:
    """``proc`` runs ``behaviour`` from ``t``, its ``count``-th restart."""
    _keep_last(proc)
    proc.restart_count = count
    fault, proc.pending_fault = proc.pending_fault, None
    proc.state, proc.reason, proc.message, proc.ran = RUNNING, "", "", True
    proc.started_at, proc.finished_at, proc.restart_at = t, None, None
    if fault is not None:  # ends at once, through the normal path
        proc.ends_at, proc.exit_code = t, fault.exit_code
        proc.reason, proc.message = fault.reason, fault.message
    else:
        proc.ends_at, proc.exit_code = t + behaviour.duration, behaviour.exit_code
        proc.reason = "Completed" if behaviour.exit_code == 0 else "Error"
    if proc.probe_specs:
        proc.probes = new_states(proc.probe_specs, t)
        proc.started_ok = not any(s.kind == STARTUP for s in proc.probe_specs)
        proc.ready_ok = proc.started_ok and not any(s.kind == READINESS for s in proc.probe_specs)


def _send_stop(proc: Proc, t: float, kill_at: float, stop: Stopper | None, log: LogSink | None) -> bool:
    """The runtime sends ``proc`` its stop signal at ``t`` and SIGKILL at ``kill_at``
    (``killContainer``): when the signal changes its run, the run ends as the signal makes it end —
    or is killed (137) at ``kill_at`` if that comes first — and its log is what that run printed
    until it ended. False when the signal is dropped (the run goes on as planned)."""
    if stop is None or proc.state != RUNNING or proc.started_at is None:
        return False
    outcome = stop(proc, t - proc.started_at)
    if outcome is None:
        return False
    end = proc.started_at + outcome.duration
    if end <= kill_at:
        proc.ends_at, proc.exit_code = max(end, t), outcome.exit_code
        proc.reason = "Completed" if outcome.exit_code == 0 else "Error"
    else:
        proc.ends_at, proc.exit_code, proc.reason = kill_at, KILLED_EXIT_CODE, "Error"
    proc.message = ""
    if log is not None:
        until = min(end, kill_at) - proc.started_at
        kept = [(line, offset) for line, offset in zip(outcome.logs, outcome.log_offsets, strict=True)
                if offset <= until]
        log(proc, proc.restart_count, tuple(line for line, _ in kept), replace=True,
            offsets=tuple(offset for _, offset in kept), started=proc.started_at)
    return True


def _missing_target(run: PodRun, proc: Proc) -> ConfigError | None:
    """An ephemeral container's target must have been created (upstream ``getTargetID``: a runtime
    status of that name, in any state)."""
    if not isinstance(proc, EphemeralProc) or not proc.target:
        return None
    if any(p.name == proc.target and p.ran for p in [*run.init, *run.app]):
        return None
    return ConfigError(f"unable to find target container {proc.target}")


def _start_next_init(run: PodRun, t: float, plan: Planner, log: LogSink | None) -> None:
    for proc in run.init:
        if proc.ran:
            continue
        if proc.held is not None:
            return  # its postStart hook runs
        _start(run, proc, t, plan, log)
        if proc.kind == INIT or not proc.started_ok or proc.state != RUNNING:
            return  # wait for it; a sidecar lets the next one start once started (startup probe)
    run.initialized = True
    _start_apps(run, t, plan, log)
    _app_running(run)


def _start_apps(run: PodRun, t: float, plan: Planner, log: LogSink | None) -> None:
    """Start the app containers not started yet, in spec order, up to one whose postStart hook
    holds the start (upstream ``SyncPod`` starts them one after the other)."""
    for proc in run.app:
        if proc.held is not None:
            return
        if proc.ran or proc.config_retry_at is not None:
            continue
        _start(run, proc, t, plan, log)
        if proc.held is not None:
            return


def _app_running(run: PodRun) -> None:
    """``Running`` once an app container has been created (upstream ``getPhase``: containers all
    waiting, e.g. in ``CreateContainerConfigError``, leave the pod ``Pending``)."""
    if run.initialized and run.phase == "Pending" and any(p.ran for p in run.app):
        run.phase = "Running"


def _probe(run: PodRun, proc: Proc, state: ProbeState, t: float, plan: Planner, log: LogSink | None,
           stop: Stopper | None = None) -> None:
    """One probe run at ``t`` and what its result means for the container."""
    assert proc.probes is not None
    kind = state.spec.kind
    raw = answer(state.spec, proc.name, run.probe_faults, t)
    if not raw:
        _event(run, "Warning", "Unhealthy", f"{kind.capitalize()} probe failed: ", proc)
    if not record(state, raw, t, proc.name, run.probe_faults):
        return
    if kind == READINESS:
        proc.ready_ok = bool(state.result)
    elif state.result is False:  # liveness or startup Failure: kill, restart per policy
        proc.probes = None
        restart = ", will be restarted" if _restarts(run, proc, KILLED_EXIT_CODE) else ""
        _event(run, "Normal", "Killing", f"Container {proc.name} failed {kind} probe{restart}", proc)
        if not _send_stop(proc, t, t + state.spec.kill_grace, stop, log) and \
                (proc.ends_at is None or proc.ends_at > t + state.spec.kill_grace):
            proc.ends_at, proc.exit_code = t + state.spec.kill_grace, KILLED_EXIT_CODE
            proc.reason, proc.message = "Error", ""
    elif kind == STARTUP:
        state.next_at = None  # the startup probe has done its job
        proc.started_ok = True
        proc.ready_ok = not any(s.spec.kind == READINESS for s in proc.probes)
        began = proc.started_at if proc.started_at is not None else t
        for other in proc.probes:
            if other.spec.kind in (READINESS, LIVENESS):
                other.anchor = other.next_at = max(t, began + other.spec.initial_delay)
        if proc.kind == SIDECAR and not run.initialized:
            _start_next_init(run, t, plan, log)


def _event(run: PodRun, type_: str, reason: str, message: str, proc: Proc) -> None:
    """Queue an event about the pod (upstream ``prober.go``: ``Unhealthy`` "<Kind> probe failed:
    <output>" on every failed run, the simulated handlers printing nothing; ``kuberuntime_manager.go``
    ``computePodActions``: ``Killing`` "Container C failed liveness probe" + ", will be restarted"
    when the restart policy restarts it), about the container (:func:`.probes.container_field_path`)."""
    if run.events is None:
        run.events = []
    path = container_field_path(proc.name, proc.kind != APP, proc.kind == EPHEMERAL)
    run.events.append((type_, reason, message, path))


def _event_at(run: PodRun, at: float, now: float, type_: str, reason: str, message: str, proc: Proc) -> None:
    """Queue an event for the instant ``at`` (now, or when :func:`advance` reaches it)."""
    if at <= now:
        _event(run, type_, reason, message, proc)
        return
    if run.later is None:
        run.later = []
    path = container_field_path(proc.name, proc.kind != APP, proc.kind == EPHEMERAL)
    run.later.append((at, type_, reason, message, path))


def _release_events(run: PodRun, t: float | None) -> None:
    """Move the events due at ``t`` (None: all, the pod is done) to the queue, in time order."""
    due = sorted((e for e in run.later or () if t is None or e[0] <= t), key=lambda e: e[0])
    run.later = [e for e in run.later or () if t is not None and e[0] > t] or None
    if due and run.events is None:
        run.events = []
    for _, type_, reason, message, path in due:
        assert run.events is not None
        run.events.append((type_, reason, message, path))


def take_events(run: PodRun) -> list[tuple[str, str, str, str]]:
    """The events queued since the last call, oldest first."""
    events, run.events = run.events or [], None
    return events


def _container_ended(run: PodRun, proc: Proc, t: float, plan: Planner, log: LogSink | None,
                     stop: Stopper | None = None, prestop: PreStop | None = None) -> bool:
    """True when the container restarts at once (its exit is reported first). When the app
    containers have all finished, running sidecars are stopped in order (:func:`_stop_sidecars`;
    upstream ``computePodActions`` kills the pod then, through ``killContainersWithSyncResult``) and
    the pod finishes when the last has exited; its phase is the app containers' alone."""
    exit_code = proc.exit_code if proc.exit_code is not None else 0
    proc.terminate(t, exit_code, proc.reason or None, proc.message)
    if _restarts_all(run, proc, exit_code):
        return _kill_for_restart_all(run, proc, t)
    if _restarts(run, proc, exit_code):
        return _back_off(run, proc, t)
    if proc.kind == INIT:
        if exit_code == 0:
            _start_next_init(run, t, plan, log)
        else:  # not restarted: its own policy, the pod's, or the pod is being stopped
            _finish(run, t, "Failed")
        return False
    if not all(p.state == TERMINATED and p.restart_at is None for p in run.app):
        return False
    if stop is not None and (any(p.kind == SIDECAR and p.state == RUNNING for p in run.init)
                             or any(p.state == RUNNING for p in run.ephemeral)):
        if run.kill_at is None:
            run.deadline = t + run.grace
            run.kill_at = max(run.deadline, _stop_leftovers(run, t, stop, prestop, log))
        return False
    if proc.kind in (APP, SIDECAR, EPHEMERAL):
        _finish(run, t, "Succeeded" if all(p.exit_code == 0 for p in run.app) else "Failed")
    return False


def _back_off(run: PodRun, proc: Proc, t: float) -> bool:
    """Schedule the restart of ``proc``, which exited at ``t`` (:mod:`.backoff`): at once, staying
    terminated until then (True), or after waiting in ``CrashLoopBackOff``."""
    wait, proc.backoff = restart_step(proc.backoff, proc.backoff_moved_at, t)
    proc.restart_at = t + wait
    if wait == 0.0:
        return True
    proc.last = (proc.exit_code or 0, proc.reason, proc.started_at, t, proc.message)
    proc.state, proc.reason = WAITING, "CrashLoopBackOff"
    proc.message = backoff_message(wait, proc.name, run.name, run.namespace, run.uid)
    event = backoff_event_message(proc.name, run.name, run.namespace, run.uid)
    _event(run, "Warning", "BackOff", event, proc)
    return False


def _restarts(run: PodRun, proc: Proc, exit_code: int) -> bool:
    """Whether ``proc`` alone is restarted after ``exit_code``: a sidecar always; a regular init
    container after a failure its own policy (KEP-5307) or the pod's restarts; a regular container
    as :func:`container_should_restart` says."""
    if run.kill_at is not None or run.terminal or proc.kind == EPHEMERAL:  # ephemeral: never restarted
        return False
    if proc.kind == SIDECAR:
        return True
    if proc.kind == INIT:
        return exit_code != 0 and container_should_restart(proc.own_restart, run.restart_policy, exit_code)
    return container_should_restart(proc.own_restart, run.restart_policy, exit_code)


def _restarts_all(run: PodRun, proc: Proc, exit_code: int) -> bool:
    """KEP-5532: the first rule of ``proc`` matching ``exit_code`` says ``RestartAllContainers``
    (upstream ``ShouldAllContainersRestart``: init, sidecar or regular container; not while the pod
    stops or already restarts)."""
    return (proc.kind != EPHEMERAL and run.kill_at is None and not run.terminal and not run.restarting
            and restarts_all_containers(proc.own_restart, exit_code))


def _kill_for_restart_all(run: PodRun, trigger: Proc, t: float) -> bool:
    """The restart's termination phase (KEP-5532 "Restart Phases"; upstream ``SyncPod`` with
    ``restartAllContainers``): ``AllContainersRestarting`` becomes True and every other running init,
    sidecar and regular container is killed at once, without preStop hook or grace period (the KEP:
    "TerminationGracePeriodSeconds is not respected"; the v1.35 blog: no preStop hooks), each with a
    ``Killing`` event. Ephemeral containers are left alone. The startup phase follows at once the
    first time; a restart triggered again by the same container waits its back-off (:mod:`.backoff`;
    kbatch's guard against a loop at one instant). True: the exit is reported first."""
    run.restarting = True
    for proc in [*run.init, *run.app]:
        if proc.held is not None:
            _unhold(proc)
        proc.restart_at = proc.config_retry_at = None
        if proc.state == RUNNING:
            _event(run, "Normal", "Killing", f"Stopping container {proc.name}", proc)
            proc.terminate(t, KILLED_EXIT_CODE, "Error")
    wait, trigger.backoff = restart_step(trigger.backoff, trigger.backoff_moved_at, t)
    run.restart_all_at = trigger.backoff_moved_at = t + wait
    return True


def _rerun_all(run: PodRun, t: float, plan: Planner, log: LogSink | None) -> None:
    """The restart's startup phase: the containers are gone from the runtime, their last runs kept as
    ``lastState``; ``AllContainersRestarting`` becomes False and the pod starts again as at first
    (init containers in order, sidecars, then the regular containers), in the same sandbox with the
    same volumes; each container that ran counts one more restart when it starts. The phase stays
    ``Running``."""
    run.restarting, run.restart_all_at, run.initialized = False, None, False
    for proc in [*run.init, *run.app]:
        if not proc.ran:
            continue
        if proc.state == TERMINATED:  # one waiting in back-off keeps the last run it has
            proc.last = (proc.exit_code or 0, proc.reason, proc.started_at, proc.finished_at, proc.message)
        proc.state, proc.reason, proc.message = WAITING, "PodInitializing", ""
        proc.ran, proc.rerun, proc.exit_code = False, True, None
        proc.started_at = proc.finished_at = None
    _start_next_init(run, t, plan, log)


def _finish(run: PodRun, t: float, phase: str) -> None:
    for proc in run.init:
        if proc.kind == SIDECAR and proc.state != TERMINATED:
            proc.terminate(t, 0, "Completed")
    for eph in run.ephemeral:  # killed with the pod when nothing stopped it (no stopper)
        eph.config_retry_at = None
        if eph.state == RUNNING:
            eph.terminate(t, KILLED_EXIT_CODE, "Error")
    if run.later:  # a hook still running fails with its container, gone now
        _release_events(run, None)
    run.phase, run.finished_at = phase, t


def _kill_all(run: PodRun, t: float) -> None:
    for proc in run.procs():
        if proc.state == RUNNING:
            proc.terminate(t, KILLED_EXIT_CODE, "Error")
        elif proc.state == WAITING and (proc.kind != EPHEMERAL or proc.ran):
            proc.terminate(t, KILLED_EXIT_CODE, "ContainerStatusUnknown",
                           "The container could not be located when the pod was terminated")
    apps_ok = all(p.exit_code == 0 for p in run.app) and run.initialized
    _finish(run, t, "Succeeded" if apps_ok else "Failed")


# -- external inputs -----------------------------------------------------------------------------
def add_ephemeral(run: PodRun, containers: Sequence[tuple[str, str, str]], now: float, plan: Planner,
                  log: LogSink | None = None) -> bool:
    """The pod's ephemeral containers, as ``(name, image, targetContainerName)`` in spec order: each
    new one is started at ``now`` when the pod's sandbox exists and the pod is neither terminating
    nor terminated (else it waits: for the pod's start, or for ever). True if any was new."""
    known = {p.name: p for p in run.ephemeral}
    if len(known) == len(containers) and all(name in known for name, _, _ in containers):
        return False
    waiting = "PodInitializing" if run.init else "ContainerCreating"  # convertToAPIContainerStatuses
    added = [EphemeralProc(name, EPHEMERAL, image, reason=waiting, target=target)
             for name, image, target in containers if name not in known]
    run.ephemeral = [known.get(name) or next(p for p in added if p.name == name) for name, _, _ in containers]
    if run.started and not run.terminal and run.kill_at is None:
        for proc in added:
            _start(run, proc, now, plan, log)
    run.version += 1
    return True


def request_deletion(run: PodRun, kill_at: float, now: float | None = None, stop: Stopper | None = None,
                     log: LogSink | None = None, prestop: PreStop | None = None) -> None:
    """The API server set ``deletionTimestamp``: kill at ``kill_at`` unless the pod ends first. The
    first time, each running container is stopped ``now`` (:func:`_stop_all`: ``prestop``, its
    hook; ``stop``, what it does with its stop signal; None: every container drops it and is killed
    at ``kill_at``, 137). A later deletion with a shorter grace period kills at its end."""
    if run.kill_at is None and now is not None and not run.terminal:
        for proc in run.procs():
            if proc.held is not None:  # the kill cuts the sync short: the container is running
                _cut_post_start(run, proc, now, prestop)
                _unhold(proc)
        run.deadline = kill_at
        run.kill_at = max(kill_at, _stop_all(run, now, kill_at, stop, prestop, log))
        run.version += 1
    elif run.kill_at is None or kill_at < (run.deadline if run.deadline is not None else run.kill_at):
        run.deadline = run.kill_at = kill_at
        run.version += 1
    run.restart_all_at = None  # a restart of all containers in progress does not start them again
    for proc in run.procs():
        proc.config_retry_at = None  # no new containers while terminating
        if proc.restart_at is not None:
            proc.restart_at = None  # no restarts while terminating; it ends at kill time


def _cut_post_start(run: PodRun, proc: Proc, now: float, prestop: PreStop | None) -> None:
    """The pod is deleted while ``proc``'s postStart hook still runs (its start is held). Upstream's
    pod worker cancels the sync in progress when the pod becomes terminating (``pod_workers.go``
    ``UpdatePod``: ``becameTerminating`` → ``cancelFn``), so the hook's ``ExecSync`` or sleep
    (``handlers.go`` ``runSleepHandler``: "container terminated before sleep hook finished") returns
    its error at once: ``startContainer`` records ``FailedPostStartHook`` and ``killContainer(…,
    "FailedPostStartHook")`` its ``Killing``, whose preStop hook, under the same cancelled context,
    fails at once too (``FailedPreStopHook``); the terminating sync then stops the container as any
    other (:func:`_stop_all`). What the hook would have done later (its own failure) is dropped."""
    assert proc.held is not None
    since, _, behaviour, _ = proc.held
    failed = next((at for _, reason, _, at in behaviour.events if reason == FAILED_POST_START[1]), None)
    if now >= since + (failed if failed is not None else behaviour.hold):
        return  # the hook has ended (it failed: its kill is what is in progress)
    path = container_field_path(proc.name, proc.kind != APP, proc.kind == EPHEMERAL)
    hooks = {FAILED_POST_START[1:], KILLED_POST_START[1:]}
    run.later = [e for e in run.later or () if e[4] != path or (e[2], e[3]) not in hooks] or None
    _event(run, *FAILED_POST_START, proc)
    _event(run, *KILLED_POST_START, proc)
    if prestop is not None and prestop(proc, now - since) is not None:
        _event(run, "Warning", "FailedPreStopHook", "PreStopHook failed", proc)


def _stop_all(run: PodRun, now: float, kill_at: float, stop: Stopper | None, prestop: PreStop | None,
              log: LogSink | None) -> float:
    """Stop every running container at ``now`` with the grace period up to ``kill_at``
    (``killContainersWithSyncResult``): the regular ones (and a running init container) at once,
    and the ephemeral ones, as upstream's terminating pod worker stops every running container), then
    the sidecars in reverse order (:func:`_stop_sidecars`). The last SIGKILL instant."""
    grace, last = kill_at - now, kill_at
    for proc in run.procs():
        if proc.kind != SIDECAR and proc.state == RUNNING:
            last = max(last, _stop_one(run, proc, now, grace, None, kill_at, stop, prestop, log))
    if any(p.kind == SIDECAR and p.state == RUNNING for p in run.init):
        last = max(last, _stop_sidecars(run, now, grace, now, stop, prestop, log))
    if last > kill_at:  # the pod outlives the grace period: those stopped plainly are killed at its end
        plain = StopTimes(now, kill_at)
        for proc in run.procs():
            if proc.state == RUNNING and (proc.ends_at is None or proc.ends_at > last):
                _kill_by(proc, plain)
    return last


def _stop_leftovers(run: PodRun, t: float, stop: Stopper, prestop: PreStop | None,
                    log: LogSink | None) -> float:
    """The app containers have all finished for good (``computePodActions``: nothing to keep, so
    ``KillPod``; ``killContainersWithSyncResult`` stops every running container with the pod's
    ``terminationGracePeriodSeconds``): the ephemeral ones at once, the sidecars in their order. The
    last SIGKILL instant; the pod stays ``Running`` until every one has exited (the kubelet keeps a
    pod that could have running containers from a terminal phase, ``generateAPIPodStatus``)."""
    last = t
    for eph in run.ephemeral:
        if eph.state == RUNNING:
            last = max(last, _stop_one(run, eph, t, run.grace, None, t + run.grace, stop, prestop, log))
    return max(last, _stop_sidecars(run, t, run.grace, t, stop, prestop, log))


def _stop_sidecars(run: PodRun, now: float, grace: float, turn: float, stop: Stopper | None,
                   prestop: PreStop | None, log: LogSink | None) -> float:
    """The sidecars' stops, the last first (KEP-753; ``newTerminationOrdering``): each is signalled
    once every app container and every later sidecar has exited (``turn``: the earliest instant
    that holds for the first), within the grace period. The last SIGKILL instant."""
    turn = max([turn, *(_end_of(p, now) for p in run.app)])
    last = now
    for proc in reversed(run.init):
        if proc.kind == SIDECAR and proc.state == RUNNING:
            last = max(last, _stop_one(run, proc, now, grace, turn, None, stop, prestop, log))
            turn = max(turn, _end_of(proc, now))
    return last


def _end_of(proc: Proc, now: float) -> float:
    """When a container stopped or stopping has exited or will exit."""
    if proc.state == RUNNING and proc.ends_at is not None:
        return proc.ends_at
    return proc.finished_at if proc.finished_at is not None and proc.state == TERMINATED else now


def _stop_one(run: PodRun, proc: Proc, now: float, grace: float, turn: float | None,
              kill_at: float | None, stop: Stopper | None, prestop: PreStop | None,
              log: LogSink | None) -> float:
    """``killContainer`` for one running container (:func:`.termination.stop_times`): the
    ``Killing`` event "Stopping container C", its preStop hook (a failed one records
    ``FailedPreStopHook`` "PreStopHook failed" when it fails, the message upstream keeps free of the
    hook's output, and the stop goes on), its turn, its signal, its SIGKILL. A container with
    neither hook nor turn is signalled ``now`` and killed at ``kill_at``, as before. Its SIGKILL
    instant."""
    _event(run, "Normal", "Killing", f"Stopping container {proc.name}", proc)
    started = proc.started_at if proc.started_at is not None else now
    hook = prestop(proc, now - started) if prestop is not None else None
    if hook is None and turn is None and kill_at is not None:
        _send_stop(proc, now, kill_at, stop, log)
        return kill_at
    times = stop_times(now, grace, hook, turn)
    if proc.ends_at is None or proc.ends_at > times.signal_at:  # not exited by itself before
        _send_stop(proc, times.signal_at, times.kill_at, stop, log)
    _kill_by(proc, times)
    if hook is not None:
        exits_in = proc.ends_at - now if proc.ends_at is not None else None
        failed_in = hook_failure(hook, exits_in)
        if failed_in is not None:
            _event_at(run, now + failed_in, now, "Warning", "FailedPreStopHook", "PreStopHook failed", proc)
    return times.kill_at


def _kill_by(proc: Proc, times: StopTimes) -> None:
    """SIGKILL at ``times.kill_at`` for a run that would outlive it."""
    if proc.ends_at is None or proc.ends_at > times.kill_at:
        proc.ends_at, proc.exit_code, proc.reason, proc.message = times.kill_at, KILLED_EXIT_CODE, "Error", ""


def hold_start(run: PodRun, until: float | None) -> None:
    """The pod's volumes are not mounted: it does not start before ``until`` (None: no more hold)."""
    if run.started or until == run.start_not_before:
        return
    run.start_not_before = until
    run.version += 1


def set_probe_faults(run: PodRun, faults: tuple[ProbeFault, ...], now: float) -> bool:
    """Replace the pod's probe faults; every probe still running is probed again at its next tick
    from ``now`` (a skipped steady stretch may have ended)."""
    if faults == run.probe_faults or run.terminal:
        return False
    run.probe_faults = faults
    for proc in run.procs():
        for state in proc.probes or ():
            if state.anchor is None or (state.spec.kind == STARTUP and proc.started_ok):
                continue
            tick = first_tick_at_or_after(state, now)
            state.next_at = tick if state.next_at is None else min(state.next_at, tick)
    run.version += 1
    return True


def apply_fault(run: PodRun, container: str | None, fault: Fault, now: float) -> bool:
    """End ``container`` (default: the first app container) now with the fault's exit code."""
    if run.terminal:
        return False
    procs = run.procs()
    target = next((p for p in procs if p.name == container), None) if container else None
    if target is None:
        target = next((p for p in run.app if p.state != TERMINATED), run.app[0] if run.app else None)
    if target is None:
        return False
    if target.state == RUNNING:
        target.ends_at, target.exit_code = now, fault.exit_code
        target.reason, target.message = fault.reason, fault.message
    else:
        target.pending_fault = fault
        if target.state == WAITING and target.restart_at is not None:
            target.restart_at = min(target.restart_at, now)
    run.version += 1
    return True
