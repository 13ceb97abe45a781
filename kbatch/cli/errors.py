"""One readable line per error, exit code 1, never a traceback for a user's mistake.

Server-side failures print as kubectl prints them (``Error from server (NotFound): jobs.batch "pi"
not found``, k8s.io/kubectl ``pkg/cmd/util/helpers.go``; an ``Invalid`` one from its details: ``The
Job "pi" is invalid: spec.parallelism: …``); client-side ones as ``error: …``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any, TypeVar

import typer

__all__ = ["ServerUnreachable", "UserError", "command", "describe_error", "each_reporting", "user_errors"]

F = TypeVar("F", bound=Callable[..., Any])


class UserError(Exception):
    """A mistake in what the user asked for; printed as ``error: <message>``."""


class ServerUnreachable(Exception):
    """No answer from ``--server``; printed as kubectl's ``StandardErrorMessage`` prints it
    (k8s.io/kubectl ``pkg/cmd/util/helpers.go``): ``The connection to the server HOST:PORT was
    refused - did you specify the right host or port?`` when the connection is refused, else
    ``Unable to connect to the server: <cause>``."""

    def __init__(self, host: str, cause: BaseException) -> None:
        refused = _refused(cause)
        super().__init__(f"The connection to the server {host} was refused - did you specify the right host "
                         "or port?" if refused else f"Unable to connect to the server: {cause}")


def _refused(err: BaseException | None) -> bool:
    """Whether a ``ConnectionRefusedError`` is somewhere in the cause chain (httpx wraps httpcore's
    error, which wraps the socket's)."""
    seen = 0
    while err is not None and seen < 10:
        if isinstance(err, ConnectionRefusedError):
            return True
        err, seen = err.__cause__ or err.__context__, seen + 1
    return False


def describe_error(err: BaseException) -> str | None:
    from kbatch.api.errors import StatusError, Unauthorized  # loaded by whatever raised a Status
    from kbatch.apiserver.manifests import ManifestError

    if isinstance(err, ManifestError):  # refused before anything is sent: kubectl's client-side error
        return f"error: {err.message}"
    if isinstance(err, ServerUnreachable):
        return str(err)
    if isinstance(err, Unauthorized):  # as kubectl prints a 401
        return f"error: You must be logged in to the server ({err.message})"
    if isinstance(err, StatusError) and err.reason == "Invalid":
        return _invalid(err)
    if isinstance(err, StatusError):
        # kubectl names the reason only when the Status carries one (StatusReasonUnknown is "")
        if not err.reason:
            return f"Error from server: {err.message}"
        return f"Error from server ({err.reason}): {err.message}"
    if isinstance(err, UserError | ValueError | TimeoutError | OSError):
        text = str(err) or type(err).__name__
        return text if text.startswith("error:") else f"error: {text}"
    return None


def _invalid(err: Any) -> str:
    """kubectl's own text for an ``Invalid`` Status, taken from its details, not its message
    (k8s.io/kubectl ``pkg/cmd/util/helpers.go`` ``checkErr``, ``statusCausesToAggrError``,
    ``MultilineError``): ``The Job "x" is invalid: spec.a: …``, or one ``* field: message`` line per
    distinct cause when there are several."""
    details = err.details
    if details is None:
        return "The request is invalid"
    head = f'The {details.kind or ""} "{details.name or ""}" is invalid' if details.kind or details.name \
        else "The request is invalid"
    causes: list[str] = []
    for cause in details.causes or ():
        text = f"{cause.field or ''}: {cause.message or ''}"
        if text not in causes:
            causes.append(text)
    if not causes:
        return head
    if len(causes) == 1:
        return f"{head}: {causes[0]}"
    return "\n".join([f"{head}: ", *(f"* {text}" for text in causes)])


@contextmanager
def user_errors() -> Iterator[None]:
    try:
        yield
    except typer.Exit:
        raise
    except BrokenPipeError:  # the reader went away (`kbatch get pods | head -1`): stop quietly
        _discard_stdout()
        raise typer.Exit(1) from None
    except Exception as err:
        line = describe_error(err)
        if line is None:
            raise
        typer.echo(line.splitlines()[0] if len(line) > 2000 else line, err=True)
        raise typer.Exit(1) from None


def _discard_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not fail again (the recipe of
    the Python docs for SIGPIPE)."""
    import os
    import sys

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def command(fn: F) -> F:
    """Decorate a command body so user errors become one line and exit code 1."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with user_errors():
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]



def each_reporting(items: Iterable[Any], fn: Callable[[Any], str]) -> None:
    """Run ``fn`` on every item and print what it returns (nothing for ""); a failure does not stop
    the others, and the failures are printed after them, then exit 1 (kubectl's commands over several
    objects collect their errors into one aggregate for ``CheckErr``)."""
    from kbatch.api.errors import StatusError

    failures: list[BaseException] = []
    for item in items:
        try:
            text = fn(item)
            if text:
                typer.echo(text)
        except (StatusError, UserError) as err:
            failures.append(err)
    if not failures:
        return
    if len(failures) == 1:
        typer.echo(describe_error(failures[0]), err=True)
    else:
        for failure in failures:
            typer.echo(_one_of_many(failure), err=True)
    raise typer.Exit(1)


def _one_of_many(err: BaseException) -> str:
    """One error of several as kubectl prints it (k8s.io/kubectl ``pkg/cmd/util/helpers.go``: an
    aggregate goes through ``MultipleErrors("", errs)``, each line ``StandardErrorMessage`` or else
    the bare ``err.Error()``): a server's Status keeps ``Error from server (Reason): message`` (an
    Invalid one too, its message and not the ``The Job "x" is invalid`` lines), a client-side error
    has no ``error:`` prefix."""
    from kbatch.api.errors import StatusError, Unauthorized
    from kbatch.apiserver.manifests import ManifestError

    if isinstance(err, ManifestError | UserError):
        text = err.message if isinstance(err, ManifestError) else str(err)
        return text.removeprefix("error: ")
    if isinstance(err, StatusError) and not isinstance(err, Unauthorized) and err.reason:
        return f"Error from server ({err.reason}): {err.message}"
    return describe_error(err) or str(err)
