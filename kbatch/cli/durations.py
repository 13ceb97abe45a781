"""Durations on the command line, in Go syntax (``500ms``, ``2s``, ``1m30s``, ``1h``) everywhere."""

from __future__ import annotations

from kbatch.cli.errors import UserError

__all__ = ["duration_option"]


def duration_option(text: str, flag: str, *, bare_seconds: bool = False) -> float:
    """Seconds for ``text``; a bad value is ``error: FLAG: invalid duration …``.

    ``bare_seconds`` also accepts a plain integer as seconds, as client-go does for kubectl's
    ``--request-timeout`` (``0`` meaning no timeout). Otherwise, as Go's ``time.ParseDuration``, a
    number without a unit is refused unless it is zero."""
    stripped = text.strip()
    if _is_number(stripped) and float(stripped) != 0:
        if bare_seconds:
            return float(stripped)
        raise UserError(f'{flag}: invalid duration "{stripped}": missing unit in duration '
                        f"(Go syntax, e.g. {stripped}s, 500ms, 1m30s)")
    from kbatch.runtime.duration import parse_duration

    try:
        return parse_duration(stripped)
    except ValueError as err:
        raise UserError(f"{flag}: {err}") from None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
