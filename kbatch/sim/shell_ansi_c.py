"""bash's ANSI-C quoting, ``$'…'`` (bash(1) "QUOTING"; ``lib/sh/strtrans.c`` ``ansicstr``), and the
``${P@E}`` transformation, which decodes a value's escapes the same way.

:func:`decode` reads the escapes: ``\\a \\b \\e \\E \\f \\n \\r \\t \\v \\\\ \\' \\" \\?``, ``\\nnn``
(one to three octal digits, the byte's low eight bits), ``\\xHH`` (one or two hex digits),
``\\uHHHH`` / ``\\UHHHHHHHH`` (a character; past ASCII the C locale cannot write it, and it stays
an escape as in bash's ``printf``: :func:`kbatch.sim.shell_printf.hex_escape`), ``\\cx`` (the
control character: ``x``'s low five bits, ``\\c?`` DEL, ``\\c\\\\`` one backslash); any other
backslash stays with its character. A NUL ends the word (bash keeps it as a C string).

:func:`ansi_c_words` is the lexical step bash takes when it reads a script: each ``$'…'`` outside
quotes (inside ``"…"`` it is plain text) becomes the single-quoted word of its decoded value, which
the rest of the simulated shell reads as any quoted word. dash 0.5.12 has no ``$'…'``: there it
is a ``$`` followed by a single-quoted string, as written, so only ``bash -c`` scripts pass here.
"""

from __future__ import annotations

import re

from kbatch.sim.shell_printf import hex_escape
from kbatch.sim.shell_scan import FREE, scan

__all__ = ["ansi_c_words", "ansicstr", "decode"]

_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
           "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_NUMERIC = re.compile(r"([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})")


def decode(text: str) -> str:
    """``text`` with its backslash escapes read as ``$'…'`` reads them, cut at the first NUL."""
    return ansicstr(text)[0].split("\0", 1)[0]


def ansicstr(text: str, echo: bool = False) -> tuple[str, bool]:
    """``text`` with its escapes converted, and whether ``\\c`` ended it. ``echo``: as ``echo -e``
    reads them (``ansicstr``'s echo flag, ``builtins/echo.def``): an octal byte only after ``\\0``
    (``\\0NNN``, zero to three digits; ``\\101`` stays as written), ``\\'``, ``\\"`` and ``\\?``
    keep their backslash, and ``\\c`` ends the output; NULs are kept."""
    out: list[str] = []
    pos = 0
    while pos < len(text):
        ch = text[pos]
        if ch != "\\" or pos + 1 == len(text):
            out.append(ch)
            pos += 1
            continue
        if echo and text[pos + 1] == "c":
            return "".join(out), True
        piece, pos = _escape(text, pos + 1, echo)
        out.append(piece)
    return "".join(out), False


_ECHO_OCTAL = re.compile(r"[0-7]{0,3}")


def _escape(text: str, pos: int, echo: bool) -> tuple[str, int]:
    """The escape whose backslash is just before ``pos``, and where the text goes on."""
    nxt = text[pos]
    if nxt in _SIMPLE and not (echo and nxt in "'\"?"):
        return _SIMPLE[nxt], pos + 1
    if echo and nxt in "01234567":
        if nxt != "0":
            return "\\" + nxt, pos + 1
        byte_digits = _ECHO_OCTAL.match(text, pos + 1)
        assert byte_digits is not None  # zero digits match
        return chr(int(byte_digits.group() or "0", 8) & 0xFF), byte_digits.end()
    numeric = _NUMERIC.match(text, pos)
    if numeric is not None:
        octal, byte, short, long_ = numeric.groups()
        if octal is not None:
            return chr(int(octal, 8) & 0xFF), numeric.end()
        kind, digits = ("x", byte) if byte else ("u", short) if short else ("U", long_)
        return hex_escape(kind, digits), numeric.end()
    if nxt == "c" and pos + 1 < len(text):
        target = text[pos + 1]
        after = pos + 2 + (target == "\\" and text[pos + 2:pos + 3] == "\\")  # ``\c\\``: one backslash
        if target == "?":
            return "\x7f", after
        code = target.upper().encode(errors="surrogateescape")
        return chr(code[0] & 0x1F) + code[1:].decode(errors="surrogateescape"), after
    return "\\" + nxt, pos + 1


def _quoted(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def _ansi_c_end(text: str, start: int) -> int:
    """Index just past the ``'`` closing the ``$'…'`` whose body starts at ``start`` (-1: none);
    inside, a backslash takes the next character (``\\'`` does not close it)."""
    pos = start
    while pos < len(text):
        if text[pos] == "\\":
            pos += 2
            continue
        if text[pos] == "'":
            return pos + 1
        pos += 1
    return -1


def ansi_c_words(script: str, removed: list[int] | None = None, added: list[int] | None = None) -> str:
    """``script`` with each unquoted ``$'…'`` replaced by its decoded value, single-quoted; an
    unclosed one is left as written (bash then reports the missing quote). For the script's line
    numbers: ``removed`` (places, line continuations taken out before) is moved along with the
    text, and ``added`` gets where a decoded newline now stands (no line of the script)."""
    if "$'" not in script:
        return script
    removed = [] if removed is None else removed
    added = [] if added is None else added
    while True:  # scanned afresh each time: a replacement is plain quoted text, the rest is not yet
        found = next((pos for pos, ch, _, kind in scan(script, comments=True)
                      if ch == "$" and kind == FREE and script[pos + 1:pos + 2] == "'"), -1)
        if found < 0:
            return script
        end = _ansi_c_end(script, found + 2)
        if end < 0:
            return script
        replacement = _quoted(decode(script[found + 2:end - 1]))
        written = replacement.count("\n") - script.count("\n", found, end)
        script = script[:found] + replacement + script[end:]
        shift = len(replacement) - (end - found)
        removed[:] = [pos + shift if pos > found else pos for pos in removed]
        added[:] = sorted([pos + shift if pos > found else pos for pos in added]
                          + [found + k for k, ch in enumerate(replacement) if ch == "\n"][:max(0, written)])
