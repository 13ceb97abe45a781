"""The one reader of a simulated script's quoting and nesting, which every splitter of the shell uses.

POSIX "Shell Command Language" 2.2 (quoting) and 2.3 (token recognition): a backslash quotes the
next character, single quotes everything up to the next ``'``, double quotes everything but ``$``,
`````, ``\\`` and ``"`` itself; ``$( … )``, ``$(( … ))``, ``${ … }`` and `````…````` are read as
one unit (2.3 rule 5), whose own quotes start afresh (``"a $(echo "b|c") d"``); a ``#`` starting a
word begins a comment to the end of the line (rule 9). :func:`scan` walks ``text`` and tells, for
each character, how deep in those regions it is and whether it is syntax (``FREE``), quoted data
(``QUOTED``: inside quotes, escaped, or a quote or backslash itself) or a comment (``COMMENT``).

A bare ``( … )`` nests as well (a subshell, 2.9.4.1; ``f()``; a ``case`` pattern's ``(a|b)``), and a
``)`` or ``}`` with nothing to close is a plain character (a ``case`` arm's ``a)``, a group's
``}``); a bare ``{`` nests only inside ``${ … }``, as bash's ``parse_matched_pair`` counts it
(``${P/{/x}``). An opening or closing character is reported at the depth outside its region.

With ``nest=False`` only quotes and backslashes are read: what is left of an expanded command
(:func:`kbatch.sim.shell_words.command_words`) holds data such as a lone ``(`` that opens nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["COMMENT", "FREE", "QUOTED", "cuts", "region_end", "scan"]

FREE, QUOTED, COMMENT = 0, 1, 2
Scanned = tuple[int, str, int, int]
"""``(index, character, depth, kind)``: ``kind`` one of ``FREE``, ``QUOTED``, ``COMMENT``."""
_WORD_START = frozenset(" \t\n;&|()")


def scan(text: str, start: int = 0, inside: str = "", comments: bool = False,
         nest: bool = True) -> Iterator[Scanned]:
    """The characters of ``text`` from ``start``. ``inside``: the closer (``)`` or ``}``) of a
    region the scan begins in; meeting it ends the scan, the closer reported at depth -1."""
    stack = [inside] if inside else []  # the closers of the regions open, ``"`` for double quotes
    cases = [0] * len(stack)  # in step: the ``case`` commands open in each region
    depth, pos, end = 0, start, len(text)
    while pos < end:
        ch = text[pos]
        top = stack[-1] if stack else ""
        if nest and top == ")" and ch in "ce" and (found := _case_word(text, pos)):
            cases[-1] = cases[-1] + 1 if found == "case" else max(0, cases[-1] - 1)
        if ch == "\\" and top != "'":
            yield pos, ch, depth, QUOTED
            if pos + 1 < end:
                yield pos + 1, text[pos + 1], depth, QUOTED
            pos += 2
            continue
        quoted = top == '"'
        if ch == '"' or (ch == "'" and not quoted):
            close = -1 if ch == '"' else text.find("'", pos + 1)
            if ch == '"':
                if quoted:
                    stack.pop()
                    cases.pop()
                else:
                    stack.append('"')
                    cases.append(0)
                stop = pos + 1
            else:
                stop = end if close < 0 else close + 1
            for at in range(pos, stop):
                yield at, text[at], depth, QUOTED
            pos = stop
            continue
        opener = _opener(text, pos, top, quoted) if nest else ""
        if opener:
            yield pos, ch, depth, FREE if not quoted else QUOTED
            if len(opener) == 2:
                yield pos + 1, text[pos + 1], depth, FREE if not quoted else QUOTED
            stack.append(")" if opener[-1] == "(" else "}" if opener[-1] == "{" else "`")
            cases.append(0)
            depth += 1
            pos += len(opener)
            continue
        if quoted:
            yield pos, ch, depth, QUOTED
        elif nest and ch == top and not (ch == ")" and cases[-1]):  # ``)``, ``}`` or ````` closing
            stack.pop()  # the region it is in (not a ``case`` pattern's ``)``)
            cases.pop()
            depth -= 1
            yield pos, ch, depth, FREE
            if depth < 0:
                return
        elif comments and ch == "#" and (pos == 0 or text[pos - 1] in _WORD_START):
            stop = text.find("\n", pos)
            stop = end if stop < 0 else stop
            for at in range(pos, stop):
                yield at, text[at], depth, COMMENT
            pos = stop
            continue
        else:
            yield pos, ch, depth, FREE
        pos += 1


def _opener(text: str, pos: int, top: str, quoted: bool) -> str:
    """The region opener at ``pos`` (``$(``, ``${``, `````, ``(``, ``{`` inside ``${``), or ""."""
    ch = text[pos]
    if ch == "$" and text[pos + 1:pos + 2] in ("(", "{"):
        return text[pos:pos + 2]
    if ch == "`" and top != "`":
        return ch
    if quoted:
        return ""
    if ch == "(" or (ch == "{" and top == "}"):
        return ch
    return ""


_RESERVED_BEFORE = re.compile(r"(?:^|[\s;&|()])(?:then|do|else|elif|if|while|until|\{|!)[ \t]+$")


def _case_word(text: str, pos: int) -> str:
    """``case`` or ``esac`` when one starts at ``pos`` as a reserved word, in a command's first
    place (2.4: after an operator, a newline or another reserved word), else ""."""
    word = text[pos:pos + 4]
    if word not in ("case", "esac") or text[pos + 4:pos + 5] not in ("", " ", "\t", "\n", ";", "&", "|", ")"):
        return ""
    before = text[:pos].rstrip(" \t")
    if not before or before[-1] in ";&|()\n" or _RESERVED_BEFORE.search(text, max(0, pos - 12), pos):
        return word
    return ""


def region_end(text: str, start: int, closer: str) -> int:
    """Index just past the ``closer`` ending the region whose opener ends at ``start`` (``$(`` →
    ``)``, ``${`` → ``}``), or -1 when it is not closed."""
    return next((pos + 1 for pos, _, depth, _ in scan(text, start, inside=closer) if depth < 0), -1)


def cuts(text: str, separator: str, inside: str = "") -> list[int]:
    """Where ``separator`` stands in ``text`` as syntax, outside quotes and nested regions."""
    return [pos for pos, ch, depth, kind in scan(text, inside=inside)
            if ch == separator and depth == 0 and kind == FREE]
