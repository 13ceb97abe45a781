"""How kubectl's ``-o yaml`` writes a string: the style go-yaml's encoder picks for it.

kubectl prints YAML through sigs.k8s.io/yaml, whose go-yaml (v2) encoder writes a string plain unless
read back plain it would be another type — then in double quotes (``"True"``, ``"2"``,
``"2025-01-01T00:00:00Z"``, ``""``) — and a string with a newline as a literal block (``|``); the
emitter then single-quotes what cannot be plain (``'a: b'``). (It also folds long scalars at 80
columns; kbatch keeps them on one line, see :func:`kbatch.cli.render.render_yaml`.)
:func:`style_for` is that choice for one string (``encode.go`` ``stringv`` over ``resolve.go``
``resolve``: its map of YAML 1.1 booleans and nulls, floats, ints in any Go base, timestamps and
sexagesimal floats). Checked against kubectl 1.32 (tests/cli/test_render.py).
"""

from __future__ import annotations

import re
from datetime import datetime

__all__ = ["style_for"]

_MAPPED = frozenset({
    "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON",
    "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF",
    "", "~", "null", "Null", "NULL",
    ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF",
})
# resolve.go yamlStyleFloat; encode.go base60float; what Go's ParseFloat and ParseInt (base 0) read
_YAML_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_BASE60 = re.compile(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$")
_GO_FLOAT = re.compile(r"^[-+]?(\.[0-9_]+|[0-9][0-9_]*\.?[0-9_]*)([eE][-+]?[0-9_]+)?$")
_GO_INT = re.compile(r"^[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$")
_TIMESTAMP = re.compile(  # resolve.go allowedTimestampFormats: "2006-1-2T15:4:5.999999999Z07:00", ...
    r"^(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2}))"
    r"|(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d{1,9})?))?$")


def _is_timestamp(text: str) -> bool:
    match = _TIMESTAMP.match(text)
    if match is None:
        return False
    year, month, day = (int(g) for g in match.group(1, 2, 3))
    clock = match.group(4, 5, 6) if match.group(4) else match.group(7, 8, 9)
    hour, minute, second = (int(g) for g in clock) if clock[0] else (0, 0, 0)
    try:
        datetime(year, month, day, hour, minute, second)
    except ValueError:
        return False
    return True


def _resolves_to_other_type(text: str) -> bool:
    """go-yaml's ``resolve("", text)`` gives a tag other than ``!!str``. (The merge key ``<<``, which
    kubectl prints plain, is left to ruamel, whose resolver single-quotes it.)"""
    if text in _MAPPED:
        return True
    first = text[0]
    if first == ".":
        return _GO_FLOAT.match(text) is not None
    if first not in "+-0123456789":
        return False
    if _is_timestamp(text):
        return True
    plain = text.replace("_", "")
    return bool(_GO_INT.match(plain) or _YAML_FLOAT.match(plain)
                or re.match(r"^-?0b[01]+$", plain))


def style_for(text: str) -> str | None:
    """``"|"`` (literal block), ``'"'`` (double quotes) or None (plain unless the emitter must quote)."""
    if "\n" in text:
        return "|"
    if _resolves_to_other_type(text) or _BASE60.match(text):
        return '"'
    return None
