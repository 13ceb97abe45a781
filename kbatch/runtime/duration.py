"""Durations in Go's ``time.ParseDuration`` syntax (``500ms``, ``2s``, ``1m30s``, ``1h``).

Returns float seconds; a bare number is taken as seconds. Negative durations are rejected because
nothing in the runtime may move time backwards.
"""

from __future__ import annotations

import re

__all__ = ["format_duration", "parse_duration"]

_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")


def parse_duration(value: float | int | str) -> float:
    """``"1m30s"`` → ``90.0``; ``5`` → ``5.0``; raises ``ValueError`` on anything else."""
    if isinstance(value, bool):
        raise ValueError(f"invalid duration {value!r}")
    if isinstance(value, (int, float)):
        seconds = float(value)
    else:
        text = value.strip()
        try:
            seconds = float(text)
        except ValueError:
            seconds = _parse_go(text)
    if seconds < 0:
        raise ValueError(f"invalid duration {value!r}: must not be negative")
    return seconds


def _parse_go(text: str) -> float:
    if text == "0":
        return 0.0
    pos, total = 0, 0.0
    for match in _PART.finditer(text):
        if match.start() != pos:
            break
        total += float(match.group(1)) * _UNITS[match.group(2)]
        pos = match.end()
    if pos != len(text) or not text:
        raise ValueError(f'invalid duration "{text}" (use Go syntax such as 500ms, 2s, 1m30s, 1h)')
    return total


def format_duration(seconds: float) -> str:
    """A short Go-like rendering: ``90`` → ``1m30s``; ``0.005`` → ``5ms``."""
    if seconds < 1:
        return f"{seconds * 1000:g}ms"
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    out = f"{int(hours)}h" if hours else ""
    out += f"{int(minutes)}m" if minutes or (hours and secs) else ""
    out += f"{secs:g}s" if secs or not out else ""
    return out
