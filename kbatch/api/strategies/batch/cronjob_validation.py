"""batch/v1 CronJob validation (pkg/apis/batch/validation/validation.go ``ValidateCronJobCreate``,
``ValidateCronJobUpdate``, ``validateCronJobSpec``, ``validateTimeZone``).

The schedule is parsed by :mod:`kbatch.api.cron` (robfig/cron ``ParseStandard`` semantics and error
texts); the job template is validated like a Job spec, minus selector generation.
"""

from __future__ import annotations

import re

from kbatch.api import batch_constants as bc
from kbatch.api.batch_v1 import CronJob, CronJobSpec
from kbatch.api.cron import CronError, load_zone, parse_schedule
from kbatch.api.errors import FieldError
from kbatch.api.strategies.batch.validation import Errors, _non_negative, validate_job_template_spec

__all__ = ["validate_cronjob", "validate_cronjob_update"]


# =============================================================================================
# CronJob validation (ValidateCronJobCreate, ValidateCronJobUpdate, ValidateJobTemplateSpec)
# =============================================================================================


def _validate_schedule(schedule: str, allow_tz: bool, time_zone: str | None, path: str) -> Errors:
    """``validateScheduleFormat``: robfig's parse error, and TZ in the schedule only on old objects."""
    errs: Errors = []
    try:
        parse_schedule(schedule)
    except CronError as err:
        errs.append(FieldError.invalid(path, schedule, str(err)))
    if allow_tz and "TZ" in schedule and time_zone is not None:
        errs.append(
            FieldError.invalid(path, schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule")
        )
    elif not allow_tz and "TZ" in schedule:
        errs.append(
            FieldError.invalid(
                path, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"
            )
        )
    return errs


def _validate_time_zone(time_zone: str | None, path: str) -> Errors:
    """``validateTimeZone``: an explicit IANA zone name that the zone database knows."""
    if time_zone is None:
        return []
    if not time_zone:
        return [FieldError.invalid(path, time_zone, "timeZone must be nil or non-empty string")]
    for part in time_zone.split("/"):
        if part in (".", "..") or part.startswith("-") or not re.fullmatch(r"[A-Za-z.\-_0-9+]{1,14}", part):
            return [FieldError.invalid(path, time_zone, f"unknown time zone {time_zone}")]
    if time_zone.lower() == "local":
        return [
            FieldError.invalid(
                path,
                time_zone,
                "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
            )
        ]
    try:
        load_zone(time_zone)
    except CronError as err:
        return [FieldError.invalid(path, time_zone, str(err))]
    return []


def _validate_concurrency_policy(policy: str | None, path: str) -> Errors:
    if not policy:
        return [FieldError.required(path)]
    if policy not in bc.CONCURRENCY_POLICIES:
        return [FieldError.not_supported(path, policy, list(bc.CONCURRENCY_POLICIES))]
    return []


def _validate_cronjob_spec(spec: CronJobSpec, old: CronJobSpec | None, restart_all: bool,
                          path: str = "spec") -> Errors:
    errs: Errors = []
    if not spec.schedule:
        errs.append(FieldError.required(f"{path}.schedule"))
    else:
        allow_tz = old is not None and "TZ" in old.schedule
        errs += _validate_schedule(spec.schedule, allow_tz, spec.time_zone, f"{path}.schedule")
    errs += _non_negative(spec.starting_deadline_seconds, f"{path}.startingDeadlineSeconds")
    if old is None or old.time_zone != spec.time_zone:
        errs += _validate_time_zone(spec.time_zone, f"{path}.timeZone")
    errs += _validate_concurrency_policy(spec.concurrency_policy, f"{path}.concurrencyPolicy")
    errs += validate_job_template_spec(spec.job_template, f"{path}.jobTemplate",
                                       old.job_template if old is not None else None, restart_all)
    errs += _non_negative(spec.successful_jobs_history_limit, f"{path}.successfulJobsHistoryLimit")
    errs += _non_negative(spec.failed_jobs_history_limit, f"{path}.failedJobsHistoryLimit")
    return errs


def validate_cronjob(cronjob: CronJob, restart_all: bool = True) -> Errors:
    """``ValidateCronJobCreate``; names are capped at 52 characters because the controller appends
    an 11-character ``-<minutes>`` suffix to make Job names. ``restart_all``: the job template's
    ``AllowRestartAllContainers`` (:func:`kbatch.api.gates.restart_all_allowed`)."""
    errs = _validate_cronjob_spec(cronjob.spec, None, restart_all)
    name = cronjob.metadata.name or ""
    if len(name) > bc.MAX_CRONJOB_NAME_LENGTH:
        errs.append(FieldError.invalid("metadata.name", name, "must be no more than 52 characters"))
    return errs


def validate_cronjob_update(new: CronJob, old: CronJob, restart_all: bool = True) -> Errors:
    """``ValidateCronJobUpdate`` (no name-length rule, so old long names stay updatable)."""
    return _validate_cronjob_spec(new.spec, old.spec, restart_all)
