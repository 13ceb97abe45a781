"""Go's ``%v`` (``fmt.Sprint``) of a decoded JSON value, as each kubectl and server message prints it.

One implementation for every caller; what differs is which Go value a JSON number became:

* kubectl's ``-o jsonpath``/``custom-columns`` (client-go ``util/jsonpath`` ``evalToText``:
  ``fmt.Fprint`` of the value) and ``describe``'s generic page (``printUnstructuredContent``:
  ``fmt.Sprintf("%v")``) read objects the server sent as unstructured content, whose numbers
  apimachinery ``pkg/util/json`` decodes as ``int64`` when the text is an integer and ``float64``
  otherwise. The server's ``encoding/json`` writes a float64 without exponent or fraction when it is
  whole and below 1e21 (``floatEncoder``: ``'f'`` format), so such a float reaches kubectl as an
  ``int64``: ``1000000``, not ``1e+06`` (:func:`go_value`, the default).
* ``float64_numbers=True``: a value ``encoding/json`` decoded into ``interface{}``, where every
  number is a ``float64`` (``1000000`` prints ``1e+06``). The strategic-merge-patch messages
  (``apiserver/mergepatch_errors.py``) keep their own rule for now (not re-checked here).

A ``float64`` prints with ``strconv.FormatFloat(f, 'g', -1, 64)`` (``fmt`` ``%v``): the shortest
digits that read back, ``%e`` form when the exponent is below -4 or at least 6 (:func:`go_float`).
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

__all__ = ["go_float", "go_value"]


def go_float(value: float) -> str:
    """Go's ``%v`` of a float64: ``strconv`` ``'g'`` with the shortest digits, so an exponent below -4
    or from 6 on is written ``1.5e+06``."""
    if not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("+Inf" if value > 0 else "-Inf")
    if value == 0:
        return "-0" if math.copysign(1, value) < 0 else "0"
    sign, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    assert isinstance(exponent, int)
    power = len(digits) + exponent - 1  # of the first digit
    if -4 <= power < 6:
        return f"{value:.{max(-exponent, 0)}f}"
    text = "".join(map(str, digits))
    mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
    return f"{'-' if sign else ''}{mantissa}e{'-' if power < 0 else '+'}{abs(power):02d}"


def go_value(value: Any, *, float64_numbers: bool = False) -> str:
    """Go's ``%v`` of a decoded JSON value (``true``, ``<nil>``, ``[a b]``, ``map[k:v]`` in key
    order); numbers as kubectl's unstructured content holds them, or all ``float64``
    (``float64_numbers``: ``encoding/json`` into ``interface{}``)."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return _number(value, float64_numbers)
    if isinstance(value, list):
        return "[" + " ".join(go_value(v, float64_numbers=float64_numbers) for v in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{go_value(value[k], float64_numbers=float64_numbers)}"
                                 for k in sorted(value)) + "]"
    return str(value)


def _number(value: int | float, float64_numbers: bool) -> str:
    if float64_numbers:
        return go_float(float(value))
    if isinstance(value, int):
        return str(value)
    if value.is_integer() and abs(value) < 1e21:  # encoding/json wrote it as an integer
        return str(int(value))
    return go_float(value)
