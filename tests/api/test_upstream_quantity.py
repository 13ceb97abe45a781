"""Cases of upstream's resource.Quantity tables, ported one by one
(k8s.io/apimachinery ``pkg/api/resource/quantity_test.go``, the apimachinery tree of Kubernetes
1.37 at commit eed236ce). Each table names the upstream test it follows; values are upstream's.

Cases that do not translate (listed here so they are not looked for again): ``AsInt64``/``AsDec``
representation checks (kbatch holds every value as an exact Python int mantissa, there is no int64
fast path to fall out of), ``Mul``'s overflow ``ok`` flag (kbatch's ``mul`` is exact), CBOR,
the ``randfill`` fuzz round trips, ``RoundUp`` (no caller in kbatch) and a nil ``inf.Dec``.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from pydantic import TypeAdapter

from kbatch.api.quantity import Format, Quantity, QuantityError, parse_quantity

DecimalSI, BinarySI, DecimalExponent = Format.DECIMAL_SI, Format.BINARY_SI, Format.DECIMAL_EXPONENT
MAX_ALLOWED = 2**63 - 1  # upstream maxAllowed: binary values saturate here

# TestQuantityParse: input → (mantissa, exponent, format) of upstream decQuantity.
PARSE = [
    ('0', 0, 0, DecimalSI),
    ('0n', 0, 0, DecimalSI),
    ('0u', 0, 0, DecimalSI),
    ('0m', 0, 0, DecimalSI),
    ('0Ki', 0, 0, BinarySI),
    ('0k', 0, 0, DecimalSI),
    ('0Mi', 0, 0, BinarySI),
    ('0M', 0, 0, DecimalSI),
    ('0Gi', 0, 0, BinarySI),
    ('0G', 0, 0, DecimalSI),
    ('0Ti', 0, 0, BinarySI),
    ('0T', 0, 0, DecimalSI),
    ('1', 1, 0, DecimalSI),
    ('1Ki', 1024, 0, BinarySI),
    ('8Ki', 8192, 0, BinarySI),
    ('7Mi', 7340032, 0, BinarySI),
    ('6Gi', 6442450944, 0, BinarySI),
    ('5Ti', 5497558138880, 0, BinarySI),
    ('4Pi', 4503599627370496, 0, BinarySI),
    ('3Ei', 3458764513820540928, 0, BinarySI),
    ('10Ti', 10995116277760, 0, BinarySI),
    ('100Ti', 109951162777600, 0, BinarySI),
    ('5n', 5, -9, DecimalSI),
    ('4u', 4, -6, DecimalSI),
    ('3m', 3, -3, DecimalSI),
    ('9', 9, 0, DecimalSI),
    ('8k', 8, 3, DecimalSI),
    ('50k', 5, 4, DecimalSI),
    ('7M', 7, 6, DecimalSI),
    ('6G', 6, 9, DecimalSI),
    ('5T', 5, 12, DecimalSI),
    ('40T', 4, 13, DecimalSI),
    ('300T', 3, 14, DecimalSI),
    ('2P', 2, 15, DecimalSI),
    ('1E', 1, 18, DecimalSI),
    ('1E-3', 1, -3, DecimalExponent),
    ('1e3', 1, 3, DecimalExponent),
    ('1E6', 1, 6, DecimalExponent),
    ('1e9', 1, 9, DecimalExponent),
    ('1E12', 1, 12, DecimalExponent),
    ('1e15', 1, 15, DecimalExponent),
    ('1E18', 1, 18, DecimalExponent),
    ('1e14', 1, 14, DecimalExponent),
    ('1e13', 1, 13, DecimalExponent),
    ('1e3', 1, 3, DecimalExponent),
    ('100.035k', 100035, 0, DecimalSI),
    ('0.001', 1, -3, DecimalSI),
    ('0.0005k', 5, -1, DecimalSI),
    ('0.005', 5, -3, DecimalSI),
    ('0.05', 5, -2, DecimalSI),
    ('0.5', 5, -1, DecimalSI),
    ('0.00050k', 5, -1, DecimalSI),
    ('0.00500', 5, -3, DecimalSI),
    ('0.05000', 5, -2, DecimalSI),
    ('0.50000', 5, -1, DecimalSI),
    ('0.5e0', 5, -1, DecimalExponent),
    ('0.5e-1', 5, -2, DecimalExponent),
    ('0.5e-2', 5, -3, DecimalExponent),
    ('0.5e0', 5, -1, DecimalExponent),
    ('10.035M', 10035, 3, DecimalSI),
    ('1.2e3', 12, 2, DecimalExponent),
    ('1.3E+6', 13, 5, DecimalExponent),
    ('1.40e9', 14, 8, DecimalExponent),
    ('1.53E12', 153, 10, DecimalExponent),
    ('1.6e15', 16, 14, DecimalExponent),
    ('1.7E18', 17, 17, DecimalExponent),
    ('9.01', 901, -2, DecimalSI),
    ('8.1k', 81, 2, DecimalSI),
    ('7.123456M', 7123456, 0, DecimalSI),
    ('6.987654321G', 6987654321, 0, DecimalSI),
    ('5.444T', 5444, 9, DecimalSI),
    ('40.1T', 401, 11, DecimalSI),
    ('300.2T', 3002, 11, DecimalSI),
    ('2.5P', 25, 14, DecimalSI),
    ('1.01E', 101, 16, DecimalSI),
    ('3.001n', 4, -9, DecimalSI),
    ('1.1E-9', 2, -9, DecimalExponent),
    ('0.0000000001', 1, -9, DecimalSI),
    ('0.0000000005', 1, -9, DecimalSI),
    ('0.00000000050', 1, -9, DecimalSI),
    ('0.5e-9', 1, -9, DecimalExponent),
    ('0.9n', 1, -9, DecimalSI),
    ('0.00000012345', 124, -9, DecimalSI),
    ('0.00000012354', 124, -9, DecimalSI),
    ('12E', 12, 18, DecimalSI),
    ('100.035Ki', 10243584, -2, BinarySI),
    ('0.5Mi', 524288, 0, BinarySI),
    ('0.05Gi', 536870912, -1, BinarySI),
    ('0.025Ti', 274877906944, -1, BinarySI),
    ('0.000000000001Ki', 2, -9, DecimalSI),
    ('.001', 1, -3, DecimalSI),
    ('.0001k', 100, -3, DecimalSI),
    ('1.', 1, 0, DecimalSI),
    ('1.G', 1, 9, DecimalSI),
]

# TestQuantityParse: the two inputs that saturate at maxAllowed.
SATURATE = ["9Ei", "9223372036854775807Ki"]

# TestQuantityParse: the invalid list (trailing whitespace is forbidden).
INVALID = ['1.1.M', '1+1.0M', '0.1mi', '0.1am', 'aoeu', '.5i', '1i', '-3.01i', '-3.01e-', ' 1', '1 ']

# TestQuantityString: (mantissa, exponent, format) → canonical string, and an alternate spelling.
STRING = [
    (1073741824, 0, BinarySI, '1Gi', '1024Mi'),
    (314572800, 0, BinarySI, '300Mi', '307200Ki'),
    (6144, 0, BinarySI, '6Ki', ''),
    (1074815565824, 0, BinarySI, '1001Gi', '1025024Mi'),
    (1099511627776, 0, BinarySI, '1Ti', '1024Gi'),
    (5, 0, BinarySI, '5', '5000m'),
    (500, -3, BinarySI, '500m', '0.5'),
    (1, 9, DecimalSI, '1G', '1000M'),
    (1000, 6, DecimalSI, '1G', '0.001T'),
    (1000000, 3, DecimalSI, '1G', ''),
    (1000000000, 0, DecimalSI, '1G', ''),
    (1, -3, DecimalSI, '1m', '1000u'),
    (80, -3, DecimalSI, '80m', ''),
    (1080, -3, DecimalSI, '1080m', '1.08'),
    (108, -2, DecimalSI, '1080m', '1080000000n'),
    (10800, -4, DecimalSI, '1080m', ''),
    (300, 6, DecimalSI, '300M', ''),
    (1, 12, DecimalSI, '1T', ''),
    (1234567, 6, DecimalSI, '1234567M', ''),
    (1234567, -3, BinarySI, '1234567m', ''),
    (3, 3, DecimalSI, '3k', ''),
    (1025, 0, BinarySI, '1025', ''),
    (0, 0, DecimalSI, '0', ''),
    (0, 0, BinarySI, '0', ''),
    (1, 9, DecimalExponent, '1e9', '.001e12'),
    (1, -3, DecimalExponent, '1e-3', '0.001e0'),
    (1, -9, DecimalExponent, '1e-9', '1000e-12'),
    (80, -3, DecimalExponent, '80e-3', ''),
    (300, 6, DecimalExponent, '300e6', ''),
    (1, 12, DecimalExponent, '1e12', ''),
    (1, 3, DecimalExponent, '1e3', ''),
    (3, 3, DecimalExponent, '3e3', ''),
    (3, 3, DecimalSI, '3k', ''),
    (0, 0, DecimalExponent, '0', '00'),
    (1, -9, DecimalSI, '1n', ''),
    (80, -9, DecimalSI, '80n', ''),
    (1080, -9, DecimalSI, '1080n', ''),
    (108, -8, DecimalSI, '1080n', ''),
    (10800, -10, DecimalSI, '1080n', ''),
    (1, -6, DecimalSI, '1u', ''),
    (80, -6, DecimalSI, '80u', ''),
    (1080, -6, DecimalSI, '1080u', ''),
]

# TestQuantityParseEmit
EMIT = [
    ('1Ki', '1Ki'), ('1Mi', '1Mi'), ('1Gi', '1Gi'), ('1024Mi', '1Gi'), ('1000M', '1G'),
    ('.001Ki', '1024m'), ('.000001Ki', '1024u'), ('.000000001Ki', '1024n'), ('.000000000001Ki', '2n'),
]

# TestParseQuantity (min/max 18-20 digits, int64 bounds): input → exact value, printed form.
BOUNDS = [
    ('-999999999999999999', '-999999999999999999', '-999999999999999999'),
    ('999999999999999999', '999999999999999999', '999999999999999999'),
    ('-999999999999999999.0', '-999999999999999999', '-999999999999999999'),
    ('999999999999999999.0', '999999999999999999', '999999999999999999'),
    ('-999999999999999999.1', '-999999999999999999.1', '-999999999999999999100m'),
    ('999999999999999999.1', '999999999999999999.1', '999999999999999999100m'),
    ('-9999999999999999999', '-9999999999999999999', '-9999999999999999999'),
    ('9999999999999999999', '9999999999999999999', '9999999999999999999'),
    ('-1E', '-1000000000000000000', '-1E'),
    ('1E', '1000000000000000000', '1E'),
    ('-1000000000000000000', '-1000000000000000000', '-1E'),
    ('1000000000000000000', '1000000000000000000', '1E'),
    ('-9999999999999999999.0', '-9999999999999999999', '-9999999999999999999'),
    ('9999999999999999999.0', '9999999999999999999', '9999999999999999999'),
    ('-1.0E', '-1000000000000000000', '-1E'),
    ('1.0E', '1000000000000000000', '1E'),
    ('-1000000000000000000.0', '-1000000000000000000', '-1E'),
    ('1000000000000000000.0', '1000000000000000000', '1E'),
    ('-9999999999999999999000m', '-9999999999999999999', '-9999999999999999999'),
    ('9999999999999999999000m', '9999999999999999999', '9999999999999999999'),
    ('-9999999999999999999.1', '-9999999999999999999.1', '-9999999999999999999100m'),
    ('9999999999999999999.1', '9999999999999999999.1', '9999999999999999999100m'),
    ('-1.0000000000000000001E', '-1000000000000000000.1', '-1000000000000000000100m'),
    ('1.0000000000000000001E', '1000000000000000000.1', '1000000000000000000100m'),
    ('-1000000000000000000.1', '-1000000000000000000.1', '-1000000000000000000100m'),
    ('1000000000000000000.1', '1000000000000000000.1', '1000000000000000000100m'),
    ('-1.000000000000000001E', '-1000000000000000001', '-1000000000000000001'),
    ('1.000000000000000001E', '1000000000000000001', '1000000000000000001'),
    ('-1000000000000000001', '-1000000000000000001', '-1000000000000000001'),
    ('1000000000000000001', '1000000000000000001', '1000000000000000001'),
    ('-10E', '-10000000000000000000', '-10E'),
    ('10E', '10000000000000000000', '10E'),
    ('-10000000000000000000', '-10000000000000000000', '-10E'),
    ('10000000000000000000', '10000000000000000000', '10E'),
    ('-10.0E', '-10000000000000000000', '-10E'),
    ('10.0E', '10000000000000000000', '10E'),
    ('-10000000000000000000.0', '-10000000000000000000', '-10E'),
    ('10000000000000000000.0', '10000000000000000000', '10E'),
    ('-10000000000000000000000m', '-10000000000000000000', '-10E'),
    ('10000000000000000000000m', '10000000000000000000', '10E'),
    ('-10.0000000000000000001E', '-10000000000000000000.1', '-10000000000000000000100m'),
    ('10.0000000000000000001E', '10000000000000000000.1', '10000000000000000000100m'),
    ('-10000000000000000000.1', '-10000000000000000000.1', '-10000000000000000000100m'),
    ('10000000000000000000.1', '10000000000000000000.1', '10000000000000000000100m'),
    ('-10.000000000000000001E', '-10000000000000000001', '-10000000000000000001'),
    ('10.000000000000000001E', '10000000000000000001', '10000000000000000001'),
    ('-10000000000000000001', '-10000000000000000001', '-10000000000000000001'),
    ('10000000000000000001', '10000000000000000001', '10000000000000000001'),
    ('-9223372036854775809', '-9223372036854775809', '-9223372036854775809'),
    ('9223372036854775806', '9223372036854775806', '9223372036854775806'),
    ('-9223372036854775809.0', '-9223372036854775809', '-9223372036854775809'),
    ('9223372036854775806.0', '9223372036854775806', '9223372036854775806'),
    ('-9223372036854775809000m', '-9223372036854775809', '-9223372036854775809'),
    ('9223372036854775806000m', '9223372036854775806', '9223372036854775806'),
    ('-9223372036854775809.1', '-9223372036854775809.1', '-9223372036854775809100m'),
    ('9223372036854775806.1', '9223372036854775806.1', '9223372036854775806100m'),
    ('-9223372036854775808', '-9223372036854775808', '-9223372036854775808'),
    ('9223372036854775807', '9223372036854775807', '9223372036854775807'),
    ('-9223372036854775808.0', '-9223372036854775808', '-9223372036854775808'),
    ('9223372036854775807.0', '9223372036854775807', '9223372036854775807'),
    ('-9223372036854775808000m', '-9223372036854775808', '-9223372036854775808'),
    ('9223372036854775807000m', '9223372036854775807', '9223372036854775807'),
    ('-9223372036854775808.1', '-9223372036854775808.1', '-9223372036854775808100m'),
    ('9223372036854775807.1', '9223372036854775807.1', '9223372036854775807100m'),
    ('-9223372036854775807', '-9223372036854775807', '-9223372036854775807'),
    ('9223372036854775808', '9223372036854775808', '9223372036854775808'),
    ('-9223372036854775807.0', '-9223372036854775807', '-9223372036854775807'),
    ('9223372036854775808.0', '9223372036854775808', '9223372036854775808'),
    ('-9223372036854775807000m', '-9223372036854775807', '-9223372036854775807'),
    ('9223372036854775808000m', '9223372036854775808', '9223372036854775808'),
    ('-9223372036854775807.1', '-9223372036854775807.1', '-9223372036854775807100m'),
    ('9223372036854775808.1', '9223372036854775808.1', '9223372036854775808100m'),
]


def q(m: int, e: int, fmt: Format = DecimalSI) -> Quantity:
    return Quantity.scaled(m, e, fmt)


@pytest.mark.parametrize("sign", ["", "-", "+"])
@pytest.mark.parametrize(("text", "m", "e", "fmt"), PARSE)
def test_quantity_parse(text: str, m: int, e: int, fmt: Format, sign: str) -> None:
    # upstream also parses every case with a leading "-" and an explicit "+"
    got = parse_quantity(sign + text)
    want = q(m, e, fmt)
    assert got.cmp(want.neg() if sign == "-" else want) == 0
    assert got.format is fmt


@pytest.mark.parametrize("text", SATURATE)
def test_quantity_parse_saturates_binary_at_max_allowed(text: str) -> None:
    got = parse_quantity(text)
    assert got.cmp(q(MAX_ALLOWED, 0, BinarySI)) == 0 and got.format is BinarySI


@pytest.mark.parametrize("text", ["", *INVALID])
def test_quantity_parse_invalid(text: str) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(text)


def test_quantity_parse_zero_and_non_numeric() -> None:
    # TestQuantityParseZero, TestQuantityParseNonNumericPanic
    assert str(parse_quantity("0")) == "0"
    with pytest.raises(QuantityError):
        parse_quantity("Non-Numeric")


@pytest.mark.parametrize(("m", "e", "fmt", "expect", "alternate"), STRING)
def test_quantity_string(m: int, e: int, fmt: Format, expect: str, alternate: str) -> None:
    value = q(m, e, fmt)
    assert str(value) == expect
    assert str(parse_quantity(expect)) == expect  # the canonical string is kept on parse
    if alternate:
        assert str(parse_quantity(alternate)) == expect
    if m:
        assert str(value.neg()) == "-" + expect  # never "-0"


@pytest.mark.parametrize(("text", "expect"), EMIT)
def test_quantity_parse_emit(text: str, expect: str) -> None:
    assert str(parse_quantity(text)) == expect
    negative = parse_quantity("-" + text)
    assert str(negative) == "-" + expect


@pytest.mark.parametrize(("text", "exact", "printed"), BOUNDS)
def test_parse_quantity_bounds(text: str, exact: str, printed: str) -> None:
    got = parse_quantity(text)
    assert got.as_fraction() == Fraction(exact)
    assert str(got) == printed


@pytest.mark.parametrize(("a", "b", "expect"), [
    ("0", "0", 0), ("100m", "50m", 1), ("50m", "100m", -1), ("10000T", "100Gi", 1),
])
def test_quantity_cmp(a: str, b: str, expect: int) -> None:
    assert parse_quantity(a).cmp(parse_quantity(b)) == expect


MOST_POSITIVE, MOST_NEGATIVE = 2**63 - 1, -(2**63)
E18 = 10**18


# TestQuantityCmpInt64AndDec: intQuantity(m, scale) pairs and the expected Cmp (both directions).
@pytest.mark.parametrize(("a", "b", "expect"), [
    ((901, -2), (901, -2), 0), ((90, -1), (901, -2), -1), ((901, -2), (900, -2), 1),
    ((0, 0), (0, 0), 0), ((0, 1), (0, -1), 0), ((0, -1), (0, 1), 0),
    ((800, -3), (1, 0), -1), ((800, -3), (79, -2), 1),
    ((MOST_POSITIVE, 0), (1, -1), 1), ((MOST_POSITIVE, 1), (1, 0), 1),
    ((MOST_POSITIVE, 1), (1, 1), 1), ((MOST_POSITIVE, 1), (0, 1), 1),
    ((MOST_POSITIVE, -16), (1, 3), -1),
    ((MOST_NEGATIVE, 0), (0, 0), -1), ((MOST_NEGATIVE, -18), (-1, 0), -1),
    ((MOST_NEGATIVE, -19), (-1, 0), 1),
    ((E18, -17), (1, 1), 0), ((E18, -17), (-10, 0), 1), ((-E18, -17), (-10, 0), 0),
    ((E18, -17), (1, 0), 1), ((E18 + 1, -17), (1, 1), 1), ((E18 - 1, -17), (1, 1), -1),
])
def test_quantity_cmp_int64_and_dec(a: tuple[int, int], b: tuple[int, int], expect: int) -> None:
    assert q(*a).cmp(q(*b)) == expect
    assert q(*b).cmp(q(*a)) == -expect


@pytest.mark.parametrize("text", ["100m", "1Gi"])
def test_quantity_add_sub_zero_preserves_suffix(text: str) -> None:
    # TestQuantityAddZeroPreservesSuffix, TestQuantitySubZeroPreservesSuffix
    value, zero = parse_quantity(text), parse_quantity("0")
    assert str(value.add(zero)) == text
    assert str(zero.add(value)) == text
    assert str(value.sub(zero)) == text
    assert str(zero.sub(value)) == str(value.neg())


# TestAdd / TestSub: (a, b, a+b, a-b); the zero Quantity{Format: DecimalSI} is (0, 0).
@pytest.mark.parametrize(("a", "b", "total", "difference"), [
    ((10, 0, DecimalSI), (1, 1, DecimalSI), 20, 0),
    ((10, 0, DecimalSI), (1, 0, BinarySI), 11, 9),
    ((10, 0, BinarySI), (1, 0, DecimalSI), 11, 9),
    ((0, 0, DecimalSI), (50, 0, DecimalSI), 50, -50),
    ((50, 0, DecimalSI), (0, 0, DecimalSI), 50, 50),
    ((0, 0, DecimalSI), (0, 0, DecimalSI), 0, 0),
])
def test_add_sub(a: tuple[int, int, Format], b: tuple[int, int, Format], total: int, difference: int) -> None:
    assert q(*a).add(q(*b)).cmp(q(total, 0)) == 0
    assert q(*a).sub(q(*b)).cmp(q(difference, 0)) == 0


# TestMul (the value half; the overflow flag does not translate)
@pytest.mark.parametrize(("m", "factor"), [
    (10, 10), (10, 1), (0, 50), (50, 0), (10, -10), (-10, 1), (-50, 0), (-50, -50),
    (MOST_POSITIVE, 0), (MOST_POSITIVE, -1), (MOST_POSITIVE, 2), (MOST_POSITIVE, 10),
    (MOST_NEGATIVE, -1), (MOST_NEGATIVE, 2), (MOST_NEGATIVE, -10),
])
def test_mul(m: int, factor: int) -> None:
    assert q(m, 0).mul(factor).as_fraction() == m * factor


# TestNewSet / TestMilliNewSet / TestNewScaledSet (the "invalidFormat" rows do not translate)
@pytest.mark.parametrize(("value", "fmt", "expect"), [
    (1, DecimalSI, "1"), (1000, DecimalSI, "1k"), (1234000, DecimalSI, "1234k"),
    (1024, BinarySI, "1Ki"), (1024 * 1024, BinarySI, "1Mi"),
])
def test_new_set(value: int, fmt: Format, expect: str) -> None:
    assert str(Quantity.scaled(value, 0, fmt)) == expect
    assert parse_quantity(expect).value() == value


@pytest.mark.parametrize(("value", "fmt", "expect"), [
    (1, DecimalSI, "1m"), (1000, DecimalSI, "1"), (1234000, DecimalSI, "1234"),
    (1024, BinarySI, "1024m"), (1024 * 1024, BinarySI, "1048576m"),
])
def test_milli_new_set(value: int, fmt: Format, expect: str) -> None:
    assert str(Quantity.milli(value, fmt)) == expect
    assert parse_quantity(expect).milli_value() == value


@pytest.mark.parametrize(("value", "scale", "expect"), [
    (1, -9, "1n"), (1000, -9, "1u"), (1, -6, "1u"), (1000, -6, "1m"), (1, -3, "1m"),
    (1000, -3, "1"), (1, 0, "1"), (0, -9, "0"), (0, -6, "0"), (0, -3, "0"), (0, 0, "0"),
])
def test_new_scaled_set(value: int, scale: int, expect: str) -> None:
    assert str(Quantity.scaled(value, scale)) == expect
    assert parse_quantity(expect).scaled_value(scale) == value


@pytest.mark.parametrize(("from_scale", "to_scale", "expect"), [
    (-9, -9, 1), (-9, -6, 1), (-9, -3, 1), (-9, 0, 1), (-6, -9, 1000), (-6, -6, 1), (-6, -3, 1),
    (-6, 0, 1), (-3, -9, 10**6), (-3, -6, 1000), (-3, -3, 1), (-3, 0, 1), (0, -9, 10**9),
    (0, -6, 10**6), (0, -3, 1000), (0, 0, 1), (2, -2, 100 * 100),
])
def test_scaled_value(from_scale: int, to_scale: int, expect: int) -> None:
    assert Quantity.scaled(1, from_scale).scaled_value(to_scale) == expect


@pytest.mark.parametrize(("wire", "expect"), [
    (" 1", "1"), ("1 ", "1"), (1, "1"), (10, "10"), (-1, "-1"),
])
def test_json_whitespace(wire: str | int, expect: str) -> None:
    # TestJSONWhitespace: a JSON string with surrounding space, or a JSON number, decodes
    assert str(TypeAdapter(Quantity).validate_python(wire)) == expect
