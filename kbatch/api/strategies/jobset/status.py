"""The JobSet CRD's schema rules for ``status`` (writes to the ``status`` subresource).

From ``config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml`` (v0.12.0): conditions are
``metav1.Condition`` (``type``, ``status``, ``reason``, ``message``, ``lastTransitionTime`` required;
``status`` one of True/False/Unknown; ``reason`` 1-1024 characters matching
``^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$``; ``type`` at most 316 characters, a qualified name;
``observedGeneration`` >= 0; ``message`` at most 32768 characters), a list map keyed by ``type``;
``replicatedJobsStatus`` a list map keyed by ``name``, each ``jobRestarts`` and
``jobRestartsCountTowardsMax`` at most 1024 items; the in-place restart attempts >= 0.
"""

from __future__ import annotations

import re
from typing import Any

from kbatch.api.errors import FieldError, FieldErrorType
from kbatch.api.jobset_v1alpha2 import JobSetStatus
from kbatch.api.strategies.jobset.schema import duplicates
from kbatch.api.validation import child, index

__all__ = ["validate_status_schema"]

Errors = list[FieldError]

_REASON = re.compile(r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")
_REASON_FMT = "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"
_TYPE = re.compile(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                   r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$")
_TYPE_FMT = (r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
             r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$")
_STATUSES = ["True", "False", "Unknown"]
MAX_JOB_RESTARTS = 1024


def _in_body(path: str, rule: str) -> str:
    return f"{path} in body {rule}"


def _string_rules(value: str, path: str, *, min_len: int = 0, max_len: int = 0, pattern: Any = None,
                  fmt: str = "") -> Errors:
    errs: Errors = []
    if len(value) < min_len:
        rule = f"should be at least {min_len} chars long"
        errs.append(FieldError.invalid(path, value, _in_body(path, rule)))
    if max_len and len(value) > max_len:
        errs.append(FieldError(FieldErrorType.TOO_LONG, path, f"may not be more than {max_len} bytes"))
    if pattern is not None and value and not pattern.fullmatch(value):  # Go's ``$``: never before a "\n"
        errs.append(FieldError.invalid(path, value, _in_body(path, f"should match '{fmt}'")))
    return errs


def _condition_errors(cond: Any, path: str) -> Errors:
    errs: Errors = []
    for name, wire in (("last_transition_time", "lastTransitionTime"), ("message", "message"),
                       ("reason", "reason")):
        if getattr(cond, name) is None:
            errs.append(FieldError.required(child(path, wire)))
    if cond.status not in _STATUSES:
        errs.append(FieldError.not_supported(child(path, "status"), cond.status, _STATUSES))
    errs += _string_rules(cond.type, child(path, "type"), max_len=316, pattern=_TYPE, fmt=_TYPE_FMT)
    if cond.reason is not None:
        errs += _string_rules(cond.reason, child(path, "reason"), min_len=1, max_len=1024, pattern=_REASON,
                              fmt=_REASON_FMT)
    if cond.message is not None:
        errs += _string_rules(cond.message, child(path, "message"), max_len=32768)
    generation = cond.observed_generation
    if generation is not None and generation < 0:
        at = child(path, "observedGeneration")
        errs.append(FieldError.invalid(at, generation, _in_body(at, "should be greater than or equal to 0")))
    return errs


def validate_status_schema(status: JobSetStatus | None) -> Errors:
    if status is None:
        return []
    errs: Errors = []
    for i, cond in enumerate(status.conditions or ()):
        errs += _condition_errors(cond, index("status.conditions", i))
    errs += duplicates(status.conditions or (), "status.conditions", "type")
    for i, rjs in enumerate(status.replicated_jobs_status or ()):
        at = index("status.replicatedJobsStatus", i)
        for wire, items in (("jobRestarts", rjs.job_restarts),
                            ("jobRestartsCountTowardsMax", rjs.job_restarts_count_towards_max)):
            if items is not None and len(items) > MAX_JOB_RESTARTS:
                errs.append(FieldError.too_many(child(at, wire), len(items), MAX_JOB_RESTARTS))
    errs += duplicates(status.replicated_jobs_status or (), "status.replicatedJobsStatus")
    for wire, value in (("previousInPlaceRestartAttempt", status.previous_in_place_restart_attempt),
                        ("currentInPlaceRestartAttempt", status.current_in_place_restart_attempt)):
        if value is not None and value < 0:
            at = child("status", wire)
            errs.append(FieldError.invalid(at, value, _in_body(at, "should be greater than or equal to 0")))
    return errs
