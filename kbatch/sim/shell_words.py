"""The words of a simulated script, before its syntax is read: lists, pipelines and a simple
command's words (POSIX "Shell Command Language" 2.3 token recognition, 2.9.2-3, 2.10.1).

:func:`split_script` cuts a script into and-or lists, :func:`split_pipeline` a pipeline into its
commands, :func:`command_words` a simple command into :class:`Word` s, marking the redirection
operators and the unquoted pattern characters (:mod:`kbatch.sim.shell_glob`) it finds as the shell
does, before expansion, so that what an expansion produces is data. Quotes, ``$( )`` and
``$(( ))`` are respected throughout. :mod:`kbatch.sim.shell_syntax` builds the tree from these.
"""

from __future__ import annotations

import re
import shlex
from functools import lru_cache
from itertools import repeat
from typing import NamedTuple

from kbatch.sim.shell_cond import cond_spans
from kbatch.sim.shell_glob import BRACKET, MARKS, QUESTION, STAR, literal
from kbatch.sim.shell_scan import COMMENT, FREE, cuts, scan

__all__ = ["DSEMI", "Word", "command_words", "join_lines", "negation", "split_pipeline", "split_script",
           "words"]

DSEMI = ";;"
"""The item :func:`split_script` yields for a ``case`` arm's terminator."""


def join_lines(script: str, removed: list[int] | None = None) -> str:
    """``script`` with each backslash-newline outside single quotes and comments removed (2.2.1: a
    line continuation, before the script is split into tokens; ``echo a\\⏎b`` prints ``ab``).
    ``removed`` gets where each was, as a place in the result (to count the script's lines)."""
    if "\\\n" not in script:
        return script
    out: list[str] = []
    pos, quote = 0, ""
    while pos < len(script):
        ch = script[pos]
        if quote == "'":
            quote = "" if ch == "'" else quote
            out.append(ch)
        elif ch == "\\":
            pair = script[pos:pos + 2]
            out.append("" if pair == "\\\n" else pair)
            if pair == "\\\n" and removed is not None:
                removed.append(sum(map(len, out)))
            pos += 2
            continue
        elif ch == '"' or (ch == "'" and not quote):
            quote = "" if quote else ch
            out.append(ch)
        elif ch == "#" and not quote and (pos == 0 or script[pos - 1] in " \t\n;&|()"):
            end = script.find("\n", pos)
            end = len(script) if end < 0 else end
            out.append(script[pos:end])
            pos = end
            continue
        else:
            out.append(ch)
        pos += 1
    return "".join(out)


def split_script(script: str,
                 spans: list[tuple[int, int]] | None = None) -> list[tuple[list[tuple[str, str]], bool]]:
    """``a; b && c & d`` → ``[([(";", "a")], False), ([(";", "b"), ("&&", "c")], True),
    ([(";", "d")], False)]``: and-or lists with whether ``&`` ended them, read by
    :func:`~kbatch.sim.shell_scan.scan` (quotes, escapes, ``$( )``, ``${ }``, ``( )`` and
    backquotes hold their separators; comments are dropped); a ``&`` inside a redirection
    (``2>&1``, ``&>f``) is not a terminator. ``spans`` gets, for each list, where its first and its
    last character other than white space are (an error message's line number is counted from them)."""
    lists: list[tuple[list[tuple[str, str]], bool]] = []
    chain: list[tuple[str, str]] = []
    buf: list[str] = []
    sep, skip = ";", -1
    span = [-1, -1]  # the current list's first and last character other than white space

    def flush(background: bool, pos: int) -> None:
        nonlocal chain
        chain.append((sep, _trim("".join(buf))))
        chain = [(s, c) for s, c in chain if c]
        if chain:
            lists.append((chain, background))
            if spans is not None:
                spans.append((pos, pos) if span[0] < 0 else (span[0], span[1]))
        chain = []
        span[0] = span[1] = -1

    conds = cond_spans(script)
    for pos, ch, depth, kind in scan(script, comments=True):
        if pos == skip or kind == COMMENT:
            continue
        if depth or kind != FREE or ch not in _SEPARATORS or _within(pos, conds):
            buf.append(ch)
            if not ch.isspace():
                span[0], span[1] = pos if span[0] < 0 else span[0], pos
            continue
        two = script[pos:pos + 2]
        if two in ("&&", "||"):
            chain.append((sep, _trim("".join(buf))))
            sep, buf, skip = two, [], pos + 1
        elif two == DSEMI:
            flush(False, pos)
            lists.append(([(";", DSEMI)], False))
            if spans is not None:
                spans.append((pos, pos))
            sep, buf, skip = ";", [], pos + 1
        elif ch == "\n" and _continued(buf, sep):
            buf.append(" ")
        elif ch in ";\n" or (ch == "&" and script[pos - 1:pos] not in ("<", ">", "|") and two != "&>"):
            flush(ch == "&", pos)
            sep, buf = ";", []
        else:
            buf.append(ch)
    flush(False, len(script))
    return lists


_SEPARATORS = frozenset(";&|\n")


def _within(pos: int, spans: list[tuple[int, int]]) -> bool:
    """Whether ``pos`` is inside one of the ``[[ … ]]`` commands at ``spans``: its ``&&``, ``||``
    and newlines are the conditional expression's (:mod:`kbatch.sim.shell_cond`)."""
    return any(start <= pos < end for start, end in spans)


def _trim(command: str) -> str:
    """``command`` without the blanks around it, but an escaped last one (``w=\\ ``: the value is
    a space, 2.2.1)."""
    body = command.strip()
    if body.endswith("\\") and (len(body) - len(body.rstrip("\\"))) % 2 and len(body) < len(command.lstrip()):
        return body + command.lstrip()[len(body)]
    return body


