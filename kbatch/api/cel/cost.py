"""An estimate of a selector's worst-case CEL cost, for upstream's limit
(``CELSelectorExpressionMaxCost`` = 1,000,000; validation's "too complex, exceeds cost limit").

Upstream runs cel-go's cost estimator over the checked AST with the sizes the environment declares:
a device has at most 32 attributes and capacities (``ResourceSliceMaxAttributesAndCapacitiesPerDevice``),
strings at most 64 characters, lists at most 48 values. The C++ runtime kbatch uses exposes no
estimator, so kbatch estimates from the expression's structure: every token costs 1, and every
comprehension macro (``all``, ``exists``, ``exists_one``, ``existsOne``, ``map``, ``filter``,
``sortBy``, ``transformList``, ``transformMap``, ``transformMapEntry``) multiplies the cost of its
body by 32, the largest collection a device can hold. One level of iteration is cheap, four nested
levels exceed the limit, as with upstream's estimates for such expressions. This is a documented
approximation (docs/dra.md).
"""

from __future__ import annotations

import re

__all__ = ["MACROS", "MAX_COLLECTION", "estimate_cost"]

MACROS = frozenset(
    {
        "all",
        "exists",
        "exists_one",
        "existsOne",  # ext.TwoVarComprehensions
        "map",
        "filter",
        "sortBy",  # ext.Lists: a key per element
        "transformList",
        "transformMap",
        "transformMapEntry",
    }
)
MAX_COLLECTION = 32
_TOKEN = re.compile(r"""\s*(?:("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|([A-Za-z_][A-Za-z0-9_]*)|(\S))""")


def estimate_cost(expression: str) -> int:
    """The estimated worst-case cost of ``expression`` (see the module docstring)."""
    total = 0
    stack: list[bool] = []  # one entry per open parenthesis: is it a macro call?
    depth = 0
    previous_ident = ""
    after_dot = False
    for match in _TOKEN.finditer(expression):
        string, ident, other = match.groups()
        total += MAX_COLLECTION**depth
        if ident is not None:
            previous_ident = ident if after_dot else ""
            after_dot = False
            continue
        if string is not None:
            previous_ident, after_dot = "", False
            continue
        if other == ".":
            after_dot = True
            continue
        if other == "(":
            is_macro = previous_ident in MACROS
            stack.append(is_macro)
            depth += is_macro
        elif other == ")" and stack:
            depth -= stack.pop()
        previous_ident, after_dot = "", False
    return total
