"""The ``kubectl get`` columns of batch/v1 Job and CronJob, computed from wire dicts.

Column lists and cell rules from k8s.io/kubernetes ``pkg/printers/internalversion/printers.go``
(``printJob``, ``printCronJob``; v1.32, plus the Job Status ``SuccessCriteriaMet`` of
kubernetes/kubernetes#132832, 1.34).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kbatch.api.base import parse_time
from kbatch.api.humanize import age, human_duration
from kbatch.api.printing import (
    AGE,
    NAME,
    Column,
    Obj,
    Printer,
    at,
    containers,
    creation_age,
    format_selector,
    is_true,
    name_of,
)

__all__ = ["CRONJOB", "JOB", "WIDE_TEMPLATE"]


# --- Job and CronJob -------------------------------------------------------------------------

def _job_status(job: Obj) -> str:
    if is_true(job, "Complete"):
        return "Complete"
    if is_true(job, "Failed"):
        return "Failed"
    if at(job, "metadata", "deletionTimestamp"):
        return "Terminating"
    for kind in ("Suspended", "FailureTarget", "SuccessCriteriaMet"):
        if is_true(job, kind):
            return kind
    return "Running"


def _job_cells(job: Obj, now: datetime) -> list[Any]:
    succeeded = at(job, "status", "succeeded") or 0
    completions, parallelism = at(job, "spec", "completions"), at(job, "spec", "parallelism") or 0
    if completions is not None:
        done = f"{succeeded}/{completions}"
    elif parallelism > 1:
        done = f"{succeeded}/1 of {parallelism}"
    else:
        done = f"{succeeded}/1"
    start, end = at(job, "status", "startTime"), at(job, "status", "completionTime")
    took = ""
    if start:
        took = human_duration(((parse_time(end) if end else now) - parse_time(start)).total_seconds())
    names, images = containers(at(job, "spec", "template", "spec"))
    return [name_of(job), _job_status(job), done, took, creation_age(job, now), names, images,
            format_selector(at(job, "spec", "selector"))]


WIDE_TEMPLATE = (Column("Containers", priority=1), Column("Images", priority=1),
                 Column("Selector", priority=1))
JOB = Printer((NAME, Column("Status"), Column("Completions"), Column("Duration"), AGE, *WIDE_TEMPLATE),
              _job_cells)


def _cronjob_cells(cj: Obj, now: datetime) -> list[Any]:
    suspend = at(cj, "spec", "suspend")
    last = at(cj, "status", "lastScheduleTime")
    names, images = containers(at(cj, "spec", "jobTemplate", "spec", "template", "spec"))
    return [name_of(cj), at(cj, "spec", "schedule") or "", at(cj, "spec", "timeZone") or "<none>",
            "<unset>" if suspend is None else str(bool(suspend)),
            len(at(cj, "status", "active") or []), age(last, now) if last else "<none>",
            creation_age(cj, now), names, images,
            format_selector(at(cj, "spec", "jobTemplate", "spec", "selector"))]


CRONJOB = Printer((NAME, Column("Schedule"), Column("Timezone"), Column("Suspend", "boolean"),
                   Column("Active", "integer"), Column("Last Schedule"), AGE, *WIDE_TEMPLATE),
                  _cronjob_cells)
