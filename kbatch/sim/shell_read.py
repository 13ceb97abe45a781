"""The ``read`` builtin of a simulated script: POSIX ``read`` and bash's options.

POSIX (XCU ``read``): one line of standard input, a backslash quoting the next character and a
backslash-newline joining the next line unless ``-r``, split into fields by ``IFS`` (2.6.5, white
space at the ends and around a delimiter dropped), the last name taking the rest of the line;
status 1 at the end of the input, the names set from what was read.

bash(1) "read" adds (busybox ash has ``-d``, ``-n``, ``-t`` too; dash has none of them, and kbatch
does not tell the shells apart):

* ``-d DELIM``: read up to the first character of DELIM instead of a newline (``-d ''``: a NUL);
* ``-n N``: at most N characters (an escaping backslash not counted), stopping at the delimiter;
  ``-N N``: exactly N characters, the delimiter read as data and the whole assigned unsplit;
* ``-a NAME``: every field into the array NAME (``NAME[0]``, ``NAME[1]``…, :mod:`kbatch.sim.
  shell_expand` reads ``${NAME[i]}``, ``${NAME[@]}``, ``${#NAME[@]}``), its old elements dropped;
* ``-t SECONDS``: a simulated input never blocks: a file, a here-document, a pipe (read once the
  command before it has ended) or the container's empty standard input (``/dev/null``, at its end
  at once) is read as without ``-t``, so the timeout status (greater than 128) never arises;
  ``-t 0`` reads nothing and answers 0 (input is available, or at its end, as bash says for a file);
* ``-p PROMPT``, ``-s``, ``-e``: for a terminal; a container's shell has none, so they do nothing.

A bad option is bash's ``read: -x: invalid option`` and its usage line, status 2; a bad count
``read: x: invalid number`` and a bad timeout ``read: x: invalid timeout specification``, status 1.
"""

from __future__ import annotations

import re
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass

from kbatch.sim.shell_expand import ARRAY_KEY, array_keys, split_fields
from kbatch.sim.shell_input import Input
from kbatch.sim.shell_vars import deref

__all__ = ["ReadError", "read_input"]

_IFS_WHITE = " \t\n"
_USAGE = ("read: usage: read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] "
          "[-t timeout] [-u fd] [name ...]")
_TIMEOUT = re.compile(r"^\d*\.?\d+$|^\d+\.$")


class ReadError(Exception):
    """A bad operand: the message lines and the status."""

    def __init__(self, lines: tuple[str, ...], status: int) -> None:
        super().__init__(lines[0])
        self.lines, self.status = lines, status


@dataclass(slots=True)
class _Options:
    raw: bool = False
    delim: str = "\n"
    count: int | None = None  # ``-n``
    exact: bool = False  # ``-N``
    array: str | None = None
    poll: bool = False  # ``-t 0``
    fd: str = "0"  # ``-u FD``
    names: tuple[str, ...] = ()


_TAKES_VALUE = frozenset("adinNptu")


def _options(args: list[str]) -> _Options:
    """The options and names, clustered as bash takes them (``-rd:``, ``-n1``)."""
    found, index = _Options(), 0
    while index < len(args) and args[index].startswith("-") and len(args[index]) > 1:
        arg = args[index]
        index += 1
        if arg == "--":
            break
        pos = 1
        while pos < len(arg):
            letter = arg[pos]
            pos += 1
            if letter in "rse":
                found.raw = found.raw or letter == "r"
                continue
            if letter not in _TAKES_VALUE:
                raise ReadError((f"read: -{letter}: invalid option", _USAGE), 2)
            if pos < len(arg):
                value, pos = arg[pos:], len(arg)
            elif index < len(args):
                value, index = args[index], index + 1
            else:
                raise ReadError((f"read: -{letter}: option requires an argument", _USAGE), 2)
            _apply(found, letter, value)
    found.names = tuple(args[index:])
    return found


def _apply(found: _Options, letter: str, value: str) -> None:
    if letter == "d":
        found.delim = value[:1] or "\0"
    elif letter in "nN":
        if not value.isdigit():
            raise ReadError((f"read: {value}: invalid number",), 1)
        found.count, found.exact = int(value), letter == "N"
    elif letter == "a":
        found.array = value
    elif letter == "t":
        if not _TIMEOUT.match(value):
            raise ReadError((f"read: {value}: invalid timeout specification",), 1)
        found.poll = float(value) == 0
    elif letter == "u":
        if not value.isdigit():
            raise ReadError((f"read: {value}: invalid file descriptor specification",), 1)
        found.fd = value


