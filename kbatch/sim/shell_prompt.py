"""bash's prompt decoding, for ``${P@P}`` (bash(1) "PROMPTING"; ``parse.y``
``decode_prompt_string``), with the values a simulated container has.

The backslash escapes are replaced first: ``\\a`` (bell), ``\\e`` (escape), ``\\n``, ``\\r``,
``\\\\`` (one backslash), ``\\nnn`` (the byte of three octal digits, modulo 256; of one or two at
the end of the value; a NUL adds nothing; as bash 5.2 does),
``\\[`` / ``\\]`` (nothing without a terminal), ``\\$`` (``#``: the container runs as root),
``\\u`` (``root``), ``\\h`` / ``\\H`` (the host name up to its first dot / whole: the container's
``HOSTNAME``, which the runtime sets to the pod's), ``\\w`` / ``\\W`` (``PWD``, or its last part,
``HOME`` at its start written ``~``), ``\\s`` (the shell's name, ``$0``'s last part), ``\\v`` /
``\\V`` (``5.2`` / ``5.2.15``, the bash kbatch compares with), ``\\j`` (``0``: no job table) and
``\\l`` (``tty``: no terminal). Another escape is kept as written, as bash keeps an unknown one;
the time and date (``\\t``, ``\\T``, ``\\@``, ``\\A``, ``\\d``, ``\\D{…}``) and the history and
command numbers (``\\!``, ``\\#``) are not modelled and kept as written too.

An escape's value is data: backslashed for the second step (``sh_backslash_quote_for_double_quotes``),
in which the text is expanded as inside double quotes whose own quotes are plain characters
(``expand_prompt_string`` with ``Q_DOUBLE_QUOTES``): parameters, command substitutions and
arithmetic, a backslash quoting only ``$ ` " \\``. The text given to that step is what
:func:`decode` returns, as a double-quoted shell word.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from kbatch.sim.shell_positional import special
from kbatch.sim.shell_scan import region_end

__all__ = ["decode"]

_CHARACTERS = {"a": "\a", "e": "\033", "n": "\n", "r": "\r", "[": "", "]": ""}
_OCTAL_DIGITS = "01234567"
_ESCAPE = re.compile(r"\\([0-7]{1,3}|.)", re.DOTALL)  # a last lone backslash is none


def _directory(scope: Mapping[str, str], last: bool) -> str:
    """``\\w`` / ``\\W``: ``PWD`` with ``HOME`` (longer than ``/``) at its start as ``~``
    (``polite_directory_format``); ``\\W`` its last part (``/`` for ``/``), or as ``\\w`` when it is
    ``HOME``."""
    pwd, home = scope.get("PWD", "/"), scope.get("HOME")
    if last and pwd != home:
        return pwd if pwd == "/" or "/" not in pwd else pwd.rsplit("/", 1)[1]
    if home is not None and len(home) > 1 and pwd.startswith(home) and pwd[len(home):][:1] in ("", "/"):
        return "~" + pwd[len(home):]
    return pwd


def _value(letter: str, scope: Mapping[str, str]) -> str | None:
    """The value of ``\\letter`` (data), or None when it is no modelled escape."""
    host = scope.get("HOSTNAME", "localhost")
    values = {"$": "#", "u": "root", "h": host.split(".", 1)[0], "H": host, "j": "0", "l": "tty",
              "s": (special("0", scope, 0) or "bash").rsplit("/", 1)[-1], "v": "5.2", "V": "5.2.15"}
    if letter in "wW":
        return _directory(scope, letter == "W")
    return values.get(letter)


def _data(value: str) -> str:
    return "".join("\\" + ch if ch in '$`"\\' else ch for ch in value)


def decode(text: str, scope: Mapping[str, str]) -> str:
    """``text`` with its escapes replaced, as a double-quoted word to expand (see above)."""

    def escape(found: re.Match[str]) -> str:
        body = found.group(1)
        if body[0] in _OCTAL_DIGITS:
            if len(body) == 3 or found.end() == len(text):  # a byte, raw as bash adds it
                return chr(int(body, 8) & 0xFF).replace("\0", "")
            return "\\" + body
        if body == "\\":
            return "\\"  # raw too: it quotes what follows in the second step
        if body in _CHARACTERS:
            return _CHARACTERS[body]
        value = _value(body, scope)
        return "\\" + body if value is None else _data(value)

    return '"' + _plain_quotes(_ESCAPE.sub(escape, text)) + '"'


def _plain_quotes(text: str) -> str:
    """``text`` with each ``"`` outside a substitution backslashed: a plain character in a prompt;
    a ``$( )``, ``${ }`` or ````…```` is copied as it is, its quotes its own."""
    out: list[str] = []
    pos = 0
    while pos < len(text):
        ch = text[pos]
        end = pos + 1
        if ch == "\\":
            end = pos + 2
            if text[pos + 1:end] == "\n":  # a line continuation inside double quotes: removed
                pos = end
                continue
            if end > len(text):  # a last backslash quotes nothing: a plain one, not the closing quote
                out.append("\\\\")
                break
        elif ch == "$" and text[pos + 1:pos + 2] in ("(", "{"):
            found = region_end(text, pos + 2, ")" if text[pos + 1] == "(" else "}")
            end = found if found > 0 else len(text)
        elif ch == "`":
            found = text.find("`", pos + 1)
            end = found + 1 if found > 0 else len(text)
        out.append('\\"' if ch == '"' else text[pos:end])
        pos = end
    return "".join(out)
