"""Container restart back-off (CrashLoopBackOff), as the upstream kubelet.

Upstream ``pkg/kubelet/kubelet.go`` (``backOffPeriod`` 10 s, ``MaxContainerBackOff`` 300 s; the
``ReduceDefaultCrashLoopBackOffDecay`` gate of KEP-4603, 1 s and 60 s, is alpha and off in 1.37) and
``kuberuntime_manager.go`` ``doBackOff`` over client-go's ``flowcontrol.Backoff``. Each container of a
pod has one back-off entry (a delay and the instant it last moved), made at its first restart:

* a container that exits with no entry, or more than twice the maximum (600 s) after its entry last
  moved, is restarted at once (``IsInBackOffSince`` is false), and its entry starts at 10 s;
* otherwise it waits ``waiting`` with reason ``CrashLoopBackOff`` and message "back-off <d>
  restarting failed container=<name> pod=<pod>_<ns>(<uid>)" until ``<d>`` after its exit, and the
  kubelet records a ``BackOff`` Warning "Back-off restarting failed container <name> in pod
  <pod>_<ns>(<uid>)"; at the restart the entry doubles, capped at 5 minutes.

So an unbroken crash loop restarts after 0 s, 10 s, 20 s, 40 s, … 300 s (the docs' "Container
restarts" list the waits, 10 s, 20 s, 40 s, …, which start from the second exit):

    >>> [restart_delay(n) for n in range(1, 9)]
    [0.0, 10.0, 20.0, 40.0, 80.0, 160.0, 300.0, 300.0]
"""

from __future__ import annotations

from kbatch.api.cron import format_go_duration

__all__ = ["INITIAL_BACKOFF", "MAX_BACKOFF", "backoff_event_message", "backoff_message", "restart_delay",
           "restart_step"]

INITIAL_BACKOFF = 10.0
MAX_BACKOFF = 300.0


def restart_step(backoff: float, moved_at: float, exited: float, initial: float = INITIAL_BACKOFF,
                 maximum: float = MAX_BACKOFF) -> tuple[float, float]:
    """(seconds from a container's exit at ``exited`` to its restart, its back-off entry after that
    restart), given the entry (``backoff`` seconds, 0 for none, last moved at ``moved_at``). No entry,
    or one last moved more than twice the maximum before the exit (flowcontrol's ``hasExpired``: the
    container is taken as stable again), restarts at once and starts the entry at ``initial``
    (``IsInBackOffSince`` false, ``Next`` re-initialising); otherwise the exit waits the entry, which
    then doubles, capped at ``maximum`` (``Next``)."""
    if backoff == 0.0 or exited - moved_at > 2 * maximum:
        return 0.0, initial
    return backoff, min(backoff * 2, maximum)


def restart_delay(restart: int, initial: float = INITIAL_BACKOFF, maximum: float = MAX_BACKOFF) -> float:
    """Seconds to wait before restart number ``restart`` (1 for the first) of a container that keeps
    exiting within 10 minutes of its last restart: :func:`restart_step` ``restart`` times."""
    wait = backoff = 0.0
    for _ in range(restart):
        wait, backoff = restart_step(backoff, 0.0, 0.0, initial, maximum)
    return wait


def _pod(pod: str, namespace: str, uid: str) -> str:
    """``format.Pod``: name_namespace(uid)."""
    return f"{pod}_{namespace}({uid})"


def backoff_message(delay: float, container: str, pod: str, namespace: str, uid: str) -> str:
    """The waiting container's message (``doBackOff``'s error)."""
    where = _pod(pod, namespace, uid)
    return f"back-off {format_go_duration(int(delay))} restarting failed container={container} pod={where}"


def backoff_event_message(container: str, pod: str, namespace: str, uid: str) -> str:
    """The ``BackOff`` Warning event's message."""
    return f"Back-off restarting failed container {container} in pod {_pod(pod, namespace, uid)}"
