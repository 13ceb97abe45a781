"""``printf FORMAT [ARGUMENT…]`` as dash's builtin runs it (POSIX ``printf``; dash ``bltin/printf.c``).

The format's characters are copied, its escapes (``\\n \\t \\\\ \\a \\b \\e \\f \\r \\v``, ``\\NNN``
octal, up to three digits) converted, and each conversion ``%[flags][width][.precision]C`` takes the
next argument: ``d i`` (signed), ``o u x X`` (unsigned, 64-bit), ``c`` (its first character), ``s``,
``b`` (the argument with its escapes converted; ``\\c`` ends all output), ``e E f F g G`` and ``%%``;
flags ``- + space # 0``; a ``*`` width or precision takes an argument. The format is reused while
arguments remain (and runs once without any); a missing argument is ``""`` or 0. A numeric argument
may be a C constant (``0x1f``, ``017``) or ``'c`` / ``"c`` (the character's code); one that is not
is ``printf: X: expected numeric value`` (status 1, the value read so far used); an unknown
conversion is ``printf: %Q: invalid directive`` (status 1, output stops).

Under ``bash -c`` the format's ``\\"``, ``\\'`` and ``\\?`` are the characters (bash(1) "printf", as
``$'…'``); dash and a ``%b`` argument keep the backslash. bash's ``\\xHH`` is not modelled.

bash's ``%q`` (``lib/sh/shquote.c``) is there too: the argument quoted for reuse
as shell input (:func:`shell_quote`), then padded or cut like ``%s``.
"""

from __future__ import annotations

import re

__all__ = ["ansi_c_quote", "b_escapes", "hex_escape", "printf", "shell_quote"]

_SPEC = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?(.?)", re.DOTALL)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "r": "\r",
                   "v": "\v", "e": "\x1b"}
_BASH_FORMAT_ESCAPES = "\"'?"
"""What else a backslash escapes in bash's format (``\\"`` is ``"``); dash and ``%b`` keep ``\\"``."""
_NUMBER = re.compile(r"^\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9]\d*)")
_MASK = (1 << 64) - 1
_BACKSLASHED = frozenset(" \t\n'\"\\|&;()<>!{}*[?]^$`,")
_ANSI_C = {"\a": "\\a", "\b": "\\b", "\x1b": "\\E", "\f": "\\f", "\n": "\\n", "\r": "\\r",
           "\t": "\\t", "\v": "\\v", "\\": "\\\\", "'": "\\'"}


def shell_quote(text: str) -> str:
    """``text`` as bash's ``printf %q`` quotes it in the C locale: ``''`` when empty; ``$'…'``
    (ANSI-C quoting: ``\\n``, ``\\t``, ``\\E``…, other bytes as ``\\NNN`` octal) when it holds a
    byte that is not printable ASCII; otherwise each shell metacharacter backslashed, and ``~`` at
    the start or after ``=`` / ``:``, and ``#`` at the start (bash ``sh_backslash_quote``)."""
    if not text:
        return "''"
    if any(not " " <= ch <= "~" for ch in text):
        return ansi_c_quote(text)
    out: list[str] = []
    for pos, ch in enumerate(text):
        before = text[pos - 1] if pos else ""
        if ch in _BACKSLASHED or (ch == "~" and before in ("", "=", ":")) or (ch == "#" and not pos):
            out.append("\\")
        out.append(ch)
    return "".join(out)


def ansi_c_quote(text: str) -> str:
    """bash's ``$'…'`` form of ``text`` (``ansic_quote``, ``lib/sh/strtrans.c``)."""
    return "$'" + "".join(_ansi_c(ch) for ch in text) + "'"


def _ansi_c(ch: str) -> str:
    if ch in _ANSI_C:
        return _ANSI_C[ch]
    if " " <= ch <= "~":
        return ch
    return "".join(f"\\{byte:03o}" for byte in ch.encode())


class _Stop(Exception):
    """``\\c`` in a ``%b`` argument (``text``: its output up to there), or an invalid directive:
    no more output."""

    def __init__(self, text: str = "") -> None:
        super().__init__(text)
        self.text = text


def printf(fmt: str, args: list[str], bash: bool = False) -> tuple[str, list[str], int]:
    """The output, the error messages and the status of ``printf fmt args…`` (``bash``: as bash's
    builtin reads the format's escapes)."""
    out: list[str] = []
    errors: list[str] = []
    queue = list(args)
    try:
        while True:
            used = _once(fmt, queue, out, errors, bash)
            if not queue or not used:
                break
    except _Stop as stop:
        out.append(stop.text)
    return "".join(out), errors, 1 if errors else 0


