"""Virtual time: ``advance DURATION | --until-idle`` and ``wait KIND/NAME --for …``."""

from __future__ import annotations

import sys
from typing import Any

import typer

from kbatch.api.errors import BadRequest
from kbatch.cli.durations import duration_option
from kbatch.cli.errors import UserError, command
from kbatch.cli.options import NAMESPACE, global_options
from kbatch.cli.resolve import kind_info, namespace_for, split_kind_name
from kbatch.cli.warnings import warn_deprecated

__all__ = ["register", "wait_until"]


@command
def advance(ctx: typer.Context,
            duration: str | None = typer.Argument(None, help="How far: 500ms, 30s, 5m, 1h30m, …"),
            until_idle: bool = typer.Option(False, "--until-idle",
                                            help="Advance until no timer is pending (at most DURATION, "
                                                 "default 24h).")) -> None:
    """Move the virtual clock forward, firing every timer due on the way, in order."""
    from kbatch.cli.session import session
    from kbatch.runtime.duration import format_duration

    if duration is None and not until_idle:
        raise UserError("give a DURATION (e.g. 30s, 5m, 1h) or --until-idle")
    seconds = duration_option(duration, "DURATION") if duration is not None else None
    with session(global_options(ctx)) as backend:
        if seconds and not until_idle and sys.stderr.isatty() and seconds >= PROGRESS_FROM:
            out = _with_progress(backend, seconds)
        else:
            out = backend.advance(seconds, until_idle=until_idle)
    moved = format_duration(out.get("advancedSeconds", 0.0))
    note = "" if out.get("met", True) else " (timers still pending: stopped at the limit)"
    typer.echo(f"advanced {moved} to {_now_text(out)}{note}")


def _now_text(clock: dict[str, Any]) -> str:
    """The clock's new time, as Go's RFC3339Nano prints it: whole seconds as before
    (``…T00:00:03Z``), a fraction only when there is one (``…T00:00:00.5Z`` after ``advance 500ms``)."""
    from datetime import datetime

    from kbatch.api.base import format_nano_time

    micro = clock.get("nowMicro")
    return format_nano_time(datetime.fromisoformat(micro)) if micro else str(clock["now"])


PROGRESS_FROM = 3600.0  # a progress bar (on a terminal) for spans of an hour or more
PROGRESS_STEPS = 60


def _with_progress(backend: Any, seconds: float, wait_for: dict[str, Any] | None = None) -> dict[str, Any]:
    """The same advance (or wait) in equal steps, timers still firing in order and a wait stopping
    at the step its condition holds in, drawing a bar on stderr (kbatch.cli.progress)."""
    from kbatch.cli.progress import progress_bars, store_counts
    from kbatch.runtime.duration import format_duration

    step = seconds / PROGRESS_STEPS
    total = 0.0
    out: dict[str, Any] = {}
    with progress_bars(True) as bars:
        assert bars is not None
        task = bars.add(f"{'waiting' if wait_for else 'advancing'} {format_duration(seconds)}", seconds)
        for _ in range(PROGRESS_STEPS):
            out = backend.advance(step, wait_for=wait_for) if wait_for else backend.advance(step)
            total += out.get("advancedSeconds", step)
            bars.update(task, total, *store_counts(backend))
            if wait_for and out.get("met"):
                break
    return out | {"advancedSeconds": total}


@command
def wait(ctx: typer.Context, target: str = typer.Argument(..., help="KIND/NAME, e.g. job/pi."),
         for_: str = typer.Option(..., "--for",
                                  help="condition=NAME[=VALUE], jsonpath='{EXPR}'[=VALUE] or delete."),
         timeout: str = typer.Option("30s", "--timeout", help="Time to wait at most (Go duration): virtual, "
                                                                  "or the machine's on a real clock."),
         namespace: str | None = NAMESPACE) -> None:
    """Advance virtual time until a condition holds (or the object is gone), at most --timeout; on a
    real clock (serve --clock real, --etcd-servers) wait for it in real time, as kubectl wait."""
    from kbatch.cli.session import session

    kind, name = split_kind_name(target)
    if not name:
        raise UserError("wait needs KIND/NAME, e.g. job/pi")
    spec: dict[str, object] = {"kind": kind, "name": name}
    if for_ == "delete":
        spec["delete"] = True
    elif for_.startswith("condition="):
        cond, _, value = for_.removeprefix("condition=").partition("=")
        spec |= {"condition": cond, "status": value or "True"}
    elif for_.startswith("jsonpath="):
        spec |= _jsonpath_wait(for_.removeprefix("jsonpath="))
    else:
        raise UserError(f'unrecognized condition: "{for_}" (use condition=NAME[=VALUE], '
                        "jsonpath='{EXPR}'[=VALUE] or delete)")
    seconds = duration_option(timeout, "--timeout")
    with session(global_options(ctx)) as backend:
        info = kind_info(backend.registry, kind)
        warn_deprecated(backend.registry, [(info.api_version, info.kind)])
        spec |= {"kind": info.plural + (f".{info.group}" if info.group else ""),
                 "namespace": namespace_for(info, namespace)}
        if not _exists(backend, info, spec, for_delete=for_ == "delete"):
            return  # --for delete of nothing: kubectl visits nothing, prints nothing, exits 0
        try:
            out = wait_until(backend, seconds, spec)
        except BadRequest as err:
            if "jsonpath" not in spec:
                raise
            raise UserError(err.message) from None  # kubectl evaluates the path itself: "error: …"
    label = f"{info.kind.lower()}.{info.group}/{name}" if info.group else f"{info.kind.lower()}/{name}"
    if not out.get("met"):
        raise UserError(f"timed out waiting for the condition on {info.plural}/{name}")
    typer.echo(f"{label} {'deleted' if for_ == 'delete' else 'condition met'}")


