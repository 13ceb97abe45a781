"""One Go ``%v`` for kubectl's jsonpath and describe's generic page (``kbatch/api/go_fmt.py``).

kubectl's ``-o jsonpath`` prints each result with ``fmt.Fprint`` (client-go ``util/jsonpath``
``evalToText``) of the unstructured content it decoded from the server's JSON (apimachinery
``pkg/util/json``: an integer text is an ``int64``, any other number a ``float64``); describe's
``printUnstructuredContent`` prints the same content with ``%v``. Both therefore print the same text.
"""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.go_fmt import go_float, go_value
from kbatch.api.jsonpath import compile_template, evaluate
from kbatch.families.core.generic_page import go_value as page_value


def _jsonpath(template: str, data: object) -> str:
    return evaluate(compile_template(template), data)


def test_jsonpath_prints_a_fractional_float_as_go_v() -> None:
    """``strconv.FormatFloat(f, 'g', -1, 64)``: an exponent of 6 or more is written ``e+06``."""
    data = {"a": 1234567.5, "b": 1e6, "c": 0.5, "d": 1e21, "e": 3}
    assert _jsonpath("{.a} {.b} {.c} {.d} {.e}", data) == "1.2345675e+06 1000000 0.5 1e+21 3"


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False,
                                                                             allow_infinity=False)
                    | st.text(max_size=3),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=8))
def test_jsonpath_and_describe_print_any_value_alike(value: object) -> None:
    assert page_value(value) == go_value(value)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_float_as_kubectl_reads_it_from_the_wire(value: float) -> None:
    """Go's encoder writes the float (whole below 1e21: no fraction), kubectl decodes it (an integer
    text becomes an int64) and prints ``%v``: the text reads back as the same number."""
    text = go_value(value)
    assert float(text) == value or value == 0
    if value.is_integer() and abs(value) < 1e21:
        assert text == str(int(value))
    else:
        assert text == go_float(value) and json.loads(text) == value
