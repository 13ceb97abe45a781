"""Cron schedules as the CronJob API and controller understand them.

Semantics follow github.com/robfig/cron/v3 ``ParseStandard`` and ``SpecSchedule.Next``, which upstream
uses both to validate ``spec.schedule`` (pkg/apis/batch/validation/validation.go,
``validateScheduleFormat``) and to compute fire times (pkg/controller/cronjob/utils.go):

- five fields ``minute hour day-of-month month day-of-week``; each a comma list of ``*``, ``?``,
  ``N``, ``A-B``, with an optional ``/STEP`` (``N/STEP`` means ``N-max/STEP``); month names
  ``JAN``-``DEC`` and weekday names ``SUN``-``SAT`` (case-insensitive); weekdays are 0-6;
- the macros ``@yearly``/``@annually``, ``@monthly``, ``@weekly``, ``@daily``/``@midnight``,
  ``@hourly`` and ``@every <duration>`` (robfig's ``ParseStandard`` accepts ``@every``, and so does
  upstream CronJob validation);
- an optional leading ``TZ=<zone>`` or ``CRON_TZ=<zone>``;
- when both day fields are restricted (neither starts with ``*``/``?``) a day matches if *either*
  matches (Vixie cron and robfig ``dayMatches``);
- next fire times are searched on real instants, so a wall-clock time skipped by a DST jump does not
  fire that day and one repeated by a DST fall-back fires twice, as robfig does; no match within
  five years gives ``None`` (robfig returns the zero time).

Error messages are robfig's, because upstream puts them verbatim into the ``spec.schedule`` field
error (``spec.schedule: Invalid value: "x": expected exactly 5 fields, found 1: [x]``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

__all__ = [
    "CronError",
    "Schedule",
    "format_go_duration",
    "go_duration_seconds",
    "load_zone",
    "next_after",
    "parse_go_duration",
    "parse_schedule",
]


class CronError(ValueError):
    """A schedule that does not parse; ``str(err)`` is robfig/cron's message."""


@dataclass(frozen=True, slots=True)
class _Bounds:
    low: int
    high: int
    names: tuple[str, ...] = ()  # names[i] is the value low + i


_MINUTES = _Bounds(0, 59)
_HOURS = _Bounds(0, 23)
_DOM = _Bounds(1, 31)
_MONTHS = _Bounds(1, 12, ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))
_DOW = _Bounds(0, 6, ("sun", "mon", "tue", "wed", "thu", "fri", "sat"))
_YEARS_TO_SEARCH = 5


def _all(bounds: _Bounds) -> int:
    return sum(1 << v for v in range(bounds.low, bounds.high + 1))


@dataclass(frozen=True, slots=True)
class Schedule:
    """A parsed schedule: one bit set per field (bit ``v`` set when value ``v`` matches).

    ``dom_star``/``dow_star`` record that the day field was ``*`` or ``?`` (robfig's star bit), which
    switches day matching from OR to AND. ``every`` is set for ``@every`` schedules only.
    ``location`` is the zone named by a ``TZ=``/``CRON_TZ=`` prefix, if any.
    """

    minutes: int = 0
    hours: int = 0
    dom: int = 0
    months: int = 0
    dow: int = 0
    dom_star: bool = False
    dow_star: bool = False
    location: str | None = None
    every: timedelta | None = None

    def matches(self, local: datetime) -> bool:
        """Whether a wall-clock time (already in the schedule's zone) is a fire time, ignoring seconds."""
        return (bool(self.minutes >> local.minute & 1) and bool(self.hours >> local.hour & 1)
                and bool(self.months >> local.month & 1) and self._day_matches(local))

    def _day_matches(self, local: datetime) -> bool:
        dom_match = bool(self.dom >> local.day & 1)
        dow_match = bool(self.dow >> _weekday(local) & 1)
        if self.dom_star or self.dow_star:
            return dom_match and dow_match
        return dom_match or dow_match

    def next_after(self, after: datetime, tz: tzinfo | None = None) -> datetime | None:
        """The first fire time strictly after ``after`` (an aware datetime); see :func:`next_after`."""
        return next_after(self, after, tz)


def _weekday(local: datetime) -> int:
    """Sunday = 0 as in cron (Python's ``weekday()`` has Monday = 0)."""
    return (local.weekday() + 1) % 7


# ---------------------------------------------------------------------------------------------
# Parsing (robfig/cron v3 parser.go: Parse, getField, getRange, parseDescriptor)
# ---------------------------------------------------------------------------------------------


def load_zone(name: str) -> ZoneInfo:
    """An IANA zone by name; raises :class:`CronError` with Go's ``unknown time zone X`` message."""
    if not name or name.strip() != name or name.startswith("/") or ".." in name.split("/"):
        raise CronError(f"unknown time zone {name}")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise CronError(f"unknown time zone {name}") from None


