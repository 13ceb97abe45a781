"""JobSets through a Target, in wire form: manifests, their child Jobs and pods, outcomes.

Checks that play the kubelet finish a child Job by patching its pods' status (as upstream's Job
integration tests do, :mod:`conformance.job.driver`); the Job controller turns that into the Job's
``Complete``/``Failed`` condition, which the JobSet controller reads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.errors import status_of
from conformance.job.driver import active_pods, fail, succeed
from conformance.target import Obj, Target, has_condition

__all__ = ["expect_refused", "finish", "finished", "jobs_of", "jobset", "label", "rjob", "wait_jobset"]

GROUP_VERSION = "jobset.x-k8s.io/v1alpha2"
CONTAINER = {"name": "main", "image": "busybox:1.36", "command": ["sh", "-c", "sleep 60"]}


def rjob(name: str, replicas: int = 1, pods: int = 1, command: str | None = None, **extra: Any) -> Obj:
    """A replicated job of ``replicas`` Indexed Jobs of ``pods`` pods (backoffLimit 0: a failed pod
    fails its Job), restartPolicy Never."""
    container = {**CONTAINER, **({"command": ["sh", "-c", command]} if command else {})}  # a copy each
    return {"name": name, "replicas": replicas, **extra, "template": {"spec": {
        "parallelism": pods, "completions": pods, "backoffLimit": 0, "template": {"spec": {
            "restartPolicy": "Never", "terminationGracePeriodSeconds": 1, "containers": [container]}}}}}


def jobset(name: str, *rjobs: Obj, annotations: dict[str, str] | None = None, **spec: Any) -> Obj:
    meta: Obj = {"name": name, **({"annotations": annotations} if annotations else {})}
    return {"apiVersion": GROUP_VERSION, "kind": "JobSet", "metadata": meta,
            "spec": {"replicatedJobs": list(rjobs) or [rjob("w", replicas=2)], **spec}}


def label(obj: Obj, key: str) -> str | None:
    return ((obj.get("metadata") or {}).get("labels") or {}).get(key)


def jobs_of(target: Target, name: str, attempt: str | None = None) -> list[Obj]:
    """The JobSet's child Jobs (by ``jobset-name``), optionally of one restart attempt, not deleting."""
    jobs = target.list("Job", label_selector=f"jobset.sigs.k8s.io/jobset-name={name}")
    return [j for j in jobs if not j["metadata"].get("deletionTimestamp")
            and (attempt is None or label(j, "jobset.sigs.k8s.io/restart-attempt") == attempt)]


def finish(target: Target, job: str, success: bool = True) -> None:
    """Play the kubelet: every active pod of ``job`` succeeds (or the first one fails)."""
    pods = active_pods(target, job)
    assert pods, f"no active pod of Job {job}"
    if success:
        for pod in pods:
            succeed(target, pod)
    else:
        fail(target, pods[0])


def finished(obj: Obj | None) -> bool:
    return has_condition(obj, "Completed") or has_condition(obj, "Failed")


def wait_jobset(target: Target, name: str, pred: Callable[[Obj], bool] = finished,
                timeout: float = 600) -> Obj:
    ok = target.wait_for(lambda: bool(pred(target.get("JobSet", name) or {})), timeout)
    obj = target.get("JobSet", name) or {}
    assert ok, f"JobSet {name}: {obj.get('status')}"
    return obj


def expect_refused(target: Target, manifest: Obj, code: int, reason: str, text: str,
                   field: str | None = None) -> dict[str, Any]:
    """Creating ``manifest`` fails with ``code``/``reason``, ``text`` in the message (and, for
    ``Invalid``, a cause on ``field``); nothing is stored."""
    try:
        target.apply(manifest)
    except Exception as err:  # each target raises its own error classes
        status = status_of(err)
        if status is None:
            raise
    else:
        raise AssertionError(f"JobSet {manifest['metadata']['name']} was accepted")
    assert (status.get("code"), status.get("reason")) == (code, reason), status
    assert text in (status.get("message") or ""), status
    if field is not None:
        causes = (status.get("details") or {}).get("causes") or []
        assert any(c.get("field") == field for c in causes), causes
    assert target.get("JobSet", manifest["metadata"]["name"]) is None
    return status
