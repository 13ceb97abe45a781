"""What ``kbatch advance`` prints, through separate processes: the new virtual time as Go's
RFC3339Nano writes it, whole seconds unchanged, a fraction only when there is one."""

from __future__ import annotations

from pathlib import Path

from .test_upstream_examples import processes


def test_sub_second_advances_show_in_the_new_time(tmp_path: Path) -> None:
    cli = processes(tmp_path)
    assert cli.ok("advance", "500ms") == "advanced 500ms to 2025-01-01T00:00:00.5Z\n"
    assert cli.ok("advance", "250ms") == "advanced 250ms to 2025-01-01T00:00:00.75Z\n"
    assert cli.ok("advance", "1250ms") == "advanced 1.25s to 2025-01-01T00:00:02Z\n"
    assert cli.ok("advance", "1s") == "advanced 1s to 2025-01-01T00:00:03Z\n"
