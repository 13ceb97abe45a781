"""Parameter expansion operators of a simulated script: ``${NAME<op>word}``.

POSIX "Shell Command Language" 2.6.2 (XCU), as dash and bash do them:

* ``${P:-w}`` / ``${P-w}``: ``w`` when ``P`` is unset or empty / unset; ``${P:=w}`` / ``${P=w}``
  also assign it; ``${P:+w}`` / ``${P+w}``: ``w`` when ``P`` is set and not empty / set, else
  nothing; ``${P:?w}`` / ``${P?w}``: an error when unset or empty / unset, which ends a
  non-interactive shell (:class:`ParamError`; dash's wording and status 2, as the simulated ``sh``
  follows dash: ``sh: P: w``, or ``parameter not set`` / ``parameter not set or null`` without ``w``).
* ``${#P}``: the value's length; ``${P#pat}`` / ``${P##pat}``: the shortest / longest prefix
  matching ``pat`` removed; ``${P%pat}`` / ``${P%%pat}``: the same for a suffix. ``pat`` is a
  pattern (2.13) matched as ``case`` matches (:func:`fnmatch.fnmatchcase`); its quoted parts are
  literal (:func:`kbatch.sim.shell_expand.dequote` with ``as_pattern``), and ``*`` matches ``/``.
* bash's ``${P@Q}`` and the other transformations :mod:`kbatch.sim.shell_transform` models.
* bash's ``${!P}`` (the parameter ``P``'s value names; of a name reference, the name it refers
  to), ``${P^^}`` / ``${P,,}`` / ``${P^}`` / ``${P,}``
  (case modification, optionally of the characters matching a pattern: ``${P^^[ab]}``).
* bash's ``${P:off}`` / ``${P:off:len}`` (arithmetic; a negative offset counts from the end and
  needs a space or parentheses, ``${P: -2}``; a negative length is an end offset from the end) and
  ``${P/pat/rep}`` (first longest match), ``${P//pat/rep}`` (every one), ``${P/#pat/rep}`` /
  ``${P/%pat/rep}`` (anchored); bash 5.2's ``patsub_replacement``: an unquoted ``&`` in ``rep`` is the
  matched text (bash(1) "Parameter Expansion").

Each ``word`` is itself expanded (parameters, arithmetic, substitutions) when used; tilde expansion
is not modelled. ``P`` may be a positional or special parameter (``${1:-x}``, ``${#}``, ``${10}``;
:mod:`kbatch.sim.shell_positional`).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, MutableMapping
from typing import Literal

from kbatch.sim.shell_arith import ArithError, evaluate
from kbatch.sim.shell_positional import is_bash, special
from kbatch.sim.shell_scan import cuts, region_end
from kbatch.sim.shell_transform import OPERATORS, transform
from kbatch.sim.shell_vars import CircularReference, ReadonlyError, assign, attributes, lookup

__all__ = ["Mode", "ParamError", "braced_end", "expand_braced"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[?#@*$!-]")
_OPERATORS = (":-", ":=", ":?", ":+", "-", "=", "?", "+", "##", "#", "%%", "%", "//", "/#", "/%", "/", ":",
              "^^", "^", ",,", ",")
Mode = Literal["value", "pattern", "words"]
Expander = Callable[[str, Mode], str]
"""Expands one word: to its value after quote removal (``value``), to a pattern whose quoted parts
are literal (``pattern``), or, for the word that is the result of ``-`` / ``+``, as the caller will
read it again as words (``words``: quoted parts kept, so they are not split into fields)."""


class ParamError(Exception):
    """``${P?w}`` on an unset ``P`` (or a bad substitution): the message after ``sh: ``; a
    non-interactive shell exits with ``status``, 2 (dash) unless said."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def braced_end(text: str, start: int) -> int:
    """Index just past the ``}`` closing the ``${`` whose ``{`` is at ``start - 1``, or -1: quotes,
    escapes and nested ``${ }`` / ``$( )`` are skipped over (:mod:`kbatch.sim.shell_scan`)."""
    return region_end(text, start, "}")


