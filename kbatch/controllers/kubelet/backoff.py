"""Container restart back-off (CrashLoopBackOff), as the upstream kubelet.

Upstream ``pkg/kubelet/kubelet.go`` (``backOffPeriod`` 10 s, ``MaxContainerBackOff`` 300 s) and
the Kubernetes docs, "Container restarts": after a container exits and is to be restarted, the
kubelet waits 10 s, then 20 s, 40 s, … capped at 5 minutes. While it waits the container is
``waiting`` with reason ``CrashLoopBackOff`` and message "back-off <d> restarting failed
container=<name> pod=<pod>_<ns>(<uid>)".

    >>> [restart_delay(n) for n in range(1, 8)]
    [10.0, 20.0, 40.0, 80.0, 160.0, 300.0, 300.0]
"""

from __future__ import annotations

__all__ = ["INITIAL_BACKOFF", "MAX_BACKOFF", "backoff_message", "restart_delay"]

INITIAL_BACKOFF = 10.0
MAX_BACKOFF = 300.0


def restart_delay(restart: int, initial: float = INITIAL_BACKOFF, maximum: float = MAX_BACKOFF) -> float:
    """Seconds to wait before restart number ``restart`` (1 for the first restart)."""
    if restart < 1:
        return 0.0
    return min(initial * 2 ** (restart - 1), maximum)


def _go_duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs}s" if minutes else f"{secs}s"


def backoff_message(delay: float, container: str, pod: str, namespace: str, uid: str) -> str:
    return (f"back-off {_go_duration(delay)} restarting failed container={container} "
            f"pod={pod}_{namespace}({uid})")
