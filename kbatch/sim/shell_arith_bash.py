"""bash's reading of an arithmetic expression and its words for an error (bash 5.2 ``expr.c``), for
:mod:`kbatch.sim.shell_arith` under ``bash -c``.

* :func:`lex`: the tokens as ``readtok`` reads them, with where each starts and ends. A number is a
  digit and the letters, digits, ``_``, ``@`` and ``#`` after it, read by ``strlong``
  (:func:`bash_number`: ``0x1f``, ``010``, ``BASE#DIGITS`` with a base from 2 to 64); ``++`` / ``--``
  is one token only after a variable or before one (``--1`` is ``-(-1)``, ``1 ++2`` is ``1 + +2``).
  The first token bash refuses stops the reading (``Lexed.bad``): a number it cannot read (``value
  too great for base``, ``invalid number``, ``invalid arithmetic base``, ``invalid integer
  constant``), a character that is no operator (``syntax error: operand expected`` after an
  operator or at the start, else ``syntax error: invalid arithmetic operator``), a name whose ``[``
  is not closed (``bad array subscript``).
* :func:`message`: ``evalerror``'s ``EXPR: WHAT (error token is "REST")``: the expression with its
  leading blanks dropped and REST the expression from the last token read (``lasttp``); for a
  number bash could not read both end with that number (``readtok`` cut the text there).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

__all__ = ["Lexed", "bash_number", "lex", "message", "worded"]

_TOKEN = re.compile(r"(\d[0-9A-Za-z_@#]*)|([A-Za-z_][A-Za-z0-9_]*)|"
                    r"(<<=|>>=|\*\*|\+\+|--|&&|\|\||<<|>>|<=|>=|==|!=|[-+*/%&^|]=|[-+*/%<>=!~&^|?:(),])")
_BLANKS = " \t\n\r"  # ``cr_whitespace``
_LEADING = " \t"  # ``evalerror`` skips these (``whitespace``)
_NAME_START = re.compile(r"[ \t\n\r]*[A-Za-z_]")


class Lexed(NamedTuple):
    """``tokens``: ``(kind, text)``, kind ``n`` (number), ``v`` (variable, ``a[i]`` too), ``o``
    (operator) or ``x`` (refused); ``spans``: where each starts and ends in the text; ``bad``: the
    refused token's index and bash's words for it."""

    tokens: tuple[tuple[str, str], ...]
    spans: tuple[tuple[int, int], ...]
    bad: tuple[int, str] | None


@lru_cache(maxsize=4096)
def lex(text: str) -> Lexed:
    """``text``'s tokens (see above), remembered: a loop evaluates the same expressions again and again."""
    tokens: list[tuple[str, str]] = []
    spans: list[tuple[int, int]] = []
    pos = 0
    while True:
        while pos < len(text) and text[pos] in _BLANKS:
            pos += 1
        if pos >= len(text):
            return Lexed(tuple(tokens), tuple(spans), None)
        found = _TOKEN.match(text, pos)
        refused = _refusal(text, pos, found, tokens)
        if refused is not None:
            tokens.append(("x", text[pos:refused[1]]))
            spans.append((pos, refused[1]))
            return Lexed(tuple(tokens), tuple(spans), (len(tokens) - 1, refused[0]))
        assert found is not None
        number, name, op = found.groups()
        end = found.end()
        if name and text[end:end + 1] == "[":
            end = text.index("]", end) + 1  # closed: :func:`_refusal`
            name = text[found.start(2):end]
        if op in ("++", "--") and _incremented(tokens):  # ``++x++``
            tokens.append(("x", op))
            spans.append((pos, end))
            return Lexed(tuple(tokens), tuple(spans), (len(tokens) - 1, f"{op}: assignment requires lvalue"))
        if op in ("++", "--") and not (tokens and tokens[-1][0] == "v") and not _NAME_START.match(text, end):
            op, end = op[0], end - 1  # bash ungets the second character (``readtok``)
        tokens.append(("n", number) if number else ("v", name) if name else ("o", op))
        spans.append((pos, end))
        pos = end


