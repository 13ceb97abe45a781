"""``PodLogOptions`` of a ``GET pods/{name}/log``: which lines of the simulated container's log to send.

kubectl's ``logs --previous``, ``--tail N``, ``--limit-bytes N``, ``--since D``, ``--since-time T`` and
``--timestamps`` arrive as the query parameters ``previous``, ``tailLines``, ``limitBytes``,
``sinceSeconds``, ``sinceTime`` and ``timestamps``. Upstream validates them in the API server
(``ValidatePodLogOptions``, k8s.io/kubernetes ``pkg/apis/core/validation/validation.go``, answered as a
422 ``PodLogOptions "P" is invalid`` by ``pkg/registry/core/pod/rest/log.go``) and the kubelet cuts the
log (``pkg/kubelet/kuberuntime/logs/logs.go``): the last ``tailLines`` lines, of those the ones written
at or after the ``since`` instant (``sinceTime``, or now minus ``sinceSeconds``), each prefixed with its
time in ``RFC3339NanoFixed`` and a space when ``timestamps``, then at most ``limitBytes`` bytes.
A simulated line's time is its container's ``startedAt`` plus when the command printed it (virtual time).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from kbatch.api.base import parse_time
from kbatch.api.errors import FieldError, Invalid
from kbatch.server.http import Request

__all__ = ["LogLine", "LogOptions", "cut_log", "log_options"]

LogLine = tuple[datetime, str]


@dataclass(frozen=True)
class LogOptions:
    container: str | None = None
    previous: bool = False
    tail_lines: int | None = None
    limit_bytes: int | None = None
    since: datetime | None = None
    timestamps: bool = False


def log_options(req: Request, name: str, now: datetime) -> LogOptions:
    """The request's options; invalid ones are upstream's 422 with their field paths."""
    tail, limit = req.int_param("tailLines"), req.int_param("limitBytes")
    since_s = req.int_param("sinceSeconds")
    since_time = _since_time(req.param("sinceTime"))
    errors = []
    if tail is not None and tail < 0:
        errors.append(FieldError.invalid("tailLines", tail, "must be greater than or equal to 0"))
    if limit is not None and limit < 1:
        errors.append(FieldError.invalid("limitBytes", limit, "must be greater than 0"))
    if since_s is not None and since_time is not None:
        errors.append(FieldError.forbidden("", "at most one of `sinceTime` or `sinceSeconds` may be "
                                               "specified"))
    if since_s is not None and since_s < 1:
        errors.append(FieldError.invalid("sinceSeconds", since_s, "must be greater than 0"))
    if errors:
        raise Invalid.of("PodLogOptions", name, errors)
    since = now - timedelta(seconds=since_s) if since_s is not None else since_time
    return LogOptions(req.param("container") or None, req.flag("previous"), tail, limit, since,
                      req.flag("timestamps"))


def _since_time(raw: str | None) -> datetime | None:
    if not raw:
        return None
    try:
        return parse_time(raw)
    except ValueError:
        bad = FieldError.invalid("sinceTime", raw, "must be an RFC 3339 time")
        raise Invalid.of("PodLogOptions", "", [bad]) from None


def cut_log(logged: Sequence[LogLine], opts: LogOptions) -> bytes:
    """The lines ``opts`` asks for, as the kubelet writes them."""
    lines = list(logged)
    if opts.tail_lines is not None:
        lines = lines[len(lines) - opts.tail_lines:] if opts.tail_lines else []
    if opts.since is not None:
        since = opts.since
        lines = [(at, text) for at, text in lines if at >= since]
    data = "".join((_stamp(at) + " " if opts.timestamps else "") + text + "\n" for at, text in lines).encode()
    return data if opts.limit_bytes is None else data[:opts.limit_bytes]


def _stamp(at: datetime) -> str:
    """Go's ``2006-01-02T15:04:05.000000000Z07:00`` for a UTC time: nine fraction digits, ``Z``."""
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond:06d}000Z"