def expand_braced(inner: str, scope: MutableMapping[str, str], status: int, word: Expander,
                  nounset: bool = False) -> str:
    """The value of ``${inner}``; raises :class:`ParamError` (and ``ArithError`` for offsets).
    ``nounset`` (``set -u``): an unset parameter is an error but in the ``-``, ``=``, ``?``, ``+``
    forms (XCU ``set -u``), dash's ``P: parameter not set``."""
    if inner.startswith("#") and len(inner) > 1 and _NAME.fullmatch(inner[1:]):
        return str(len(_set(inner[1:], _lookup(inner[1:], scope, status), nounset)))
    if inner.startswith("!") and (named := _NAME.match(inner, 1)) is not None:  # bash's indirection
        if "n" in attributes(scope, named.group()) and named.end() == len(inner):
            return _reference(named.group(), scope)
        target = _lookup(named.group(), scope, status) or ""
        if not _NAME.fullmatch(target):
            raise ParamError(f"{target}: invalid variable name" if target else
                             f"{named.group()}: invalid indirect expansion")
        inner = target + inner[named.end():]
    found = _NAME.match(inner)
    if found is None:
        raise ParamError("Bad substitution")
    name, rest = found.group(), inner[found.end():]
    value = _lookup(name, scope, status)
    if not rest:
        return _set(name, value, nounset)
    if len(rest) == 2 and rest[0] == "@" and rest[1] in OPERATORS and is_bash(scope):
        return transform(name, value, rest[1], scope, lambda text: word(text, "value"))
    op = next((o for o in _OPERATORS if rest.startswith(o)), None)
    if op is None:
        raise ParamError("Bad substitution")
    arg = rest[len(op):]
    if op in (":-", ":=", ":?", ":+", "-", "=", "?", "+"):
        return _test(name, value, op, arg, scope, word)
    value = _set(name, value, nounset)
    if op == ":":
        try:
            return _substring(value or "", arg, scope, status, word)
        except ArithError as error:  # bash names the parameter (subst.c ``verify_substring_values``)
            error.bash_text = error.bash_text and f"{name}: {error.bash_text}"
            raise
    if op[0] == "/":
        return _replace(value or "", op, arg, word)
    if op[0] in "^,":
        return _case(value, op, word(arg, "pattern") if arg else "")
    return _trim(value or "", op, word(arg, "pattern"))


def _lookup(name: str, scope: MutableMapping[str, str], status: int) -> str | None:
    return special(name, scope, status) if not name[0].isalpha() and name[0] != "_" else lookup(scope, name)


def _reference(name: str, scope: MutableMapping[str, str]) -> str:
    """bash's ``${!REF}`` of a name reference: the name it refers to (bash(1) "PARAMETERS"); an
    unset reference is an indirect expansion of nothing."""
    value = scope.get(name)
    if not value:
        raise ParamError(f"{name}: invalid indirect expansion")
    return value


def _set(name: str, value: str | None, nounset: bool) -> str:
    """``value``, or an error under ``set -u`` when the parameter is unset (not ``$@``, ``$*``)."""
    if value is None and nounset and name not in ("@", "*"):
        raise ParamError(f"{name}: parameter not set")
    return value or ""


def _test(name: str, value: str | None, op: str, arg: str, scope: MutableMapping[str, str],
          word: Expander) -> str:
    """The ``-``, ``=``, ``?``, ``+`` forms; with ``:`` an empty value counts as unset."""
    missing = value is None or (op[0] == ":" and value == "")
    kind = op[-1]
    if kind == "+":
        return "" if missing else word(arg, "words")
    if not missing:
        return value or ""
    if kind == "-":
        return word(arg, "words")
    if kind == "?":  # bash: its own words for ``:?``, and the script ends with 127 (bash 5.2)
        bash = is_bash(scope)
        null = "parameter null or not set" if bash else "parameter not set or null"
        text = word(arg, "value") if arg else null if op == ":?" else "parameter not set"
        raise ParamError(f"{name}: {text}", 127 if bash else 2)
    result = word(arg, "value")
    if kind == "=":
        if not name[0].isalpha() and name[0] != "_":
            raise ParamError(f"{name}: cannot assign in this way")
        _assign(scope, name, result)
        return lookup(scope, name) or ""
    return result


def _assign(scope: MutableMapping[str, str], name: str, value: str) -> None:
    """``${P:=w}``'s assignment, ``P``'s attributes honoured; a read-only ``P`` ends the script
    (dash: ``P: is read only``, 2; bash: ``P: readonly variable``, 1), as does a circular name
    reference (bash's warning, 1)."""
    try:
        assign(scope, name, value)
    except ReadonlyError:
        if is_bash(scope):
            raise ParamError(f"{name}: readonly variable", 1) from None
        raise ParamError(f"{name}: is read only") from None
    except CircularReference:
        raise ParamError(f"warning: {name}: circular name reference", 1) from None


