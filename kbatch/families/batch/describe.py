"""``kubectl describe`` lines of batch/v1 Job and CronJob (k8s.io/kubectl ``pkg/describe/describe.go``,
``describeJob``, ``describeCronJob``, ``describeJobTemplate``, ``printActiveJobs``), after the common
header. Times print as the API writes them (RFC 3339, as the rest of ``kbatch describe``); kubectl
prints them in RFC 1123. The pod template block is left out."""

from __future__ import annotations

from typing import Any

from kbatch.api.base import parse_time
from kbatch.api.humanize import human_duration
from kbatch.api.printing import Obj, format_selector

__all__ = ["cap_indexes", "describe_cronjob", "describe_job"]

Lines = list[tuple[str, str]]


def cap_indexes(indexes: str, soft_limit: int) -> str:
    """``capIndexesListOrNone``: ``<none>``, or the list cut after the first comma at or past
    ``soft_limit`` characters, then ``...``."""
    if not indexes:
        return "<none>"
    cut = indexes.find(",", soft_limit)
    return indexes if cut < 0 else indexes[: cut + 1] + "..."


def _duration(start: str, end: str) -> str:
    return human_duration((parse_time(end) - parse_time(start)).total_seconds())


def describe_job(job: Obj) -> Lines:
    spec, status = job.get("spec") or {}, job.get("status") or {}
    out = [("Parallelism", str(spec.get("parallelism", ""))), ("Completions", str(spec.get("completions",
                                                                                          "<unset>"))),
           ("Completion Mode", spec.get("completionMode", "NonIndexed")),
           ("Suspend", str(spec.get("suspend", False)).lower()),
           ("Backoff Limit", str(spec.get("backoffLimit", "")))]
    if spec.get("ttlSecondsAfterFinished") is not None:
        out.append(("TTL Seconds After Finished", str(spec["ttlSecondsAfterFinished"])))
    start, end = status.get("startTime"), status.get("completionTime")
    if start:
        out.append(("Start Time", start))
    if end:
        out.append(("Completed At", end))
    if start and end:
        out.append(("Duration", _duration(start, end)))
    out += _active_deadline(spec)
    out.append(("Pods Statuses", f"{status.get('active', 0)} Active ({status.get('ready', 0)} Ready) / "
                                 f"{status.get('succeeded', 0)} Succeeded / "
                                 f"{status.get('failed', 0)} Failed"))
    if spec.get("completionMode") == "Indexed":
        out.append(("Completed Indexes", cap_indexes(status.get("completedIndexes") or "", 50)))
    return out


def _active_deadline(spec: Obj) -> Lines:
    seconds = spec.get("activeDeadlineSeconds")
    return [] if seconds is None else [("Active Deadline Seconds", f"{seconds}s")]


def _set_or_unset(value: Any, unit: str = "") -> str:
    return "<unset>" if value is None else f"{value}{unit}"


def _job_template(template: Obj) -> Lines:
    spec = template.get("spec") or {}
    out = [("Selector", format_selector(spec["selector"]) if spec.get("selector") else "<unset>"),
           ("Parallelism", _set_or_unset(spec.get("parallelism"))),
           ("Completions", _set_or_unset(spec.get("completions")))]
    out += _active_deadline(spec)
    return out


def describe_cronjob(cronjob: Obj) -> Lines:
    spec, status = cronjob.get("spec") or {}, cronjob.get("status") or {}
    suspend = spec.get("suspend")
    active = ", ".join(ref.get("name", "") for ref in status.get("active") or ())
    return [("Schedule", spec.get("schedule", "")),
            ("Concurrency Policy", spec.get("concurrencyPolicy", "")),
            ("Suspend", "<unset>" if suspend is None else str(bool(suspend))),
            ("Successful Job History Limit", _set_or_unset(spec.get("successfulJobsHistoryLimit"))),
            ("Failed Job History Limit", _set_or_unset(spec.get("failedJobsHistoryLimit"))),
            ("Starting Deadline Seconds", _set_or_unset(spec.get("startingDeadlineSeconds"), "s")),
            *_job_template(spec.get("jobTemplate") or {}),
            ("Last Schedule Time", status.get("lastScheduleTime") or "<unset>"),
            ("Active Jobs", active or "<none>")]
