"""``kubectl describe`` lines of the scheduler-plugins PodGroup (a custom resource: kubectl prints its
spec and status fields; kbatch shows them as readable lines)."""

from __future__ import annotations

from kbatch.api.printing import Obj, at

__all__ = ["describe_pod_group"]


def describe_pod_group(pg: Obj) -> list[tuple[str, str]]:
    resources = at(pg, "spec", "minResources") or {}
    timeout = at(pg, "spec", "scheduleTimeoutSeconds")
    out = [("Min Member", str(at(pg, "spec", "minMember") or 0)),
           ("Min Resources", ",".join(f"{k}={v}" for k, v in sorted(resources.items())) or "<none>"),
           ("Schedule Timeout", f"{timeout}s" if timeout is not None else "<unset> (plugin default)"),
           ("Phase", at(pg, "status", "phase") or "<none>"),
           ("Occupied By", at(pg, "status", "occupiedBy") or "<none>"),
           ("Pods Statuses", f"{at(pg, 'status', 'running') or 0} Running / "
                             f"{at(pg, 'status', 'succeeded') or 0} Succeeded / "
                             f"{at(pg, 'status', 'failed') or 0} Failed")]
    start = at(pg, "status", "scheduleStartTime")
    if start:
        out.append(("Schedule Start Time", start))
    return out
