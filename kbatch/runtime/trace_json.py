"""The trace's JSON: stored values parsed, trace lines encoded — fast, and byte for byte the text of
``json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``.

The trace encodes every committed write, so its encoder is on every write's path. orjson
(docs/dependencies.md) encodes a pod's line several times faster than the json module and writes
strings, integers, booleans, ``null``, sorted object keys and arrays exactly as the json module
does. It writes some floats differently (``1e-05`` is ``0.00001`` or ``1e-5``, depending on the
version), so floats never reach it as floats:

* :func:`parse` reads a stored value with jiter in its ``decimal`` float mode, so a JSON number with
  a fraction or an exponent becomes a :class:`~decimal.Decimal` (an integer stays an ``int``);
* :func:`encode` hands each Decimal back as the json module's text of the float it denotes
  (``float.__repr__``, or ``NaN``/``Infinity``), spliced in as an ``orjson.Fragment``;
* a value orjson cannot encode (an integer beyond 64 bits, a lone surrogate) is encoded by the json
  module, with the same Decimal rule.

Equality is unchanged for the trace's diffs: ``Decimal("1.0") == 1`` as ``1.0 == 1``.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import jiter
import orjson

__all__ = ["encode", "exact", "parse"]


def _as_float(value: Any) -> float:
    if isinstance(value, Decimal):
        return float(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# what ``json.dumps(..., sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` builds per call
_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_as_float)


def _fragment(value: Any) -> orjson.Fragment:
    return orjson.Fragment(_JSON.encode(_as_float(value)))


def parse(value: bytes) -> Any:
    """A stored JSON value; numbers with a fraction or an exponent as Decimals. ``ValueError`` when
    it is not JSON."""
    return jiter.from_json(value, float_mode="decimal", allow_inf_nan=True)


def encode(obj: Any) -> bytes:
    """The UTF-8 bytes of the json module's compact, key-sorted text of ``obj``.

    The bytes are a copy of orjson's: the trace keeps lines (its window), and the object orjson
    returns keeps its whole growth buffer (measured: +5.8 MiB peak RSS over a 3,000-pod run, growing
    with the run; with the copy, the json module's figure)."""
    try:
        return bytes(memoryview(orjson.dumps(obj, default=_fragment, option=orjson.OPT_SORT_KEYS)))
    except TypeError:  # orjson.JSONEncodeError: an integer beyond 64 bits, a lone surrogate
        return _JSON.encode(obj).encode()


def exact(value: float) -> Decimal:
    """A float carried into a trace line (encoded as the json module writes it)."""
    return Decimal(repr(value))
