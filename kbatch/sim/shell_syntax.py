"""The shell syntax a simulated container's ``sh -c`` script is read with: lists, and-or chains, and
the compound commands batch scripts use, ``if``, ``for``, ``while``/``until`` and ``case``.

A script is split into and-or lists (``a; b && c & d``) as POSIX "Shell Command Language" 2.9.3
separates them, quotes respected (``;;`` is kept as an item of its own). The lists are then grouped
into a tree: a :class:`Simple` list, an :class:`If` (``if``/``elif``/``else``/``fi``, 2.9.4.4), a
:class:`For` (``for NAME in WORDS; do …; done``, 2.9.4.2), a :class:`While` (``while``/``until
LIST; do …; done``, 2.9.4.5-6) or a :class:`Case` (``case WORD in [(]PAT[|PAT]…) LIST ;; … esac``,
2.9.4.3). A compound command with redirections after its closing keyword (``fi > f``, 2.9.4) is a
:class:`Redirected` one; one in a pipeline (``cat f | while read l; do …; done | sort``, 2.9.2),
after ``!``, or in an and-or list with other commands (``[ -d d ] && for …; done || echo none``,
2.9.3) is a stage of a :class:`Piped`. ``{ LIST; }`` and ``( LIST )`` are a :class:`Group` (2.9.4.1;
a subshell's text is one item, laid out as ``(``, its lists and ``)`` first), ``NAME() COMPOUND`` and
bash's ``function NAME`` a :class:`Function` (2.9.5), a command of its and-or list or pipeline as
any other (``cd d && f() { …; }``). bash's ``(( EXPR ))`` is a simple command here
(:mod:`kbatch.sim.shell_let`). Anything else (``select``) and any keyword out of place make
:func:`parse_script` answer ``None``: the vocabulary then runs the script as "anything else"
(:mod:`kbatch.sim.command`).

kubernetes-sigs/jobset's failure-policy examples are the model (``site/static/examples/
failure-policy/*.yaml``: index 0 counts down in a ``for`` over ``$(seq 10 -1 1)`` inside an ``if`` on
``$JOB_COMPLETION_INDEX``, then exits 1). ``if [ "$I" = 0 ]; then exit 1; fi; sleep 5`` parses as
``(If(branches=(((Simple(((";", '[ "$I" = 0 ]'),)),), (Simple(((";", "exit 1"),)),)),), orelse=None),
Simple(((";", "sleep 5"),)))``.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import pairwise
from typing import NamedTuple

from kbatch.sim.shell_ansi_c import ansi_c_words
from kbatch.sim.shell_input import lift_heredocs
from kbatch.sim.shell_scan import cuts, region_end
from kbatch.sim.shell_words import (
    DSEMI,
    Word,
    command_words,
    join_lines,
    negation,
    split_pipeline,
    split_script,
    words,
)

__all__ = [
    "Background",
    "Case",
    "Chain",
    "For",
    "Function",
    "Group",
    "If",
    "Node",
    "Piped",
    "Redirected",
    "Simple",
    "While",
    "Word",
    "command_words",
    "parse_script",
    "split_pipeline",
    "split_script",
    "words",
]

Chain = tuple[tuple[str, str], ...]
"""An and-or list: ``(separator, command)`` pairs, the first separator ``;``, then ``&&`` or ``||``."""

_FOR = re.compile(r"^for\s+([A-Za-z_][A-Za-z0-9_]*)(\s+in(?:\s+(.*))?)?$", re.DOTALL)
_CASE = re.compile(r"^case\s+(.+?)\s+in(?:\s+(.*))?$", re.DOTALL)
_OPENERS = frozenset({"select", "function", "esac", ";;"})
_CLOSERS = frozenset({"then", "do", "elif", "else", "fi", "done", "}", ")"})
_FUNCTION = re.compile(r"^(?:function\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*\(\s*\)\s*(.*)$"
                       r"|^function\s+([A-Za-z_][A-Za-z0-9_]*)(?:\s+(.*))?$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Simple:
    chain: Chain
    background: bool = False
    lines: tuple[int, int] = field(default=(0, 0), compare=False, repr=False)  # the script's lines
    # it starts and ends on ((0, 0): not known), for error messages only


@dataclass(frozen=True, slots=True)
class If:
    branches: tuple[tuple[tuple[Node, ...], tuple[Node, ...]], ...]  # (condition, body): ``if``, ``elif``s
    orelse: tuple[Node, ...] | None = None


@dataclass(frozen=True, slots=True)
class For:
    name: str
    items: str  # the words after ``in``, unexpanded
    body: tuple[Node, ...]
    stdin: str = ""  # ``done < FILE`` / ``done <<WORD``: the loop's input redirection, unexpanded


@dataclass(frozen=True, slots=True)
class While:
    condition: tuple[Node, ...]
    body: tuple[Node, ...]
    until: bool = False  # ``until``: the body runs while the condition fails
    stdin: str = ""  # ``done < FILE`` / ``done <<WORD`` (``while read l; do …; done < f``)
    step: tuple[Node, ...] = ()  # run after each iteration, ``continue`` too (bash's ``for ((…))``)
    init: tuple[Node, ...] = ()  # bash's ``for ((…))``: run once before the first condition
    arith: bool = False  # bash's ``for ((…))``: an arithmetic error in its expressions ends it with 1


@dataclass(frozen=True, slots=True)
class Background:
    node: Node  # a compound command ended by ``&`` (``while …; done &``): run in a subshell alongside


@dataclass(frozen=True, slots=True)
class Case:
    word: str  # unexpanded
    arms: tuple[tuple[tuple[str, ...], tuple[Node, ...]], ...]  # (patterns, unexpanded; body)


@dataclass(frozen=True, slots=True)
class Redirected:
    node: Node  # a compound command with redirections after its closing keyword (``fi > f 2>&1``)
    redirects: str  # unexpanded


@dataclass(frozen=True, slots=True)
class Piped:
    """A compound command in a pipeline (``cat f | while read l; do …; done | sort``, 2.9.2), after
    ``!``, or followed by ``&&`` / ``||`` in its and-or list (``done && echo ok``, 2.9.3)."""

    stages: tuple[str | Node, ...]  # simple commands, unexpanded, and compound commands
    negate: bool = False
    rest: Chain = ()  # the and-or list after the pipeline: ``(("&&", "echo ok"),)``
    lead: Node | None = None  # ... and before it: ``Simple(((";", "cd d"),))`` in ``cd d && for …``
    separator: str = ";"  # between ``lead`` and the pipeline


@dataclass(frozen=True, slots=True)
class Group:
    """``{ LIST; }`` (2.9.4.1: run in the shell itself) or, ``subshell``, ``( LIST )`` (in a
    subshell: its variables, directory, options and ``exit`` stay in it)."""

    body: tuple[Node, ...]
    subshell: bool = False


@dataclass(frozen=True, slots=True)
class Function:
    """``NAME() COMPOUND`` (2.9.5) or bash's ``function NAME [()] COMPOUND``: defines ``NAME``."""

    name: str
    body: Node  # a compound command, with the redirections it runs with (``f() { …; } > log``)


