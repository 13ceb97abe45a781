"""Which pods belong to which scheduling.k8s.io PodGroup, as the scheduler knows them (upstream
``pkg/scheduler/backend/cache`` ``podGroupState``: ``allPods``; KEP-4671).

Kept by the scheduler from its pod events: a pod naming a group in ``spec.schedulingGroup`` is a
member while it exists and is not terminal (the scheduler's pod informer leaves finished pods out).
Whether a member is scheduled (assumed or bound) is the snapshot's to say, so the index holds only
membership. Keys are ``namespace/name`` for pods and groups alike; reads come back sorted.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PodGroupIndex", "pod_group_key"]


def pod_group_key(pod: Any) -> str:
    """``namespace/podGroupName`` of a Pod model, or "" when it names no group."""
    group = pod.spec.scheduling_group
    name = group.pod_group_name if group is not None else None
    return f"{pod.metadata.namespace}/{name}" if name else ""


class PodGroupIndex:
    __slots__ = ("_group_of", "_members")

    def __init__(self) -> None:
        self._members: dict[str, set[str]] = {}
        self._group_of: dict[str, str] = {}

    def __bool__(self) -> bool:
        return bool(self._group_of)

    def upsert(self, pod_key: str, group: str) -> None:
        """``pod_key`` is a member of ``group`` (the field is immutable: a pod never moves)."""
        if self._group_of.get(pod_key) == group:
            return
        self.remove(pod_key)
        self._group_of[pod_key] = group
        self._members.setdefault(group, set()).add(pod_key)

    def remove(self, pod_key: str) -> None:
        group = self._group_of.pop(pod_key, None)
        if group is None:
            return
        members = self._members[group]
        members.discard(pod_key)
        if not members:
            del self._members[group]

    def group_of(self, pod_key: str) -> str:
        return self._group_of.get(pod_key, "")

    def members(self, group: str) -> list[str]:
        """The group's pods (keys, sorted)."""
        return sorted(self._members.get(group, ()))

    def count(self, group: str) -> int:
        """Upstream ``AllPodsCount``."""
        return len(self._members.get(group, ()))
