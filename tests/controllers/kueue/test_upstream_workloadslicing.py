"""``pkg/workloadslicing/workloadslicing_test.go`` (kueue v0.19.2), translated.

Each upstream table becomes a parametrized test of the pure function kbatch splits the rule into
(:mod:`kbatch.controllers.kueue.workloadslicing.slices`): ``TestEnabled``, ``TestPreemptibleSliceKey``,
``TestFindNotFinishedWorkloads``, ``TestEnsureWorkloadSlices``, ``TestNormalizeActiveSlices``,
``TestReplacedWorkloadSlice``, ``TestScaledDown``, ``TestFindLatestActiveWorkload``.

Upstream's ``EnsureWorkloadSlices`` writes through a client; kbatch's :func:`decide_slices` returns
what to write (the slices to finish, the counts to apply) and the job reconciler writes it. A row
whose ``error`` comes from a fake-client write that fails (an interceptor returning an error, or
the fake's missing server-side apply for the ``Finished`` patch) is checked here for the decision
upstream makes before that write; that a failed write is retried is the reconciler's (conflicts
re-run the reconcile). ``FailedListWorkloads`` has no counterpart: the reconciler lists from its
informer cache.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kbatch.api.batch_v1 import Job
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.workloadslicing import (
    decide_slices,
    enabled,
    find_latest_active,
    normalize_active_slices,
    not_finished,
    replaced_workload_slice,
    replacement_for_key,
    scaled_down,
)

NOW = datetime(2026, 1, 1, tzinfo=UTC)
AGO = NOW - timedelta(minutes=5)
REPLACES = "kueue.x-k8s.io/workload-slice-replacement-for"


def wl(
    name: str,
    pod_sets: dict[str, int] | None = None,
    *,
    created: datetime = NOW,
    uid: str = "",
    reserved: dict[str, int] | None = None,
    evicted: bool = False,
    finished: bool = False,
    replaces: str | None = None,
    ns: str = "default",
) -> Workload:
    """A Workload of job ``test``: ``pod_sets`` name → count (1 cpu each); ``reserved``: the
    admission's counts (a quota reservation in ClusterQueue ``default``)."""
    conditions = []
    status: dict[str, Any] = {}
    if reserved is not None:
        conditions.append(_cond("QuotaReserved"))
        status["admission"] = {
            "clusterQueue": "default",
            "podSetAssignments": [
                {"name": n, "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": str(c)}, "count": c}
                for n, c in reserved.items()
            ],
        }
    if evicted:
        conditions.append(_cond("Evicted"))
    if finished:
        conditions.append(_cond("Finished"))
    status["conditions"] = conditions or None
    meta: dict[str, Any] = {
        "name": name,
        "namespace": ns,
        "uid": uid or name,
        "creationTimestamp": created.isoformat().replace("+00:00", "Z"),
        "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "test", "uid": "job"}],
    }
    if replaces is not None:
        meta["annotations"] = {REPLACES: replaces}
    container = {"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}
    sets = [
        {"name": n, "count": c, "template": {"spec": {"containers": [container]}}}
        for n, c in (pod_sets or {"main": 1}).items()
    ]
    return Workload.model_validate({"metadata": meta, "spec": {"podSets": sets}, "status": status})


def _cond(kind: str) -> dict[str, Any]:
    return {
        "type": kind,
        "status": "True",
        "reason": kind,
        "message": "",
        "lastTransitionTime": "2026-01-01T00:00:00Z",
    }


# --- TestEnabled ---
@pytest.mark.parametrize(
    ("annotations", "want"),
    [
        pytest.param(None, False, id="NilAnnotation"),
        pytest.param({}, False, id="EmptyAnnotation"),
        pytest.param({"kueue.x-k8s.io/elastic-job": "true"}, True, id="Enabled"),
        pytest.param({"kueue.x-k8s.io/elastic-job": "True"}, False, id="NotEnabled"),  # case sensitive
    ],
)
def test_enabled(annotations: dict[str, str] | None, want: bool) -> None:
    job = Job.model_validate({"metadata": {"name": "j", "annotations": annotations}})
    assert enabled(job, False) is False  # always false with the gate off
    assert enabled(job, True) is want


def test_enabled_nil_object() -> None:
    assert enabled(None, True) is False


# --- TestPreemptibleSliceKey ---
def test_replacement_for_key() -> None:
    assert replacement_for_key(wl("a")) is None  # NilAnnotations / EmptyAnnotations
    assert replacement_for_key(wl("a", replaces="test/test")) == "test/test"  # Found


# --- TestFindNotFinishedWorkloads ---
def test_find_not_finished_sorted_and_filtered() -> None:
    got = not_finished(
        [
            wl("c", created=NOW),
            wl("b", created=NOW - timedelta(minutes=1), finished=True),
            wl("a", created=NOW - timedelta(minutes=2)),
        ]
    )
    assert [w.metadata.name for w in got] == ["a", "c"]


def test_find_not_finished_same_second_broken_by_uid() -> None:
    got = not_finished([wl("second", uid="uid-b"), wl("first", uid="uid-a")])
    assert [w.metadata.name for w in got] == ["first", "second"]


def test_find_not_finished_empty() -> None:
    assert not_finished([]) == []


# --- TestEnsureWorkloadSlices ---
ENSURE_ROWS = [
    # name, workloads, job counts, want (workload, compatible, counts written, finished (name, reason))
    ("NoWorkloadSlices", [], {"main": 1}, (None, True, None, [])),
    (
        "OneWorkloadSlice_IncompatibleWithJob",
        [wl("test-1", {"main": 1})],
        {"different-name": 1},
        (None, False, None, []),
    ),
    (
        "OneWorkloadSlice_CurrentWorkload",
        [wl("test-1", {"main": 1})],
        {"main": 1},
        ("test-1", True, None, []),
    ),
    (
        "OneWorkloadSlice_ReservedQuota_ScaleUp",
        [wl("test-1", {"main": 1}, reserved={"main": 1})],
        {"main": 3},
        (None, True, None, []),
    ),
    (
        "OneWorkloadSlice_ReservedQuota_ScaleUp_MultiplePodSets",
        [
            wl(
                "test-1",
                {"scale-up": 3, "scale-down": 3, "stay-the-same": 3},
                reserved={"scaled-up": 3, "scale-down": 3, "stay-the-same": 3},
            )
        ],
        {"scale-up": 4, "stay-the-same": 3, "scale-down": 1},
        (None, True, None, []),
    ),
    (
        "OneWorkloadSlice_ReservedQuota_ScaleDown",
        [wl("test-1", {"main": 3}, reserved={"main": 3})],
        {"main": 1},
        ("test-1", True, {"main": 1}, []),
    ),
    (
        "OneWorkloadSlice_ReservedQuota_ScaleDown_MultiplePodSets",
        [wl("test-1", {"scale-down": 3, "stay-the-same": 3}, reserved={"scale-down": 3, "stay-the-same": 3})],
        {"scale-down": 1, "stay-the-same": 3},
        ("test-1", True, {"scale-down": 1, "stay-the-same": 3}, []),
    ),
    (
        "OneWorkloadSlice_UnreservedQuota_ScaleUp",
        [wl("test-1", {"main": 1})],
        {"main": 3},
        ("test-1", True, {"main": 3}, []),
    ),
    (
        "OneWorkloadSlice_UnreservedQuota_ScaleDown",
        [wl("test-1", {"main": 3})],
        {"main": 1},
        ("test-1", True, {"main": 1}, []),
    ),
    # the update fails upstream (an interceptor): the decision is the count write
    (
        "OneWorkloadSlice_UpdateFailure",
        [wl("test-1", {"main": 3})],
        {"main": 1},
        ("test-1", True, {"main": 1}, []),
    ),
    (
        "TwoWorkloads_BothUnreserved_NewIsCurrent",
        [wl("test-1", {"main": 1}, created=AGO), wl("test-2", {"main": 3})],
        {"main": 3},
        ("test-2", True, None, [("test-1", "OutOfSync")]),
    ),
    # the Finished patch fails upstream: the decision is that patch
    (
        "TwoWorkloads_BothUnreserved_NewIsCurrent_FailureToPatchOldSliceStatus",
        [wl("test-1", {"main": 1}, created=AGO), wl("test-2", {"main": 3})],
        {"main": 3},
        ("test-2", True, None, [("test-1", "OutOfSync")]),
    ),
    (
        "TwoWorkloads_NewIsIncompatible",
        [
            wl("test-1", {"main": 1}, created=AGO, reserved={"main": 1}),
            wl("test-2", {"main": 3}, replaces="default/test-1"),
        ],
        {"different-key": 1},
        (None, False, None, []),
    ),
    # both reserved, no chain: the newer one is kept, the older finished (upstream's fake cannot
    # apply that patch: error), and a scale-up of the kept one needs a new slice
    (
        "TwoWorkloads_BothWithReservedQuota",
        [
            wl("test-1", {"main": 1}, created=AGO, reserved={"main": 1}),
            wl("test-2", {"main": 3}, reserved={"main": 3}),
        ],
        {"main": 5},
        (None, True, None, [("test-1", "OutOfSync")]),
    ),
    # the evicted one is finished; the pending one takes the new counts (upstream: update error)
    (
        "TwoWorkloads_OldWithReservedQuotaAndEvicted_NewWithoutQuotaReservation",
        [
            wl("test-1", {"main": 1}, created=AGO, reserved={"main": 1}, evicted=True),
            wl("test-2", {"main": 3}),
        ],
        {"main": 5},
        ("test-2", True, {"main": 5}, [("test-1", "OutOfSync")]),
    ),
    (
        "TwoWorkloadSlices_NewIsUnreservedAndCurrent",
        [
            wl("test-1", {"main": 1}, created=AGO, reserved={"main": 1}),
            wl("test-2", {"main": 3}, replaces="default/test-1"),
        ],
        {"main": 3},
        ("test-2", True, None, []),
    ),
    (
        "TwoWorkloadSlices_NewIsUnreservedAndOutOfSync_ScaleUp",
        [
            wl("test-1", {"main": 1}, created=AGO, reserved={"main": 1}),
            wl("test-2", {"main": 3}, replaces="default/test-1"),
        ],
        {"main": 5},
        ("test-2", True, {"main": 5}, []),
    ),
    (
        "TwoWorkloadSlices_NewIsUnreservedAndOutOfSync_ScaleDown",
        [
            wl("test-1", {"main": 1}, created=AGO, reserved={"main": 1}),
            wl("test-2", {"main": 3}, replaces="default/test-1"),
        ],
        {"main": 2},
        ("test-2", True, {"main": 2}, []),
    ),
    # no replacement annotation: the admitted slice is kept and the pending one finished; the
    # admitted one scaled up 1 → 2 needs a new slice (upstream's row errs on the fake's patch
    # before that: its interceptor refuses only the update it expected)
    (
        "TwoWorkloadSlices_NewIsUnreservedAndOutOfSync_UpdateFailure",
        [wl("test-1", {"main": 1}, created=AGO, reserved={"main": 1}), wl("test-2", {"main": 3})],
        {"main": 2},
        (None, True, None, [("test-2", "OutOfSync")]),
    ),
    (
        "TwoWorkloads_OldWithReservedQuota_NewWithReplacementAnnotationAndQuota",
        [
            wl("test-1", {"main": 1}, created=AGO, reserved={"main": 1}),
            wl("test-2", {"main": 3}, reserved={"main": 3}, replaces="default/test-1"),
        ],
        {"main": 3},
        ("test-2", True, None, [("test-1", "WorkloadSliceReplaced")]),
    ),
    # three unreserved slices: the newest kept, the others finished (upstream: the fake's patch errs)
    (
        "MoreThanTwoWorkloadSlices",
        [
            wl("test-1", {"main": 1}, created=AGO),
            wl("test-2", {"main": 2}, created=AGO + timedelta(seconds=1)),
            wl("test-3", {"main": 3}, created=AGO + timedelta(seconds=1)),
        ],
        {"main": 3},
        ("test-3", True, None, [("test-1", "OutOfSync"), ("test-2", "OutOfSync")]),
    ),
]


@pytest.mark.parametrize(
    ("workloads", "job", "want"), [r[1:] for r in ENSURE_ROWS], ids=[r[0] for r in ENSURE_ROWS]
)
def test_ensure_workload_slices(workloads: list[Workload], job: dict[str, int], want: tuple) -> None:
    got = decide_slices(job, workloads)
    name, compatible, counts, finished = want
    assert (got.workload.metadata.name if got.workload else None) == name
    assert got.compatible is compatible
    assert got.counts == counts
    assert [(w.metadata.name, reason) for w, reason, _ in got.finish] == finished


# --- TestNormalizeActiveSlices ---
def _ns(name: str, count: int, **kw: Any) -> Workload:
    return wl(name, {"main": count}, ns="ns", **kw)


A = {"main": 1}
NORMALIZE_ROWS = [
    (
        "two admitted, keep newest",
        [_ns("wl-a", 1, created=NOW - timedelta(minutes=1), reserved=A), _ns("wl-b", 2, reserved=A)],
        "wl-b",
        "",
    ),
    (
        "admitted + pending replacement, keep replacement",
        [_ns("wl-a", 1, created=NOW - timedelta(minutes=1), reserved=A), _ns("wl-b", 2, replaces="ns/wl-a")],
        "wl-b",
        "wl-a",
    ),
    (
        "evicted admitted + pending, keep pending and finish evicted",
        [_ns("wl-a", 1, created=NOW - timedelta(minutes=1), reserved=A, evicted=True), _ns("wl-b", 2)],
        "wl-b",
        "",
    ),
    (
        "forked DAG, both replace same finished target, keep newest",
        [
            _ns("wl-a", 2, created=NOW - timedelta(minutes=1), reserved=A, replaces="ns/wl-old"),
            _ns("wl-b", 3, reserved=A, replaces="ns/wl-old"),
        ],
        "wl-b",
        "",
    ),
    (
        "all non-admitted non-evicted, keep newest",
        [_ns("wl-a", 1, created=NOW - timedelta(minutes=1)), _ns("wl-b", 2)],
        "wl-b",
        "",
    ),
    (
        "all evicted, survivor is nil",
        [
            _ns("wl-a", 1, created=NOW - timedelta(minutes=1), reserved=A, evicted=True),
            _ns("wl-b", 2, reserved=A, evicted=True),
        ],
        "",
        "",
    ),
    (
        "admitted + pending without replacement annotation, keep admitted",
        [_ns("wl-a", 1, created=NOW - timedelta(minutes=1), reserved=A), _ns("wl-b", 2)],
        "wl-a",
        "",
    ),
    (
        "three workloads, admitted + two pending, keep replacement targeting admitted",
        [
            _ns("wl-a", 1, created=NOW - timedelta(minutes=2), reserved=A),
            _ns("wl-b", 2, created=NOW - timedelta(minutes=1), replaces="ns/wl-old"),
            _ns("wl-c", 3, replaces="ns/wl-a"),
        ],
        "wl-c",
        "wl-a",
    ),
    (
        "four same-second slices, chained replacements, admitted slice survives",
        [
            _ns("wl-a", 1, reserved=A),
            _ns("wl-b", 2, replaces="ns/wl-a"),
            _ns("wl-c", 3, reserved=A, replaces="ns/wl-a"),
            _ns("wl-d", 4, replaces="ns/wl-c"),
        ],
        "wl-d",
        "wl-c",
    ),
    (
        "forked claim in adversarial order, admitted fork wins over pending",
        [
            _ns("wl-c", 3, reserved=A, replaces="ns/wl-a"),
            _ns("wl-b", 2, replaces="ns/wl-a"),
            _ns("wl-a", 1, reserved=A),
            _ns("wl-d", 4, replaces="ns/wl-c"),
        ],
        "wl-d",
        "wl-c",
    ),
    ("two pending slices created in the same second", [_ns("wl-a", 1), _ns("wl-b", 1)], "wl-b", ""),
]


@pytest.mark.parametrize(
    ("workloads", "survivor", "kept"), [r[1:] for r in NORMALIZE_ROWS], ids=[r[0] for r in NORMALIZE_ROWS]
)
def test_normalize_active_slices(workloads: list[Workload], survivor: str, kept: str) -> None:
    got = normalize_active_slices(workloads)
    assert (got.selected.metadata.name if got.selected else "") == survivor
    finished = {w.metadata.name for w, _, _ in got.finish}
    for w in workloads:  # every workload not kept is finished, and no kept one is
        assert (w.metadata.name in finished) is (w.metadata.name not in (survivor, kept))


def test_normalize_reasons_replaced_or_out_of_sync() -> None:
    got = normalize_active_slices(
        [_ns("wl-a", 1, reserved=A), _ns("wl-b", 2, reserved=A, replaces="ns/wl-a"), _ns("wl-c", 1)]
    )
    assert [(w.metadata.name, r, m) for w, r, m in got.finish] == [
        ("wl-a", "WorkloadSliceReplaced", "Replaced to accommodate a new workload slice"),
        ("wl-c", "OutOfSync", "The workload slice is out of sync with its parent job"),
    ]


# --- TestReplacedWorkloadSlice ---
def _ns_of(w: Workload) -> str:
    return w.metadata.namespace or ""


@pytest.mark.parametrize(
    ("key", "cq_workloads", "want"),
    [
        pytest.param(None, {"default/old": wl("old")}, None, id="WorkloadWithoutReplacementAnnotation"),
        pytest.param("default/old", None, None, id="ReplacedWorkloadIsNotFound_MissingClusterQueue"),
        pytest.param("default/old", {}, None, id="EdgeCase_ReplacedWorkloadIsNotFound_NotInClusterQueue"),
        pytest.param("default/old", {"default/old": wl("old")}, "old", id="ReplacedWorkloadIsFound"),
        pytest.param(
            "other/old", {"other/old": wl("old", ns="other")}, None, id="CrossNamespaceReplacementIsRejected"
        ),
    ],
)
def test_replaced_workload_slice(key: str | None, cq_workloads: dict | None, want: str | None) -> None:
    got = replaced_workload_slice(key, "default", cq_workloads, _ns_of)
    assert (got.metadata.name if got is not None else None) == want


# --- TestScaledDown ---
@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param({}, {}, False, id="EmptyCounts"),
        pytest.param({"foo": 3, "bar": 5}, {"foo": 3, "bar": 4}, True, id="OnePodSetScaledDown"),
        pytest.param({"foo": 3, "bar": 5}, {"foo": 2, "bar": 4}, True, id="AllPodSetsScaledDown"),
        pytest.param(
            {"foo": 3, "bar": 5}, {"foo": 2, "bar": 6}, False, id="OnePodSetScaledDownAndOnePodSetScaledUp"
        ),
        pytest.param({"foo": 3, "bar": 5}, {"foo": 2, "baz": 6}, True, id="ExtraneousPodSetScaledUp"),
        pytest.param({"foo": 3, "bar": 5}, {"foo": 2, "baz": 1}, True, id="ExtraneousPodSetScaledDown"),
    ],
)
def test_scaled_down(old: dict[str, int], new: dict[str, int], want: bool) -> None:
    assert scaled_down(old, new) is want


# --- TestFindLatestActiveWorkload ---
def _live(name: str, created: datetime = NOW, **kw: Any) -> Workload:
    return wl(name, created=created, reserved=A, **kw)


@pytest.mark.parametrize(
    ("workloads", "want"),
    [
        pytest.param([], None, id="none"),
        pytest.param([_live("only")], "only", id="the only reserved one"),
        pytest.param(
            [_live("older", NOW - timedelta(minutes=1)), _live("newer")],
            "newer",
            id="the newest reserved one",
        ),
        pytest.param(
            [_live("older", NOW - timedelta(minutes=1)), _live("evicting", evicted=True)],
            "older",
            id="a newer slice that is being evicted",
        ),
        pytest.param(
            [_live("one", NOW - timedelta(minutes=1), evicted=True), _live("two", evicted=True)],
            None,
            id="every slice is being evicted",
        ),
    ],
)
def test_find_latest_active(workloads: list[Workload], want: str | None) -> None:
    got = find_latest_active(workloads)
    assert (got.metadata.name if got is not None else None) == want
