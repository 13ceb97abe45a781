"""Job condition helpers (upstream job_controller.go ``newCondition``, ``ensureJobConditionStatus``).

* Setting a condition that exists with a different status, reason or message replaces it in
  place with a fresh transition time; an identical one is left alone.
* Adding a ``False`` condition that does not exist is a no-op.
* The terminal ``Complete``/``Failed`` copy reason and message from the interim
  ``SuccessCriteriaMet``/``FailureTarget`` (KEP-4368 / kubernetes#125510).
"""

from __future__ import annotations

from datetime import datetime

from kbatch.controllers.job.views import JobCondition

__all__ = ["ensure_condition", "new_condition", "terminal_for"]


def new_condition(type_: str, status: str, reason: str, message: str, now: datetime) -> JobCondition:
    return JobCondition(type_, status, reason, message, last_probe_time=now, last_transition_time=now)


def ensure_condition(conditions: tuple[JobCondition, ...], type_: str, status: str, reason: str,
                     message: str, now: datetime) -> tuple[tuple[JobCondition, ...], bool]:
    """``conditions`` with ``type_`` set as given, and whether anything changed."""
    for i, cond in enumerate(conditions):
        if cond.type != type_:
            continue
        if (cond.status, cond.reason, cond.message) == (status, reason, message):
            return conditions, False
        replaced = new_condition(type_, status, reason, message, now)
        return (*conditions[:i], replaced, *conditions[i + 1:]), True
    if status == "False":
        return conditions, False
    return (*conditions, new_condition(type_, status, reason, message, now)), True


def terminal_for(interim: JobCondition, now: datetime) -> JobCondition:
    """The terminal condition that an interim (or already terminal) condition leads to."""
    kind = {"SuccessCriteriaMet": "Complete", "FailureTarget": "Failed"}.get(interim.type, interim.type)
    return new_condition(kind, "True", interim.reason, interim.message, now)
