"""``kbatch conformance``: the conformance suite run in process with its report (issue 6)."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from kbatch.cli.app import app
from kbatch.cli.commands.conformance import kubeconfig_for

SUMMARY = re.compile(r"(\d+) passed, (\d+) failed, (\d+) skipped of (\d+) semantics")


def test_a_selection_runs_in_process_and_prints_the_report():
    res = CliRunner().invoke(app, ["conformance", "-k", "cronjob and suspend"])
    assert res.exit_code == 0, res.output
    assert "kbatch conformance report" in res.output
    assert "target: conformance.kbatch_target:KbatchTarget" in res.output
    line = next(ln for ln in res.output.splitlines() if ln.startswith("PASS "))
    assert "suspend" in line and "cronjob_controllerv2.go" in line  # semantic and its upstream source
    passed, failed, skipped, total = (int(g) for g in SUMMARY.search(res.output).groups())
    assert (failed, skipped) == (0, 0) and passed == total >= 1


def test_a_failing_run_exits_non_zero_and_reports_fail():
    # --server targets the suite's HTTP target; nothing listens there, so the check's setup fails.
    res = CliRunner().invoke(app, ["conformance", "-k", "cronjob and suspend", "--server", "http://127.0.0.1:9"])
    assert res.exit_code == 1, res.output
    assert "target: conformance.http_target:from_kubeconfig" in res.output
    assert re.search(r"^FAIL  suspend", res.output, re.M), res.output


def test_no_matching_check_is_an_error():
    res = CliRunner().invoke(app, ["conformance", "-k", "no_such_check_anywhere"])
    assert res.exit_code == 5  # pytest's NO_TESTS_COLLECTED


def test_kubeconfig_names_the_server_and_token():
    doc = kubeconfig_for("https://h:6443", "t0k")
    ctx = doc["contexts"][0]
    assert doc["current-context"] == ctx["name"]
    assert doc["clusters"][0]["cluster"]["server"] == "https://h:6443"
    assert doc["users"][0]["user"] == {"token": "t0k"}
