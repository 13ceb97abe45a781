"""Backquoted command substitution, ```` `LIST` ````, read as the ``$( LIST )`` it means (POSIX "Shell
Command Language" 2.6.3; bash(1) "Command Substitution").

Within the backquotes a backslash keeps its literal meaning except before ``$``, ````` or ``\\``
(and, when the backquotes stand inside double quotes, ``"``), where it is removed; what is left is
the command. So a nested substitution is written ```` `echo \\`echo b\\`` ````: the inner
backquotes, their backslashes removed, are read again as one. Single-quoted and backslash-escaped
backquotes are characters. :func:`dollar_form` rewrites a text's backquoted substitutions into
``$( )`` ones (the command's own backquotes in turn), which :mod:`kbatch.sim.shell_expand` runs.
"""

from __future__ import annotations

__all__ = ["dollar_form"]


def dollar_form(text: str, quotes: bool = True) -> str:
    """``text`` with each ```` `LIST` ```` written ``$( LIST )``; ``quotes=False``: quote characters
    are data (a here-document's body). A backquote without its closing one is left as written."""
    out: list[str] = []
    pos, single, double = 0, False, False
    while pos < len(text):
        ch = text[pos]
        if ch == "'" and quotes and not double:
            single = not single
        elif ch == '"' and quotes and not single:
            double = not double
        elif ch == "\\" and not single:
            out.append(text[pos:pos + 2])
            pos += 2
            continue
        elif ch == "`" and not single:
            found = _command(text, pos + 1, double)
            if found is not None:
                command, pos = found
                inner = dollar_form(command)
                if (len(inner) - len(inner.rstrip("\\"))) % 2:  # a backslash ending the command is one
                    inner += "\\"
                out.append("$( " + inner + ")" if inner.startswith("(") else "$(" + inner + ")")
                continue
        out.append(ch)
        pos += 1
    return "".join(out)


def _command(text: str, start: int, double: bool) -> tuple[str, int] | None:
    """The command between the backquote before ``start`` and its closing one, its backslashes
    read (2.6.3), and the index past the closing one; None when there is none."""
    special = '$`\\"' if double else "$`\\"
    command: list[str] = []
    pos = start
    while pos < len(text):
        ch = text[pos]
        if ch == "`":
            return "".join(command), pos + 1
        if ch == "\\" and pos + 1 < len(text):
            following = text[pos + 1]
            command.append(following if following in special else ch + following)
            pos += 2
            continue
        command.append(ch)
        pos += 1
    return None