Node = Simple | If | For | While | Case | Background | Redirected | Piped | Group | Function
_COMPOUND = frozenset({"if", "for", "while", "until", "case", "{", "("})


class _Unsupported(Exception):
    """The script leaves the syntax modelled here."""


@lru_cache(maxsize=256)
def parse_script(script: str, bash: bool = False) -> tuple[Node, ...] | None:
    """The script as a tree of lists, ``if`` and ``for``; ``None`` when it uses other syntax. The
    tree is immutable, so the pods of one Job, which run one script, share one reading of it.
    ``bash``: read as bash reads it, its ``$'…'`` words decoded (:mod:`kbatch.sim.shell_ansi_c`)."""
    spans: list[tuple[int, int]] = []
    removed: list[int] = []
    added: list[int] = []
    joined = join_lines(lift_heredocs(script), removed)
    if bash:
        joined = ansi_c_words(joined, removed, added)
    lists = split_script(joined, spans)
    items = _Items((tuple(chain), background) for chain, background in lists)
    items.lines = _line_numbers(joined, removed, spans, added)
    try:
        body, index = _block(items, 0, frozenset())
    except _Unsupported:
        return None
    return tuple(body) if index == len(items) else None


def _line_numbers(joined: str, removed: list[int], spans: list[tuple[int, int]],
                  added: list[int]) -> list[tuple[int, int]]:
    """The lines of the script (1-based) each list's first and last characters are on, ``spans``
    being places in ``joined``, the script with its continuations taken out (``removed``: where):
    one counts as the newline it was (``a \\⏎b`` is on lines 1 and 2: dash names the first, bash
    the last); ``added``: the newlines a decoded ``$'…'`` wrote, which are none of the script's."""
    newlines = [pos for pos, ch in enumerate(joined) if ch == "\n"]

    def line(pos: int) -> int:
        return 1 + bisect_left(newlines, pos) + bisect_right(removed, pos) - bisect_left(added, pos)
    return [(line(first), line(last)) for first, last in spans]


