"""How a number reads in Go's ``UnmarshalTypeError`` for a YAML configuration: sigs.k8s.io/yaml turns
the YAML into JSON with ``json.Marshal``, whose float form (``encoding/json/encode.go``
``floatEncoder``) is the shortest text, positional from 1e-6 up to 1e21, exponent form outside with
a negative exponent's leading zero dropped."""

from __future__ import annotations

import pytest

from kbatch.api.go_unmarshal import go_number


@pytest.mark.parametrize(("value", "text"), [
    (5, "5"), (-7, "-7"), (2**63, "9223372036854775808"), (2.5, "2.5"), (-2.5, "-2.5"), (3.0, "3"),
    (1e10, "10000000000"), (1e20, "100000000000000000000"), (1e21, "1e+21"), (1e39, "1e+39"),
    (0.000001, "0.000001"), (1e-7, "1e-7"), (1.5e-10, "1.5e-10"), (0.0, "0"), (123.456, "123.456"),
])
def test_a_number_reads_as_go_marshals_it(value: float, text: str) -> None:
    assert go_number(value) == text
