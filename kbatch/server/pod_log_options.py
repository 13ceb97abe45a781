"""``PodLogOptions`` of a ``GET pods/{name}/log``: which lines of the simulated container's log to send.

kubectl's ``logs --previous``, ``--tail N`` and ``--limit-bytes N`` arrive as the query parameters
``previous``, ``tailLines`` and ``limitBytes``. Upstream validates them in the API server
(``ValidatePodLogOptions``, k8s.io/kubernetes ``pkg/apis/core/validation/validation.go``: a negative
``tailLines`` is invalid, ``limitBytes`` must be greater than 0) and the kubelet cuts the log: the
last ``tailLines`` lines, then at most ``limitBytes`` bytes (``pkg/kubelet/kuberuntime/logs``).
``sinceSeconds``/``sinceTime``/``timestamps`` are not modelled: the simulated container's lines carry
no time of their own (docs/cli.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from kbatch.api.errors import BadRequest
from kbatch.server.http import Request

__all__ = ["LogOptions", "cut_log", "log_options"]


@dataclass(frozen=True)
class LogOptions:
    container: str | None = None
    previous: bool = False
    tail_lines: int | None = None
    limit_bytes: int | None = None


def log_options(req: Request) -> LogOptions:
    """The request's options; an invalid one is upstream's 400 with the field path."""
    tail, limit = req.int_param("tailLines"), req.int_param("limitBytes")
    if tail is not None and tail < 0:
        raise BadRequest(f"tailLines: Invalid value: {tail}: must be greater than or equal to 0")
    if limit is not None and limit < 1:
        raise BadRequest(f"limitBytes: Invalid value: {limit}: must be greater than 0")
    return LogOptions(req.param("container") or None, req.flag("previous"), tail, limit)


def cut_log(text: str, opts: LogOptions) -> bytes:
    """The last ``tail_lines`` lines of ``text``, then its first ``limit_bytes`` bytes."""
    lines = text.splitlines(keepends=True)
    if opts.tail_lines is not None:
        lines = lines[len(lines) - opts.tail_lines:] if opts.tail_lines else []
    data = "".join(lines).encode()
    return data if opts.limit_bytes is None else data[:opts.limit_bytes]
