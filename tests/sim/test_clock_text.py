"""``date`` in a simulated container (kbatch/sim/clock_text.py): the line's own time, as coreutils
prints it, in both log readers (the API's ``pods/log`` and the kubelet's store)."""

from __future__ import annotations

from datetime import UTC, datetime

from kbatch.controllers.kubelet import pod_logs
from kbatch.sim.clock_text import DATE_MARK, stamp
from kbatch.sim.command import interpret
from tests.controllers.kubelet.cluster import pod_yaml, sim_cluster


def test_stamp_is_coreutils_default_format_with_the_day_space_padded() -> None:
    assert stamp(f"now: {DATE_MARK}", datetime(2019, 2, 2, 11, 2, 9, tzinfo=UTC)) == \
        "now: Sat Feb  2 11:02:09 UTC 2019"
    assert stamp("plain", datetime(2019, 2, 2, tzinfo=UTC)) == "plain"


def test_a_date_loop_prints_at_its_period() -> None:
    run = interpret(["sh", "-c", "while true; do date -u; sleep 10; done"])
    assert run.logs[:2] == (DATE_MARK, DATE_MARK) and run.log_offsets[:2] == (0.0, 10.0)


def test_the_kubelet_log_store_stamps_each_line_with_its_time() -> None:
    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "date; sleep 5; date -u"))  # started at the epoch, 2025-01-01
    cp.advance(10)
    assert pod_logs(cp, "default", "p") == "Wed Jan  1 00:00:00 UTC 2025\nWed Jan  1 00:00:05 UTC 2025\n"


def test_date_whose_output_goes_elsewhere_is_not_followed() -> None:
    """``$(date)`` unquoted is split into six words, ``date | rev`` reverses the text: kbatch fills the
    time in only where ``date`` prints to the log, so the other runs are the default with a warning
    (the mark never reaches a log)."""
    for script in ("echo at $(date)", "date | rev", "date > /tmp/t; cat /tmp/t", "set -- $(date); echo $#"):
        run = interpret(["sh", "-c", script])
        assert (run.duration, run.exit_code, run.logs) == (1.0, 0, ()), script
        assert "date's output goes elsewhere" in run.warning, script