class _Items(list[tuple[Chain, bool]]):
    """The script's and-or lists, with the lines each starts and ends on (``lines``, in step)."""

    lines: list[tuple[int, int]]


def _lines(items: list[tuple[Chain, bool]], i: int) -> tuple[int, int]:
    return items.lines[i] if isinstance(items, _Items) and i < len(items.lines) else (0, 0)


def _head(item: tuple[Chain, bool]) -> tuple[str, str]:
    """The first word of the item's first command and the text after it."""
    text = item[0][0][1]
    parts = text.split(None, 1)
    if not parts:
        return "", ""
    head = parts[0]
    if head.startswith("(("):  # bash's arithmetic command: a simple command here
        return "((", parts[1] if len(parts) > 1 else ""
    if head.startswith("("):
        return "(", text.lstrip()[1:]
    if head[:1] not in "<>":  # ``fi>f``, ``done|sort``: an operator ends the keyword
        head = re.split(r"[<>|]", head, maxsplit=1)[0]
    return head, parts[1] if len(parts) > 1 else ""


def _block(items: list[tuple[Chain, bool]], i: int, stop: frozenset[str]) -> tuple[list[Node], int]:
    body: list[Node] = []
    while i < len(items):
        head, _ = _head(items[i])
        if head in stop:
            return body, i
        node: Node
        if _FUNCTION.match(items[i][0][0][1].strip()):
            node, i = _function(items, i)
            body.append(node)
            continue
        if head in _OPENERS or head in _CLOSERS:
            raise _Unsupported(head)
        opening = _opening(items, i)
        if _head(items[i])[0] in _COMPOUND or _FUNCTION.match(items[i][0][0][1].strip()):
            node, i = _compound(items, i, opening)
        else:
            node, i = Simple(*items[i], _lines(items, i)), i + 1
        if not isinstance(node, Simple) and items[i - 1][1]:
            node = Background(node)
        body.append(node)
    if stop:
        raise _Unsupported("unterminated")
    return body, i


def _strip(items: list[tuple[Chain, bool]], i: int, keyword: str) -> tuple[Chain, int]:
    """The item at ``i`` after its leading ``keyword``: ``then echo x`` leaves ``echo x`` there to be
    read next; a keyword alone is consumed."""
    if i >= len(items) or _head(items[i])[0] != keyword:
        raise _Unsupported(keyword)
    chain, background = items[i]
    rest = _head(items[i])[1].strip()
    if background and not rest:
        raise _Unsupported("&")
    if rest:  # ``{ sleep 1 & …``, ``do sleep 1 & done``: the list goes on, in the background
        items[i] = (((chain[0][0], rest), *chain[1:]), background)
        return items[i][0], i
    if len(chain) > 1:
        raise _Unsupported(keyword)
    return (), i + 1