def _case(value: str, op: str, pattern: str) -> str:
    """bash's ``${P^^}`` / ``${P,,}`` (every character upper / lower case) and ``${P^}`` / ``${P,}``
    (the first), only the characters matching ``pattern`` when there is one (bash(1) "Case
    modification"; the C locale's letters)."""
    convert = str.upper if op[0] == "^" else str.lower
    count = len(value) if len(op) == 2 else min(1, len(value))
    changed = (convert(ch) if not pattern or fnmatch.fnmatchcase(ch, pattern) else ch for ch in value[:count])
    return "".join(changed) + value[count:]


def _trim(value: str, op: str, pattern: str) -> str:
    """``#``/``##`` a prefix, ``%``/``%%`` a suffix matching ``pattern``, shortest / longest."""
    cuts = range(len(value) + 1)
    if op[0] == "#":
        for cut in (reversed(cuts) if op == "##" else cuts):
            if fnmatch.fnmatchcase(value[:cut], pattern):
                return value[cut:]
    else:
        for cut in (cuts if op == "%%" else reversed(cuts)):
            if fnmatch.fnmatchcase(value[cut:], pattern):
                return value[:cut]
    return value


def _substring(value: str, arg: str, scope: MutableMapping[str, str], status: int, word: Expander) -> str:
    """bash's ``${P:off}`` / ``${P:off:len}``: arithmetic offset and length (bash(1))."""
    offset_text, colon, length_text = _split_top(arg, ":")
    offset = evaluate(word(offset_text, "value"), scope) if offset_text.strip() else 0
    start = offset if offset >= 0 else len(value) + offset
    if start < 0 or start > len(value):
        return ""
    if not colon:
        return value[start:]
    length = evaluate(word(length_text, "value"), scope) if length_text.strip() else 0
    end = start + length if length >= 0 else len(value) + length
    if end < start:
        raise ParamError(f"{length}: substring expression < 0")
    return value[start:end]


def _split_top(text: str, sep: str) -> tuple[str, str, str]:
    """``text`` cut at its first ``sep`` outside quotes, escapes and nested ``${ }`` / ``$( )``."""
    found = cuts(text, sep, inside="}")
    return (text, "", "") if not found else (text[:found[0]], sep, text[found[0] + 1:])


def _replace(value: str, op: str, arg: str, word: Expander) -> str:
    """bash's ``${P/pat/rep}`` family: the longest match at the first (``/``), every (``//``),
    the leading (``/#``) or the trailing (``/%``) place it occurs; an empty pattern changes nothing."""
    pattern_text, _, rep_text = _split_top(arg, "/")
    pattern = word(pattern_text, "pattern")
    if not pattern:
        return value
    rep = _ampersands(rep_text, word)
    if op == "/%":
        for cut in range(len(value) + 1):
            if fnmatch.fnmatchcase(value[cut:], pattern):
                return value[:cut] + rep(value[cut:])
        return value
    out: list[str] = []
    pos = 0
    while pos <= len(value):
        end = _longest(value, pos, pattern)
        if end is None:
            if op == "/#" or pos == len(value):
                break
            out.append(value[pos])
            pos += 1
            continue
        out.append(rep(value[pos:end]))
        if op != "//":
            pos = end
            break
        if end == pos:  # an empty match: keep one character and go on
            out.append(value[pos:pos + 1])
            end += 1
        pos = end
    return "".join(out) + value[pos:]


def _longest(value: str, start: int, pattern: str) -> int | None:
    """The end of the longest match of ``pattern`` starting at ``start``, or None."""
    for end in range(len(value), start - 1, -1):
        if fnmatch.fnmatchcase(value[start:end], pattern):
            return end
    return None


def _ampersands(rep_text: str, word: Expander) -> Callable[[str], str]:
    """The replacement for a matched text: bash 5.2's ``patsub_replacement`` puts the match in place
    of each unquoted, unescaped ``&`` of ``rep``; a quoted or escaped one is a plain ``&``."""
    pieces = _split_amp(rep_text)
    if len(pieces) == 1:
        fixed = word(rep_text, "value")
        return lambda _match: fixed
    values = [word(piece, "value") for piece in pieces]
    return lambda match: match.join(values)


def _split_amp(text: str) -> list[str]:
    found = cuts(text, "&", inside="}")
    return [text[a + 1:b] for a, b in zip([-1, *found], [*found, len(text)], strict=True)]
