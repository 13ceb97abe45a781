"""``set -x`` in a simulated script: each command traced on standard error, as dash or bash writes it.

XCU ``set -x``: the shell writes each command's expanded words, before its redirections are made,
to standard error after the expanded ``PS4`` (``+ `` by default). The two shells differ:

* **dash** (``sh -c``): the words joined by spaces, unquoted, the assignments of the command's
  prefix among them (``+ x=1 echo a b``); no line for ``for``, ``case`` or ``if`` themselves.

Both shells set ``PS4`` to ``+ `` when they start; kbatch takes an unset one as that (after
``unset PS4`` bash writes no prompt at all: not modelled).
* **bash** (``bash -c``, ``bash -xc``; bash(1) "set -x", ``print_cmd.c`` ``xtrace_print_word_list``,
  ``xtrace_print_assignment``, ``xtrace_print_for_command_head``, ``xtrace_print_case_command_head``,
  ``xtrace_print_cond_term``, ``xtrace_print_arith_cmd``): each word quoted for reuse as shell input
  (:func:`bash_quote`: ``'a b'``, ``''``, ``'it'\\''s'``, ``$'\\001'``); each assignment of the
  prefix on a line of its own before the command's (``+ y=1`` then ``+ echo``); the first
  character of ``PS4`` repeated once more per command substitution the command runs in (``++ seq 3``
  for ``$(seq 3)``). ``for NAME in WORDS`` is traced before each
  iteration with its words as written (``+ for i in $(seq 3)``), ``case WORD in`` once with the word
  as written, ``(( EXPR ))`` as ``+ ((  EXPR  ))`` with the expression expanded, each ``[[`` primary
  as it is tested with its words expanded and a pattern's quoted characters backslashed (``+ [[ 0 ==
  \\0 ]]``); ``export`` and ``readonly`` trace each assignment they make after their own line.
"""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence
from typing import TYPE_CHECKING

from kbatch.sim.shell_expand import dequote, expand
from kbatch.sim.shell_quote import bash_quote
from kbatch.sim.shell_scan import FREE, scan
from kbatch.sim.shell_vocab import ASSIGNMENT, command_target

if TYPE_CHECKING:
    from kbatch.sim.shell_run import Shell

__all__ = ["bash_quote", "trace", "trace_cond", "trace_line", "written_words"]

_PATTERN_OPS = frozenset({"=", "==", "!="})


def _prompt(shell: Shell, scope: MutableMapping[str, str]) -> str:
    ps4 = scope.get("PS4")
    prompt = "+ " if ps4 is None else expand(ps4, scope, shell.status)
    return prompt[:1] * shell.trace_depth + prompt[1:] if shell.bash else prompt


def trace_line(shell: Shell, text: str, scope: MutableMapping[str, str]) -> None:
    """One trace line as it is written (a bash ``for`` / ``case`` head, an arithmetic command)."""
    if shell.xtrace:
        shell.error(_prompt(shell, scope) + text)


def trace(shell: Shell, argv: Sequence[str], scope: MutableMapping[str, str]) -> None:
    """A simple command's words (assignments of its prefix first), as the shell traces them."""
    if not shell.xtrace:
        return
    if not shell.bash:
        shell.error(_prompt(shell, scope) + " ".join(argv))
        return
    prefix = 0
    while prefix < len(argv) and ASSIGNMENT.match(argv[prefix]):
        trace_line(shell, _assignment(argv[prefix]), scope)
        prefix += 1
    rest = argv[prefix:]
    if not rest:
        return
    trace_line(shell, " ".join(bash_quote(word) for word in rest), scope)
    while rest[0] in ("command", "builtin"):  # the builtin they run traces the same
        rest = command_target(rest[0], rest[1:])
        if not rest:
            return
    if rest[0] in ("export", "readonly"):  # bash 5.2 traces the assignments they make
        for word in rest[1:]:
            if ASSIGNMENT.match(word):
                trace_line(shell, _assignment(word), scope)


def _assignment(word: str) -> str:
    """``NAME=VALUE`` as bash traces an assignment: the value quoted, nothing when empty."""
    name, _, value = word.partition("=")
    return f"{name}={bash_quote(value) if value else ''}"


def trace_cond(shell: Shell, raw: Sequence[str], scope: MutableMapping[str, str]) -> None:
    """A bash ``[[ … ]]`` (its words expanded, quotes still in them): the operands dequoted, empty
    ones ``''``, a pattern's (the right of ``=``, ``==``, ``!=``) quoted characters backslashed."""
    if not shell.xtrace:
        return
    if not shell.bash:
        trace(shell, [dequote(word) for word in raw], scope)
        return
    out: list[str] = []
    for pos, word in enumerate(raw):
        pattern = pos > 0 and raw[pos - 1] in _PATTERN_OPS and pos < len(raw) - 1
        text = dequote(word, escape=True) if pattern else dequote(word)
        out.append(text if text else "''")
    trace_line(shell, " ".join(out), scope)


def written_words(text: str) -> list[str]:
    """``text`` cut into its words as written, quotes kept (bash's ``for`` and ``case`` heads)."""
    out: list[str] = []
    start = None
    for pos, ch, depth, kind in scan(text):
        blank = kind == FREE and depth == 0 and ch in " \t\n"
        if blank and start is not None:
            out.append(text[start:pos])
            start = None
        elif not blank and start is None:
            start = pos
    if start is not None:
        out.append(text[start:])
    return out
