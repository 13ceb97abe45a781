"""bash's indexed arrays in a simulated script: ``NAME=(WORD…)``, ``NAME+=(WORD…)`` and
``NAME[INDEX]=VALUE`` (bash(1) "Arrays"; dash and POSIX have none, and ``sh`` refuses them there).

The elements are kept among the variables as ``read -a`` keeps them (:data:`kbatch.sim.shell_expand.
ARRAY_KEY`: ``NAME[0]``, ``NAME[1]``…, and ``NAME`` itself is element 0, as bash's ``$NAME`` is
``${NAME[0]}``); :mod:`kbatch.sim.shell_expand` reads them back (``${NAME[i]}``, ``"${NAME[@]}"``,
``${#NAME[@]}``). The words of a compound assignment are expanded as a command's are (split into
fields, pathname expansion); an index is arithmetic (:mod:`kbatch.sim.shell_arith`).
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping, Sequence

from kbatch.sim.shell_arith import evaluate
from kbatch.sim.shell_expand import ARRAY_KEY, array_keys

__all__ = ["ELEMENT", "compound_assignment", "set_array", "set_element"]

_COMPOUND = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)(\+?)=\((.*)\)\s*$", re.DOTALL)
ELEMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\[([^\]]+)\]=(.*)$", re.DOTALL)
"""An element's assignment word, once expanded: ``a[2]=z``."""


def compound_assignment(command: str) -> tuple[str, bool, str] | None:
    """``NAME=(WORDS)`` / ``NAME+=(WORDS)`` as the whole command: the name, whether it appends, and
    the words unexpanded; None for any other command."""
    if "=(" not in command:
        return None
    found = _COMPOUND.match(command)
    return None if found is None else (found.group(1), found.group(2) == "+", found.group(3))


def set_array(scope: MutableMapping[str, str], name: str, values: Sequence[str], append: bool) -> None:
    """``NAME`` becomes the array of ``values`` (after its elements, when ``append``)."""
    keys = array_keys(scope, name)
    start = 0
    if append:
        start = int(keys[-1][len(name) + 1:-1]) + 1 if keys else int(name in scope)
    else:
        for key in keys:
            del scope[key]
        scope.pop(name, None)
    for offset, value in enumerate(values):
        set_element(scope, name, start + offset, value)


def set_element(scope: MutableMapping[str, str], name: str, index: int | str, value: str) -> None:
    """``NAME[INDEX]=VALUE`` (``INDEX`` arithmetic when a string)."""
    position = evaluate(index, scope) if isinstance(index, str) else index
    scope[ARRAY_KEY.format(name, position)] = value
    if position == 0:
        scope[name] = value
