"""``kubectl describe`` lines of batch/v1 Job (k8s.io/kubectl ``pkg/describe/describe.go``,
``describeJob``), after the common header."""

from __future__ import annotations

from kbatch.api.printing import Obj

__all__ = ["describe_job"]


def describe_job(job: Obj) -> list[tuple[str, str]]:
    spec, status = job.get("spec") or {}, job.get("status") or {}
    out = [("Parallelism", str(spec.get("parallelism", ""))), ("Completions", str(spec.get("completions",
                                                                                          "<unset>"))),
           ("Completion Mode", spec.get("completionMode", "NonIndexed")),
           ("Suspend", str(spec.get("suspend", False)).lower()),
           ("Backoff Limit", str(spec.get("backoffLimit", "")))]
    if status.get("startTime"):
        out.append(("Start Time", status["startTime"]))
    if status.get("completionTime"):
        out.append(("Completed At", status["completionTime"]))
    out.append(("Pods Statuses", f"{status.get('active', 0)} Active ({status.get('ready', 0)} Ready) / "
                                 f"{status.get('succeeded', 0)} Succeeded / "
                                 f"{status.get('failed', 0)} Failed"))
    if status.get("completedIndexes"):
        out.append(("Completed Indexes", status["completedIndexes"]))
    return out