def _function(items: list[tuple[Chain, bool]], i: int, opening: _Opening | None = None) -> tuple[Node, int]:
    """``NAME() COMPOUND`` / ``function NAME [()] COMPOUND``, the compound command on the same line
    or the next (2.9.5). The definition is a command of its and-or list or pipeline, as any other
    (2.9.2-3: ``cd d && f() { …; } && f``; its status 0); one in the background is not read."""
    chain, background = items[i]
    found = _FUNCTION.match(chain[0][1].strip())
    assert found is not None
    name, text = found.group(1) or found.group(3), (found.group(2) or found.group(4) or "").strip()
    if text:
        items[i] = (((";", text), *chain[1:]), background)
    elif len(chain) > 1 or background:
        raise _Unsupported("function")
    else:
        i += 1
    if i >= len(items) or _head(items[i])[0] not in _COMPOUND or _opening(items, i) != _Opening():
        raise _Unsupported("function body")
    node, i = _compound(items, i, _Opening())
    piped: list[str | Node] = []
    rest: Chain = ()
    if isinstance(node, Piped) and node.lead is None and not node.negate:
        body = node.stages[0]
        if isinstance(body, str):
            raise _Unsupported("function body")
        piped, rest = list(node.stages[1:]), node.rest  # ``f() { …; } | g && h``: the rest is the list's
        node = body
    if isinstance(node, Piped) or items[i - 1][1]:
        raise _Unsupported("function body")
    return _piped(Function(name, node), opening or _Opening(), piped, rest), i


def _group(items: list[tuple[Chain, bool]], i: int, opener: str) -> tuple[Group, int]:
    """``{ LIST; }``, or ``( LIST )`` once :func:`_subshell_items` has laid it out as items."""
    closer = "}" if opener == "{" else ")"
    _, i = _strip(items, i, opener)
    body, i = _block(items, i, frozenset({closer}))
    if not body:
        raise _Unsupported("empty group")
    return Group(tuple(body), opener == "("), _end(items, i, closer)


def _subshell_items(items: list[tuple[Chain, bool]], i: int) -> None:
    """The item at ``i`` begins ``( LIST ) TAIL``: lay it out as the items ``(``, LIST's, and
    ``) TAIL`` (with the rest of its and-or list), as the keyword-delimited commands are."""
    chain, background = items[i]
    text = chain[0][1].lstrip()
    close = region_end(text, 1, ")")
    if close < 0:
        raise _Unsupported("(")
    found: list[tuple[int, int]] = []
    inner = [(tuple(c), b) for c, b in split_script(text[1:close - 1], found)]
    items[i:i + 1] = [(((";", "("),), False), *inner, (((";", ")" + text[close:]), *chain[1:]), background)]
    if isinstance(items, _Items):  # the inner lists' lines counted from the line ``(`` is on
        first, last = items.lines[i]
        inside = [(first + text.count("\n", 0, a + 1), first + text.count("\n", 0, b + 1)) for a, b in found]
        items.lines[i:i + 1] = [(first, first), *inside, (last, last)]


def _if(items: list[tuple[Chain, bool]], i: int) -> tuple[If, int]:
    branches: list[tuple[tuple[Node, ...], tuple[Node, ...]]] = []
    keyword, orelse = "if", None
    while keyword in ("if", "elif"):
        _, i = _strip(items, i, keyword)
        cond, i = _block(items, i, frozenset({"then"}))  # a list, compound commands too (2.9.4.4)
        if not cond:
            raise _Unsupported("empty condition")
        _, i = _strip(items, i, "then")
        body, i = _block(items, i, frozenset({"elif", "else", "fi"}))
        branches.append((tuple(cond), tuple(body)))
        keyword = _head(items[i])[0]
    if keyword == "else":
        _, i = _strip(items, i, "else")
        rest, i = _block(items, i, frozenset({"fi"}))
        orelse = tuple(rest)
    return If(tuple(branches), orelse), _end(items, i, "fi")


