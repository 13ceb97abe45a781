"""bash's parameter transformations ``${P@OP}`` (bash(1) "Parameter Expansion"; ``subst.c``
``parameter_brace_transform``, ``string_transform``), of one value or of an array's elements:

* ``Q``: the value quoted to be read back (``sh_quote_reusable``): ``'…'`` with each ``'`` as
  ``'\\''``, bash's ``$'…'`` when it holds a byte that is not printable ASCII; an unset one is empty.
  ``K`` / ``k``: the same of a value (bash 5.1+ / 5.2).
* ``U`` / ``u`` / ``L``: upper case / the first character upper case / lower case (the C locale).
* ``a``: the attribute letters, in ``declare``'s order; ``A``: an assignment (or ``declare``
  command) that recreates the variable (``x='v'``, ``declare -i n='2'``).
* ``E``: the value with its backslash escapes decoded as ``$'…'`` decodes them
  (:func:`kbatch.sim.shell_ansi_c.decode`).
* ``P``: the value decoded as a prompt and expanded (:mod:`kbatch.sim.shell_prompt`).

Of an array's elements (``${a[@]@OP}``, ``${a[*]@OP}``: :func:`transform_all`) each is transformed
(``${a[@]@Q}``: ``'x' 'y z'``), but ``K`` of an indexed or associative array is one value, its
key-value pairs (``0 "x" 1 "y z"``; an associative array's keys quoted when they need it, each pair
followed by a space, as ``declare -p`` writes them), and ``k`` its keys and values as they are, one
value each (``"${a[@]@k}"``: ``0``, ``x``, ``1``, ``y z``). ``A`` of an array is the one ``declare``
command that recreates it, its value as ``declare -p`` writes it (``subst.c`` ``array_var_assignment``:
``declare -a a=([0]="x" [1]="y z")``, ``declare -a e=()``, ``declare -a d`` for one declared and never
assigned); bash quotes only the value, so ``"${a[@]@A}"`` splits the ``declare -a a=`` before it by
``IFS`` (by a space when ``IFS`` is empty) and keeps the value whole: ``declare``, ``-a``, ``a=(…)``
(:func:`array_declaration`); ``"${a[*]@A}"`` is one field. Of a variable that is no array it is
``${P@A}``. An element (``${a[1]@Q}``) is transformed as a value, ``@a`` and
``@A`` with the array's attributes (``declare -a a='y z'``). dash has none of them (``Bad
substitution``).
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping, Sequence

from kbatch.sim.shell_ansi_c import decode
from kbatch.sim.shell_prompt import decode as decode_prompt
from kbatch.sim.shell_quote import double_quote, key_quote, single_quote
from kbatch.sim.shell_vars import ARRAY_KEY, DECLARED, attributes, deref, is_assoc, subscripts

__all__ = ["OPERATORS", "array_declaration", "array_value", "quote", "transform", "transform_all"]

OPERATORS = frozenset("QEUuLaAKkP")
_ORDER = "aAinrxlu"  # ``var_attribute_string``'s
quote = single_quote  # ``${P@Q}``
Expand = Callable[[str], str]
"""Expands a double-quoted word to its value (``${P@P}``'s second step)."""
Split = Callable[[str], list[str]]
"""Splits a text into fields by ``IFS`` (``"${a[@]@A}"``)."""


def transform(name: str, value: str | None, op: str, scope: MutableMapping[str, str],
              expand: Expand | None = None) -> str:
    """``${name@op}`` of ``value`` (None: ``name`` is unset); ``op`` one of :data:`OPERATORS`;
    ``expand``: for ``P``, the expansion of the decoded prompt (without it, decoded only)."""
    if op in "aA":
        target = deref(scope, name) if name[0].isalpha() or name[0] == "_" else name
        letters = "".join(ch for ch in _ORDER if ch in attributes(scope, target))
        if op == "a":
            return letters
        if value is None:
            return f"declare -{letters} {target}" if letters else ""
        assignment = f"{target}={quote(value)}"
        return f"declare -{letters} {assignment}" if letters else assignment
    if value is None:
        return ""
    if op in "QKk":
        return quote(value)
    if op == "P":
        decoded = decode_prompt(value, scope)
        return expand(decoded) if expand is not None else decoded
    if op == "E":
        return decode(value)
    if op == "U":
        return value.upper()
    if op == "L":
        return value.lower()
    return value[:1].upper() + value[1:]


def array_value(scope: MutableMapping[str, str], name: str) -> str | None:
    """Array ``name``'s value as ``declare -p`` writes it, ``([0]="x" [1]="y z")`` (an associative
    array's keys quoted when they need it, each pair followed by a space; bash ``array_to_assign``,
    ``assoc_to_assign``); None for one declared and never assigned (``declare -a d``)."""
    assoc = is_assoc(scope, name)
    parts = [f"[{key_quote(sub) if assoc else sub}]={double_quote(_element(scope, name, sub))}"
             for sub in subscripts(scope, name)]
    if not parts and DECLARED in attributes(scope, name):
        return None
    return f"({' '.join(parts)}{' ' if assoc and parts else ''})"


def _element(scope: MutableMapping[str, str], name: str, sub: str) -> str:
    return scope.get(ARRAY_KEY.format(name, sub), "")


def array_declaration(name: str, scope: MutableMapping[str, str], split: Split | None) -> list[str]:
    """``${name[@]@A}`` of an array: ``declare -FLAGS name=VALUE`` (:func:`array_value`), one value;
    with ``split`` (``"${a[@]@A}"``) the text before the value split by it, the value joined to the
    last part (bash quotes only the value, subst.c ``array_var_assignment``)."""
    letters = "".join(ch for ch in _ORDER if ch in attributes(scope, name))
    value = array_value(scope, name)
    head = f"declare -{letters} {name}"
    if split is None:
        return [head if value is None else f"{head}={value}"]
    if value is None:
        return split(head)
    parts = split(f"{head}=\0")  # the NUL stands for the value: no IFS holds it
    return [part.replace("\0", value) for part in parts]


def transform_all(name: str, elements: Sequence[tuple[str, str]], op: str, scope: MutableMapping[str, str],
                  expand: Expand | None = None, split: Split | None = None) -> list[str]:
    """``${name[@]@op}``: the values, each an element's ``(subscript, value)`` transformed, or the one
    value of ``K``'s pairs for an array, or ``A``'s ``declare`` (:func:`array_declaration`; ``split``:
    how ``"${a[@]@A}"`` splits it, None for one value)."""
    letters = attributes(scope, name)
    if op == "A" and ("a" in letters or "A" in letters):
        return array_declaration(name, scope, split)
    if op in "Kk" and ("a" in letters or "A" in letters):
        if op == "k":  # bash 5.2: the keys and values, as they are, a value each
            return [part for pair in elements for part in pair]
        if not elements:
            return []
        if is_assoc(scope, name):
            return ["".join(f"{key_quote(sub)} {double_quote(value)} " for sub, value in elements)]
        return [" ".join(f"{sub} {double_quote(value)}" for sub, value in elements)]
    return [transform(name, value, op, scope, expand) for _, value in elements]
