"""bash's conditional command ``[[ EXPRESSION ]]`` read as bash reads it: its words as written, its
operators ``( … )``, ``!``, ``&&`` and ``||``, and the primaries between them.

bash(1) "[[ expression ]]": the expression is made of the primaries of "CONDITIONAL EXPRESSIONS"
combined with ``( EXPR )``, ``! EXPR``, ``EXPR1 && EXPR2`` and ``EXPR1 || EXPR2``, ``!`` binding
tighter than ``&&``, ``&&`` tighter than ``||``; ``&&`` and ``||`` do not expand their right side
when the left decides. The grammar is bash 5.2's ``parse.y`` (``parse_cond_command``, ``cond_expr``,
``cond_or``, ``cond_and``, ``cond_term``): an operator is recognised only as written, unquoted (``[[
"&&" ]]`` is a string), a word after a unary operator is its operand, a word followed by a binary one
(``==``, ``<``, ``-eq``, ``=~``…) is its left side, a word alone is ``-n WORD``. ``!`` flips the
inversion of the term after it (``! ! a`` is ``a``; ``execute_cmd.c`` ``execute_cond_node`` traces
an inverted primary as ``! …``). The right side of ``=~`` is read up to a blank outside parentheses
(``[[ x =~ (a|b) ]]``).

* :func:`cond_spans` — where ``[[ … ]]`` commands stand in a script, so that their ``&&``, ``||``,
  ``|`` and newlines are not taken as list or pipeline separators.
* :func:`parse_cond` — a ``[[ … ]]`` command's text as a tree of :class:`Leaf`, :class:`Pair` and
  :class:`Paren`, or ``None`` when it is not one (or is a syntax error bash refuses to run).
* :func:`evaluate_cond` — the status of such a tree, each primary's words expanded only when it
  is evaluated, by the caller's ``primary`` callback.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from kbatch.sim.shell_scan import region_end

__all__ = ["BINARY", "UNARY", "Leaf", "Pair", "Paren", "Tree", "cond_spans", "evaluate_cond", "parse_cond"]

UNARY = frozenset(["-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-p", "-r", "-s", "-t", "-u",
                   "-w", "-x", "-G", "-L", "-N", "-O", "-S", "-o", "-v", "-R", "-z", "-n"])
BINARY = frozenset(["=", "==", "!=", "<", ">", "=~", "-nt", "-ot", "-ef", "-eq", "-ne", "-lt", "-le",
                    "-gt", "-ge"])
_OPERATORS = ("&&", "||", "(", ")", "<", ">", ";", "|", "&")  # bash's metacharacters end a word
_BLANKS = " \t\n"
_BEFORE = re.compile(r"(?:^|[;&|()\n{]|(?:^|[\s;&|()])(?:then|do|else|elif|if|while|until|!|time))"
                     r"[ \t]*$")  # a command's first place


class Leaf(NamedTuple):
    """A primary: ``(OP, WORD)``, ``(LEFT, OP, RIGHT)`` or ``(WORD,)``, its words as written."""

    words: tuple[str, ...]
    invert: bool = False


class Pair(NamedTuple):
    """``LEFT && RIGHT`` or ``LEFT || RIGHT``."""

    op: str
    left: Tree
    right: Tree
    invert: bool = False


class Paren(NamedTuple):
    """``( INNER )``."""

    inner: Tree
    invert: bool = False


Tree = Leaf | Pair | Paren
Primary = Callable[[Leaf], int]  # a primary's status, its inversion not applied (0, 1, or 2 for an error)


def _token_end(text: str, pos: int, regex: bool = False) -> int:
    """Where the word starting at ``pos`` ends: quotes, escapes and ``$( )``, ``${ }``, backquotes
    kept whole; an unquoted blank or operator ends it (``regex``: the right of ``=~``, whose
    parentheses and ``|`` are the pattern's)."""
    depth = 0
    while pos < len(text):
        ch = text[pos]
        if ch == "\\":
            pos += 2
            continue
        if ch == "'":
            close = text.find("'", pos + 1)
            pos = len(text) if close < 0 else close + 1
            continue
        if ch == '"':
            pos = _double_end(text, pos + 1)
            continue
        if (end := _region(text, pos)) is not None:
            pos = end
            continue
        if regex and ch == "(":
            depth += 1
        elif regex and ch == ")" and depth:
            depth -= 1
        elif not depth and (ch in _BLANKS or ch in (")" if regex else "()<>;|&")
                            or text.startswith(("&&", "||"), pos)):
            return pos
        pos += 1
    return pos


def _double_end(text: str, pos: int) -> int:
    """Just past the ``"`` closing a double-quoted string whose inside starts at ``pos``."""
    while pos < len(text):
        ch = text[pos]
        if ch == "\\":
            pos += 2
            continue
        if ch == '"':
            return pos + 1
        if (end := _region(text, pos)) is not None:
            pos = end
            continue
        pos += 1
    return pos


def _region(text: str, pos: int) -> int | None:
    """Just past the ``$( )``, ``${ }`` or backquoted region opening at ``pos`` (its end of text
    when not closed), or None when none opens there (``shell_scan.region_end`` reads it)."""
    ch, kind = text[pos], text[pos + 1:pos + 2]
    if ch == "`":
        end = region_end(text, pos + 1, "`")
    elif ch == "$" and kind in ("(", "{"):
        end = region_end(text, pos + 2, ")" if kind == "(" else "}")
    else:
        return None
    return len(text) if end < 0 else end


def _tokens(text: str, pos: int) -> tuple[list[str], int] | None:
    """The tokens of a ``[[`` command whose inside starts at ``pos``, up to its ``]]`` (excluded),
    and the index just past that ``]]``; None when there is none."""
    out: list[str] = []
    while pos < len(text):
        if text[pos] in _BLANKS:
            pos += 1
            continue
        regex = out[-1:] == ["=~"]  # its right side may start with ``(``
        op = "" if regex else next((o for o in _OPERATORS if text.startswith(o, pos)), "")
        if op:
            out.append(op)
            pos += len(op)
            continue
        end = _token_end(text, pos, regex)
        word = text[pos:end]
        if word == "]]":
            return out, end
        out.append(word)
        pos = end
    return None


def cond_spans(text: str) -> list[tuple[int, int]]:
    """Where the ``[[ … ]]`` commands of ``text`` stand: ``(start, end)`` of each, outside quotes
    (a ``[[`` is one only in a command's first place, followed by a blank)."""
    spans: list[tuple[int, int]] = []
    if "[[" not in text:
        return spans
    pos = 0
    while (pos := text.find("[[", pos)) >= 0:
        first = _BEFORE.search(text, 0, pos) is not None
        if text[pos + 2:pos + 3] in tuple(_BLANKS) and first and not _quoted(text, pos):
            found = _tokens(text, pos + 2)
            if found is not None:
                spans.append((pos, found[1]))
                pos = found[1]
                continue
        pos += 2
    return spans


def _quoted(text: str, at: int) -> bool:
    """Whether ``at`` is inside quotes or escaped (a rough reading, enough for a ``[[``'s place)."""
    pos, quote = 0, ""
    while pos < at:
        ch = text[pos]
        if ch == "\\" and quote != "'":
            pos += 2
            continue
        if ch in "'\"" and (not quote or quote == ch):
            quote = "" if quote else ch
        pos += 1
    return bool(quote) or pos > at


def parse_cond(command: str) -> Tree | None:
    """The expression of the ``[[ … ]]`` command ``command`` (nothing after its ``]]``), or None."""
    text = command.strip()
    if not text.startswith("[[") or text[2:3] not in tuple(_BLANKS):
        return None
    found = _tokens(text, 2)
    if found is None or text[found[1]:].strip():
        return None
    tokens, _ = found
    parser = _Parser(tokens)
    tree = parser.disjunction()
    return tree if tree is not None and parser.pos == len(tokens) else None


class _Parser:
    """A recursive descent over the tokens, as ``parse.y``'s ``cond_or`` / ``cond_and`` /
    ``cond_term``; any error gives None."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.pos = 0

    def _peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def disjunction(self) -> Tree | None:
        left = self.conjunction()
        if left is not None and self._peek() == "||":
            self.pos += 1
            right = self.disjunction()
            return None if right is None else Pair("||", left, right)
        return left

    def conjunction(self) -> Tree | None:
        left = self.term()
        if left is not None and self._peek() == "&&":
            self.pos += 1
            right = self.conjunction()
            return None if right is None else Pair("&&", left, right)
        return left

    def term(self) -> Tree | None:
        token = self._peek()
        if token is None or (token in _OPERATORS and token != "("):
            return None
        self.pos += 1
        if token == "!":
            inner = self.term()
            return None if inner is None else inner._replace(invert=not inner.invert)
        if token == "(":
            inner = self.disjunction()
            if inner is None or self._peek() != ")":
                return None
            self.pos += 1
            return Paren(inner)
        if token in UNARY:
            operand = self._peek()
            if operand is None or operand in _OPERATORS:
                return None
            self.pos += 1
            return Leaf((token, operand))
        after = self._peek()
        if after is None or after in ("&&", "||", ")"):  # a word alone: ``-n WORD``
            return Leaf((token,))
        if after not in BINARY:
            return None
        self.pos += 1
        right = self._peek()
        if right is None or right in _OPERATORS:
            return None
        self.pos += 1
        return Leaf((token, after, right))


def evaluate_cond(tree: Tree, primary: Primary) -> int:
    """The status of ``tree``: each primary's by ``primary`` (its words expanded then, so a side
    not needed is not expanded), ``&&``/``||`` short-circuiting, an inversion making 0 of any
    failure and 1 of a success."""
    if isinstance(tree, Leaf):
        status = primary(tree)  # which traces an inverted one as ``! …``
    elif isinstance(tree, Paren):
        status = evaluate_cond(tree.inner, primary)
    else:
        status = evaluate_cond(tree.left, primary)
        if (tree.op == "&&") == (status == 0):  # ``&&`` goes on after a success, ``||`` after a failure
            status = evaluate_cond(tree.right, primary)
    if tree.invert:  # ``execute_cond_node``: any failure, a bad regular expression's 2 too, becomes 0
        return 1 if status == 0 else 0
    return status