def _once(fmt: str, queue: list[str], out: list[str], errors: list[str], bash: bool) -> bool:
    """The format applied once (``bash``: as bash's builtin reads it); whether it took any argument."""
    escaped = _BASH_FORMAT_ESCAPES if bash else ""
    used = False
    pos = 0
    while pos < len(fmt):
        ch = fmt[pos]
        if ch == "\\":
            text, pos = _escape(fmt, pos, in_format=True, escaped=escaped, bash=bash)
            out.append(text)
            continue
        if ch != "%":
            out.append(ch)
            pos += 1
            continue
        spec = _SPEC.match(fmt, pos)
        assert spec is not None
        flags, width, precision, conversion = spec.groups()
        pos = spec.end()
        if conversion == "%":
            out.append("%")
            continue
        if width == "*":
            width, used = str(_integer(_take(queue), errors)), True
        if precision == "*":
            precision, used = str(_integer(_take(queue), errors)), True
        if conversion not in "diouxXcsbqeEfFgG" or not conversion:
            errors.append(f"printf: %{fmt[spec.start() + 1:pos]}: invalid directive")
            raise _Stop
        used = used or bool(queue)
        out.append(_convert(flags, width, precision, conversion, _take(queue), errors, bash))
    return used


def _take(queue: list[str]) -> str | None:
    return queue.pop(0) if queue else None


def _convert(flags: str, width: str | None, precision: str | None, conversion: str, arg: str | None,
             errors: list[str], bash: bool = False) -> str:
    spec = "%" + flags + (width or "") + ("." + precision if precision is not None else "")
    if conversion in "sc":
        text = arg or ""
        return (spec + "s") % (text[:1] if conversion == "c" else text)
    if conversion == "q":
        return (spec + "s") % shell_quote(arg or "")
    if conversion == "b":
        text, stop = b_escapes(arg or "", bash)
        result = (spec + "s") % text
        if stop:
            raise _Stop(result)
        return result
    if conversion in "di":
        return (spec + "d") % _integer(arg, errors)
    if conversion in "ouxX":
        return (spec + conversion) % (_integer(arg, errors) & _MASK)
    return (spec + conversion) % _float(arg, errors)


def _integer(arg: str | None, errors: list[str]) -> int:
    if arg is None or arg == "":
        return 0
    if arg[0] in "'\"":
        return ord(arg[1]) if len(arg) > 1 else 0
    found = _NUMBER.match(arg)
    value = 0
    if found is not None:
        sign, digits = found.groups()
        value = int(digits, 16) if digits[:2].lower() == "0x" else int(digits, 8) if digits.startswith("0") \
            else int(digits)
        value = -value if sign == "-" else value
    if found is None or found.end() != len(arg):
        errors.append(f"printf: {arg}: expected numeric value")
    return value


def _float(arg: str | None, errors: list[str]) -> float:
    if arg is None or arg == "":
        return 0.0
    if arg[0] in "'\"":
        return float(ord(arg[1])) if len(arg) > 1 else 0.0
    try:
        return float(arg)
    except ValueError:
        errors.append(f"printf: {arg}: expected numeric value")
        return 0.0


def _escape(text: str, pos: int, in_format: bool, escaped: str = "", bash: bool = False) -> tuple[str, int]:
    """The escape at ``pos`` (a backslash) and where the text goes on. In a format ``\\NNN`` has up
    to three octal digits; in a ``%b`` argument ``\\0NNN``. ``bash``: its hex escapes too."""
    nxt = text[pos + 1:pos + 2]
    if nxt in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[nxt], pos + 2
    if bash and (hexed := _HEX.match(text, pos)) is not None:
        kind, digits = (group for group in hexed.groups() if group is not None)
        return hex_escape(kind, digits), hexed.end()
    if nxt and nxt in escaped:
        return nxt, pos + 2
    start = pos + 1 + (1 if not in_format and nxt == "0" else 0)
    end = start
    while end < len(text) and end < start + 3 and text[end] in "01234567":
        end += 1
    if end > start or (not in_format and nxt == "0"):
        return chr(int(text[start:end] or "0", 8) & 0xFF), end
    return "\\" + nxt, pos + 1 + len(nxt)


_HEX = re.compile(r"\\(?:(x)([0-9A-Fa-f]{1,2})|(u)([0-9A-Fa-f]{1,4})|(U)([0-9A-Fa-f]{1,8}))")


def hex_escape(kind: str, digits: str) -> str:
    """bash's ``\\xHH`` (a byte: one or two hex digits), ``\\uHHHH`` and ``\\UHHHHHHHH`` (a
    character: up to four / eight), as its ``printf`` builtin reads them in the C locale (bash(1)
    "SHELL BUILTIN COMMANDS" ``printf``, ``echo``'s escapes): a character past ASCII cannot be
    written there, so it stays an escape, upper-cased and zero-padded (``\\u00E9``; ``\\U``
    only past ``FFFF``)."""
    value = int(digits, 16)
    if kind == "x" or value < 0x80:
        return chr(value)
    if value >= 0x80000000:  # negative as bash's 32-bit wchar_t: nothing is written
        return ""
    return f"\\u{value:04X}" if value <= 0xFFFF else f"\\U{value:08X}"


def b_escapes(text: str, bash: bool = False) -> tuple[str, bool]:
    """A ``%b`` argument with its escapes converted, and whether ``\\c`` cut it (also dash's ``echo``,
    which converts its operands with the same routine)."""
    out: list[str] = []
    pos = 0
    while pos < len(text):
        if text[pos] != "\\":
            out.append(text[pos])
            pos += 1
            continue
        if text[pos + 1:pos + 2] == "c":
            return "".join(out), True
        piece, pos = _escape(text, pos, in_format=False, bash=bash)
        out.append(piece)
    return "".join(out), False
