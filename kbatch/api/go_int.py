"""Go's ``strconv.ParseInt(text, 10, bits)``, for values upstream parses from strings (label selector
``Gt``/``Lt`` bounds, annotations).

Go takes an optional sign and ASCII decimal digits within the signed range of ``bits``; Python's
``int`` would also take blanks, underscores, other scripts' digits and any size.
"""

from __future__ import annotations

import re

__all__ = ["parse_int"]

_SYNTAX = re.compile(r"[+-]?[0-9]+")


def parse_int(text: str, bits: int = 64) -> int | None:
    """The value, or ``None`` where ``ParseInt`` fails (syntax or range)."""
    if not _SYNTAX.fullmatch(text):
        return None
    value = int(text)
    bound = 1 << (bits - 1)
    return value if -bound <= value < bound else None
