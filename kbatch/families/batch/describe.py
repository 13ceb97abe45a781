"""``kbatch describe job|cronjob``: the pages kubectl prints, line for line and aligned by one tabwriter.

k8s.io/kubectl 1.37 ``pkg/describe/describe.go``: ``describeJob`` (Name, Namespace, Selector, Labels,
Annotations, Controlled By, Parallelism, Completions, Completion Mode, Suspend, Backoff Limit, TTL
Seconds After Finished, Start Time, Completed At, Duration, Active Deadline Seconds, Pods Statuses,
Completed Indexes, the Pod Template) and ``describeCronJob`` (Schedule, Concurrency Policy, Suspend,
Time Zone, the history limits, Starting Deadline Seconds, ``describeJobTemplate``, Last Schedule
Time, ``printActiveJobs``), then the events whose involved object is the Job or CronJob.

kbatch's addition, before the events: the object's **Conditions** (type, status, reason, message),
which kubectl leaves to ``-o yaml``. Times print in UTC; ages are virtual.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kbatch.api.base import parse_time
from kbatch.api.humanize import human_duration
from kbatch.api.printing import DescribeReader, Obj
from kbatch.families.core.describe_text import (
    annotation_lines,
    controlled_by,
    events_about,
    map_lines,
    page_and_events,
    rfc1123z,
)
from kbatch.families.core.pod_template import pod_template_lines

__all__ = [
    "cap_indexes",
    "cronjob_page",
    "describe_cronjob_page",
    "describe_job_page",
    "job_page",
    "selector_string",
]


def cap_indexes(indexes: str, soft_limit: int) -> str:
    """``capIndexesListOrNone``: ``<none>``, or the list cut after the first comma at or past
    ``soft_limit`` characters, then ``...``."""
    if not indexes:
        return "<none>"
    cut = indexes.find(",", soft_limit)
    return indexes if cut < 0 else indexes[: cut + 1] + "..."


def selector_string(selector: Obj) -> str:
    """``metav1.LabelSelectorAsSelector(s).String()``: every requirement sorted by key, ``k=v`` for
    matchLabels, ``k in (a,b)`` / ``k notin (a,b)`` with sorted values, ``k``, ``!k``."""
    reqs = [(k, f"{k}={v}") for k, v in (selector.get("matchLabels") or {}).items()]
    for expr in selector.get("matchExpressions") or ():
        key, op, values = (
            expr.get("key", ""),
            expr.get("operator"),
            ",".join(sorted(expr.get("values") or ())),
        )
        text = {
            "In": f"{key} in ({values})",
            "NotIn": f"{key} notin ({values})",
            "Exists": key,
            "DoesNotExist": f"!{key}",
        }.get(op or "", f"{key} {op}")
        reqs.append((key, text))
    return ",".join(text for _, text in sorted(reqs, key=lambda r: r[0]))


def _head(obj: Obj) -> list[str]:
    meta = obj.get("metadata") or {}
    return [f"Name:\t{meta.get('name', '')}", f"Namespace:\t{meta.get('namespace', '')}"]


def _labels(obj: Obj) -> list[str]:
    meta = obj.get("metadata") or {}
    labels = meta.get("labels") or {}
    return [
        *map_lines("Labels", labels),
        *annotation_lines(meta.get("annotations") or {}),
    ]


def _optional(title: str, value: Any, unit: str = "") -> list[str]:
    return (
        []
        if value is None
        else [f"{title}:\t{str(value).lower() if isinstance(value, bool) else value}{unit}"]
    )


def _times(status: Obj) -> list[str]:
    start, end = status.get("startTime"), status.get("completionTime")
    lines = [f"Start Time:\t{rfc1123z(start)}"] if start else []
    if end:
        lines.append(f"Completed At:\t{rfc1123z(end)}")
    if start and end:
        lines.append(f"Duration:\t{human_duration((parse_time(end) - parse_time(start)).total_seconds())}")
    return lines


def _pods_statuses(status: Obj) -> str:
    active, succeeded, failed = status.get("active", 0), status.get("succeeded", 0), status.get("failed", 0)
    ready = f" ({status['ready']} Ready)" if status.get("ready") is not None else ""
    return f"Pods Statuses:\t{active} Active{ready} / {succeeded} Succeeded / {failed} Failed"


def _job_lines(job: Obj) -> list[str]:
    meta, spec, status = job.get("metadata") or {}, job.get("spec") or {}, job.get("status") or {}
    lines = [*_head(job), f"Selector:\t{selector_string(spec.get('selector') or {})}", *_labels(job)]
    lines += controlled_by(meta)
    lines += _optional("Parallelism", spec.get("parallelism"))
    lines.append(f"Completions:\t{spec['completions'] if spec.get('completions') is not None else '<unset>'}")
    lines += _optional("Completion Mode", spec.get("completionMode"))
    lines += _optional("Suspend", spec.get("suspend"))
    lines += _optional("Backoff Limit", spec.get("backoffLimit"))
    lines += _optional("TTL Seconds After Finished", spec.get("ttlSecondsAfterFinished"))
    lines += _times(status)
    lines += _optional("Active Deadline Seconds", spec.get("activeDeadlineSeconds"), "s")
    lines.append(_pods_statuses(status))
    if spec.get("completionMode") == "Indexed":
        lines.append(f"Completed Indexes:\t{cap_indexes(status.get('completedIndexes') or '', 50)}")
    return [*lines, *pod_template_lines(spec.get("template"))]


def _unset(value: Any, unit: str = "") -> str:
    return "<unset>" if value is None else f"{value}{unit}"


def _job_template_lines(template: Obj) -> list[str]:
    """``describeJobTemplate``."""
    spec = template.get("spec") or {}
    selector = spec.get("selector")
    lines = [
        f"Selector:\t{selector_string(selector) if selector is not None else '<unset>'}",
        f"Parallelism:\t{_unset(spec.get('parallelism'))}",
        f"Completions:\t{_unset(spec.get('completions'))}",
        *_optional("Active Deadline Seconds", spec.get("activeDeadlineSeconds"), "s"),
    ]
    return [*lines, *pod_template_lines(spec.get("template"))]


def _cronjob_lines(cronjob: Obj) -> list[str]:
    spec, status = cronjob.get("spec") or {}, cronjob.get("status") or {}
    suspend = spec.get("suspend")
    active = ", ".join(ref.get("name", "") for ref in status.get("active") or ())
    last = status.get("lastScheduleTime")
    return [
        *_head(cronjob),
        *_labels(cronjob),
        f"Schedule:\t{spec.get('schedule', '')}",
        f"Concurrency Policy:\t{spec.get('concurrencyPolicy', '')}",
        f"Suspend:\t{'<unset>' if suspend is None else str(bool(suspend))}",
        f"Time Zone:\t{_unset(spec.get('timeZone'))}",
        f"Successful Job History Limit:\t{_unset(spec.get('successfulJobsHistoryLimit'))}",
        f"Failed Job History Limit:\t{_unset(spec.get('failedJobsHistoryLimit'))}",
        f"Starting Deadline Seconds:\t{_unset(spec.get('startingDeadlineSeconds'), 's')}",
        *_job_template_lines(spec.get("jobTemplate") or {}),
        f"Last Schedule Time:\t{rfc1123z(last) if last else '<unset>'}",
        f"Active Jobs:\t{active or '<none>'}",
    ]


def _conditions(obj: Obj) -> list[str]:
    """kbatch's addition: the conditions kubectl's Job page leaves out."""
    conditions = (obj.get("status") or {}).get("conditions") or []
    if not conditions:
        return []
    return [
        "Conditions:",
        "  Type\tStatus\tReason\tMessage",
        "  ----\t------\t------\t-------",
        *(
            f"  {c.get('type', '')}\t{c.get('status', '')}\t{c.get('reason', '')}\t{c.get('message', '')}"
            for c in conditions
        ),
    ]


def job_page(job: Obj, events: list[Obj], now: datetime) -> str:
    """The whole ``kubectl describe job`` text (without a trailing newline), conditions added."""
    return page_and_events([*_job_lines(job), *_conditions(job)], events, now)


def cronjob_page(cronjob: Obj, events: list[Obj], now: datetime) -> str:
    """The whole ``kubectl describe cronjob`` text (without a trailing newline)."""
    return page_and_events(_cronjob_lines(cronjob), events, now)


def _events(reader: DescribeReader, obj: Obj, kind: str) -> list[Obj]:
    """kubectl's ``searchEvents``: the events naming the object's kind, namespace, name and uid."""
    return events_about(reader.list("events"), obj.get("metadata") or {}, kind)


def describe_job_page(reader: DescribeReader, job: Obj) -> str:
    return job_page(job, _events(reader, job, "Job"), reader.now())


def describe_cronjob_page(reader: DescribeReader, cronjob: Obj) -> str:
    return cronjob_page(cronjob, _events(reader, cronjob, "CronJob"), reader.now())
