"""Admission fair sharing's arithmetic and ledger, as upstream's unit tests check them.

Translated from kubernetes-sigs/kueue v0.19.2:
``pkg/util/admissionfairsharing/admission_fair_sharing_test.go`` (entry penalties, decay, usage),
``pkg/cache/queue/afs/entry_penalties_test.go`` (``TestPenaltyBookkeepingIsIdempotentAndExact``,
``TestPushPenaltySeedsLastUpdateOnlyWhenCreating``, ``TestSubPenaltyDoesNotCreateEntry``) and
``usage_ledger_test.go`` (``TestEntryPenaltyAggregateMatchesRecords``). Then hypothesis: consumed
usage never goes negative, and with nothing admitted it never grows.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.quantity import Quantity
from kbatch.controllers.kueue.admissionfairsharing import UsageLedger
from kbatch.controllers.kueue.admissionfairsharing import arithmetic as A

LONG_HALF_LIFE = 168 * 3600.0
SAMPLING = 300.0
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def q(text: str) -> Decimal:
    return A.from_quantity(Quantity(text))


def milli(amount: Decimal) -> int:
    return Quantity(str(A.to_quantity(amount))).milli_value()


def test_entry_penalty_with_dra_resources() -> None:
    penalty = A.entry_penalty({"cpu": q("4"), "gpu-logical": q("2")}, 300.0, 600.0)
    assert penalty["cpu"] > 0 and penalty["gpu-logical"] > 0


def test_entry_penalty_with_long_half_life() -> None:
    penalty = A.entry_penalty({"cpu": q("2"), "nvidia.com/gpu": q("1")}, SAMPLING, LONG_HALF_LIFE)
    assert penalty["cpu"] > 0 and penalty["nvidia.com/gpu"] > 0


def test_decayed_consumed_accumulates_sub_milli() -> None:
    usage = {"cpu": q("2"), "nvidia.com/gpu": q("1")}
    consumed: A.Amounts = {}
    prev = {"cpu": Decimal(0), "nvidia.com/gpu": Decimal(0)}
    for _ in range(3):
        consumed = A.decayed_consumed(consumed, usage, SAMPLING, LONG_HALF_LIFE)
        for name in prev:
            assert consumed[name] > prev[name]
        prev = dict(consumed)


def test_decayed_consumed_converges_to_usage() -> None:
    usage = {"cpu": q("2")}
    consumed: A.Amounts = {}
    want = {1: q("1"), 2: q("1500m"), 3: q("1750m")}
    for half_lives in (1, 2, 3):
        for _ in range(2016):  # 168h / 5m
            consumed = A.decayed_consumed(consumed, usage, SAMPLING, LONG_HALF_LIFE)
        got = consumed["cpu"]
        assert want[half_lives] - q("1m") <= got <= want[half_lives] + q("1m")
        assert got <= usage["cpu"]


@pytest.mark.parametrize("size", ["16Gi", "1Ti", "64Ti"])
def test_decayed_consumed_keeps_large_quantities_positive(size: str) -> None:
    consumed = A.decayed_consumed({}, {"memory": q(size)}, SAMPLING, LONG_HALF_LIFE)
    assert consumed["memory"] > 0


@pytest.mark.parametrize(
    ("consumed", "penalty", "lq_weight", "weights", "want"),
    [
        pytest.param({"gpu-logical": "2"}, {}, 1, {}, 2, id="DRA resource with default weight"),
        pytest.param({"gpu-logical": "2"}, {}, 1, {"gpu-logical": 3.0}, 6,
                     id="DRA resource with explicit weight"),
        pytest.param({"cpu": "4", "gpu-logical": "2"}, {}, 1, {"cpu": 1.0, "gpu-logical": 5.0}, 14,
                     id="mixed CPU and DRA resources"),
        pytest.param({"gpu-logical": "10"}, {}, 1, {"gpu-logical": 0}, 0,
                     id="DRA resource with weight zero contributes nothing"),
        pytest.param({}, {"gpu-logical": "3"}, 1, {}, 3, id="DRA resource in penalty only"),
        pytest.param({"gpu-logical": "2"}, {"gpu-logical": "1"}, 2, {"gpu-logical": 4.0}, 6,
                     id="DRA resource in both consumed and penalty"),
    ],
)
def test_calculate_usage_with_dra(consumed: dict, penalty: dict, lq_weight: float, weights: dict,
                                  want: float) -> None:
    got = A.usage({k: q(v) for k, v in consumed.items()}, {k: q(v) for k, v in penalty.items()},
                  lq_weight, weights)
    assert got == want


@pytest.mark.parametrize(("consumed", "lq_weight"), [({}, 0), ({"cpu": "4"}, 0), ({"cpu": "4"}, -1)],
                         ids=["zero weight, idle queue (no usage)", "zero weight, active queue",
                              "negative weight"])
def test_calculate_usage_with_non_positive_weight(consumed: dict, lq_weight: float) -> None:
    got = A.usage({k: q(v) for k, v in consumed.items()}, {}, lq_weight, {})
    assert not math.isnan(got) and math.isinf(got) and got > 0


def test_go_float_details() -> None:
    """``AsApproximateFloat64`` is the unscaled integer times Go's ``Pow10`` table product, and
    ``MulByFloat`` keeps nine decimals, rounding toward zero."""
    assert A.pow10(-3) == 1 / 1e3 and A.pow10(40) == 1e32 * 1e8
    assert A.approximate_float(Decimal("1.500000000")) == 1500000000 * (1 / 1e9)
    assert A.mul_by_float({"cpu": Decimal("1")}, 1 / 3) == {"cpu": Decimal("0.333333333")}
    assert A.mul_by_float({"cpu": Decimal("-1")}, 1 / 3) == {"cpu": Decimal("-0.333333333")}
    assert str(A.to_quantity(Decimal("0.750990411"))) == "750990411n"
    assert str(A.to_quantity(Decimal("2.000000000"))) == "2"
    assert A.duration_seconds(timedelta(seconds=90, microseconds=5)) == 90.000005


# --- the ledger ------------------------------------------------------------------------------------

PUSH, SUB = "push", "sub"
CASES = {
    "pushes for distinct workloads accumulate": (
        [(PUSH, "ns/wl1", {"cpu": "2"}), (PUSH, "ns/wl2", {"cpu": "3"})], True, {"cpu": 5000}),
    "re-pushing the same workload replaces instead of stacking": (
        [(PUSH, "ns/wl1", {"cpu": "2"}), (PUSH, "ns/wl1", {"cpu": "2"})], True, {"cpu": 2000}),
    "re-pushing with a different amount keeps the latest": (
        [(PUSH, "ns/wl1", {"cpu": "2"}), (PUSH, "ns/wl1", {"cpu": "3"})], True, {"cpu": 3000}),
    "rollback after replacement subtracts the replacement amount": (
        [(PUSH, "ns/wl1", {"cpu": "2"}), (PUSH, "ns/wl1", {"cpu": "3"}), (SUB, "ns/wl1", None)], False, {}),
    "subtracting a workload removes exactly its record": (
        [(PUSH, "ns/wl1", {"cpu": "2"}), (PUSH, "ns/wl2", {"cpu": "3"}), (SUB, "ns/wl1", None)], True,
        {"cpu": 3000}),
    "subtracting the only workload leaves nothing pending": (
        [(PUSH, "ns/wl1", {"cpu": "2"}), (SUB, "ns/wl1", None)], False, {}),
    "subtracting twice is a no-op the second time": (
        [(PUSH, "ns/wl1", {"cpu": "2"}), (PUSH, "ns/wl2", {"cpu": "3"}), (SUB, "ns/wl1", None),
         (SUB, "ns/wl1", None)], True, {"cpu": 3000}),
    "subtracting a workload that never pushed leaves no negative residue": (
        [(SUB, "ns/wl1", None)], False, {}),
    "a workload's subtraction cannot drain another workload's resources": (
        [(PUSH, "ns/wl1", {"cpu": "2"}), (PUSH, "ns/wl2", {"memory": "4Gi"}), (SUB, "ns/wl1", None)], True,
        {"cpu": 0, "memory": 4 * 1024**3 * 1000}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_penalty_bookkeeping_is_idempotent_and_exact(name: str) -> None:
    ops, want_has, want_milli = CASES[name]
    ledger = UsageLedger()
    for op, wl, push in ops:
        if op == PUSH:
            ledger.push_penalty("ns/lq", wl, {k: q(v) for k, v in push.items()}, NOW)
        else:
            ledger.sub_penalty("ns/lq", wl)
    assert ledger.has_pending_penalty("ns/lq") is want_has
    entry = ledger.get("ns/lq")
    pending = entry.pending_penalty if entry is not None else {}
    for res, want in want_milli.items():
        assert milli(pending.get(res, Decimal(0))) == want


def test_push_penalty_seeds_last_update_only_when_creating() -> None:
    ledger = UsageLedger()
    ledger.push_penalty("ns/lq", "ns/wl1", {"cpu": q("1")}, NOW)
    entry = ledger.get("ns/lq")
    assert entry is not None and entry.last_update == NOW and not entry.status_accounted
    ledger.push_penalty("ns/lq", "ns/wl2", {"cpu": q("1")}, NOW + timedelta(hours=1))
    entry = ledger.get("ns/lq")
    assert entry is not None and entry.last_update == NOW
    assert milli(entry.pending_penalty["cpu"]) == 2000


def test_sub_penalty_does_not_create_entry() -> None:
    ledger = UsageLedger()
    assert ledger.sub_penalty("ns/lq", "ns/wl1") is None
    assert ledger.get("ns/lq") is None
    ledger.push_penalty("ns/lq", "ns/other", {"cpu": q("2")}, NOW)
    ledger.sub_penalty("ns/lq", "ns/wl1")
    entry = ledger.get("ns/lq")
    assert entry is not None and milli(entry.pending_penalty["cpu"]) == 2000


def test_settlement_folds_exactly_the_recorded_penalty() -> None:
    """``updateAfsConsumedUsage``: decay to now, then add the workload's own penalty; settling again
    folds nothing (fair_sharing_test.go: "should update consumed resources and subtract entry
    penalties on workload admission")."""
    ledger = UsageLedger()
    ledger.push_penalty("ns/lq", "ns/wl1", {"cpu": q("1")}, NOW)
    ledger.push_penalty("ns/lq", "ns/wl2", {"cpu": q("2")}, NOW)
    after = ledger.settle("ns/lq", "ns/wl1", {"cpu": q("4")}, NOW, 3600.0)
    assert milli(after.resources["cpu"]) == 1000 and milli(after.pending_penalty["cpu"]) == 2000
    again = ledger.settle("ns/lq", "ns/wl1", {"cpu": q("4")}, NOW, 3600.0)
    assert again.resources == after.resources


def test_sampling_seeds_from_status_once() -> None:
    """``initializeAfsIfNeeded``: a new entry takes the persisted status; an entry a settlement made
    first gets it merged once."""
    ledger = UsageLedger()
    had, entry = ledger.initialize("ns/a", {"cpu": q("3")}, NOW)
    assert not had and entry.resources == {"cpu": q("3")} and entry.status_accounted
    ledger.push_penalty("ns/b", "ns/wl", {"cpu": q("1")}, NOW)
    ledger.settle("ns/b", "ns/wl", {}, NOW, 3600.0)
    had, entry = ledger.initialize("ns/b", {"cpu": q("3")}, NOW)
    assert had and milli(entry.resources["cpu"]) == 4000
    had, entry = ledger.initialize("ns/b", {"cpu": q("3")}, NOW)
    assert milli(entry.resources["cpu"]) == 4000


def test_no_half_life_resets_consumed() -> None:
    ledger = UsageLedger()
    ledger.initialize("ns/a", {"cpu": q("3")}, NOW)
    assert ledger.sample("ns/a", {"cpu": q("1")}, NOW + timedelta(minutes=5), 0.0) == {}


# --- properties ------------------------------------------------------------------------------------

amounts = st.dictionaries(
    st.sampled_from(["cpu", "memory", "nvidia.com/gpu"]),
    st.integers(min_value=0, max_value=10**12).map(lambda n: Decimal(n).scaleb(-3)),
    max_size=3,
)


@settings(max_examples=60, deadline=None)
@given(amounts, amounts, st.lists(st.floats(min_value=0, max_value=10**6), max_size=8),
       st.floats(min_value=0, max_value=10**6))
def test_consumed_is_non_negative_and_idle_decay_never_grows(
    start: A.Amounts, usage: A.Amounts, gaps: list[float], half_life: float
) -> None:
    """Sampling with some usage never makes consumed negative; sampling with nothing admitted
    never makes any resource grow."""
    ledger = UsageLedger()
    ledger.initialize("ns/lq", start, NOW)
    now = NOW
    for gap in gaps:
        now += timedelta(seconds=gap)
        consumed = ledger.sample("ns/lq", usage, now, half_life)
        assert all(v >= 0 for v in consumed.values())
    before = dict(ledger.get("ns/lq").resources)  # type: ignore[union-attr]
    for gap in gaps:
        now += timedelta(seconds=gap)
        consumed = ledger.sample("ns/lq", {}, now, half_life)
        assert all(consumed.get(k, Decimal(0)) <= v for k, v in before.items())
        assert all(v >= 0 for v in consumed.values())
        before = dict(consumed)
