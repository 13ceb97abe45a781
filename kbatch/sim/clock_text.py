"""``date``: the time a simulated container prints, filled in when its log lines get their times.

A container's run is read off its command alone (:func:`kbatch.sim.command.interpret`, pure and
cached), without the time it starts; so ``date`` prints :data:`DATE_MARK`, and the log reader, which
knows when each line was printed (the run's ``startedAt`` plus the line's offset), writes the time
in its place (:func:`stamp`). The text is GNU coreutils' and busybox's default format in the C
locale, ``%a %b %e %H:%M:%S %Z %Y``, and containers run in UTC (no ``TZ``): the CronJob task's
``Fri Feb 22 11:02:09 UTC 2019`` (kubernetes/website ``application/job/cronjob.yaml``). Output
that goes elsewhere than the log (a substitution, a pipe, a file) is not followed: the mark would be
split, filtered or stored as text, so that run is the default one with a warning
(:mod:`kbatch.sim.shell_run`).
"""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["DATE_MARK", "DATE_OPTIONS", "stamp"]

DATE_MARK = "\x00date\x00"
DATE_OPTIONS = frozenset({"-u", "--utc", "--universal"})
"""``date``'s options kbatch runs (UTC is the container's time zone anyway); others are unmodelled."""


def stamp(text: str, when: datetime) -> str:
    """``text`` with each :data:`DATE_MARK` replaced by ``when`` as ``date`` prints it."""
    if DATE_MARK not in text:
        return text
    utc = when.astimezone(UTC)
    return text.replace(DATE_MARK, f"{utc:%a %b} {utc.day:2d} {utc:%H:%M:%S} UTC {utc.year}")
