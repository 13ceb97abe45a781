"""Container logs kept by the simulated kubelet, for ``kbatch logs``.

Each container run appends the lines its command printed (``echo``); the store keeps them per
(namespace, pod, container) and per restart, like the kubelet's log files, and forgets a pod when it
is deleted. :func:`pod_logs` finds the store of a control plane's ``kubelet`` controller.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LogStore", "pod_logs"]


class LogStore:
    def __init__(self) -> None:
        self._pods: dict[tuple[str, str], dict[str, dict[int, list[str]]]] = {}

    def append(self, namespace: str, pod: str, container: str, restart: int, lines: tuple[str, ...]) -> None:
        runs = self._pods.setdefault((namespace, pod), {}).setdefault(container, {})
        runs.setdefault(restart, []).extend(lines)

    def replace(self, namespace: str, pod: str, container: str, restart: int, lines: tuple[str, ...]) -> None:
        """A run's lines as they turned out (a stop signal changed what it printed)."""
        self._pods.setdefault((namespace, pod), {}).setdefault(container, {})[restart] = list(lines)

    def read(self, namespace: str, pod: str, container: str, previous: bool = False) -> str:
        """The current run's lines (or the previous run's), each ending in a newline."""
        runs = self._pods.get((namespace, pod), {}).get(container, {})
        restarts = sorted(runs)
        if len(restarts) < (2 if previous else 1):
            return ""
        lines = runs[restarts[-2] if previous else restarts[-1]]
        return "".join(f"{line}\n" for line in lines)

    def containers(self, namespace: str, pod: str) -> list[str]:
        return sorted(self._pods.get((namespace, pod), {}))

    def forget(self, namespace: str, pod: str) -> None:
        self._pods.pop((namespace, pod), None)


def pod_logs(control_plane: Any, namespace: str, pod: str, container: str | None = None,
             previous: bool = False) -> str:
    """``kubectl logs`` for a pod of ``control_plane`` (its ``kubelet`` controller must be on).

    Without ``container`` the pod's first container is read, as kubectl does for one-container pods.
    """
    from kbatch.api.core_v1 import Pod

    kubelet = control_plane.manager.get("kubelet").reconciler
    if container is None:
        obj = control_plane.client.get(Pod, pod, namespace)
        container = obj.spec.containers[0].name
    return kubelet.logs.read(namespace, pod, container, previous)
