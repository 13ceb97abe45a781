"""Playing the kubelet through a Target: pod outcomes as status patches (wire form only).

Upstream's Job integration tests (test/integration/job/job_test.go) drive pods the same way, with
the Job controller as the only controller running.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.target import Obj, Target

__all__ = ["INDEX", "active_pods", "fail", "job_manifest", "pods_of", "run", "succeed", "wait_status"]

INDEX = "batch.kubernetes.io/job-completion-index"


def _ts(target: Target) -> str:
    return target.now().strftime("%Y-%m-%dT%H:%M:%SZ")


def job_manifest(name: str = "job", **spec: Any) -> Obj:
    template_spec = {"restartPolicy": spec.pop("restartPolicy", "Never"),
                     "containers": [{"name": "main", "image": "busybox", "command": ["sleep", "60"]}]}
    if "subdomain" in spec:
        template_spec["subdomain"] = spec.pop("subdomain")
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {**spec, "template": {"spec": template_spec}}}


def pods_of(target: Target, job: str) -> list[Obj]:
    return target.list("Pod", label_selector=f"batch.kubernetes.io/job-name={job}")


def active_pods(target: Target, job: str) -> list[Obj]:
    return [p for p in pods_of(target, job)
            if p.get("status", {}).get("phase") not in ("Succeeded", "Failed")
            and not p["metadata"].get("deletionTimestamp")]


def by_index(target: Target, job: str) -> dict[int, Obj]:
    return {int(p["metadata"]["annotations"][INDEX]): p for p in active_pods(target, job)}


def run(target: Target, pod: Obj, ready: bool = True) -> None:
    cond = {"type": "Ready", "status": "True" if ready else "False", "lastTransitionTime": _ts(target)}
    target.patch_status("Pod", pod["metadata"]["name"], {"status": {"phase": "Running",
                                                                     "conditions": [cond]}})


def _terminated(target: Target, code: int) -> list[Obj]:
    return [{"name": "main", "ready": False, "restartCount": 0, "image": "busybox", "imageID": "",
             "state": {"terminated": {"exitCode": code, "finishedAt": _ts(target)}}}]


def succeed(target: Target, pod: Obj) -> None:
    target.patch_status("Pod", pod["metadata"]["name"], {"status": {
        "phase": "Succeeded", "containerStatuses": _terminated(target, 0)}})


def fail(target: Target, pod: Obj, code: int = 1, conditions: tuple[str, ...] = ()) -> None:
    conds = [{"type": c, "status": "True", "lastTransitionTime": _ts(target)} for c in conditions]
    conds.append({"type": "Ready", "status": "False", "lastTransitionTime": _ts(target)})
    target.patch_status("Pod", pod["metadata"]["name"], {"status": {
        "phase": "Failed", "conditions": conds, "containerStatuses": _terminated(target, code)}})


def wait_status(target: Target, job: str, pred: Callable[[Obj], bool], timeout: float = 600) -> Obj:
    """Advance until ``pred(job_obj)`` holds; returns the Job."""
    assert target.wait_for(lambda: pred(target.get("Job", job) or {}), timeout), target.get("Job", job)
    return target.get("Job", job) or {}
