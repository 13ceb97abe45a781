"""Cron schedule parsing and next fire times (robfig/cron v3 ParseStandard semantics)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.cron import (
    CronError,
    format_go_duration,
    load_zone,
    next_after,
    parse_go_duration,
    parse_schedule,
)


def _utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


@pytest.mark.parametrize(
    ("spec", "after", "want"),
    [
        ("* * * * *", _utc(2024, 1, 1, 0, 0, 30), _utc(2024, 1, 1, 0, 1)),
        ("*/15 * * * *", _utc(2024, 1, 1, 0, 15), _utc(2024, 1, 1, 0, 30)),
        ("5 4 * * *", _utc(2024, 1, 1, 4, 5), _utc(2024, 1, 2, 4, 5)),
        ("0 0 1 * *", _utc(2024, 1, 31, 23, 59), _utc(2024, 2, 1)),
        ("0 12 * JAN,jul MON", _utc(2024, 1, 30), _utc(2024, 7, 1, 12)),
        ("0 0 29 2 *", _utc(2024, 3, 1), _utc(2028, 2, 29)),
        ("@yearly", _utc(2024, 6, 1), _utc(2025, 1, 1)),
        ("@annually", _utc(2024, 6, 1), _utc(2025, 1, 1)),
        ("@monthly", _utc(2024, 6, 1), _utc(2024, 7, 1)),
        ("@weekly", _utc(2024, 6, 1), _utc(2024, 6, 2)),  # 2024-06-02 is a Sunday
        ("@daily", _utc(2024, 6, 1, 0, 0), _utc(2024, 6, 2)),
        ("@midnight", _utc(2024, 6, 1, 13), _utc(2024, 6, 2)),
        ("@hourly", _utc(2024, 6, 1, 13, 1), _utc(2024, 6, 1, 14)),
        ("? ? ? ? ?", _utc(2024, 1, 1), _utc(2024, 1, 1, 0, 1)),
        ("0 9-17/4 * * *", _utc(2024, 1, 1, 9, 0), _utc(2024, 1, 1, 13)),
        ("30 5/6 * * *", _utc(2024, 1, 1, 12), _utc(2024, 1, 1, 17, 30)),
        # Both day fields restricted: the 13th OR a Friday (Vixie cron / robfig dayMatches).
        ("0 0 13 * 5", _utc(2024, 1, 1), _utc(2024, 1, 5)),
        ("0 0 13 * 5", _utc(2024, 1, 12), _utc(2024, 1, 13)),
        # A star day-of-week means the day-of-month alone decides.
        ("0 0 13 * *", _utc(2024, 1, 1), _utc(2024, 1, 13)),
        # "*/1" keeps robfig's star bit, so the day-of-month alone decides again.
        ("0 0 13 * */1", _utc(2024, 1, 1), _utc(2024, 1, 13)),
        # "1-5/2" is Mon, Wed, Fri: after Monday the 1st, Wednesday the 3rd matches.
        ("0 0 13 * 1-5/2", _utc(2024, 1, 1), _utc(2024, 1, 3)),
    ],
)
def test_next_after_examples(spec: str, after: datetime, want: datetime) -> None:
    assert next_after(spec, after) == want


def test_time_zones_and_dst() -> None:
    new_york = load_zone("America/New_York")
    # 2024-03-10: 02:00-02:59 does not exist in New York; that day's 02:30 run is skipped.
    got = next_after("30 2 * * *", _utc(2024, 3, 9, 12), new_york)
    assert got is not None and got.astimezone(new_york).replace(tzinfo=None) == datetime(2024, 3, 11, 2, 30)
    # 2024-11-03: 01:00-01:59 happens twice; a 01:30 schedule fires at both instants.
    first = next_after("30 1 * * *", _utc(2024, 11, 3, 0), new_york)
    second = next_after("30 1 * * *", first, new_york) if first else None
    assert first == _utc(2024, 11, 3, 5, 30) and second == _utc(2024, 11, 3, 6, 30)
    # A TZ= prefix wins over the zone argument.
    tz_sched = parse_schedule("CRON_TZ=Asia/Kolkata 0 9 * * *")
    assert tz_sched.location == "Asia/Kolkata"
    assert tz_sched.next_after(_utc(2024, 1, 1), new_york) == _utc(2024, 1, 1, 3, 30)
    assert next_after("TZ=UTC 0 0 * * *", _utc(2024, 1, 1, 1)) == _utc(2024, 1, 2)


def test_every_is_accepted_like_parse_standard() -> None:
    sched = parse_schedule("@every 1h30m")
    assert sched.every == timedelta(hours=1, minutes=30)
    after = _utc(2024, 1, 1, 0, 0, 5) + timedelta(microseconds=7)
    assert next_after(sched, after) == _utc(2024, 1, 1, 1, 30, 5)
    assert parse_schedule("@every 10ms").every == timedelta(seconds=1)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "empty spec string"),
        ("* * * *", "expected exactly 5 fields, found 4: [* * * *]"),
        ("* * * * * *", "expected exactly 5 fields, found 6: [* * * * * *]"),
        ("60 * * * *", "end of range (60) above maximum (59): 60"),
        ("* 24 * * *", "end of range (24) above maximum (23): 24"),
        ("* * 0 * *", "beginning of range (0) below minimum (1): 0"),
        ("* * * 13 *", "end of range (13) above maximum (12): 13"),
        ("* * * * 7", "end of range (7) above maximum (6): 7"),
        ("*/0 * * * *", "step of range should be a positive number: */0"),
        ("5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"),
        ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
        ("1/2/3 * * * *", "too many slashes: 1/2/3"),
        ("x * * * *", 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'),
        ("@reboot", "unrecognized descriptor: @reboot"),
        ("@every", "unrecognized descriptor: @every"),
        ("@every 5", 'failed to parse duration @every 5: time: missing unit in duration "5"'),
        ("TZ=Mars/Base * * * * *", "provided bad location Mars/Base: unknown time zone Mars/Base"),
    ],
)
def test_parse_errors_have_robfig_messages(spec: str, message: str) -> None:
    with pytest.raises(CronError) as err:
        parse_schedule(spec)
    assert str(err.value) == message


def test_go_durations() -> None:
    assert parse_go_duration("1h2m3s") == timedelta(hours=1, minutes=2, seconds=3)
    assert parse_go_duration("1.5h") == timedelta(minutes=90)
    assert parse_go_duration("0") == timedelta(0)
    with pytest.raises(ValueError, match="invalid duration"):
        parse_go_duration("h")


# --- properties ---------------------------------------------------------------------------------


def _field(low: int, high: int) -> st.SearchStrategy[str]:
    number = st.integers(low, high)
    single = number.map(str)
    span = st.tuples(number, number).map(lambda ab: f"{min(ab)}-{max(ab)}")
    stepped = st.tuples(st.sampled_from(["*", f"{low}"]), st.integers(1, high - low + 1)).map(
        lambda sv: f"{sv[0]}/{sv[1]}"
    )
    part = st.one_of(st.just("*"), single, span, stepped)
    return st.lists(part, min_size=1, max_size=3).map(",".join)


SPECS = st.tuples(_field(0, 59), _field(0, 23), _field(1, 31), _field(1, 12), _field(0, 6)).map(" ".join)
ZONES = st.sampled_from(["UTC", "America/New_York", "Europe/Berlin", "Asia/Kolkata", "Australia/Lord_Howe"])
INSTANTS = st.datetimes(datetime(2000, 1, 1), datetime(2040, 1, 1)).map(lambda d: d.replace(tzinfo=UTC))


@settings(max_examples=150)
@given(SPECS, ZONES, INSTANTS)
def test_next_after_is_later_and_matches(spec: str, zone: str, after: datetime) -> None:
    sched = parse_schedule(spec)
    tz = load_zone(zone)
    got = sched.next_after(after, tz)
    if got is None:
        return  # e.g. "31 2": no match within five years, as robfig
    assert got > after and got.tzinfo is UTC
    assert got.second == 0 and got.microsecond == 0
    assert sched.matches(got.astimezone(tz))
    again = sched.next_after(got, tz)
    assert again is None or again > got


@settings(max_examples=60)
@given(SPECS, INSTANTS)
def test_no_fire_time_is_skipped_in_utc(spec: str, after: datetime) -> None:
    """In UTC (no DST) the next fire time is the first matching minute: check a window by brute force."""
    sched = parse_schedule(spec)
    got = sched.next_after(after)
    start = after.replace(second=0, microsecond=0) + timedelta(minutes=1)
    limit = got if got is not None else start + timedelta(days=3)
    probe = start
    while probe < limit and probe < start + timedelta(days=3):
        assert not sched.matches(probe), f"{spec}: skipped {probe}"
        probe += timedelta(minutes=1)


@pytest.mark.parametrize(("seconds", "text"), [
    (0, "0s"), (0.5, "500ms"), (0.0015, "1.5ms"), (1e-6, "1µs"), (1, "1s"), (1.5, "1.5s"), (60, "1m0s"),
    (90, "1m30s"), (3600, "1h0m0s"), (604800, "168h0m0s"),
])
def test_format_go_duration_is_gos_duration_string(seconds: float, text: str) -> None:
    """Go's time.Duration.String (time/time.go), which kubectl's and the components' messages print."""
    assert format_go_duration(seconds) == text
