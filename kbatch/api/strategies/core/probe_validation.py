"""Validation of probes and lifecycle hooks: one handler each, well-formed actions, sane numbers.

Upstream: kubernetes ``pkg/apis/core/validation/validation.go`` (validateLivenessProbe,
validateReadinessProbe, validateStartupProbe, validateProbe, validateLifecycle, validateHandler,
validateExecAction, validateHTTPGetAction, ValidatePortNumOrName, validateSleepAction). Messages are
upstream's. The spec is validated after defaulting, so a probe's thresholds and an HTTP action's
path and scheme are already filled in (``SetDefaults_Probe`` / ``SetDefaults_HTTPGetAction``).
"""

from __future__ import annotations

import re
from typing import Any

from kbatch.api.core_v1 import HTTPGetAction, Lifecycle, LifecycleHandler, Probe
from kbatch.api.errors import FieldError
from kbatch.api.strategies.core.port_names import is_valid_port_name
from kbatch.api.validation import _regex_error, child

__all__ = ["validate_lifecycle", "validate_probes"]

_SCHEMES = ["HTTP", "HTTPS"]
_HEADER_FMT = "[-A-Za-z0-9]+"
_HEADER = re.compile(_HEADER_FMT)
_HEADER_MSG = _regex_error("a valid HTTP header must consist of alphanumeric characters or '-'", _HEADER_FMT,
                           "X-Header-Name")
_NON_NEGATIVE = "must be greater than or equal to 0"
_ONE_HANDLER = "may not specify more than 1 handler type"


def port_num_or_name_errors(port: Any, path: str) -> list[FieldError]:
    """``ValidatePortNumOrName``: an int in 1..65535 or an IANA service name."""
    if isinstance(port, str):
        return [FieldError.invalid(path, port, m) for m in is_valid_port_name(port)]
    if 1 <= port <= 65535:
        return []
    return [FieldError.invalid(path, port, "must be between 1 and 65535, inclusive")]


def _http_get_errors(action: HTTPGetAction, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if not action.path:
        errs.append(FieldError.required(child(path, "path")))
    errs += port_num_or_name_errors(action.port, child(path, "port"))
    if action.scheme not in _SCHEMES:
        errs.append(FieldError.not_supported(child(path, "scheme"), action.scheme or "", _SCHEMES))
    for header in action.http_headers or ():
        if not _HEADER.fullmatch(header.name):
            errs.append(FieldError.invalid(child(path, "httpHeaders"), header.name, _HEADER_MSG))
    return errs


def _sleep_errors(seconds: int, grace: int | None, path: str) -> list[FieldError]:
    """``validateSleepAction`` with PodLifecycleSleepActionAllowZero (GA, always on since 1.34)."""
    if grace is None or 0 <= seconds <= grace:
        return []
    return [FieldError.invalid(path, seconds, "must be non-negative and less than "
                               f"terminationGracePeriodSeconds ({grace})")]


def _handler_errors(handler: Probe | LifecycleHandler, grace: int | None, path: str) -> list[FieldError]:
    """``validateHandler``: exactly one action, the first one found validated, later ones forbidden."""
    actions: list[tuple[str, Any]] = [("exec", handler.exec), ("httpGet", handler.http_get),
                                      ("tcpSocket", handler.tcp_socket)]
    actions.append(("grpc", handler.grpc) if isinstance(handler, Probe) else ("sleep", handler.sleep))
    errs: list[FieldError] = []
    found = False
    for name, action in actions:
        if action is None:
            continue
        at = child(path, name)
        if found:
            errs.append(FieldError.forbidden(at, _ONE_HANDLER))
            continue
        found = True
        if name == "exec" and not action.command:
            errs.append(FieldError.required(child(at, "command")))
        elif name == "httpGet":
            errs += _http_get_errors(action, at)
        elif name in ("tcpSocket", "grpc"):
            errs += port_num_or_name_errors(action.port, child(at, "port"))
        elif name == "sleep":
            errs += _sleep_errors(action.seconds, grace, at)
    if not found:
        errs.append(FieldError.required(path, "must specify a handler type"))
    return errs


def _probe_errors(probe: Probe, grace: int | None, path: str) -> list[FieldError]:
    """``validateProbe``: the handler, non-negative numbers, a positive probe grace period."""
    errs = _handler_errors(probe, grace, path)
    for name in ("initial_delay_seconds", "timeout_seconds", "period_seconds", "success_threshold",
                 "failure_threshold"):
        value = getattr(probe, name) or 0
        if value < 0:
            wire = name.split("_")[0] + "".join(p.title() for p in name.split("_")[1:])
            errs.append(FieldError.invalid(child(path, wire), value, _NON_NEGATIVE))
    tgps = probe.termination_grace_period_seconds
    if tgps is not None and tgps <= 0:
        errs.append(FieldError.invalid(child(path, "terminationGracePeriodSeconds"), tgps,
                                       "must be greater than 0"))
    return errs


def validate_probes(c: Any, grace: int | None, path: str) -> list[FieldError]:
    """A container's liveness, readiness and startup probes (liveness and startup need
    ``successThreshold`` 1; a readiness probe has no grace period of its own)."""
    errs: list[FieldError] = []
    for name, probe in (("livenessProbe", c.liveness_probe), ("readinessProbe", c.readiness_probe),
                        ("startupProbe", c.startup_probe)):
        if probe is None:
            continue
        at = child(path, name)
        errs += _probe_errors(probe, grace, at)
        if name == "readinessProbe":
            if probe.termination_grace_period_seconds is not None:
                errs.append(FieldError.invalid(child(at, "terminationGracePeriodSeconds"),
                                               probe.termination_grace_period_seconds,
                                               "must not be set for readinessProbes"))
        elif probe.success_threshold != 1:
            errs.append(FieldError.invalid(child(at, "successThreshold"), probe.success_threshold,
                                           "must be 1"))
    return errs


def validate_lifecycle(lifecycle: Lifecycle | None, grace: int | None, path: str) -> list[FieldError]:
    """``validateLifecycle``: each hook present has exactly one valid handler."""
    if lifecycle is None:
        return []
    errs: list[FieldError] = []
    for name, hook in (("postStart", lifecycle.post_start), ("preStop", lifecycle.pre_stop)):
        if hook is not None:
            errs += _handler_errors(hook, grace, child(path, name))
    return errs