_ARITH_FOR = re.compile(r"^for\s*\(\(")


def _arith_for(items: list[tuple[Chain, bool]], i: int) -> tuple[Node, int]:
    """bash's ``for (( INIT ; COND ; STEP )) ; do LIST ; done`` (bash(1) "Compound Commands"): INIT,
    then while COND is not 0 the list and STEP, read as ``(( INIT )); while (( COND )); do LIST;
    done`` with STEP after each iteration, a ``continue`` too; an empty expression is 1."""
    chain, background = items[i]
    text = chain[0][1].strip()
    opening = text.index("((")
    close = region_end(text, opening + 1, ")")
    parts = text[opening + 2:close - 2].split(";") if close > 0 and text[close - 2:close] == "))" else []
    rest = text[close:].strip() if parts else ""
    if len(parts) != 3 or background or (len(chain) > 1 and not rest) or rest[:2] not in ("", "do"):
        raise _Unsupported("for ((")
    if rest:  # ``for ((…)) do echo``: the list goes on in this item
        items[i] = (((";", rest), *chain[1:]), False)
    else:
        i += 1
    _, i = _strip(items, i, "do")
    body, i = _block(items, i, frozenset({"done"}))
    # An expression keeps its trailing blanks, as bash's error words show them (``i<1/0 ``).
    init, condition, step = (part if part.strip() else "" for part in parts)

    def arith(expression: str) -> tuple[Node, ...]:
        return (Simple(((";", f"(({expression}))"),)),) if expression else ()  # bash's words name it so

    loop = While(arith(condition or "1"), tuple(body), step=arith(step), init=arith(init), arith=True)
    return loop, _end(items, i, "done")


def _for(items: list[tuple[Chain, bool]], i: int) -> tuple[Node, int]:
    chain, background = items[i]
    if _ARITH_FOR.match(chain[0][1].strip()):
        return _arith_for(items, i)
    found = _FOR.match(chain[0][1].strip())
    if found is None or len(chain) > 1 or background:
        raise _Unsupported("for")
    _, i = _strip(items, i + 1, "do")
    body, i = _block(items, i, frozenset({"done"}))
    items_text = (found.group(3) or "") if found.group(2) else '"$@"'  # ``for x; do``: the parameters
    return For(found.group(1), items_text, tuple(body)), _end(items, i, "done")


def _while(items: list[tuple[Chain, bool]], i: int, keyword: str) -> tuple[While, int]:
    _, i = _strip(items, i, keyword)
    condition, i = _block(items, i, frozenset({"do"}))
    if not condition:
        raise _Unsupported("empty condition")
    _, i = _strip(items, i, "do")
    body, i = _block(items, i, frozenset({"done"}))
    return While(tuple(condition), tuple(body), keyword == "until"), _end(items, i, "done")


def _case(items: list[tuple[Chain, bool]], i: int) -> tuple[Case, int]:
    chain, background = items[i]
    found = _CASE.match(chain[0][1].strip())
    if found is None or (len(chain) > 1 and not found.group(2)) or background:
        raise _Unsupported("case")
    arms: list[tuple[tuple[str, ...], tuple[Node, ...]]] = []
    if found.group(2):  # ``case a in a) x && y`` on one line: the first arm's list goes on
        items[i] = (((";", found.group(2).strip()), *chain[1:]), False)
    else:
        i += 1
    while i < len(items) and re.split(r"[\s<>|]", items[i][0][0][1].strip(), maxsplit=1)[0] != "esac":
        patterns, i = _patterns(items, i)
        body, i = _block(items, i, frozenset({DSEMI, "esac"}))
        arms.append((patterns, tuple(body)))
        if i < len(items) and items[i][0][0][1] == DSEMI:
            i += 1
    return Case(found.group(1), tuple(arms)), _end(items, i, "esac")


