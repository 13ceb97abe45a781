"""Which scheduled times a CronJob has missed, and when to look again (upstream
pkg/controller/cronjob/utils.go ``mostRecentScheduleTime``, ``nextScheduleTime``,
``nextScheduleTimeDuration``).

* Scheduling starts from ``lastScheduleTime`` (else the CronJob's creation time), moved forward to
  ``now - startingDeadlineSeconds`` when that is later: the controller never starts anything older.
* Of the fire times after that point and not after ``now`` only the most recent one is started.
* Missed fire times are estimated from the gap between the first two; more than 100 gives the
  ``TooManyMissedTimes`` warning (the job is still started).
* The next check is the next fire time after the most recent one (after the earliest time when
  none is due, after ``now`` when the schedule is inconsistent), plus 100 ms.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo

from kbatch.api.cron import Schedule, next_after

__all__ = ["NEXT_SCHEDULE_DELTA", "Recent", "most_recent_schedule_time", "next_check_delay"]

NEXT_SCHEDULE_DELTA = 0.1  # nextScheduleDelta: 100 ms
MANY_MISSED = 100
_NO_GAP = "time difference between two schedules is less than 1 second"


@dataclass(frozen=True, slots=True)
class Recent:
    earliest: datetime
    most_recent: datetime | None
    missed: int  # estimated number of missed fire times (0: none)
    error: str | None = None


def most_recent_schedule_time(schedule: Schedule, tz: tzinfo | None, created: datetime,
                              last_schedule: datetime | None, now: datetime,
                              starting_deadline: int | None) -> Recent:
    earliest = last_schedule or created
    if starting_deadline is not None:
        deadline = now - timedelta(seconds=starting_deadline)
        if deadline > earliest:
            earliest = deadline
    t1 = next_after(schedule, earliest, tz)
    if t1 is None:  # robfig's zero time: Next(zero) is zero too, a gap of 0 (e.g. "0 0 31 2 *")
        return Recent(earliest, None, 0, _NO_GAP)
    if now < t1:
        return Recent(earliest, None, 0)
    t2 = next_after(schedule, t1, tz)
    if t2 is not None and now < t2:
        return Recent(earliest, t1, 0)
    gap = round((t2 - t1).total_seconds()) if t2 is not None else 0
    if gap < 1:
        return Recent(earliest, None, 0, _NO_GAP)
    missed = int((now - t1).total_seconds()) // gap + 1
    t: datetime | None = next_after(schedule, t1 + timedelta(seconds=(missed - 2) * gap), tz)
    most_recent = None
    while t is not None and t <= now:
        most_recent = t
        t = next_after(schedule, t, tz)
    return Recent(earliest, most_recent, missed)


def next_check_delay(schedule: Schedule, tz: tzinfo | None, created: datetime,
                     last_schedule: datetime | None, now: datetime) -> float | None:
    """Seconds until the controller should look at the CronJob again."""
    recent = most_recent_schedule_time(schedule, tz, created, last_schedule, now, None)
    if recent.error is not None:
        base = now  # nextScheduleTimeDuration: still requeue, at the next slot from now
    elif recent.most_recent is not None:
        base = recent.most_recent
    else:  # none missed since the earliest time: from there; missed ones (none found): from now
        base = recent.earliest if recent.missed == 0 else now
    nxt = next_after(schedule, base, tz)
    if nxt is None:
        return None
    return (nxt - now).total_seconds() + NEXT_SCHEDULE_DELTA
