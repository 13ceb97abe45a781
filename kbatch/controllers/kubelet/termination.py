"""When the kubelet signals and kills a container it stops: the preStop hook, the sidecars' turn,
the minimum grace period. Pure timing; the engine (:func:`.engine.request_deletion`) applies it.

Upstream ``pkg/kubelet/kuberuntime/kuberuntime_container.go`` ``killContainer``: the grace period is
the pod's (``deletionGracePeriodSeconds``, else ``terminationGracePeriodSeconds``); when the
container has a ``preStop`` hook and the grace period is above 0, ``executePreStopHook`` runs it and
waits for it at most the grace period, and the seconds it waited (truncated to whole seconds; the
whole grace period when the hook outlived it) are taken from the grace period. A restartable init
container (sidecar, KEP-753) then waits for its turn (``kuberuntime_termination_order.go``
``waitForTurn``: every regular container and every later sidecar has exited, at most the remaining
grace period; the seconds waited truncated and taken off too). What is left, but never less than
``minimumGracePeriodInSeconds`` (2 s), is the grace period ``StopContainer`` gets: the stop signal
now, SIGKILL when it ends. So a hook still running at the end of the grace period earns the
container 2 s more once.

kbatch difference: a container with neither hook nor turn is stopped as before, signalled when the
kubelet sees the deletion and killed at ``deletionTimestamp`` (for a grace period under 2 s upstream
would still give it 2 s).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MINIMUM_GRACE", "Hook", "StopTimes", "hook_failure", "stop_times"]

MINIMUM_GRACE = 2.0  # minimumGracePeriodInSeconds


@dataclass(frozen=True, slots=True)
class Hook:
    """One run of a lifecycle hook: how long it takes, whether it failed (``FailedPreStopHook``,
    ``FailedPostStartHook``) and whether it runs in the container (``exec``: ``ExecSync`` fails
    when the container exits before the command does; a ``sleep`` runs in the kubelet)."""

    duration: float
    failed: bool = False
    in_container: bool = False


def hook_failure(hook: Hook, exits_in: float | None) -> float | None:
    """Seconds after its start at which ``hook`` fails, the instant the kubelet records its
    ``Failed*Hook`` event (the handler's error returns then; ``executePreStopHook`` records it from
    the goroutine that outlives the grace-period wait): when its command ends failing, or when the
    container exits ``exits_in`` seconds after the hook started while an ``exec`` command still runs
    in it (its process dies with the container). None: it does not fail. A ``sleep`` that outlives
    the container runs on in the kubelet and returns nil (its context is not cancelled)."""
    if hook.in_container and exits_in is not None and exits_in < hook.duration:
        return max(exits_in, 0.0)
    return hook.duration if hook.failed else None


@dataclass(frozen=True, slots=True)
class StopTimes:
    """When the stop signal goes and when SIGKILL follows, in the kubelet's seconds."""

    signal_at: float
    kill_at: float


def stop_times(start: float, grace: float, hook: Hook | None, turn: float | None) -> StopTimes:
    """The stop of one container whose kill starts at ``start`` with ``grace`` seconds: its
    ``hook`` runs first, then (a sidecar) it waits until ``turn``, when the containers it waits for
    have exited (None: it waits for none)."""
    at, left = start, grace
    if hook is not None and left > 0:
        waited = min(hook.duration, left)
        at += waited
        left = left - int(waited) if waited < grace else 0.0
    if turn is not None and left > 0:
        waited = min(max(turn - at, 0.0), left)
        at += waited
        left -= int(waited)
    return StopTimes(at, at + max(left, MINIMUM_GRACE))
