"""bash's arrays in a simulated script: ``NAME=(WORD…)``, ``NAME+=(WORD…)``, ``NAME=([SUB]=V…)``
and ``NAME[SUB]=VALUE`` (bash(1) "Arrays"; dash and POSIX have none, and ``sh`` refuses them there).

The elements are kept among the variables (:mod:`kbatch.sim.shell_vars`: ``NAME[0]``, ``NAME[1]``…,
and ``NAME`` itself is element 0, as bash's ``$NAME`` is ``${NAME[0]}``); :mod:`kbatch.sim.shell_expand`
reads them back (``${NAME[i]}``, ``"${NAME[@]}"``, ``${#NAME[@]}``, ``${!NAME[@]}``). The words of a
compound assignment are expanded by :mod:`kbatch.sim.shell_compound` (a ``[K]=V`` word neither split
nor globbed, the others as a command's arguments); an indexed array's subscript is arithmetic
(:mod:`kbatch.sim.shell_arith`), an associative array's (``declare -A``) a string. A word that
starts with ``[`` inside the parentheses reads to its matching ``]`` as one word, blanks and all
(bash's parse.y ``read_token_word``: a ``[`` at the start of a token under ``PST_COMPASSIGN`` is a
``parse_matched_pair`` to ``]``): ``m=([two words]=x)`` has the one key ``two words``;
:func:`subscript_blanks` keeps those blanks in their word.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping, Sequence

from kbatch.sim.shell_arith import evaluate
from kbatch.sim.shell_scan import FREE, region_end, scan
from kbatch.sim.shell_vars import (
    ARRAY_KEY,
    DECLARED,
    ReadonlyError,
    assign,
    attributes,
    drop,
    is_assoc,
    set_attributes,
    subscripts,
)

__all__ = ["ELEMENT", "Item", "compound_assignment", "set_array", "subscript_blanks"]

_COMPOUND = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)(\+?)=\((.*)\)\s*$", re.DOTALL)
ELEMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\[([^\]]+)\](\+?)=(.*)$", re.DOTALL)
"""An element's assignment word, once expanded: ``a[2]=z``, ``m[k]+=z``."""
Item = tuple[str | None, str, bool]
"""An element a compound assignment's word makes: ``(key, value, appends)``, key None for a word
with no ``[K]=`` (:mod:`kbatch.sim.shell_compound`)."""


def compound_assignment(command: str) -> tuple[str, bool, str] | None:
    """``NAME=(WORDS)`` / ``NAME+=(WORDS)`` as the whole command: the name, whether it appends, and
    the words unexpanded; None for any other command."""
    if "=(" not in command:
        return None
    found = _COMPOUND.match(command)
    if found is None or region_end(command, found.start(3), ")") != found.end(3) + 1:
        return None  # ``a=(x) b=(y)``: the parentheses close before the end
    return found.group(1), found.group(2) == "+", found.group(3)


def subscript_blanks(words: str) -> str:
    """The words of a compound assignment with each blank inside a word's leading ``[SUB]`` (as
    syntax: not quoted, nor in a nested ``$( )``) escaped, so that splitting keeps it in the word."""
    out: list[str] = []
    brackets, start = 0, True  # how deep in a leading ``[…]``; at the start of a word?
    for _, ch, depth, kind in scan(words):
        free = kind == FREE and depth == 0
        if free and ch == "[" and (brackets or start):
            brackets += 1
        elif free and ch == "]" and brackets:
            brackets -= 1
        elif free and ch in " \t\n" and brackets:
            out.append("\\")
        start = free and ch in " \t\n" and not brackets
        out.append(ch)
    return "".join(out)


def set_array(scope: MutableMapping[str, str], name: str, items: Sequence[Item], append: bool) -> None:
    """``NAME`` becomes the array of ``items`` (after its elements, when ``append``); an item with a
    key is element ``KEY`` (``+=``: appended to it; an associative array's items must all have one:
    bash(1) "Arrays") and the next one follows it. Raises :class:`~kbatch.sim.shell_vars.ReadonlyError`
    and, for an index, :class:`~kbatch.sim.shell_arith.ArithError`."""
    assoc = is_assoc(scope, name)
    before: dict[str, str] = {}  # an associative array's ``[K]+=V`` appends to the value K had before
    if not append:  # (arrayfunc.c ``assign_compound_array_list`` fills a new table, bound at the end)
        if "r" in attributes(scope, name):
            raise ReadonlyError(name)
        if assoc:
            before = {sub: scope.get(ARRAY_KEY.format(name, sub), "") for sub in subscripts(scope, name)}
        drop(scope, name, attributes_too=False)
    set_attributes(scope, name, "" if assoc else "a", remove=DECLARED)
    known = subscripts(scope, name)
    position = int(known[-1]) + 1 if append and known and not assoc else 0
    for key, value, adds in items:
        if key is not None and not assoc:
            position = evaluate(key, scope, bash=True)
        elif key is None and assoc:
            continue  # bash 5.2 pairs such words as key and value; not modelled
        if assoc and adds and not append:
            value, adds = before.get(key or "", "") + value, False
        assign(scope, ARRAY_KEY.format(name, key if assoc else position), value, adds)
        position += 1