def read_input(args: list[str], scope: MutableMapping[str, str], stdin: Input,
               descriptor: Callable[[int], Input | None] = lambda fd: None) -> int:
    """Run ``read ARGS`` on ``stdin`` (``-u FD``: on what ``descriptor`` gives for FD), setting the
    names in ``scope``; its status. Raises :class:`ReadError` for bad operands (nothing read)."""
    options = _options(args)
    if options.fd != "0":
        found = descriptor(int(options.fd))
        if found is None:
            raise ReadError((f"read: {options.fd}: invalid file descriptor: Bad file descriptor",), 1)
        stdin = found
    if options.poll:
        return 0
    if options.delim == "\n" and options.count is None:
        text, complete = _line(stdin, options.raw)
    else:
        text, complete = _until(stdin, options)
    ifs = scope.get("IFS", _IFS_WHITE)
    if options.array is not None:
        for key in array_keys(scope, options.array):
            del scope[key]
        values = split_fields(text, ifs)
        for position, value in enumerate(values):
            scope[ARRAY_KEY.format(options.array, position)] = _plain(value)
        if values:
            scope[options.array] = _plain(values[0])
        else:
            scope.pop(options.array, None)
        return 0 if complete else 1
    names = options.names or ("REPLY",)
    if options.exact or not options.names:  # ``-N``, and ``REPLY`` without names: the text as read
        fields = [text, *[""] * (len(names) - 1)]
    else:
        fields = _fields(text, ifs, len(names))
    for name, value in zip(names, fields, strict=True):
        scope[deref(scope, name)] = _plain(value)  # a name reference's variable (bash(1) "PARAMETERS")
    return 0 if complete else 1


def _line(stdin: Input, raw: bool) -> tuple[str, bool]:
    """A logical line, and whether it ended with a newline (the common case, a line at a time)."""
    pieces: list[str] = []
    while (got := stdin.read_line()) is not None:
        text, newline = got
        if not raw and text.endswith("\\") and not text.endswith("\\\\") and newline:
            pieces.append(text[:-1])
            continue
        pieces.append(text)
        return _unescape("".join(pieces)) if not raw else "".join(pieces), newline
    return ("".join(pieces) if raw else _unescape("".join(pieces))), False


def _until(stdin: Input, options: _Options) -> tuple[str, bool]:
    """Characters up to the delimiter (consumed, not kept) or the count; whether input remained."""
    out: list[str] = []
    while options.count is None or len(out) < options.count:
        ch = stdin.read_char()
        if ch is None:
            return "".join(out), False
        if ch == "\\" and not options.raw:
            ch = stdin.read_char()
            if ch is None:
                return "".join(out), False
            if ch != "\n":
                out.append(_escaped(ch))
            continue
        if ch == options.delim and not options.exact:
            break
        out.append(ch)
    return "".join(out), True


def _unescape(text: str) -> str:
    out, pos = [], 0
    while pos < len(text):
        if text[pos] == "\\" and pos + 1 < len(text):
            pos += 1
            out.append(_escaped(text[pos]))
        else:
            out.append(text[pos])
        pos += 1
    return "".join(out)


_SHIFT = 0xF0000  # plane 15, private use: an escaped character is kept here while fields are split


def _escaped(ch: str) -> str:
    """A backslash-quoted character, which no ``IFS`` character splits on (``read a <<< '\\ x'``
    keeps the space)."""
    return chr(_SHIFT + ord(ch)) if ord(ch) <= 0xFFFF else ch


def _plain(text: str) -> str:
    if all(ord(ch) < _SHIFT for ch in text):
        return text
    return "".join(chr(ord(ch) - _SHIFT) if _SHIFT <= ord(ch) <= _SHIFT + 0xFFFF else ch for ch in text)


def _fields(line: str, ifs: str, count: int) -> list[str]:
    """``line`` split into ``count`` fields by ``ifs`` (2.6.5; IFS white space at the ends and
    around a delimiter is dropped), the last field the rest of the line."""
    white = "".join(c for c in ifs if c in _IFS_WHITE)
    line = line.strip(white) if white else line
    fields: list[str] = []
    pos = 0
    while len(fields) < count - 1 and pos < len(line):
        end = pos
        while end < len(line) and line[end] not in ifs:
            end += 1
        fields.append(line[pos:end])
        pos = end
        while pos < len(line) and line[pos] in white:
            pos += 1
        if pos < len(line) and line[pos] in ifs and line[pos] not in white:
            pos += 1
            while pos < len(line) and line[pos] in white:
                pos += 1
    fields.append(_rest(line[pos:], ifs, white))
    return fields + [""] * (count - len(fields))


def _rest(rest: str, ifs: str, white: str) -> str:
    """The last name's value: the rest of the line without its trailing ``IFS`` white space. When
    that rest holds one field, it is the field, an escaped blank in it kept (``read a <<< '\\ '``:
    a blank); when several, their span, escaped or not (``read a <<< 'x \\ '``: ``x``), as bash and
    dash both do."""
    if all(ord(ch) < _SHIFT for ch in rest):
        return rest.rstrip(white) if white else rest
    parts = split_fields(rest, ifs)
    if len(parts) <= 1:
        return parts[0] if parts else ""
    return _plain(rest).rstrip(white) if white else rest