def parse_schedule(spec: str) -> Schedule:
    """Parse a standard (5-field) cron spec as robfig/cron ``ParseStandard`` does."""
    if not spec:
        raise CronError("empty spec string")
    location: str | None = None
    if spec.startswith(("TZ=", "CRON_TZ=")):
        space = spec.find(" ")
        zone = spec[spec.index("=") + 1:space] if space >= 0 else spec[spec.index("=") + 1:]
        try:
            load_zone(zone)
        except CronError as err:
            raise CronError(f"provided bad location {zone}: {err}") from None
        location = zone
        spec = spec[space:].strip() if space >= 0 else ""
    if spec.startswith("@"):
        return _parse_descriptor(spec, location)
    fields = spec.split()
    if len(fields) != 5:
        raise CronError(f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]")
    minutes, _ = _get_field(fields[0], _MINUTES)
    hours, _ = _get_field(fields[1], _HOURS)
    dom, dom_star = _get_field(fields[2], _DOM)
    months, _ = _get_field(fields[3], _MONTHS)
    dow, dow_star = _get_field(fields[4], _DOW)
    return Schedule(minutes, hours, dom, months, dow, dom_star, dow_star, location)


def _parse_descriptor(spec: str, location: str | None) -> Schedule:
    everything = dict(minutes=1, hours=_all(_HOURS), dom=_all(_DOM), months=_all(_MONTHS), dow=_all(_DOW),
                      dom_star=True, dow_star=True, location=location)
    midnight = {**everything, "hours": 1}
    macros = {
        "@yearly": {**midnight, "dom": 1 << 1, "months": 1 << 1, "dom_star": False},
        "@monthly": {**midnight, "dom": 1 << 1, "dom_star": False},
        "@weekly": {**midnight, "dow": 1, "dow_star": False},
        "@daily": midnight,
        "@hourly": everything,
    }
    macros["@annually"] = macros["@yearly"]
    macros["@midnight"] = macros["@daily"]
    if spec in macros:
        return Schedule(**macros[spec])  # type: ignore[arg-type]
    if spec.startswith("@every "):
        text = spec[len("@every "):]
        try:
            delay = parse_go_duration(text)
        except ValueError as err:
            raise CronError(f"failed to parse duration {spec}: {err}") from None
        # robfig's Every(): at least one second, sub-second part dropped.
        delay = max(timedelta(seconds=1), timedelta(seconds=int(delay.total_seconds())))
        return Schedule(location=location, every=delay)
    raise CronError(f"unrecognized descriptor: {spec}")


def _get_field(field: str, bounds: _Bounds) -> tuple[int, bool]:
    """Bits of a comma list; the flag tells whether the field was a bare ``*`` or ``?``."""
    bits = 0
    star = False
    for expr in field.split(","):
        part, is_star = _get_range(expr, bounds)
        bits |= part
        star = star or is_star
    return bits, star


def _get_range(expr: str, bounds: _Bounds) -> tuple[int, bool]:
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    single_digit = len(low_and_high) == 1
    star = False
    if low_and_high[0] in ("*", "?"):
        start, end, star = bounds.low, bounds.high, True
    else:
        start = _parse_int_or_name(low_and_high[0], bounds)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _parse_int_or_name(low_and_high[1], bounds)
        else:
            raise CronError(f"too many hyphens: {expr}")
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _must_parse_int(range_and_step[1])
        if single_digit:  # "N/step" means "N-max/step"
            end = bounds.high
        if step > 1:  # robfig keeps the star bit for "*/1"
            star = False
    else:
        raise CronError(f"too many slashes: {expr}")
    if start < bounds.low:
        raise CronError(f"beginning of range ({start}) below minimum ({bounds.low}): {expr}")
    if end > bounds.high:
        raise CronError(f"end of range ({end}) above maximum ({bounds.high}): {expr}")
    if start > end:
        raise CronError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise CronError(f"step of range should be a positive number: {expr}")
    return sum(1 << v for v in range(start, end + 1, step)), star


def _parse_int_or_name(expr: str, bounds: _Bounds) -> int:
    lowered = expr.lower()
    if lowered in bounds.names:
        return bounds.low + bounds.names.index(lowered)
    return _must_parse_int(expr)


def _must_parse_int(expr: str) -> int:
    if not re.fullmatch(r"[+-]?[0-9]+", expr):
        raise CronError(f'failed to parse int from {expr}: strconv.Atoi: parsing "{expr}": invalid syntax')
    number = int(expr)
    if number < 0:
        raise CronError(f"negative number ({number}) not allowed: {expr}")
    return number


_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "\u03bcs": 1e-6, "ms": 1e-3, "s": 1.0,
                   "m": 60.0, "h": 3600.0}
