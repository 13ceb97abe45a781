"""bash's brace expansion in a simulated ``bash -c`` script (bash(1) "Brace Expansion"; dash and POSIX
have none: ``sh -c 'echo {a,b}'`` prints ``{a,b}``).

Before any other expansion, each word with an unquoted ``{`` whose matching ``}`` encloses an
unquoted ``,`` at its own level, or a sequence, becomes several words, left to right: the preamble,
each alternative (itself expanded) and the postamble (``a{b,c{d,e}}f`` is ``abf acdf acef``). A
sequence is ``{X..Y[..INCR]}`` of integers (``{5..1}`` counts down; ``{01..10}`` pads every number to
the wider end's width when either end has a leading zero; the increment's sign is ignored) or of
single letters (``{a..e..2}``). Anything else stays as written (``{}``, ``{a}``, ``{1..x}``); a
``${ }`` is no brace; nor is an assignment word's value (``x={a,b}``). :func:`brace_words` reads
the words with :func:`~kbatch.sim.shell_scan.scan`, so quoted braces are literal (``"{a,b}"``).

Which ``}`` closes a ``{`` follows bash's ``brace_gobbler`` (``braces.c``): at the outer level a
``}`` closes only once a ``,`` or a ``..`` not right before a ``}`` has been seen, and is literal text
before that (``a{},}`` is ``a} a``, ``{a}b,c}`` is ``a}b c``); a ``{`` that starts a word and is
followed by ``}`` opens nothing (``{},a}`` stays as written).
"""

from __future__ import annotations

import re
from itertools import pairwise

from kbatch.sim.shell_scan import FREE, scan

__all__ = ["MAX_WORDS", "brace_words", "expand_braces"]

MAX_WORDS = 100_000
"""Words one brace expansion may make (past it the word stays as written)."""
_SEQUENCE = re.compile(r"^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")


def brace_words(text: str) -> str:
    """``text`` (a command's words, unexpanded) with each word brace-expanded (see above)."""
    if "{" not in text:
        return text
    out: list[str] = []
    start, prefix = None, True
    for pos, ch, depth, kind in [*scan(text), (len(text), " ", 0, FREE)]:
        blank = kind == FREE and depth == 0 and ch in " \t\n"
        if not blank and start is None:
            start = pos
        elif blank and start is not None:
            word = text[start:pos]
            prefix = prefix and _ASSIGNMENT.match(word) is not None
            # an empty alternative is an unquoted null word, which word splitting drops ({,} is no word)
            out.append(word if prefix else " ".join(w for w in expand_braces(word) if w))
            out.append(ch)
            start = None
        elif blank:
            out.append(ch)
    return "".join(out[:-1])


def expand_braces(word: str) -> list[str]:
    """The words ``word`` brace-expands to (``[word]`` when it has no brace to expand)."""
    syntax = [(pos, ch) for pos, ch, depth, kind in scan(word) if kind == FREE and depth == 0 and ch in "{},"]
    for index, (open_at, ch) in enumerate(syntax):
        if ch != "{" or (open_at == 0 and word[1:2] == "}"):
            continue
        found = _alternatives(word, syntax[index + 1:], open_at)
        if found is None:
            continue
        close_at, parts = found
        head, tail = word[:open_at], word[close_at + 1:]
        words: list[str] = []
        for part in parts:
            words.extend(expand_braces(head + part + tail))
            if len(words) > MAX_WORDS:
                return [word]
        return words
    return [word]


def _alternatives(word: str, after: list[tuple[int, str]], open_at: int) -> tuple[int, list[str]] | None:
    """The ``}`` matching the ``{`` at ``open_at`` and what it expands to, or None."""
    level, commas = 0, list[int]()
    for pos, ch in after:
        if ch == "{":
            level += 1
        elif ch == "}" and level:
            level -= 1
        elif ch == "}":
            inner = word[open_at + 1:pos]
            if commas:
                cuts = [open_at, *commas, pos]
                return pos, [word[a + 1:b] for a, b in pairwise(cuts)]
            if not _ranged(inner):
                continue  # no separator yet: this } is text
            sequence = _sequence(inner)
            return None if sequence is None else (pos, sequence)
        elif ch == "," and not level:
            commas.append(pos)
    return None


def _ranged(inner: str) -> bool:
    """Whether ``inner`` has a ``..`` outside nested braces with text after it (which, like a comma,
    lets the next outer ``}`` close the expression)."""
    level = 0
    for pos, ch in enumerate(inner):
        if ch == "{":
            level += 1
        elif ch == "}" and level:
            level -= 1
        elif not level and inner.startswith("..", pos) and pos + 2 < len(inner):
            return True
    return False


def _sequence(inner: str) -> list[str] | None:
    found = _SEQUENCE.match(inner)
    if found is None:
        return None
    first, last, step_text = found.groups()
    step = abs(int(step_text)) if step_text else 1
    step = step or 1
    if first.isalpha() != last.isalpha():
        return None
    if first.isalpha():
        start, end = ord(first), ord(last)
        points = range(start, end + 1, step) if end >= start else range(start, end - 1, -step)
        return [chr(point) for point in points]
    start, end = int(first), int(last)
    if abs(end - start) // step > MAX_WORDS:
        return None
    padded = any(len(t.lstrip("-")) > 1 and t.lstrip("-")[0] == "0" for t in (first, last))
    width = max(len(first), len(last)) if padded else 0
    points = range(start, end + 1, step) if end >= start else range(start, end - 1, -step)
    return [_pad(number, width) for number in points]


def _pad(number: int, width: int) -> str:
    if not width:
        return str(number)
    return ("-" + str(-number).zfill(width - 1)) if number < 0 else str(number).zfill(width)
