"""``kbatch.api.go_int``: Go's ``strconv.ParseInt``/``Atoi`` acceptance and error text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.go_int import NumError, go_parse_int, parse_int


@pytest.mark.parametrize("text, bits, value", [
    ("3", 64, 3), ("+3", 64, 3), ("-0", 64, 0), ("007", 64, 7),
    ("-9223372036854775808", 64, -(2**63)), ("2147483647", 32, 2**31 - 1), ("-2147483648", 32, -(2**31)),
])
def test_go_takes_a_sign_and_ascii_digits_in_range(text: str, bits: int, value: int) -> None:
    assert go_parse_int(text, bits) == value == parse_int(text, bits)


@pytest.mark.parametrize("text, bits, message", [
    (" 3", 64, 'strconv.ParseInt: parsing " 3": invalid syntax'),
    ("3\n", 64, 'strconv.ParseInt: parsing "3\\n": invalid syntax'),
    ("1_0", 64, 'strconv.ParseInt: parsing "1_0": invalid syntax'),
    ("٣", 64, 'strconv.ParseInt: parsing "٣": invalid syntax'),
    ("", 64, 'strconv.ParseInt: parsing "": invalid syntax'),
    ("+", 64, 'strconv.ParseInt: parsing "+": invalid syntax'),
    ("+-1", 64, 'strconv.ParseInt: parsing "+-1": invalid syntax'),
    ("9223372036854775808", 64, 'strconv.ParseInt: parsing "9223372036854775808": value out of range'),
    ("2147483648", 32, 'strconv.ParseInt: parsing "2147483648": value out of range'),
    # ParseUint stops at the first overflow, before it sees the bad byte
    ("99999999999999999999x", 64, 'strconv.ParseInt: parsing "99999999999999999999x": value out of range'),
    ("1" * 5000, 64, f'strconv.ParseInt: parsing "{"1" * 5000}": value out of range'),
])
def test_go_refuses_with_its_num_error(text: str, bits: int, message: str) -> None:
    with pytest.raises(NumError) as err:
        go_parse_int(text, bits)
    assert str(err.value) == message and parse_int(text, bits) is None


def test_atoi_names_itself() -> None:
    with pytest.raises(NumError, match=r'^strconv\.Atoi: parsing "x": invalid syntax$'):
        go_parse_int("x", func="Atoi")


@given(st.text(), st.sampled_from([8, 16, 32, 64]))
def test_it_takes_exactly_a_signed_ascii_number_in_range(text: str, bits: int) -> None:
    body = text[1:] if text[:1] in "+-" else text
    plain = body != "" and all("0" <= ch <= "9" for ch in body)
    expected = int(text) if plain and -(2 ** (bits - 1)) <= int(text) < 2 ** (bits - 1) else None
    assert parse_int(text, bits) == expected


_OTHER_DIGITS = st.characters(categories=["Nd"], exclude_characters="0123456789")


@given(st.text(_OTHER_DIGITS, min_size=1), st.text("0123456789"))
def test_any_other_scripts_digit_is_refused(digits: str, ascii_digits: str) -> None:
    assert parse_int(ascii_digits + digits) is None