def _patterns(items: list[tuple[Chain, bool]], i: int) -> tuple[tuple[str, ...], int]:
    """An arm's ``[(]PAT[|PAT]…)``, leaving the command after ``)`` (if any) as the item to read."""
    chain, background = items[i]
    text = chain[0][1].strip()
    if text.startswith("("):
        text = text[1:]
    close = next(iter(cuts(text, ")")), -1)
    if close < 0:
        raise _Unsupported("case pattern")
    bars = [-1, *cuts(text[:close], "|"), close]
    patterns = tuple(text[a + 1:b].strip() for a, b in pairwise(bars))
    rest = text[close + 1:].strip()
    if rest:
        items[i] = (((chain[0][0], rest), *chain[1:]), background)
        return patterns, i
    if len(chain) > 1 or background:
        raise _Unsupported("case pattern")
    return patterns, i + 1


_LOOP_INPUT = re.compile(r"^(0?<\s*\S+|0?<<#\S+)$")  # ``done < FILE``, ``done <<WORD`` (lifted)
_AFTER_KEYWORD = frozenset({"", " ", "\t", "<", ">", "|"})
_TAIL = "\x00"
"""Marks the item :func:`_end` left holding what follows a closing keyword (``done | sort``)."""


def _end(items: list[tuple[Chain, bool]], i: int, keyword: str) -> int:
    """``fi`` / ``done`` / ``esac``, alone in its list (consumed), or followed by redirections, a
    pipeline's ``| …`` or an and-or list's ``&& …`` (left in the item, marked, for :func:`_closed`);
    a ``&`` makes the compound command a :class:`Background` one."""
    if i >= len(items):
        raise _Unsupported(keyword)
    chain, background = items[i]
    text = chain[0][1].strip()
    if text == keyword and len(chain) == 1:
        return i + 1
    if not text.startswith(keyword) or text[len(keyword):len(keyword) + 1] not in _AFTER_KEYWORD:
        raise _Unsupported(keyword)
    items[i] = (((";", _TAIL + text[len(keyword):].strip()), *chain[1:]), background)
    return i


class _Opening(NamedTuple):
    """What precedes a compound command in its and-or list and pipeline."""

    lead: Node | None = None  # the and-or list before the pipeline (``a && `` in ``a && if …``)
    separator: str = ";"  # the pipeline's: ``&&``, ``||`` after a lead
    negate: bool = False  # ``!`` before the pipeline
    before: tuple[str | Node, ...] = ()  # the commands piped into the compound command


def _opening(items: list[tuple[Chain, bool]], i: int) -> _Opening:
    """A compound command opening after ``!``, at the end of a pipeline (``cat f | while read l``)
    or after ``&&`` / ``||`` (``[ -d d ] && for f in d/*``); the item is left holding the opener
    (and the condition's and-or list after it)."""
    chain, background = items[i]
    for k, (separator, command) in enumerate(chain):
        negate, text = negation(command)
        stages = split_pipeline(text)
        first = _first_compound(stages)
        if first is None:
            continue
        if k == 0 and not negate and first == 0:
            return _Opening()
        items[i] = (((";", " | ".join(stages[first:])), *chain[k + 1:]), background)
        lead = Simple(chain[:k], lines=_lines(items, i)) if k else None
        return _Opening(lead, separator, negate, tuple(stages[:first]))
    return _Opening()


def _first_compound(stages: list[str]) -> int | None:
    """The first stage of a pipeline that opens a compound command. Only a subshell, whole in its
    stage, has stages after it here (a keyword's list is cut at its first ``;``); a keyword before
    the last stage is a ``case`` line's patterns (``case $X in a|b) …``), unless the last stage
    opens one too."""
    for k, stage in enumerate(stages):
        word = _first_word(stage)
        last = k == len(stages) - 1
        if word == "(" or (last and (word in _COMPOUND or _FUNCTION.match(stage.strip()))):
            return k
        if word in _COMPOUND:
            if _first_word(stages[-1]) in _COMPOUND:
                raise _Unsupported("a compound command piped into another")
            return None
    return None


