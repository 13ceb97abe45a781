"""A simulated shell's file descriptors (POSIX "Shell Command Language" 2.7, XCU ``exec``).

Descriptors 0, 1 and 2 are the :class:`~kbatch.sim.shell_run.Shell`'s ``stdin``, ``sink`` and
``err_sink``; 3 and above live in its ``fds`` table, each a :data:`Stream`: an
:class:`~kbatch.sim.shell_input.Input` (opened for reading: ``exec 3<f``; every duplicate shares
its offset, as an open file description does, so ``read <&3`` in a loop reads on) or a list of
written text (opened for writing: a :class:`FileSink` writing through to its file, a
:class:`LogSink` writing to the container log, or a command substitution's captured output).
"""

from __future__ import annotations

from collections.abc import Callable

from kbatch.sim.shell_input import Input

__all__ = ["FileSink", "LogSink", "Stream", "rebound"]


class FileSink(list[str]):
    """Output written to a file as it comes (``exec 4>f; echo a >&4``): the redirection opened
    (created or truncated) it, so each write appends."""

    def __init__(self, write: Callable[[str], object]) -> None:
        super().__init__()
        self.write = write

    def append(self, text: str) -> None:
        self.write(text)


class LogSink(list[str]):
    """Output reaching the container log directly, past any capture (``exec 3>&1`` at the top,
    then ``x=$(echo a >&3)``; or ``>&2``, standard error being the log)."""

    def __init__(self, log: Callable[[str], None]) -> None:
        super().__init__()
        self.log = log

    def append(self, text: str) -> None:
        self.log(text)


Stream = Input | list[str]
"""What a descriptor refers to: an input to read, or where written text goes."""


def rebound(stream: list[str] | None, log: Callable[[str], None]) -> list[str] | None:
    """``stream`` as a subshell inherits it: the log it writes to is the subshell's own (whose lines
    its parent takes in, in time order)."""
    return LogSink(log) if isinstance(stream, LogSink) else stream