def wait_until(backend: Any, seconds: float, spec: dict[str, object]) -> dict[str, Any]:
    """Until ``spec`` holds (``backend.advance``'s ``wait_for``), at most ``seconds``: virtual time
    jumps (with a progress line on a terminal for long waits); on a real clock (``serve --clock
    real``, etcd) the machine's time passes. The answer has ``met`` and ``advancedSeconds``."""
    if not backend.clock().get("virtual", True):  # --clock real, etcd: time moves by itself
        from kbatch.runtime.clock import RealClock

        clock = RealClock()
        start = clock.now()
        met = _wait_real_time(backend, seconds, spec)
        return {"met": met, "advancedSeconds": clock.now() - start}
    if sys.stderr.isatty() and seconds >= PROGRESS_FROM:
        return _with_progress(backend, seconds, spec)  # type: ignore[no-any-return]
    return backend.advance(seconds, wait_for=spec)  # type: ignore[no-any-return]


def _exists(backend: Any, info: Any, spec: dict[str, object], *, for_delete: bool) -> bool:
    """kubectl ``pkg/cmd/wait/wait.go`` ``RunWait`` first GETs the named object: NotFound is the
    command's error at once, except for ``--for=delete``, which ignores it."""
    from kbatch.api.errors import NotFound

    try:
        backend.get(info, spec["namespace"], str(spec["name"]))
    except NotFound:
        if for_delete:
            return False
        raise
    return True


def _wait_real_time(backend: Any, seconds: float, spec: dict[str, object]) -> bool:
    """On a real clock nothing can be advanced: wait as kubectl wait does, on the machine's clock,
    checking the condition until it holds or ``--timeout`` has passed (k8s.io/kubectl
    ``pkg/cmd/wait``; kubectl watches, this polls every 100 ms)."""
    import threading

    from kbatch.runtime.clock import RealClock
    from kbatch.server.actions import wait_predicate

    holds = wait_predicate(backend, spec)
    clock = RealClock()  # the machine's clock is read only through runtime/clock.py
    deadline = clock.now() + seconds
    pause = threading.Event()  # never set: a bounded pause between checks
    while not holds():
        left = deadline - clock.now()
        if left <= 0:
            return False
        pause.wait(min(0.1, left))
    return True


def _jsonpath_wait(text: str) -> dict[str, object]:
    """``--for=jsonpath=EXPR[=VALUE]`` as kubectl reads it (``pkg/cmd/wait/wait.go``
    ``processJSONPathInput``): split at single ``=`` signs, the expression relaxed (``{.a.b}``,
    ``.a.b``), the value stripped of quotes; without a value, any value of the expression will do."""
    from kbatch.api.jsonpath import TemplateError, checked_expression, split_wait_input

    parts = split_wait_input(text)
    if len(parts) > 2:
        raise UserError("jsonpath wait format must be --for=jsonpath='{.status.readyReplicas}'=3 or "
                        "--for=jsonpath='{.status.readyReplicas}'")
    try:
        checked_expression(parts[0])
    except TemplateError as err:
        raise UserError(str(err)) from None
    if len(parts) == 1:
        return {"jsonpath": parts[0]}
    value = parts[1].strip("'\"")
    if not value:
        raise UserError("jsonpath wait has to have a value after equal sign, like "
                        "--for=jsonpath='{.status.readyReplicas}'=3")
    return {"jsonpath": parts[0], "value": value}


def register(app: typer.Typer) -> None:
    app.command()(advance)
    app.command()(wait)
