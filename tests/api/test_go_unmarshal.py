"""How a number reads in Go's ``UnmarshalTypeError`` for a YAML configuration: sigs.k8s.io/yaml turns
the YAML into JSON with ``json.Marshal``, whose float form (``encoding/json/encode.go``
``floatEncoder``) is the shortest text, positional from 1e-6 up to 1e21, exponent form outside with
a negative exponent's leading zero dropped."""

from __future__ import annotations

import pickle

import pytest

from kbatch.api.go_unmarshal import go_number, json_loads, marshalled


@pytest.mark.parametrize(("value", "text"), [
    (5, "5"), (-7, "-7"), (2**63, "9223372036854775808"), (2.5, "2.5"), (-2.5, "-2.5"), (3.0, "3"),
    (1e10, "10000000000"), (1e20, "100000000000000000000"), (1e21, "1e+21"), (1e39, "1e+39"),
    (0.000001, "0.000001"), (1e-7, "1e-7"), (1.5e-10, "1.5e-10"), (0.0, "0"), (123.456, "123.456"),
])
def test_a_number_reads_as_go_marshals_it(value: float, text: str) -> None:
    assert go_number(value) == text


@pytest.mark.parametrize(("value", "want"), [
    (3.0, 3), (-0.0, 0), (1.2345678901234567e18, 1234567890123456800), (1e20, 10**20),
    (1e21, 1e21), (2.5, 2.5), (7, 7), (True, True), ("3.0", "3.0"),
])
def test_a_yaml_number_reaches_the_decoder_as_json_marshal_writes_it(value: object, want: object) -> None:
    """sigs.k8s.io/yaml ``YAMLToJSON``: a whole float below 1e21 is written without a fraction, the
    shortest text that reads back as it (not the float's exact binary value)."""
    got = marshalled(value)
    assert got == want and type(got) is type(want)


def test_a_json_number_keeps_its_literal() -> None:
    doc = json_loads('{"a": 3.0, "b": 1E2, "c": 3}')
    assert [go_number(doc[k]) for k in "abc"] == ["3.0", "1E2", "3"]
    assert marshalled(doc["a"]) is doc["a"]
    assert go_number(pickle.loads(pickle.dumps(doc["b"]))) == "1E2"
