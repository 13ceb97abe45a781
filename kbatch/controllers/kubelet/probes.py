"""Container probes of the simulated kubelet: startup, readiness and liveness, pure, in virtual time.

Upstream ``pkg/kubelet/prober`` (``worker.go`` ``doProbe``, ``prober_manager.go``
``UpdatePodStatus``) and the docs page "Configure Liveness, Readiness and Startup Probes":

* each probe runs every ``periodSeconds``; its first run is ``initialDelaySeconds`` after the
  container started (upstream's worker ticks from when the pod was added, so its first run is up to
  one period later: kbatch anchors the ticks on the container start, which is deterministic);
* readiness and liveness are not run until the startup probe has succeeded; they then start at
  once (or at ``start + initialDelaySeconds`` if that is later);
* a probe's *result* changes only after ``successThreshold`` consecutive successes or
  ``failureThreshold`` consecutive failures (``worker.go``: ``resultRun``); the initial results are
  readiness Failure, liveness Success, startup Unknown (``proberesults``);
* a container is *started* once its startup probe succeeded (at once without one) and *ready* when
  started and its readiness result is Success (without a readiness probe: once started);
* a liveness or startup Failure kills the container (``kuberuntime_manager.go``
  ``computePodActions``: "Container c failed liveness probe, will be restarted"): probing stops, the
  container is sent its stop signal (:mod:`kbatch.sim.signals`) and, if still running at the end of
  the grace period (the probe's ``terminationGracePeriodSeconds``, else the pod's, KEP-2238), ends
  with exit code 137 reason ``Error``; the restart policy then applies as for any exit
  (restartCount, lastState, CrashLoopBackOff);
* a startup probe on a sidecar holds the next init container until it succeeds (docs "Sidecar
  containers").

What a probe answers (kbatch's vocabulary, docs/simulation.md "Probes"): an ``exec`` probe runs its
command through :mod:`kbatch.sim.command` and succeeds when it exits 0 within ``timeoutSeconds``
(``sleep 5`` with the default 1 s timeout fails); ``httpGet``, ``tcpSocket`` and ``grpc`` succeed.
An injected probe fault (:func:`kbatch.sim.faults.fail_probe`) makes a probe fail over a time window.
As the answer only changes at a fault boundary, a succeeding probe whose result is Success skips the
ticks up to the next boundary: they would change nothing, and no timer is spent on them. A failing
probe keeps running every period: each failed run is an ``Unhealthy`` event (upstream ``prober.go``
records one per failed run; the event correlator aggregates them).

Probe events name the container, as upstream's ``recordContainerEvent`` does through
``kubecontainer.GenerateContainerRef`` (``pkg/kubelet/container/ref.go``): ``involvedObject`` is the
pod with ``fieldPath`` ``spec.containers{<name>}``, or ``spec.initContainers{<name>}`` for an init
container or a sidecar (:func:`container_field_path`). The messages are upstream's: ``Unhealthy``
"<Kind> probe failed: <output>" (``prober.go``; the simulated handlers print nothing) and ``Killing``
"Container <name> failed <kind> probe" + ", will be restarted" when the restart policy restarts it
(``kuberuntime_manager.go`` ``computePodActions``, recorded by ``killContainer``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "LIVENESS",
    "READINESS",
    "STARTUP",
    "ProbeFault",
    "ProbeSpec",
    "ProbeState",
    "answer",
    "container_field_path",
    "first_tick_at_or_after",
    "new_states",
    "record",
]

STARTUP, READINESS, LIVENESS = "startup", "readiness", "liveness"
_INITIAL = {STARTUP: None, READINESS: False, LIVENESS: True}  # upstream proberesults initial values


@dataclass(frozen=True, slots=True)
class ProbeSpec:
    kind: str
    initial_delay: float = 0.0
    period: float = 10.0
    success_threshold: int = 1
    failure_threshold: int = 3
    kill_grace: float = 30.0  # liveness/startup: how long a killed container takes to end
    passes: bool = True  # the handler's answer when no fault applies


@dataclass(frozen=True, slots=True)
class ProbeFault:
    """``container``'s ``kind`` probe (``"*"``: every probe) fails in ``[start, end)``."""

    container: str
    kind: str
    start: float
    end: float = math.inf


@dataclass(slots=True)
class ProbeState:
    spec: ProbeSpec
    anchor: float | None = None  # the first tick; later ticks every period
    next_at: float | None = None  # None: not running (waiting for startup, or stopped)
    result: bool | None = None
    last_raw: bool | None = None
    run: int = 0


def container_field_path(name: str, init: bool = False, ephemeral: bool = False) -> str:
    """``involvedObject.fieldPath`` of a container's events (``pkg/kubelet/container/ref.go``
    ``fieldPath``; container names are required, so the ``[index]`` form never applies)."""
    if ephemeral:
        return f"spec.ephemeralContainers{{{name}}}"
    return f"spec.initContainers{{{name}}}" if init else f"spec.containers{{{name}}}"


def new_states(specs: tuple[ProbeSpec, ...], started_at: float) -> list[ProbeState]:
    """Fresh probe states for a container (re)started at ``started_at``."""
    has_startup = any(s.kind == STARTUP for s in specs)
    states = []
    for spec in specs:
        state = ProbeState(spec, result=_INITIAL[spec.kind])
        if spec.kind == STARTUP or not has_startup:
            state.anchor = state.next_at = started_at + spec.initial_delay
        states.append(state)
    return states


def first_tick_at_or_after(state: ProbeState, t: float) -> float:
    anchor = state.anchor if state.anchor is not None else t
    if t <= anchor:
        return anchor
    return anchor + math.ceil((t - anchor) / state.spec.period - 1e-9) * state.spec.period


def answer(spec: ProbeSpec, container: str, faults: tuple[ProbeFault, ...], t: float) -> bool:
    """What the probe answers at ``t``."""
    if not spec.passes:
        return False
    return not any(f.container == container and f.kind in ("*", spec.kind) and f.start <= t < f.end
                   for f in faults)


def _next_boundary(spec: ProbeSpec, container: str, faults: tuple[ProbeFault, ...], t: float) -> float:
    times = [b for f in faults if f.container == container and f.kind in ("*", spec.kind)
             for b in (f.start, f.end) if b > t]
    return min(times, default=math.inf)


def record(state: ProbeState, raw: bool, t: float, container: str,
           faults: tuple[ProbeFault, ...]) -> bool:
    """Apply one probe run's answer ``raw`` at ``t`` (``worker.go`` thresholds); schedule the next
    tick; True when the probe's result changed."""
    state.run = state.run + 1 if state.last_raw == raw else 1
    state.last_raw = raw
    spec = state.spec
    changed = False
    if state.result != raw and state.run >= (spec.success_threshold if raw else spec.failure_threshold):
        state.result, changed = raw, True
    if state.result == raw and raw:  # steady success: nothing changes until the answer may change
        boundary = _next_boundary(spec, container, faults, t)
        state.next_at = None if boundary == math.inf else first_tick_at_or_after(state, boundary)
    else:
        state.next_at = t + spec.period
    return changed
