"""Calling a simulated script's functions, and the builtins that work on a call: ``return``,
``local``, ``shift``.

POSIX "Shell Command Language" 2.9.5: a function runs in the shell itself (its assignments and
``cd`` stay), with ``$1``… its arguments for the call (``$0`` stays), restored after; its status is
its last command's, or ``return N``'s. ``local`` (dash and bash; not POSIX) makes a variable the
call's own: its outer value comes back when the call returns. As dash, the ``sh`` of Debian images,
does: ``local X`` keeps the value ``X`` had (bash unsets it); ``return`` outside a function ends the
script like ``exit``; ``local`` outside one and ``shift`` past the last parameter are errors of a
special builtin, which end the script with status 2 (``sh: local: not in a function``, ``sh: shift:
can't shift that many``). A call nested more than :data:`MAX_DEPTH` deep is refused with bash's
message for its ``FUNCNEST`` limit (dash and bash have none, and run until their stack overflows):
status 2, and the script ends.
"""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence

from kbatch.sim.shell_input import Input
from kbatch.sim.shell_positional import positional, set_positional
from kbatch.sim.shell_run import Shell, run_nodes
from kbatch.sim.shell_syntax import Node
from kbatch.sim.shell_vars import drop

__all__ = ["FUNCTION_COMMANDS", "MAX_DEPTH", "call_function"]

MAX_DEPTH = 50
"""Function calls one may nest (bash's ``FUNCNEST`` when set: kbatch sets it; a Python frame per
shell construct bounds it too)."""


class _Return(Exception):
    """``return``: leaves the innermost running function."""


def call_function(shell: Shell, name: str, body: Node, args: Sequence[str], scope: MutableMapping[str, str],
                  stdin: Input) -> None:
    """``name ARG…``: the body with ``$1``… the arguments and the command's standard input."""
    if len(shell.frames) >= MAX_DEPTH:
        shell.error(f"sh: {name}: maximum function nesting level exceeded ({MAX_DEPTH})")
        shell.status, shell.exited = 2, True
        return
    outer_args, outer_stdin, outer_loops = positional(scope), shell.stdin, shell.loops
    set_positional(scope, args)
    shell.frames.append({})
    shell.stdin, shell.loops = stdin, 0
    try:
        run_nodes(shell, (body,), scope)
    except _Return:
        pass
    finally:
        for variable, state in shell.frames.pop().items():
            drop(scope, variable)
            scope.update(state)
        set_positional(scope, outer_args)
        shell.stdin, shell.loops = outer_stdin, outer_loops


def _return(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    """``return [N]``: N (mod 256), or the last status; outside a function, dash's ``exit``."""
    if args:
        try:
            shell.status = int(args[0]) & 0xFF
        except ValueError:
            shell.error(f"sh: return: Illegal number: {args[0]}")
            shell.status, shell.exited = 2, True
            return
    if not shell.frames:
        shell.exited = True
        return
    raise _Return


def _shift(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    """``shift [N]``: ``$N+1``… become ``$1``…"""
    values = positional(scope)
    count = int(args[0]) if args and args[0].isdigit() else 1
    if count > len(values):
        shell.error("sh: shift: can't shift that many")
        shell.status, shell.exited = 2, True
        return
    set_positional(scope, values[count:])
    shell.status = 0


FUNCTION_COMMANDS = {"return": _return, "shift": _shift}
