"""``PodInfo.index``: the completion index is read once per view (upstream indexed_job_utils.go
``getCompletionIndex``: ``strconv.Atoi`` of the annotation, unknown when absent, invalid or negative)
and stays the annotation's value through ``dataclasses.replace``."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.batch_constants import (
    JOB_COMPLETION_INDEX_ANNOTATION,
    JOB_INDEX_FAILURE_COUNT_ANNOTATION,
    JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION,
)
from kbatch.controllers.job.classification import annotation_count, valid_index
from kbatch.controllers.job.views import UNKNOWN_INDEX, PodInfo

values = st.one_of(st.none(), st.integers(-5, 10**6).map(str), st.text(max_size=6),
                   st.sampled_from(["+3", "-0", "07", "٣", " 1", "1 ", ""]))


def _atoi(text: str) -> int | None:
    """Go's strconv.Atoi: optional sign then ASCII digits, nothing else."""
    body = text[1:] if text[:1] in "+-" else text
    return int(text) if body and all("0" <= c <= "9" for c in body) else None


def _expected(value: str | None) -> int:
    parsed = None if value is None else _atoi(value)
    return UNKNOWN_INDEX if parsed is None or parsed < 0 else parsed


@given(values, values, st.one_of(st.none(), st.integers(0, 20)))
def test_index_is_the_annotation_parsed_and_follows_replace(first, second, completions) -> None:
    def annotations(v: str | None) -> dict[str, str]:
        return {} if v is None else {JOB_COMPLETION_INDEX_ANNOTATION: v}

    pod = PodInfo("p", "u", annotations=annotations(first))
    assert pod.index == _expected(first)
    moved = replace(pod, annotations=annotations(second))
    assert moved.index == _expected(second)
    ix = moved.index
    in_range = ix != UNKNOWN_INDEX and completions is not None and ix < completions
    assert valid_index(moved, completions) == (ix if in_range else None)


def test_the_index_does_not_take_part_in_equality() -> None:
    a = PodInfo("p", "u", annotations={JOB_COMPLETION_INDEX_ANNOTATION: "3"})
    assert a == PodInfo("p", "u", annotations={JOB_COMPLETION_INDEX_ANNOTATION: "3"})
    assert a.index == 3 and " index=" not in repr(a)


def test_an_index_beyond_int64_is_unknown() -> None:
    """``strconv.Atoi`` on a 64-bit platform is ``ParseInt(s, 10, 0)``: a value out of int64's range
    is an error, so ``getCompletionIndex`` answers unknownCompletionIndex."""
    assert PodInfo("p", "u", annotations={JOB_COMPLETION_INDEX_ANNOTATION: "9223372036854775807"}).index \
        == 2**63 - 1
    for text in ("9223372036854775808", "-9223372036854775809", "99999999999999999999"):
        assert PodInfo("p", "u", annotations={JOB_COMPLETION_INDEX_ANNOTATION: text}).index == UNKNOWN_INDEX


@pytest.mark.parametrize(("text", "count"), [
    ("3", 3), ("2147483647", 2147483647), ("2147483648", 0), ("9223372036854775807", 0),
    ("99999999999999999999", 0), ("-1", 0), ("x", 0), ("+2", 2),
])
@pytest.mark.parametrize("ignored", [False, True])
def test_failure_counts_are_parse_int32(text: str, count: int, ignored: bool) -> None:
    """indexed_job_utils.go ``parseInt32`` (the job-index-failure-count and
    job-index-ignored-failure-count annotations): ``strconv.Atoi``, and 0 when that fails or the value
    is negative or above ``math.MaxInt32``."""
    key = JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION if ignored else JOB_INDEX_FAILURE_COUNT_ANNOTATION
    assert annotation_count(PodInfo("p", "u", annotations={key: text}), ignored=ignored) == count
