"""``CoschedulingArgs`` (scheduler-plugins ``apis/config/types.go``, defaults ``apis/config/v1/defaults.go``,
validation ``apis/config/validation/validation_pluginargs.go``): ``permitWaitingTimeSeconds`` (default
60), ``podGroupBackoffSeconds`` (default 0: no back-off), ``podGroupRejectPercentage`` (default 10,
0-100). Set through the scheduler profile's ``pluginConfig``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kbatch.controllers.scheduler.config import SchedulerConfigError, decode_int, plugin_args

__all__ = ["CoschedulingArgs", "parse_args"]

_FIELDS = ("permitWaitingTimeSeconds", "podGroupBackoffSeconds", "podGroupRejectPercentage")


@dataclass(frozen=True, slots=True)
class CoschedulingArgs:
    permit_waiting_time_seconds: int = 60
    pod_group_backoff_seconds: int = 0
    pod_group_reject_percentage: int = 10


def _int(args: Mapping[str, Any], key: str, default: int) -> int:
    value = decode_int(args.get(key, default), f"CoschedulingArgs.{key}", 64)
    return default if value is None else int(value)


def parse_args(args: Mapping[str, Any]) -> CoschedulingArgs:
    """Decode (strictly), default and validate (``ValidateCoschedulingArgs``: every error at once)."""
    plugin_args("Coscheduling", args, _FIELDS)
    parsed = CoschedulingArgs(_int(args, _FIELDS[0], 60), _int(args, _FIELDS[1], 0),
                              _int(args, _FIELDS[2], 10))
    errors = []
    if parsed.permit_waiting_time_seconds < 0:
        errors.append(f"permitWaitingTimeSeconds: Invalid value: {parsed.permit_waiting_time_seconds}: "
                      "must be greater than 0")
    if parsed.pod_group_backoff_seconds < 0:
        errors.append(f"podGroupBackoffSeconds: Invalid value: {parsed.pod_group_backoff_seconds}: "
                      "must be greater than 0")
    if not 0 <= parsed.pod_group_reject_percentage <= 100:
        errors.append(f"podGroupRejectPercentage: Invalid value: {parsed.pod_group_reject_percentage}: "
                      "must be between 0 and 100")
    if errors:
        message = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
        raise SchedulerConfigError(f'initializing plugin "Coscheduling": {message}')
    return parsed
