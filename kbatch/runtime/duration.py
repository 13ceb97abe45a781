"""Durations in Go's ``time.ParseDuration`` syntax (``500ms``, ``2s``, ``1m30s``, ``1h``).

Returns float seconds; a bare number is taken as seconds. Negative durations are rejected because
nothing in the runtime may move time backwards.
"""

from __future__ import annotations

import math

from kbatch.api.cron import format_go_duration, go_duration_seconds

__all__ = ["format_duration", "parse_duration"]


def parse_duration(value: float | int | str) -> float:
    """``"1m30s"`` → ``90.0``; ``5`` → ``5.0``; raises ``ValueError`` on anything else."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"invalid duration {value!r}")
    if isinstance(value, (int, float)):
        seconds = float(value)
    else:
        text = value.strip()
        try:
            seconds = float(text)
        except ValueError:
            seconds = _parse_go(text)
    if not math.isfinite(seconds):  # "inf", "nan", 1e400: no duration at all
        raise ValueError(f"invalid duration {value!r}")
    if seconds < 0:
        raise ValueError(f"invalid duration {value!r}: must not be negative")
    return seconds


def _parse_go(text: str) -> float:
    # Go's syntax, as the API's parser reads it (kbatch.api.cron); a sign is refused here.
    if text[:1] not in ("+", "-"):
        try:
            return go_duration_seconds(text)
        except ValueError:
            pass
    raise ValueError(f'invalid duration "{text}" (use Go syntax such as 500ms, 2s, 1m30s, 1h)')


def format_duration(seconds: float) -> str:
    """A short Go-like rendering: ``90`` → ``1m30s``; ``0.005`` → ``5ms``; ``1e-6`` → ``1µs``.

    Below a second, Go's ``time.Duration.String``: the largest of ``ms``, ``µs``, ``ns`` that is at
    least one, with the fraction's trailing zeros cut, and ``0s`` for zero. From a second on, hours,
    minutes and seconds without Go's zero units (``1h`` where Go writes ``1h0m0s``)."""
    if seconds < 1:
        return format_go_duration(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    out = f"{int(hours)}h" if hours else ""
    out += f"{int(minutes)}m" if minutes or (hours and secs) else ""
    out += f"{secs:g}s" if secs or not out else ""
    return out
