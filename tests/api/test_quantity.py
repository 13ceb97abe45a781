"""Quantity: upstream's documented cases (apimachinery ``quantity_test.go``) plus properties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from kbatch.api.base import KubeModel
from kbatch.api.quantity import Format, Quantity, QuantityError

# (input, printed) pairs from upstream TestQuantityParseEmit / TestQuantityString / the brief.
EMIT = [
    ("1Ki", "1Ki"), ("1Mi", "1Mi"), ("1Gi", "1Gi"), ("1024Mi", "1Gi"), ("1000M", "1G"),
    (".001Ki", "1024m"), (".000001Ki", "1024u"), (".000000001Ki", "1024n"), (".000000000001Ki", "2n"),
    ("1000m", "1"), ("0.5", "500m"), ("1536Mi", "1536Mi"), ("1.5Gi", "1536Mi"), ("2e3", "2e3"),
    ("0", "0"), ("0Ki", "0"), ("0m", "0"), ("300Mi", "300Mi"), ("307200Ki", "300Mi"),
    ("1025", "1025"), ("1080m", "1080m"), ("1.08", "1080m"), ("1080000000n", "1080m"),
    ("1000u", "1m"), ("0.001T", "1G"), ("0.5e0", "500e-3"), (".001e12", "1e9"),
    ("1000e-12", "1e-9"), ("0.001e0", "1e-3"), ("00", "0"), ("1000E", "1e21"), ("5000E", "5e21"),
    ("3.001n", "4n"), ("0.0000000005", "1n"), ("0.00000012345", "124n"), ("12E", "12E"),
    ("9Ei", "9223372036854775807"), ("100.035Ki", "102435840m"), ("0.5Mi", "512Ki"),
    ("1.1E-9", "2e-9"), ("1.01E", "1010P"), ("5.4440T", "5444G"),
]


@pytest.mark.parametrize(("text", "want"), EMIT)
def test_parse_emit(text: str, want: str) -> None:
    assert str(Quantity.parse(text)) == want


@pytest.mark.parametrize(("text", "want"), [(t, w) for t, w in EMIT if w != "0"])
def test_negative_emit(text: str, want: str) -> None:
    assert str(Quantity.parse("-" + text)) == "-" + want


@pytest.mark.parametrize(("text", "fmt"), [
    ("1", Format.DECIMAL_SI), ("1Ki", Format.BINARY_SI), ("1e3", Format.DECIMAL_EXPONENT),
    ("0.000000000001Ki", Format.DECIMAL_SI), ("5n", Format.DECIMAL_SI), ("1E", Format.DECIMAL_SI),
])
def test_format_class(text: str, fmt: Format) -> None:
    assert Quantity.parse(text).format is fmt


@pytest.mark.parametrize("text", [
    "", "1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-",
    "1e4294967297", " 1", "1 ", "1e", "1 Ki", "1_000", "\uff11",
])
def test_invalid(text: str) -> None:
    with pytest.raises(QuantityError):
        Quantity.parse(text)


def test_error_messages_are_upstreams() -> None:
    with pytest.raises(QuantityError, match=r"unable to parse quantity's suffix"):
        Quantity.parse("1i")
    with pytest.raises(QuantityError, match=r"must match the regular expression"):
        Quantity.parse("aoeu")


@pytest.mark.parametrize("text", ["+1", "01", "1.500", "1.", "1E3", "3Ki", "5.444T"])
def test_fast_path_keeps_input_verbatim_like_upstream(text: str) -> None:
    q = Quantity.parse(text)
    assert str(q) == text
    assert q == Quantity.parse(q.canonical())


def test_cmp_examples() -> None:
    assert Quantity.parse("100m") > Quantity.parse("50m")
    assert Quantity.parse("10000T") > Quantity.parse("100Gi")
    assert Quantity.parse("1Ki") == Quantity.parse("1024")
    assert hash(Quantity.parse("1Ki")) == hash(Quantity.parse("1024"))
    assert Quantity.parse("1") == "1000m"


def test_value_rounds_away_from_zero() -> None:
    assert Quantity.parse("9.01").value() == 10
    assert Quantity.parse("-9.01").value() == -10
    assert Quantity.parse("1.5m").milli_value() == 2
    assert Quantity.parse("2Gi").value() == 2 * 1024**3
    assert Quantity.parse("100m").milli_value() == 100
    assert Quantity.parse("1e3").value() == 1000


def test_arithmetic_keeps_left_format_unless_zero() -> None:
    zero = Quantity.parse("0")
    for text in ("100m", "1Gi"):
        q = Quantity.parse(text)
        assert str(q + zero) == text
        assert str(zero + q) == text
        assert str(zero - q) == "-" + text
    assert str(Quantity.parse("1Gi") + Quantity.parse("512Mi")) == "1536Mi"
    assert str(Quantity.parse("1") - Quantity.parse("250m")) == "750m"
    assert str(Quantity.parse("1Ei").mul(1024)) == "1180591620717411303424"
    assert str(Quantity.scaled(1, 70, Format.BINARY_SI)) == "10e69"
    assert str(Quantity.scaled(1, -12)) == "1e-12"
    assert str(Quantity.milli(1500)) == "1500m"
    assert str(Quantity.parse("9.01").neg()) == "-9010m"


class _Res(KubeModel):
    requests: dict[str, Quantity] | None = None


def test_pydantic_field() -> None:
    model = _Res.from_dict({"requests": {"cpu": 0.5, "memory": "1.5Gi", "gpu": 2, "x": " 1 "}})
    assert model.to_dict() == {"requests": {"cpu": "500m", "memory": "1536Mi", "gpu": "2", "x": "1"}}
    assert _Res.from_json(model.to_json()) == model
    with pytest.raises(ValidationError) as err:
        _Res.from_dict({"requests": {"cpu": "lots"}})
    assert err.value.errors()[0]["loc"] == ("requests", "cpu")
    with pytest.raises(ValidationError):
        _Res.from_dict({"requests": {"cpu": True}})


# Properties ------------------------------------------------------------------------------------

_SUFFIXES = ["n", "u", "m", "", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei",
             "e0", "e3", "e-3", "E6", "e-9", "e5"]


@st.composite
def quantity_text(draw: st.DrawFn) -> str:
    sign = draw(st.sampled_from(["", "-", "+"]))
    whole = draw(st.integers(0, 10**12))
    frac = draw(st.one_of(st.just(""), st.from_regex(r"\.[0-9]{0,6}", fullmatch=True)))
    return f"{sign}{whole}{frac}{draw(st.sampled_from(_SUFFIXES))}"


quantities = quantity_text().map(Quantity.parse)


@given(quantities)
def test_parse_format_round_trip(q: Quantity) -> None:
    again = Quantity.parse(str(q))
    assert again == q
    assert Quantity.parse(q.canonical()) == q
    # Printing is a fixed point once the format is the one the text implies. (Not from the first
    # print: a BinarySI value that is no multiple of 1024 prints bare, "1232704000", which parses
    # back as DecimalSI and prints "1232704k" — upstream CanonicalizeBytes does the same.)
    settled = str(Quantity.parse(q.canonical()))
    assert str(Quantity.parse(settled)) == settled


def test_binary_value_without_a_binary_suffix_reprints_as_decimal() -> None:
    q = Quantity.parse("1203812.5Ki")  # 1232704000 bytes: not a multiple of 1024
    assert q.canonical() == "1232704000"
    assert str(Quantity.parse(q.canonical())) == "1232704k"


@given(quantities, quantities)
def test_ordering_matches_exact_values(a: Quantity, b: Quantity) -> None:
    fa, fb = a.as_fraction(), b.as_fraction()
    assert a.cmp(b) == (fa > fb) - (fa < fb)
    assert (a == b) == (fa == fb)
    assert (a + b).as_fraction() == fa + fb
    assert (a - b).as_fraction() == fa - fb


@given(quantities, quantities, quantities)
def test_addition_commutative_associative(a: Quantity, b: Quantity, c: Quantity) -> None:
    assert a + b == b + a
    assert (a + b) + c == a + (b + c)


@given(quantities)
def test_value_is_ceiling_away_from_zero(q: Quantity) -> None:
    f = q.as_fraction()
    v = q.value()
    assert abs(v) >= abs(f) and abs(v) - abs(f) < 1
    assert v == 0 or (v > 0) == (f > 0)
