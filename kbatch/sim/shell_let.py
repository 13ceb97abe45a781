"""bash's arithmetic commands in a simulated script: ``let EXPR…`` and ``(( EXPR ))``.

bash(1) "Arithmetic Evaluation", "Compound Commands" ``((expression))`` and the ``let`` builtin
(busybox ash has ``let`` too; dash neither): the expression is evaluated with bash's operators
(:mod:`kbatch.sim.shell_arith`, ``bash=True``: ``i++``, ``**``, ``,``); the status is 0 when the
(last) value is not 0, else 1. ``(( … ))`` expands its text first as within double quotes
(parameters, ``$(( ))``, substitutions); an error (``(( 1/0 ))``) writes ``bash: ((: EXPR: …`` and
answers 1 without ending the script, as bash does. kbatch runs both under ``sh -c`` too, as it does
bash's other words.
"""

from __future__ import annotations

from collections.abc import MutableMapping

from kbatch.sim.shell_arith import ArithError, evaluate
from kbatch.sim.shell_input import Input
from kbatch.sim.shell_redirect import run_compound_redirected
from kbatch.sim.shell_run import Shell, expand_text
from kbatch.sim.shell_scan import region_end
from kbatch.sim.shell_syntax import Redirected, Simple
from kbatch.sim.shell_trace import trace_line

__all__ = ["arith_command", "run_arith_command", "run_let"]


def arith_command(command: str) -> tuple[str, str] | None:
    """The expression of a ``(( EXPR ))`` command (as written) and the redirections after it
    (``(( x )) 2>/dev/null``), or None for another command."""
    stripped = command.strip()
    if not stripped.startswith("(("):
        return None
    end = region_end(stripped, 1, ")")
    if end < 4 or stripped[end - 2:end] != "))":
        return None
    return stripped[2:end - 2], stripped[end:].strip()


def run_let(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    """``let EXPR…``: each argument an expression; status 1 when the last is 0. A first ``--`` ends
    the options; no expression is an error (bash ``builtins/let.def``)."""
    args = args[1:] if args[:1] == ["--"] else args
    if not args:
        shell.error(f"{'bash' if shell.bash else 'sh'}: let: expression expected")
        shell.status = 1
        return
    _status(shell, args, scope, "let")


def run_arith_command(shell: Shell, command: tuple[str, str], scope: MutableMapping[str, str]) -> bool:
    """``(( EXPR ))``; False when its expansion failed (the shell has exited). Redirections after
    it hold for it as for a compound command."""
    expression, redirects = command
    if redirects:
        run_compound_redirected(shell, Redirected(Simple(((";", f"(({expression}))"),)), redirects), scope)
        return True
    expanded = expand_text(shell, expression, scope, quotes=False)
    if expanded is None:
        return False
    trace_line(shell, f"(( {expanded} ))", scope)
    _status(shell, [expanded], scope, "((")
    return True


def _status(shell: Shell, expressions: list[str], scope: MutableMapping[str, str], name: str) -> None:
    value, shell.arith_error = 0, False
    try:
        for expression in expressions:
            value = evaluate(expression, scope, bash=True)
    except ArithError as error:
        shell.arith_error = True
        if shell.bash and error.subscript:  # ``(( a[1/0] ))``: the script ends (``array_expand_index``)
            shell.error(f"bash: {error.bash_text or error}")
            shell.status, shell.exited = 1, True
            return
        if shell.bash:  # ``let: 1/0: division by 0 (error token is "0")`` (expr.c ``evalerror``)
            shell.error(f"bash: {name}: {error.bash_text or error}")
        else:
            where = f"{name}: {expressions[-1]}" if name == "((" else name
            shell.error(f"sh: {where}: {error}")
        shell.status = 1
        return
    shell.status = 0 if value != 0 else 1
