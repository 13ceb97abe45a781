"""Word expansion in a simulated script: parameters, arithmetic and command substitution.

POSIX "Shell Command Language" 2.6 expands, left to right in one pass and not inside single
quotes: ``$NAME`` and ``${NAME}`` (2.6.2; unset is empty), ``$?`` (the last status, 2.5.2),
``$(( EXPR ))`` (2.6.4, :mod:`kbatch.sim.shell_arith`: ``$VAR`` inside is expanded first, names
without ``$`` are read as variables) and ``$( LIST )`` (2.6.3: the list's standard output, trailing
newlines removed). The caller runs a substitution (``substitute``); one it cannot model answers
``None`` and stays as written, as before this module (the word is then taken literally).
Field splitting and quote removal are left to :func:`kbatch.sim.shell_syntax.words`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, MutableMapping

from kbatch.sim.shell_arith import evaluate

__all__ = ["expand"]

_NAME = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*)|(\?)")
Substitute = Callable[[str], "str | None"]


def _closing(text: str, start: int, depth: int) -> int:
    """Index just past the ``)`` that brings ``depth`` open parentheses to zero, or -1."""
    quote = ""
    for pos in range(start, len(text)):
        ch = text[pos]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"" and depth == 1:
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return pos + 1
    return -1


def expand(text: str, scope: MutableMapping[str, str], status: int,
           substitute: Substitute | None = None, quotes: bool = True) -> str:
    """``text`` with its expansions done; raises :class:`~kbatch.sim.shell_arith.ArithError`.
    ``quotes=False``: quote characters are plain ones (a here-document's body, 2.7.4)."""
    if "$" not in text:
        return text
    out: list[str] = []
    pos, single, double = 0, False, False
    while pos < len(text):
        ch = text[pos]
        if ch == "'" and not double and quotes:
            single = not single
        elif ch == '"' and not single and quotes:
            double = not double
        elif ch == "$" and not single:
            piece, pos = _dollar(text, pos, scope, status, substitute)
            out.append(piece)
            continue
        out.append(ch)
        pos += 1
    return "".join(out)


def _dollar(text: str, pos: int, scope: MutableMapping[str, str], status: int,
            substitute: Substitute | None) -> tuple[str, int]:
    """The expansion of the ``$`` form at ``pos`` and where the text goes on."""
    if text.startswith("$((", pos):
        end = _closing(text, pos + 3, 2)
        if end > 0 and text[end - 2] == ")":
            inner = expand(text[pos + 3:end - 2], scope, status, substitute)
            return str(evaluate(inner, scope)), end
    if text.startswith("$(", pos):
        end = _closing(text, pos + 2, 1)
        if end > 0 and substitute is not None:
            value = substitute(text[pos + 2:end - 1])
            if value is not None:
                return value.rstrip("\n"), end
        return text[pos:end if end > 0 else len(text)], end if end > 0 else len(text)
    found = _NAME.match(text, pos + 1)
    if found is None:
        return "$", pos + 1
    if found.group(3):
        return str(status), found.end()
    return scope.get(found.group(1) or found.group(2), ""), found.end()
