"""Go's ``encoding/json`` text for a plain JSON value: what ``json.Marshal`` and ``MarshalIndent``
print (``encoding/json/encode.go``), for the places kbatch must match it byte for byte (a field
error's rendered value, kubectl's JSONPath output, Kueue's role hash, kubectl's ``--append-hash``).

Map keys are sorted (Go sorts a map's keys; UTF-8 byte order is code point order), nothing is
escaped as ASCII, and ``<``, ``>``, ``&``, U+2028 and U+2029 are written as ``\\u`` escapes (Go's
HTML-safe default). Numbers are Python's text, which is Go's for integers (the only numbers these
values hold).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

__all__ = ["go_marshal"]

_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                          "\u2028": "\\u2028", "\u2029": "\\u2029"})


def go_marshal(value: Any, *, indent: int | None = None, default: Callable[[Any], Any] | None = None) -> str:
    """``json.Marshal(value)``, or ``json.MarshalIndent(value, "", " " * indent)``; ``default``
    turns a value JSON does not know into one it does (as its ``MarshalJSON`` would)."""
    separators = (",", ":") if indent is None else (",", ": ")
    text = json.dumps(value, separators=separators, indent=indent, sort_keys=True, ensure_ascii=False,
                      default=default)
    return text.translate(_ESCAPES)
