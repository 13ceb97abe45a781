"""``--clock-start``: a new state directory's virtual clock may start at the wall-clock time of its
creation (or at a given time); the choice is recorded, later commands and the library are unaffected."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.runtime.clock import DEFAULT_START


def _created(kb: Any) -> str:
    return kb.ok("get", "nodes", "-o", "jsonpath={.items[0].metadata.creationTimestamp}")


def test_now_is_the_wall_clock_at_creation_and_is_recorded(kb: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import kbatch.runtime.clock as clock

    monkeypatch.setattr(clock, "wall_clock_start", lambda: datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC))
    kb.ok("--clock-start", "now", "nodes", "add")
    assert _created(kb) == "2026-03-04T05:06:07Z"
    monkeypatch.setattr(clock, "wall_clock_start", lambda: datetime(2030, 1, 1, tzinfo=UTC))
    assert kb.ok("advance", "90s").strip() == "advanced 1m30s to 2026-03-04T05:07:37Z"
    # given again on an existing state it changes nothing: the start was recorded at creation
    kb.ok("--clock-start", "now", "nodes", "add", "--prefix", "later")
    names = kb.ok("get", "nodes", "-o", 'jsonpath={range .items[*]}{.metadata.creationTimestamp}{" "}{end}')
    assert names.split() == ["2026-03-04T05:07:37Z", "2026-03-04T05:06:07Z"]


def test_an_rfc3339_start_in_any_zone_is_kept_in_utc(kb: Any) -> None:
    kb.ok("--clock-start", "2026-05-01T09:00:00+02:00", "nodes", "add")
    assert _created(kb) == "2026-05-01T07:00:00Z"


@pytest.mark.parametrize("value", ["bogus", "2026-05-01T09:00:00", "yesterday"])
def test_a_bad_start_is_one_error_line_and_creates_nothing(kb: Any, value: str) -> None:
    res = kb("--clock-start", value, "nodes", "add")
    assert res.code == 1 and res.err.startswith("error: --clock-start: ") and len(res.err.splitlines()) == 1
    assert not (kb.state / "state.kbatch").exists()


def test_without_the_option_the_fixed_epoch_stays(kb: Any) -> None:
    kb.ok("nodes", "add")
    assert _created(kb) == "2025-01-01T00:00:00Z"
    assert ControlPlane().now() == DEFAULT_START
