"""Go's ``strconv.ParseBool``, for values upstream parses from strings (annotations, flags).

Go accepts exactly ``1 t T TRUE true True`` and ``0 f F FALSE false False``; anything else is a
syntax error (``None`` here).
"""

from __future__ import annotations

__all__ = ["parse_bool"]

_VALUES = {**dict.fromkeys(("1", "t", "T", "TRUE", "true", "True"), True),
           **dict.fromkeys(("0", "f", "F", "FALSE", "false", "False"), False)}


def parse_bool(text: str | None) -> bool | None:
    return _VALUES.get(text) if text is not None else None