def _compound(items: list[tuple[Chain, bool]], i: int, opening: _Opening) -> tuple[Node, int]:
    """The compound command at ``i`` (the item's first word opens it) with what surrounds it:
    ``opening``, and what :func:`_end` left after its closing keyword: redirections (2.7), more of
    the pipeline (perhaps into another compound command: ``done | while read l; do …``), the
    and-or list's rest."""
    head = _head(items[i])[0]
    node: Node
    if _FUNCTION.match(items[i][0][0][1].strip()):  # a definition after ``&&`` / ``||`` / ``|``
        return _function(items, i, opening)
    if head == "(":
        _subshell_items(items, i)
    if head in ("{", "("):
        node, i = _group(items, i, head)
    elif head == "if":
        node, i = _if(items, i)
    elif head == "for":
        node, i = _for(items, i)
    elif head in ("while", "until"):
        node, i = _while(items, i, head)
    else:
        node, i = _case(items, i)
    tail, rest, background = "", Chain(), False
    if i < len(items) and items[i][0][0][1].startswith(_TAIL):
        chain, background = items[i]
        tail, rest = chain[0][1][len(_TAIL):], chain[1:]
        i += 1
    stages = split_pipeline("x " + tail)
    if "|" in tail and len(stages) == 1:
        raise _Unsupported("pipeline after a compound command")
    node = _redirected(node, stages[0][2:].strip())
    after = stages[1:]
    first = _first_compound(after)
    if first is not None:  # the pipeline goes on into another one
        i -= 1
        items[i] = (((";", " | ".join(after[first:])), *rest), background)
        return _compound(items, i, opening._replace(before=(*opening.before, node, *after[:first])))
    later = next((k for k, (_, command) in enumerate(rest) if _opens(command)), None)
    if later is not None:  # ``fi && for …``: the and-or list goes on into another compound command
        node = _piped(node, opening, after, rest[:later])
        i -= 1
        items[i] = (((";", rest[later][1]), *rest[later + 1:]), background)
        return _compound(items, i, _opening(items, i)._replace(lead=node, separator=rest[later][0]))
    return _piped(node, opening, after, rest), i


def _piped(node: Node, opening: _Opening, after: list[str] | list[str | Node], rest: Chain) -> Node:
    lead, separator, negate, before = opening
    if lead or negate or before or rest or after:
        return Piped((*before, node, *after), negate, rest, lead, separator)
    return node


def _opens(command: str) -> bool:
    """Does this pipeline end in a compound command's opener (``cat f | while read l``)?"""
    return _first_compound(split_pipeline(negation(command)[1])) is not None


def _redirected(node: Node, redirects: str) -> Node:
    """``node`` with the redirections after its closing keyword; a loop's ``done < FILE`` /
    ``done <<WORD`` alone is its input (:attr:`While.stdin`)."""
    if not redirects:
        return node
    if not _only_redirections(command_words(redirects)):
        raise _Unsupported(redirects)
    if isinstance(node, (For, While)) and _LOOP_INPUT.match(redirects):
        return replace(node, stdin=redirects.lstrip("0"))
    return Redirected(node, redirects)


_BARE_OPERATOR = re.compile(r"^(\d*|&)(>>?|<<<|<|>&|<&)$")  # a redirection whose target is the next word


def _only_redirections(found: list[Word]) -> bool:
    """Are these words redirections alone (an operator without its target takes the next word)?"""
    target = False
    for word in found:
        if target:
            target = False
        elif not word.redirect:
            return False
        else:
            target = _BARE_OPERATOR.match(word.text) is not None
    return not target


def _first_word(command: str) -> str:
    stripped = command.lstrip()
    if stripped.startswith("(") and not stripped.startswith("(("):
        return "("
    parts = command.split(None, 1)
    return parts[0] if parts else ""
