"""Human-readable ages and durations, as ``kubectl get`` prints them.

The rules are those of k8s.io/apimachinery ``pkg/util/duration`` (``HumanDuration``): exact seconds
below two minutes, then minutes (with seconds below ten minutes), hours (with minutes below eight
hours), days (with hours below eight days), years. The printers' ``translateTimestampSince``
(k8s.io/kubernetes ``pkg/printers/internalversion/printers.go``) prints ``<unknown>`` for a missing
timestamp.

>>> human_duration(90), human_duration(600), human_duration(3 * 3600 + 120), human_duration(9 * 86400)
('90s', '10m', '3h2m', '9d')
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache

from kbatch.api.base import parse_time

__all__ = ["age", "human_duration"]


def human_duration(seconds: float) -> str:
    """``HumanDuration``: a short, lossy rendering of a duration in seconds."""
    whole = int(seconds)
    if whole < -1:
        return "<invalid>"
    if whole < 0:
        return "0s"
    if whole < 120:
        return f"{whole}s"
    minutes = whole // 60
    if minutes < 10:
        rest = whole % 60
        return f"{minutes}m{rest}s" if rest else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    hours = whole // 3600
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h{rest}m" if rest else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d{rest}h" if rest else f"{hours // 24}d"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        days = (hours // 24) % 365
        return f"{hours // 24 // 365}y{days}d" if days else f"{hours // 24 // 365}y"
    return f"{hours // 24 // 365}y"


def age(timestamp: str | datetime | None, now: datetime) -> str:
    """``translateTimestampSince``: the age of an RFC 3339 timestamp at ``now``."""
    if not timestamp:
        return "<unknown>"
    when = _parsed(timestamp) if isinstance(timestamp, str) else timestamp
    return human_duration((now - when).total_seconds())


@lru_cache(maxsize=4096)
def _parsed(text: str) -> datetime:
    """Timestamps repeat across a list (objects created at one virtual instant): parse each once."""
    return parse_time(text)
