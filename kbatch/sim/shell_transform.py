"""bash's parameter transformations ``${P@OP}`` of one value (bash(1) "Parameter Expansion";
``subst.c`` ``parameter_brace_transform``, ``string_transform``):

* ``Q``: the value quoted to be read back (``sh_quote_reusable``): ``'…'`` with each ``'`` as
  ``'\\''``, bash's ``$'…'`` when it holds a byte that is not printable ASCII; an unset one is empty.
* ``U`` / ``u`` / ``L``: upper case / the first character upper case / lower case (the C locale).
* ``a``: the attribute letters, in ``declare``'s order; ``A``: an assignment (or ``declare``
  command) that recreates the variable (``x='v'``, ``declare -i n='2'``).

* ``E``: the value with its backslash escapes decoded as ``$'…'`` decodes them
  (:func:`kbatch.sim.shell_ansi_c.decode`).

The transformations of a whole array (``${a[@]@Q}``) are not modelled; dash has none of them
(``Bad substitution``).
"""

from __future__ import annotations

from collections.abc import MutableMapping

from kbatch.sim.shell_ansi_c import decode
from kbatch.sim.shell_printf import ansi_c_quote
from kbatch.sim.shell_vars import attributes, deref

__all__ = ["OPERATORS", "transform"]

OPERATORS = frozenset("QEUuLaA")
_ORDER = "aAinrxlu"  # ``var_attribute_string``'s


def quote(value: str) -> str:
    """``value`` as ``${P@Q}`` quotes it."""
    if any(not " " <= ch <= "~" for ch in value):
        return ansi_c_quote(value)
    return "'" + value.replace("'", "'\\''") + "'"


def transform(name: str, value: str | None, op: str, scope: MutableMapping[str, str]) -> str:
    """``${name@op}`` of ``value`` (None: ``name`` is unset); ``op`` one of :data:`OPERATORS`."""
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
    if op == "Q":
        return quote(value)
    if op == "E":
        return decode(value)
    if op == "U":
        return value.upper()
    if op == "L":
        return value.lower()
    return value[:1].upper() + value[1:]
