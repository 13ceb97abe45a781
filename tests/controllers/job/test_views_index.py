"""``PodInfo.index``: the completion index is read once per view (upstream indexed_job_utils.go
``getCompletionIndex``: ``strconv.Atoi`` of the annotation, unknown when absent, invalid or negative)
and stays the annotation's value through ``dataclasses.replace``."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.batch_constants import JOB_COMPLETION_INDEX_ANNOTATION
from kbatch.controllers.job.classification import valid_index
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
