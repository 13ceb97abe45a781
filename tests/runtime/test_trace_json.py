"""The trace's JSON (trace_json.py) gives byte for byte what the json module gives: lines, and the
diffs between two versions of a stored value, for any JSON value, floats included."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st
from pydantic_core import from_json

from kbatch.runtime import trace_json
from kbatch.runtime.trace import merge_diff

text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=8)
floats = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(
    (1e-05, 1.5e-7, 1e16, 2.5e300, 5e-324, -0.0, 0.0, 1.0, 0.1, 1e-4, 123456789012345678.0)
)
scalars = st.none() | st.booleans() | st.integers() | st.integers(-(2**80), 2**80) | floats | text
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=20,
)

_REFERENCE = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _reference_line(raw: bytes) -> bytes:
    return _REFERENCE.encode(from_json(raw)).encode()


@settings(max_examples=400, deadline=None)
@given(values)
@example({"b": 1e-05, "a": [1e16, float("nan"), -float("inf")], "é": 2**70, "😀": "\x00\x7f\u2028"})
def test_a_line_is_the_json_modules_text(value: Any) -> None:
    raw = json.dumps(value).encode()
    assert trace_json.encode(trace_json.parse(raw)) == _reference_line(raw)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(text, values, max_size=5), st.dictionaries(text, values, max_size=5))
@example({"x": 1, "y": 0.5}, {"x": 1.0, "y": 0.5000001})
def test_a_diff_is_the_json_modules_diff(old: dict[str, Any], new: dict[str, Any]) -> None:
    a, b = json.dumps(old).encode(), json.dumps(new).encode()
    got = trace_json.encode(merge_diff(trace_json.parse(a), trace_json.parse(b)))
    assert got == _REFERENCE.encode(merge_diff(from_json(a), from_json(b))).encode()


def test_floats_are_written_as_the_json_module_writes_them() -> None:
    """The case orjson alone gets wrong: a float below 1e-4 (``0.00001`` or ``1e-5``)."""
    assert trace_json.encode(trace_json.parse(b'{"v":1e-05,"w":2.5E+300}')) == b'{"v":1e-05,"w":2.5e+300}'
    assert trace_json.encode({"retryIn": trace_json.exact(1e-05)}) == b'{"retryIn":1e-05}'
    assert trace_json.encode(trace_json.parse(b"[NaN,Infinity]")) == b"[NaN,Infinity]"
    assert math.isnan(float(trace_json.parse(b"NaN")))


def test_what_orjson_cannot_encode_takes_the_json_module() -> None:
    line = trace_json.encode({"big": 2**70, "f": trace_json.exact(0.5)})
    assert line == b'{"big":1180591620717411303424,"f":0.5}'
