"""What a simulated shell computes itself: ``test``/``[``/``[[`` conditions and the words a ``for``
loop runs over.

* :func:`condition_status` — POSIX ``test`` (utilities, "test") and bash's ``[[``: string ``=``/``==``/
  ``!=`` (``[[`` matches the right side as a glob pattern), integer ``-eq -ne -lt -le -gt -ge``,
  ``-z``/``-n``, one operand (non-empty), ``!`` negation (an integer operand that is none raises
  :class:`IntegerError`). A file test (``-f``, ``-e``, ``-d`` …)
  asks the caller's ``files`` callback (the container's files, :mod:`kbatch.sim.files`), false
  without one. Anything else is status 2, as ``test`` reports a syntax error.
* :func:`for_items` — the words after ``for NAME in``: ``$VAR`` expanded, brace ranges
  ``{1..3}`` (bash "Brace Expansion"), and ``$(seq …)`` (GNU coreutils ``seq [FIRST [INCREMENT]]
  LAST``, integers), the one command substitution batch scripts loop over, and pathname expansion
  (:mod:`kbatch.sim.shell_glob`). Another substitution
  makes the loop unsupported (``None``), as does a list longer than :data:`MAX_ITEMS`; a quoted
  ``$(`` or backquote is a character (``for p in '`' "\\$("``), which :func:`substitutes` tells.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, MutableMapping

from kbatch.sim.shell_arith import ArithError
from kbatch.sim.shell_backquote import dollar_form
from kbatch.sim.shell_expand import expand
from kbatch.sim.shell_syntax import Word, command_words

__all__ = ["COMMAND_SUBSTITUTION", "MAX_ITEMS", "FileTest", "IntegerError", "binary_status", "cond_primary",
           "condition_status", "for_items", "seq_commands", "substitutes", "unary_status"]

MAX_ITEMS = 100_000
_INT_OPS = {"-eq": int.__eq__, "-ne": int.__ne__, "-lt": int.__lt__, "-le": int.__le__,
            "-gt": int.__gt__, "-ge": int.__ge__}
_FILE_TESTS = frozenset({"-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-L", "-p", "-r", "-s", "-S",
                         "-u", "-w", "-x", "-O", "-G", "-N"})
FileTest = Callable[[str, str], bool]  # (primary such as "-f", path) -> holds
Arith = Callable[[str], int]  # an operand's arithmetic value
COMMAND_SUBSTITUTION = re.compile(r"\$\((?!\()")  # ``$( … )``, not ``$(( … ))``
_SEQ = re.compile(r"\$\(\s*seq\s+([^)]*)\)")
_BRACE = re.compile(r"\{(-?\d+)\.\.(-?\d+)\}")


def condition_status(argv: list[str], files: FileTest | None = None, arith: Arith | None = None) -> int:
    """The exit status of ``test …``, ``[ … ]`` or ``[[ … ]]`` (``argv[0]`` names which). ``arith``:
    bash's ``[[``, whose integer operands are arithmetic expressions (bash(1) "CONDITIONAL
    EXPRESSIONS": ``[[ 1+1 -eq 2 ]]``; its :class:`~kbatch.sim.shell_arith.ArithError` raised)."""
    name, args = argv[0], argv[1:]
    closing = {"[": "]", "[[": "]]"}.get(name)
    if closing is not None:
        if not args or args[-1] != closing:
            return 2
        args = args[:-1]
    return _evaluate(args, glob=name == "[[", files=files, arith=arith if name == "[[" else None)


def _evaluate(args: list[str], glob: bool, files: FileTest | None, arith: Arith | None = None) -> int:
    if len(args) == 3 and (args[1] in _INT_OPS or args[1] in ("=", "==", "!=")):
        return _binary(args[0], args[1], args[2], glob, arith)  # XCU ``test``, 3 arguments: a binary
        # primary in the middle comes before a ``!`` first (``[ ! = ! ]`` compares)
    if args[:1] == ["!"]:
        inner = _evaluate(args[1:], glob, files, arith)
        return inner if inner == 2 else 1 - inner
    if not args:
        return 1
    if len(args) == 1:
        return 0 if args[0] else 1
    if len(args) == 2:
        return unary_status(args[0], args[1], files)
    if len(args) == 3:
        return _binary(args[0], args[1], args[2], glob, arith)
    return 2


def unary_status(op: str, value: str, files: FileTest | None) -> int:
    """``-z``, ``-n`` or a file test of ``value``: 0 or 1; 2 for another operator (not modelled)."""
    if op == "-z":
        return 0 if not value else 1
    if op == "-n":
        return 0 if value else 1
    if op in _FILE_TESTS:
        return 0 if files is not None and files(op, value) else 1
    return 2


