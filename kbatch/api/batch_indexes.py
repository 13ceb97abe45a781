"""Index sets in the Job API's interval format: ``"1,3-5,7"``.

Used by ``status.completedIndexes``, ``status.failedIndexes`` and
``spec.successPolicy.rules[].succeededIndexes``. Upstream sources:

- strict parsing for validation: pkg/apis/batch/validation/validation.go (``validateIndexesFormat``,
  ``parseIndexInterval``, ``validateFailedIndexesNotOverlapCompleted``) — the error texts here are
  those, since they end up in field errors;
- formatting and lenient parsing for the controller: pkg/controller/job/indexed_job_utils.go
  (``orderedIntervals.String``, ``parseIndexesFromString``) — a run of exactly two indexes is written
  ``"a,b"``, a longer run ``"a-b"``.

An interval is a ``(first, last)`` tuple, inclusive; "ordered intervals" are sorted, disjoint and
non-adjacent, as produced by :func:`to_intervals`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

__all__ = [
    "IndexesError",
    "Interval",
    "count_indexes",
    "first_overlap",
    "format_indexes",
    "format_intervals",
    "iter_indexes",
    "parse_indexes",
    "parse_indexes_lenient",
    "to_intervals",
]

Interval = tuple[int, int]


class IndexesError(ValueError):
    """A malformed index string; the message is upstream's (``too large index: "7"``)."""


_INT64_DIGITS = 19  # len(str(2**63 - 1))


def _parse_int(text: str) -> int:
    # Go's strconv.Atoi (a 64-bit int): optional sign, decimal digits only, and a value that fits
    # in an int64, else ErrRange, which upstream's parseIndexInterval reports the same way. The
    # digit count is checked before ``int()``, which refuses strings of over 4300 digits.
    body = text[1:] if text[:1] in ("+", "-") else text
    digits = body.lstrip("0")
    bad = f'cannot convert string to integer for index: "{text}"'
    if not body.isascii() or not body.isdigit() or len(digits) > _INT64_DIGITS:
        raise IndexesError(bad)
    value = int(text)
    if not -(2**63) <= value < 2**63:
        raise IndexesError(bad)
    return value


def _parse_interval(text: str, completions: int) -> Interval:
    limits = text.split("-")
    if len(limits) > 2:
        raise IndexesError(f'the fragment "{text}" violates the requirement that an index interval can '
                           "have at most two parts separated by '-'")
    first = _parse_int(limits[0])
    if first >= completions:
        raise IndexesError(f'too large index: "{limits[0]}"')
    if len(limits) == 1:
        return first, first
    last = _parse_int(limits[1])
    if last >= completions:
        raise IndexesError(f'too large index: "{limits[1]}"')
    if first >= last:
        raise IndexesError(f"non-increasing order, previous: {first}, current: {last}")
    return first, last


def parse_indexes(text: str, completions: int) -> list[Interval]:
    """Strictly parse ``text``: every index below ``completions``, intervals strictly increasing.

    Raises :class:`IndexesError` with upstream's message. ``""`` is the empty set.
    Note that, as upstream, a negative index such as ``"-1"`` is rejected only by its shape.
    """
    if not text:
        return []
    intervals: list[Interval] = []
    for part in text.split(","):
        first, last = _parse_interval(part, completions)
        if intervals and intervals[-1][1] >= first:
            raise IndexesError(f"non-increasing order, previous: {intervals[-1][1]}, current: {first}")
        intervals.append((first, last))
    return intervals


def count_indexes(intervals: Iterable[Interval]) -> int:
    return sum(last - first + 1 for first, last in intervals)


def parse_indexes_lenient(text: str, completions: int) -> list[Interval]:
    """What the controller reads from a status string: bad fragments skipped, indexes at or above
    ``completions`` dropped, result ordered and merged."""
    indexes: list[Interval] = []
    for part in text.split(",") if text else ():
        limits = part.split("-")
        try:
            first = _parse_int(limits[0])
            last = _parse_int(limits[1]) if len(limits) == 2 else first
        except IndexesError:
            continue
        if len(limits) > 2 or first < 0 or last < first or first >= completions:
            continue
        indexes.append((first, min(last, completions - 1)))
    return _merge(sorted(indexes))


def _merge(sorted_intervals: Iterable[Interval]) -> list[Interval]:
    merged: list[Interval] = []
    for first, last in sorted_intervals:
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return merged


def to_intervals(indexes: Iterable[int]) -> list[Interval]:
    """Ordered intervals of a collection of non-negative indexes (duplicates allowed)."""
    return _merge((i, i) for i in sorted(set(indexes)))


def iter_indexes(intervals: Iterable[Interval]) -> Iterator[int]:
    for first, last in intervals:
        yield from range(first, last + 1)


def format_intervals(intervals: Iterable[Interval]) -> str:
    """``[(1, 1), (3, 5), (7, 8)]`` → ``"1,3-5,7,8"`` (runs of two are written ``a,b``)."""
    parts: list[str] = []
    for first, last in intervals:
        if last == first:
            parts.append(str(first))
        elif last == first + 1:
            parts.append(f"{first},{last}")
        else:
            parts.append(f"{first}-{last}")
    return ",".join(parts)


def format_indexes(indexes: Iterable[int]) -> str:
    """``{7, 1, 3, 4, 5}`` → ``"1,3-5,7"``."""
    return format_intervals(to_intervals(indexes))


def first_overlap(completed: str, failed: str, completions: int) -> int | None:
    """The first index present in both strings, skipping fragments that do not parse (upstream's
    ``validateFailedIndexesNotOverlapCompleted``, whose format errors are reported elsewhere)."""
    def fragments(text: str) -> list[Interval]:
        out: list[Interval] = []
        for part in text.split(",") if text else ():
            try:
                out.append(_parse_interval(part, completions))
            except IndexesError:
                continue
        return out

    done, bad = fragments(completed), fragments(failed)
    i = j = 0
    while i < len(done) and j < len(bad):
        (c_first, c_last), (f_first, f_last) = done[i], bad[j]
        if c_first <= f_last and f_first <= c_last:
            return max(c_first, f_first)
        if c_first <= f_first:
            i += 1
        else:
            j += 1
    return None