_DURATION_PART = re.compile(r"([0-9]*)(\.[0-9]*)?([^0-9.]*)")


def parse_go_duration(text: str) -> timedelta:
    """Go's ``time.ParseDuration`` (``1h30m``, ``90s``, ``1.5h``); raises ValueError with Go's text."""
    return timedelta(seconds=go_duration_seconds(text))


def go_duration_seconds(text: str) -> float:
    """:func:`parse_go_duration` as float seconds (no rounding to microseconds)."""
    quoted = '"' + text + '"'
    body = text[1:] if text[:1] in ("+", "-") else text
    if body == "0":
        return 0.0
    if not body:
        raise ValueError(f"time: invalid duration {quoted}")
    seconds = 0.0
    pos = 0
    while pos < len(body):
        match = _DURATION_PART.match(body, pos)
        assert match is not None  # the pattern matches the empty string
        whole, fraction, unit = match.groups()
        if not whole and fraction in (None, "."):
            raise ValueError(f"time: invalid duration {quoted}")
        if not unit:
            raise ValueError(f"time: missing unit in duration {quoted}")
        if unit not in _DURATION_UNITS:
            raise ValueError(f'time: unknown unit "{unit}" in duration {quoted}')
        seconds += float((whole or "0") + (fraction or "")) * _DURATION_UNITS[unit]
        pos = match.end()
    return -seconds if text.startswith("-") else seconds


def format_go_duration(seconds: float) -> str:
    """Go's ``time.Duration.String``: ``0s``; below a second the largest of ``ms``, ``µs``, ``ns``
    that is at least one, trailing zeros cut (``500ms``, ``1.5ms``, ``1µs``); from a second on hours
    and minutes once either is non-zero (``10s``, ``1m0s``, ``1h0m0s``, ``1.5s``)."""
    if seconds < 1:
        nanos = round(seconds * 1_000_000_000)
        for unit, scale in (("ms", 1_000_000), ("µs", 1_000), ("ns", 1)):
            if nanos >= scale:
                whole, part = divmod(nanos, scale)
                digits = str(part).rjust(len(str(scale)) - 1, "0").rstrip("0")
                return f"{whole}.{digits}{unit}" if digits else f"{whole}{unit}"
        return "0s"
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{secs:g}s"
    if hours or minutes:
        text = f"{int(minutes)}m{text}"
    return f"{int(hours)}h{text}" if hours else text


# ---------------------------------------------------------------------------------------------
# Next fire time (robfig/cron v3 spec.go SpecSchedule.Next, on real instants)
# ---------------------------------------------------------------------------------------------


def next_after(schedule: Schedule | str, after: datetime, tz: tzinfo | None = None) -> datetime | None:
    """The first fire time strictly after ``after``, as an aware **UTC** datetime.

    UTC because wall-clock times in a zone with DST can be ambiguous, and Python compares such
    datetimes across zones as unequal (PEP 495). The zone is the schedule's own ``TZ=`` prefix if
    present, else ``tz``, else UTC (the upstream controller parses ``TZ=<spec.timeZone> <schedule>``
    when ``timeZone`` is set and otherwise uses the controller manager's local zone, which kbatch
    fixes to UTC).
    """
    if after.tzinfo is None:
        raise ValueError("next_after needs an aware datetime")
    sched = parse_schedule(schedule) if isinstance(schedule, str) else schedule
    zone: tzinfo = load_zone(sched.location) if sched.location else (tz or UTC)
    if sched.every is not None:
        return after.astimezone(UTC).replace(microsecond=0) + sched.every
    # Start at the next whole minute, in absolute time (every IANA offset is whole minutes).
    t = after.astimezone(UTC).replace(second=0, microsecond=0) + timedelta(minutes=1)
    year_limit = t.astimezone(zone).year + _YEARS_TO_SEARCH
    while True:
        local = t.astimezone(zone)
        if local.year > year_limit:
            return None
        if not sched.months >> local.month & 1:
            t = _local_midnight(local.year + local.month // 12, local.month % 12 + 1, 1, zone)
        elif not sched._day_matches(local):
            t = _local_midnight(local.year, local.month, local.day, zone, plus_days=1)
        elif not sched.hours >> local.hour & 1:
            t += timedelta(minutes=60 - local.minute)
        elif not sched.minutes >> local.minute & 1:
            t += timedelta(minutes=1)
        else:
            return t


def _local_midnight(year: int, month: int, day: int, zone: tzinfo, plus_days: int = 0) -> datetime:
    """The instant of local midnight of a date (plus some days), in UTC."""
    date = datetime(year, month, day) + timedelta(days=plus_days)
    return date.replace(tzinfo=zone).astimezone(UTC)