def cond_primary(values: list[str], files: FileTest | None, arith: Arith | None) -> int:
    """One primary of bash's ``[[`` (:mod:`kbatch.sim.shell_cond`), its operands expanded: ``OP
    WORD`` or ``LEFT OP RIGHT``, the right of ``==``/``=``/``!=`` a glob pattern, of ``=~`` a Python
    regular expression (status 2 when it does not compile), ``<``/``>`` the strings' order (bash's
    ``execute_cmd.c`` ``execute_cond_node``: ``strcoll``; the C locale's is by code point)."""
    if len(values) == 2:
        return unary_status(values[0], values[1], files)
    left, op, right = values
    if op in ("<", ">"):
        return 0 if (left < right if op == "<" else left > right) else 1
    if op == "=~":
        try:
            return 0 if re.search(right, left) else 1
        except re.error:
            return 2
    return _binary(left, op, right, True, arith)


def _binary(left: str, op: str, right: str, glob: bool, arith: Arith | None = None) -> int:
    if op in ("=", "==", "!="):
        same = fnmatch.fnmatchcase(left, right) if glob else left == right
        return 0 if same == (op != "!=") else 1
    if op in _INT_OPS and arith is not None:
        return 0 if _INT_OPS[op](arith(left), arith(right)) else 1
    if op in _INT_OPS:
        return 0 if _INT_OPS[op](_integer(left), _integer(right)) else 1
    return 2


def binary_status(left: str, op: str, right: str) -> int:
    """``test``'s string ``=``/``==``/``!=`` and integer comparisons: 0 or 1; 2 for another operator
    (not modelled); :class:`IntegerError` for an integer operand that is none."""
    return _binary(left, op, right, glob=False)


class IntegerError(ValueError):
    """An operand of ``test``'s ``-eq``… that is no integer (the caller words it: bash's ``[: a:
    integer expression expected``, dash's ``[: Illegal number: a``; status 2)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


_INTEGER = re.compile(r"[ \t\n\v\f\r]*([+-]?[0-9]+)[ \t\n\v\f\r]*")
_INTMAX = 2 ** 63


def _integer(text: str) -> int:
    """``test``'s integer operand (bash ``general.c`` ``legal_number``: ``strtoimax`` of decimal
    digits with a sign, blanks around, no overflow of ``intmax_t``); :class:`IntegerError` else."""
    found = _INTEGER.fullmatch(text)
    if found is None or not -_INTMAX <= (value := int(found.group(1))) < _INTMAX:
        raise IntegerError(text)
    return value


def for_items(text: str, scope: MutableMapping[str, str],
              pathnames: Callable[[list[Word]], list[str]] | None = None) -> list[str] | None:
    """The words a ``for`` loop runs over (expanded, split into fields by ``IFS``, quotes removed,
    and, with ``pathnames``, pathname expansion: ``for f in /etc/config/*``), or ``None`` when they
    need what is not modelled."""
    text = _SEQ.sub(lambda m: _seq(m.group(1)), text)
    if substitutes(text) or "\0" in text:
        return None
    try:
        text = _BRACE.sub(_brace, expand(text, scope, 0, fields=True))
    except ArithError:
        return None
    found = command_words(text)
    items = pathnames(found) if pathnames is not None and found else [w.text for w in found]
    return items if len(items) <= MAX_ITEMS and "\0" not in text else None


def substitutes(text: str) -> bool:
    """Whether ``text`` holds a command substitution, ``$( … )`` or ```` `…` ````, as syntax: not
    one single-quoted or escaped, whose characters are data (POSIX 2.2.2-3, 2.6.3); not ``$(( … ))``."""
    text = dollar_form(text) if "`" in text else text  # a backquoted one becomes its ``$( )``
    pos, single, double = 0, False, False
    while pos < len(text):
        ch = text[pos]
        if ch == "\\" and not single:
            pos += 2
            continue
        if ch == "'" and not double:
            single = not single
        elif ch == '"' and not single:
            double = not double
        elif not single and COMMAND_SUBSTITUTION.match(text, pos):
            return True
        pos += 1
    return False


def seq_commands(text: str) -> list[list[str]]:
    """The ``seq`` commands of the ``$(seq …)`` substitutions in a ``for`` loop's words."""
    return [["seq", *match.group(1).split()] for match in _SEQ.finditer(text)]


def _seq(operands: str) -> str:
    """``seq``'s output as words; a NUL marks operands it cannot read (the loop is then refused)."""
    try:
        numbers = [int(w) for w in operands.split()]
    except ValueError:
        return "\0"
    if len(numbers) == 1:
        numbers = [1, 1, numbers[0]]
    elif len(numbers) == 2:
        numbers = [numbers[0], 1, numbers[1]]
    first, step, last = numbers if len(numbers) == 3 else (0, 0, 0)
    if step == 0 or len(numbers) != 3 or abs(last - first) // abs(step) > MAX_ITEMS:
        return "\0"
    return " ".join(str(n) for n in range(first, last + (1 if step > 0 else -1), step))


def _brace(match: re.Match[str]) -> str:
    first, last = int(match.group(1)), int(match.group(2))
    if abs(last - first) > MAX_ITEMS:
        return "\0"
    step = 1 if last >= first else -1
    return " ".join(str(n) for n in range(first, last + step, step))
