"""Jobs whose pods really run: the container command decides each pod's outcome (wire form only).

For checks marked ``runs_pods``: a scheduler places the pods and a kubelet runs them — kbatch's
simulated ones (in-process, or ``kbatch serve`` with its default controllers and nodes) or a real
cluster's. Commands stay inside what both a real ``busybox`` shell and kbatch's simulated kubelet
understand (docs/simulation.md): ``sleep N``, ``exit N``, ``echo``, ``;``/``&&`` and
``$JOB_COMPLETION_INDEX`` expansion — no arithmetic, no ``if``/``test``.

Every wait is bounded by what the semantic takes (:func:`conformance.timing.budget`: rounds of pods,
back-offs, deadlines), so a real-clock target gets the time upstream needs and no more.

Pods get ``terminationGracePeriodSeconds: 1``: ``sh`` as PID 1 ignores SIGTERM, so on a real cluster
a deleted pod (deadline, success policy) would otherwise hold the Job's terminal condition back for
the default 30 s grace period.
"""

from __future__ import annotations

from typing import Any

from conformance.target import Obj, Target, condition, has_condition

__all__ = ["finished", "job", "pods", "sh", "wait_job"]


def sh(script: str) -> list[str]:
    """A container command running ``script`` in busybox's shell."""
    return ["sh", "-c", script]


def job(name: str, command: list[str], *, template: Obj | None = None, **spec: Any) -> Obj:
    """A batch/v1 Job running ``command`` in one busybox container, restartPolicy Never."""
    pod_spec: Obj = {"restartPolicy": "Never", "terminationGracePeriodSeconds": 1,
                     "containers": [{"name": "main", "image": "busybox:1.36", "command": command}],
                     **(template or {})}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {**spec, "template": {"spec": pod_spec}}}


def pods(target: Target, name: str) -> list[Obj]:
    """The Job's pods (by the ``batch.kubernetes.io/job-name`` label), sorted by name."""
    return target.list("Pod", label_selector=f"batch.kubernetes.io/job-name={name}")


def finished(obj: Obj | None) -> bool:
    """The Job has its terminal condition (``Complete`` or ``Failed``)."""
    return has_condition(obj, "Complete") or has_condition(obj, "Failed")


def wait_job(target: Target, name: str, pred: Any = finished, *, timeout: float) -> Obj:
    """Wait (virtual jumps or real polling) until ``pred(job)`` holds, at most ``timeout`` seconds
    (a :func:`conformance.timing.budget`); returns the Job."""
    ok = target.wait_for(lambda: bool(pred(target.get("Job", name))), timeout)
    obj = target.get("Job", name)
    assert ok, f"Job {name} not there after {timeout:.0f} s: {(obj or {}).get('status')}"
    assert obj is not None
    return obj


def reason(obj: Obj, type_: str) -> str | None:
    """The reason of condition ``type_`` when it is True, else None."""
    cond = condition(obj, type_)
    return cond.get("reason") if cond and cond.get("status") == "True" else None
