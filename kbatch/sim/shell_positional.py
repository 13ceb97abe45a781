"""Positional and special parameters of a simulated script (POSIX "Shell Command Language" 2.5.1-2).

``sh -c 'SCRIPT' NAME A B`` sets ``$0`` to ``NAME`` and ``$1``, ``$2`` to ``A``, ``B`` (XCU ``sh``,
``-c``); a function call sets ``$1…`` to its arguments for its duration (2.9.5), ``shift`` moves them.
They live among the script's variables under keys no variable name (nor a container's environment
variable: Kubernetes refuses ``=`` in an env name) can take: ``=0``, ``=1``, … and ``=#`` their
number, so that a subshell's copy of the variables copies them and a loop that shifts them changes
its state (:meth:`kbatch.sim.shell_run.Shell.fingerprint`).

:func:`special` answers ``$?``, ``$#``, ``$0``…``$N``, ``$@`` and ``$*`` (the last two joined by a
space, as in a word where they make no separate fields); None for a parameter that is unset.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence

__all__ = ["FLAGS_KEY", "SHELL_KEY", "SPECIAL", "is_bash", "positional", "set_positional", "special"]

_COUNT = "=#"
SPECIAL = frozenset("?#@*$!-")

def positional(scope: Mapping[str, str]) -> list[str]:
    """``$1`` … ``$N``."""
    return [scope.get(f"={n}", "") for n in range(1, int(scope.get(_COUNT, "0")) + 1)]


def set_positional(scope: MutableMapping[str, str], args: Sequence[str]) -> None:
    """``$1`` … become ``args`` (``$0`` stays)."""
    for n in range(1, int(scope.get(_COUNT, "0")) + 1):
        scope.pop(f"={n}", None)
    for n, arg in enumerate(args, 1):
        scope[f"={n}"] = arg
    scope[_COUNT] = str(len(args))


FLAGS_KEY = "=-"
"""Where ``$-`` (the options set) is kept, updated by ``set``."""
SHELL_KEY = "=shell"
"""Which shell runs the script: ``bash`` for ``bash -c`` (its arithmetic, its trace), absent for
``sh`` (dash, as the rest of the simulated shell)."""


def is_bash(scope: Mapping[str, str]) -> bool:
    """Is the script run by bash (``bash -c``), whose own constructs then behave as bash's?"""
    return scope.get(SHELL_KEY) == "bash"


def special(name: str, scope: Mapping[str, str], status: int) -> str | None:
    """The value of the special or positional parameter ``name`` (``?``, ``#``, ``@``, ``*``,
    ``$``, ``!``, ``-``, digits); None when unset."""
    if name == "?":
        return str(status)
    if name == "$":
        return "1"  # the shell is the container's PID 1 (:mod:`kbatch.sim.shell_pids`)
    if name in "!-":
        return scope.get("=" + name, "" if name == "-" else None)
    if name == "#":
        return scope.get(_COUNT, "0")
    if name in ("@", "*"):
        return " ".join(positional(scope))
    return scope.get(f"={int(name)}")