def _refusal(text: str, pos: int, found: re.Match[str] | None,
             tokens: list[tuple[str, str]]) -> tuple[str, int] | None:
    """bash's words for the token at ``pos`` when it refuses it, and where that token ends."""
    if found is None:
        after_operand = bool(tokens) and (tokens[-1][0] in "nv" or _postfix(tokens))
        what = "invalid arithmetic operator" if after_operand else "operand expected"
        return f"syntax error: {what}", pos + 1
    if found.group(1) is not None:
        try:
            bash_number(found.group(1))
        except ValueError as error:
            return str(error), found.end()
    end = found.end()
    if found.group(2) is not None and text[end:end + 1] == "[" and "]" not in text[end:]:
        return "bad array subscript", len(text)
    return None


def _incremented(tokens: list[tuple[str, str]]) -> bool:
    """Do ``tokens`` end with a variable after a ``++`` / ``--`` of its own (``++x``), after which
    bash refuses another (its ``readtok`` counts ``++x`` a number)?"""
    return len(tokens) > 1 and tokens[-1][0] == "v" and tokens[-2][1] in ("++", "--") and \
        not (len(tokens) > 2 and tokens[-3][0] == "v")


def _postfix(tokens: list[tuple[str, str]]) -> bool:
    """Does ``tokens`` end with a variable's ``++`` / ``--`` (after which bash counts a number)?"""
    return tokens[-1][1] in ("++", "--") and len(tokens) > 1 and tokens[-2][0] == "v"


def bash_number(text: str) -> int:
    """``strlong``: ``text`` (a number token) as bash reads it, wrapped to 64 bits; raises
    :class:`ValueError` with bash's words."""
    if text.isdigit() and (text[0] != "0" or len(text) == 1):
        return int(text) if len(text) < 19 else ((int(text) + (1 << 63)) % (1 << 64)) - (1 << 63)
    base, value, pos, based = 10, 0, 0, False
    if text[0] == "0":
        if len(text) == 1:
            return 0
        base, pos, based = (16, 2, True) if text[1] in "xX" else (8, 1, True)
    while pos < len(text):
        ch = text[pos]
        pos += 1
        if ch == "#":
            if based:
                raise ValueError("invalid number")
            if not 2 <= value <= 64:
                raise ValueError("invalid arithmetic base")
            base, value, based = value, 0, True
            if pos >= len(text) or text[pos] == "#":
                raise ValueError("invalid integer constant")
            continue
        digit = _digit(ch, base)
        if digit >= base:
            raise ValueError("value too great for base")
        value = ((value * base + digit + (1 << 63)) % (1 << 64)) - (1 << 63)
    return value


def _digit(ch: str, base: int) -> int:
    if ch.isdigit():
        return int(ch)
    if "a" <= ch <= "z":
        return ord(ch) - ord("a") + 10
    if "A" <= ch <= "Z":
        return ord(ch) - ord("A") + (10 if base <= 36 else 36)
    return 62 if ch == "@" else 63


def message(text: str, lexed: Lexed, index: int, what: str) -> str:
    """``evalerror``'s line for an error bash found with token ``index`` the last it read."""
    start, end = lexed.spans[index] if lexed.spans else (len(text), len(text))
    if lexed.bad is not None and lexed.bad[0] == index and lexed.tokens[index][0] == "x" and \
            text[start].isdigit():
        text = text[:end]  # ``readtok`` had cut the text after the number it could not read
    return worded(text, start, what)


def worded(text: str, start: int, what: str) -> str:
    """``EXPR: WHAT (error token is "REST")``: ``text`` without its leading blanks, REST from ``start``."""
    return f'{text.lstrip(_LEADING)}: {what} (error token is "{text[start:]}")'
