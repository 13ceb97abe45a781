"""``indexed_job_utils_test.go``'s cases against kbatch.

Source: kubernetes/kubernetes ``pkg/controller/job/indexed_job_utils_test.go`` (stored commit
0d173114, an old copy: JobTrackingWithFinalizers still switchable there; GA since 1.26, so every
case is read with finalizer tracking on and the previous ``completedIndexes`` counted). Upstream's
``calculateSucceededIndexes`` and ``firstPendingIndexes`` are part of kbatch's per-sync snapshot
(``context.build_context``, ``manage.pending_indexes``), driven here with the Job and pod views;
``podGenerateNameWithIndex`` is ``pod_template.indexed_generate_name``;
``appendDuplicatedIndexPodsForRemoval`` is driven through the control plane (which pods an Indexed
Job's sync deletes). ``TestIntervalsHaveIndex`` has no kbatch counterpart: kbatch keeps indexes as
sets, not interval lists.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Any

import pytest

from kbatch.api.batch_indexes import format_indexes, iter_indexes, parse_indexes_lenient
from kbatch.controllers.job.context import SyncConfig, build_context
from kbatch.controllers.job.manage import pending_indexes
from kbatch.controllers.job.pod_template import indexed_generate_name
from kbatch.controllers.job.views import JobStatusInfo, PodInfo

from .builders import make_job
from .upstream import INDEX, Case, P, job_manifest

NO_INDEX = "-"
NOW = datetime(2025, 1, 1, tzinfo=UTC)


def hollow(pairs: list[tuple[str, str]]) -> list[PodInfo]:
    """upstream's ``hollowPodsWithIndexPhase``: pods with an index annotation (unless "-") and a phase,
    holding the tracking finalizer."""
    return [PodInfo(name=f"p{i}", uid=f"u{i}", phase=phase,
                    annotations={} if ix == NO_INDEX else {INDEX: ix})
            for i, (ix, phase) in enumerate(pairs)]


def _ctx(completions: int, pods: list[PodInfo], completed: str = "") -> Any:
    job = make_job(indexed=True, completions=completions, parallelism=completions,
                   status=JobStatusInfo(completed_indexes=completed))
    return build_context(job, pods, NOW, None, SyncConfig())


# -- TestCalculateSucceededIndexes ----------------------------------------------------------------
S, F, R, PD = "Succeeded", "Failed", "Running", "Pending"
# name: (prev completedIndexes, pods, completions, want prev (status) indexes, want indexes)
SUCCEEDED: dict[str, tuple[Any, ...]] = {
    "one index": ("", [("1", S)], 2, "", "1"),
    "two separate": ("", [("2", F), ("5", S), ("5", S), ("10", F), ("10", S)], 11, "", "5,10"),
    "two intervals": ("", [("0", R), ("1", PD), ("2", S), ("3", S), ("5", S), ("6", S), ("7", S)], 8, "",
                      "2,3,5-7"),
    # upstream (tracking off) ignored the previous "3-5"; with tracking (GA) its in-range part counts
    "one interval, ignore previous": (
        "3-5", [("0", S), ("1", F), ("1", S), ("2", S), ("2", S), ("3", F)], 4, "3", "0-3"),
    "one index and one interval": (
        "", [("0", S), ("1", F), ("2", S), ("3", S), ("4", S), ("5", S), (NO_INDEX, S), ("-2", S)], 6, "",
        "0,2-5"),
    "out of range": (
        "", [("0", S), ("1", S), ("2", S), ("3", F), ("4", S), ("5", S), (NO_INDEX, S), ("-2", S)], 5, "",
        "0-2,4"),
    "prev interval out of range": ("0-5,8-10", [], 8, "0-5", "0-5"),
    "prev interval partially out of range": ("0-5,8-10", [], 10, "0-5,8,9", "0-5,8,9"),
    "prev and new separate": ("0,4,5,10-12", [("2", S), ("7", S), ("8", S)], 13, "0,4,5,10-12",
                              "0,2,4,5,7,8,10-12"),
    "prev between new": ("3,4,6", [("2", S), ("7", S), ("8", S)], 9, "3,4,6", "2-4,6-8"),
    "new between prev": ("2,7,8", [("3", S), ("4", S), ("6", S)], 9, "2,7,8", "2-4,6-8"),
    "new within prev": ("2-7", [("0", S), ("3", S), ("5", S), ("9", S)], 10, "2-7", "0,2-7,9"),
    "corrupted interval": ("0,1-foo,bar", [("3", S)], 4, "0", "0,3"),
}


@pytest.mark.parametrize("name", list(SUCCEEDED))
def test_calculate_succeeded_indexes(name: str) -> None:
    prev, pods, completions, want_prev, want = SUCCEEDED[name]
    ctx = _ctx(completions, hollow(pods), prev)
    assert format_indexes(ctx.prev_succeeded_indexes) == want_prev
    assert format_indexes(ctx.succeeded_indexes) == want


# -- TestFirstPendingIndexes ----------------------------------------------------------------------
# name: (count, completions, active pods, succeeded indexes, want)
PENDING: dict[str, tuple[Any, ...]] = {
    "cnt greater than completions": (5, 3, [], "", [0, 1, 2]),
    "cnt less than completions": (2, 5, [], "", [0, 1]),
    "first pods active": (3, 10, [("0", R), ("1", PD)], "", [2, 3, 4]),
    "last pods active or succeeded": (6, 6, [("6", PD)], "4,5", [0, 1, 2, 3]),
    "mixed": (5, 20, [("3", PD), ("5", R), ("8", PD), (NO_INDEX, R), ("-3", R)], "2-4,9", [0, 1, 6, 7, 10]),
}


@pytest.mark.parametrize("name", list(PENDING))
def test_first_pending_indexes(name: str) -> None:
    count, completions, active, succeeded, want = PENDING[name]
    ctx = _ctx(completions, hollow(active), succeeded)
    assert pending_indexes(ctx, count) == want


# -- TestPodGenerateNameWithIndex -----------------------------------------------------------------
GENERATE_NAME: dict[str, tuple[str, int, str]] = {
    "short job name": ("indexed-job", 1, "indexed-job-1-"),
    "job name exceeds MaxGeneneratedNameLength": (
        "hhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooo", 1,
        "hhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhh-1-"),
    "job name with index suffix exceeds MaxGeneratedNameLength": (
        "hhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhoo", 1,
        "hhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhhooooohhhhh-1-"),
}


@pytest.mark.parametrize("name", list(GENERATE_NAME))
def test_pod_generate_name_with_index(name: str) -> None:
    job_name, index, want = GENERATE_NAME[name]
    assert indexed_generate_name(job_name, index) == want


# -- TestAppendDuplicatedIndexPodsForRemoval, through an Indexed Job's sync -----------------------
# name: (pods, want removed (index, phase), completions); parallelism = completions, so only the
# duplicate, invalid and out-of-range pods are deleted
DUPLICATES: dict[str, tuple[Any, ...]] = {
    "all unique": ([(NO_INDEX, PD), ("2", PD), ("5", R), ("6", R)], [(NO_INDEX, PD), ("6", R)], 6),
    "all with index": (
        [("5", PD), ("0", R), ("3", PD), ("0", R), ("3", R), ("0", PD), ("6", R), ("6", PD)],
        [("0", PD), ("0", R), ("3", PD), ("6", R), ("6", PD)], 6),
    "mixed": (
        [(NO_INDEX, PD), ("invalid", R), ("-2", R), ("0", PD), ("1", PD), ("1", PD), ("1", R)],
        [(NO_INDEX, PD), ("invalid", R), ("-2", R), ("1", PD), ("1", PD)], 6),
}


@pytest.mark.parametrize("name", list(DUPLICATES))
def test_append_duplicated_index_pods_for_removal(name: str) -> None:
    pods, want, completions = DUPLICATES[name]
    seeded = [P(phase, index=None if ix == NO_INDEX else ix) for ix, phase in pods]
    case = Case(job_manifest(completions, completions, 6, completionMode="Indexed"), seeded)
    got = case.run()
    by_name = dict(zip(case.seeded, pods, strict=True))
    assert Counter(by_name[n] for n in got.deleted) == Counter(want)


def test_parse_indexes_from_string_keeps_what_parses() -> None:
    # calculateSucceededIndexes' "corrupted interval" and "prev interval out of range" read through
    # parseIndexesFromString: bad fragments skipped, indexes at or above completions dropped
    assert list(iter_indexes(parse_indexes_lenient("0,1-foo,bar", 4))) == [0]
    assert list(iter_indexes(parse_indexes_lenient("0-5,8-10", 10))) == [0, 1, 2, 3, 4, 5, 8, 9]
