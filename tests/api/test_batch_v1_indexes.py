"""The Job API's index interval strings ("1,3-5,7")."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.batch_indexes import (
    IndexesError,
    count_indexes,
    first_overlap,
    format_indexes,
    iter_indexes,
    parse_indexes,
    parse_indexes_lenient,
    to_intervals,
)


@pytest.mark.parametrize(
    ("indexes", "text"),
    [
        ([], ""),
        ([0], "0"),
        ([0, 1], "0,1"),
        ([0, 1, 2], "0-2"),
        ([1, 3, 4, 5, 7], "1,3-5,7"),
        ([5, 3, 4, 4, 9, 10], "3-5,9,10"),
    ],
)
def test_format(indexes: list[int], text: str) -> None:
    assert format_indexes(indexes) == text


@pytest.mark.parametrize(
    ("text", "completions", "message"),
    [
        (
            "1-2-3",
            10,
            'the fragment "1-2-3" violates the requirement that an index interval can have '
            "at most two parts separated by '-'",
        ),
        ("a", 10, 'cannot convert string to integer for index: "a"'),
        ("1,", 10, 'cannot convert string to integer for index: ""'),
        ("10", 10, 'too large index: "10"'),
        ("1-10", 10, 'too large index: "10"'),
        ("3-3", 10, "non-increasing order, previous: 3, current: 3"),
        ("3,2", 10, "non-increasing order, previous: 3, current: 2"),
        ("1-3,3", 10, "non-increasing order, previous: 3, current: 3"),
    ],
)
def test_strict_parse_errors(text: str, completions: int, message: str) -> None:
    with pytest.raises(IndexesError) as err:
        parse_indexes(text, completions)
    assert str(err.value) == message


def test_strict_parse_counts() -> None:
    intervals = parse_indexes("0,2-4,7,8", 9)
    assert intervals == [(0, 0), (2, 4), (7, 7), (8, 8)]
    assert count_indexes(intervals) == 6


def test_lenient_parse_drops_bad_parts_and_large_indexes() -> None:
    assert parse_indexes_lenient("x,1,3-5,7-12,20", 10) == [(1, 1), (3, 5), (7, 9)]
    assert parse_indexes_lenient("", 10) == []


def test_overlap() -> None:
    assert first_overlap("0-3,7", "4,5,7", 10) == 7
    assert first_overlap("0-3", "4-6", 10) is None
    assert first_overlap("", "1", 10) is None


@given(st.sets(st.integers(0, 300)))
def test_round_trip(indexes: set[int]) -> None:
    text = format_indexes(indexes)
    intervals = parse_indexes(text, 301)  # the controller's format always passes strict validation
    assert set(iter_indexes(intervals)) == indexes
    assert count_indexes(intervals) == len(indexes)
    assert parse_indexes_lenient(text, 301) == to_intervals(indexes)
    parts = text.split(",")
    for first, last in to_intervals(indexes):  # runs of two are "a,b", longer runs "a-b"
        assert (f"{first}-{last}" in parts) == (last >= first + 2)