def _continued(buf: list[str], sep: str) -> bool:
    """Does the list go on after this newline: it follows ``&&`` / ``||`` with nothing yet, or a
    pipeline's ``|`` (2.9.2-3: a newline may follow these operators)?"""
    text = "".join(buf).rstrip()
    return (not text and sep in ("&&", "||")) or (text.endswith("|") and not text.endswith("\\|"))


def split_pipeline(command: str) -> list[str]:
    """``a | b "x|y" | c`` → ``["a", 'b "x|y"', "c"]``: a pipeline's commands (2.9.2), split on
    the ``|`` outside quotes and nested regions (``${P/a|b/}``, ``$(a|b)``, ``( a | b )``; ``||`` is
    :func:`split_script`'s); one item when there is none, or when a command would be empty. bash's
    ``a |& b`` is ``a 2>&1 | b``."""
    if "|" not in command:
        return [command]
    stages: list[str] = []
    begin = 0
    conds = cond_spans(command)
    for pos in cuts(command, "|"):
        if pos < begin or _within(pos, conds):  # the ``|`` of a ``||``, or after ``|&``, or a ``[[``'s
            continue
        both = command[pos + 1:pos + 2] == "&"
        stages.append(_trim(command[begin:pos]) + (" 2>&1" if both else ""))
        begin = pos + 1 + both
    stages.append(_trim(command[begin:]))
    return [command] if len(stages) == 1 or not all(stages) else stages


def words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:  # unbalanced quotes: treat as an unknown command
        return command.split()


class Word(NamedTuple):
    """A word of a simple command; ``redirect``: it starts with an unquoted redirection operator
    (``>f``, ``2>&1``, ``<<…``), recognized when the command is tokenized (POSIX 2.7, 2.10.1), before
    quote removal and expansion, so a quoted or expanded ``>`` is data."""

    text: str
    redirect: bool = False
    glob: str = ""  # the word with its unquoted ``*``, ``?``, ``[`` marked (:mod:`kbatch.sim.shell_glob`)


def negation(command: str) -> tuple[bool, str]:
    """Whether a pipeline is preceded by the reserved word ``!`` (POSIX 2.9.2), and the pipeline."""
    stripped = command.lstrip()
    if stripped[:1] == "!" and stripped[1:2] in (" ", "\t"):
        return True, stripped[2:].lstrip()
    return False, command


def command_words(command: str) -> list[Word]:
    """:func:`_command_words`, remembered: a loop runs the same expanded commands again and again."""
    return list(_command_words(command))


@lru_cache(maxsize=4096)
def _command_words(command: str) -> tuple[Word, ...]:
    """A simple command's words, those that start with an unquoted, unescaped ``>`` or ``<``
    marked ``redirect`` (``echo ">>> step"`` has none). An operator ends the word before it
    (``echo b>>f`` is ``echo b`` with ``>>f``; bash's ``echo e&>f`` is ``echo e`` with ``&>f``)
    unless that word is all digits (``2>&1``, an IO number) or ``&`` (``&>f``). A word holding an
    unquoted ``*``, ``?`` or ``[`` carries it marked in ``glob``, for pathname expansion (2.6.6)."""
    marks = _free_marks(command)
    globbing = _MAYBE_PATTERN.search(command) is not None
    out: list[str] = []
    token = ""  # the current word as written so far
    free_amp = False  # ... and it ends with an unquoted ``&``
    quoting = "'" in command or '"' in command or "\\" in command
    for ch, kind in (((ch, kind) for _, ch, _, kind in scan(command, nest=False)) if quoting
                     else zip(command, repeat(FREE))):  # no quote: every character is syntax
        if kind != FREE:
            out.append(ch)
            token += ch
            free_amp = False
            continue
        if ch in " \t\n":
            out.append(ch)
            token = ""
            continue
        if ch in "<>":
            if free_amp and token != "&":  # ``e&>f``: ``&>f``
                out[-1] = " &"
                token = "&"
            elif token and not (token.isdigit() or token == "&" or token[-1] in "<>"):
                out.append(" ")
                token = ""
            out.append(marks[ch])
        else:
            out.append(MARKS[ch] if globbing and ch in MARKS else ch)
        token += ch
        free_amp = ch == "&"
    unmark = str.maketrans({mark: ch for ch, mark in marks.items()})
    operators = set(marks.values())
    make = _word if globbing else Word
    return tuple(make(w.translate(unmark), w.lstrip("0123456789&")[:1] in operators)
                 for w in words("".join(out)))


_MAYBE_PATTERN = re.compile(r"[*?]|\[[^\s\[]")
"""A command that may hold a pattern: ``*``, ``?``, or a ``[`` that can open a bracket expression
(not the ``test`` command's ``[ `` nor ``[[``: a bracket expression holds no unquoted blank)."""


def _word(text: str, redirect: bool) -> Word:
    """The word, with its marked form when it may be a pattern (a ``[`` needs a ``]`` after it:
    ``[`` alone, the ``test`` command, is none)."""
    bracket = text.find(BRACKET)
    if STAR not in text and QUESTION not in text and (bracket < 0 or "]" not in text[bracket:]):
        return Word(literal(text) if bracket >= 0 else text, redirect)
    return Word(literal(text), redirect, text)


def _free_marks(command: str) -> dict[str, str]:
    """Two characters ``command`` does not hold, to stand for its operators ``>`` and ``<``."""
    free = (chr(code) for code in range(0xE000, 0xF900) if chr(code) not in command)
    return {">": next(free), "<": next(free)}
