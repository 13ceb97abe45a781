"""``kbatch conformance``: the suite run in process with its report, its machine reports (JSON, JUnit),
``--list``, family and target selection, the capability skips, and the one-line errors."""

from __future__ import annotations

import builtins
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conformance.families import FAMILIES
from kbatch.cli.app import app
from kbatch.cli.commands.conformance import kubeconfig_for
from tests.conformance_suite.validate import validate_json, validate_junit

SUMMARY = re.compile(r"(\d+) passed, (\d+) failed, (\d+) skipped(?:, \d+ errors)? of (\d+) semantics")
NO_VIRTUAL_CLOCK = "tests.conformance_suite.targets:without_virtual_clock"


def _invoke(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(app, ["conformance", *args], env=env)


def test_a_selection_runs_in_process_and_prints_the_report():
    res = _invoke("-k", "cronjob and suspend")
    assert res.exit_code == 0, res.output
    assert "kbatch conformance report" in res.output
    assert "target: conformance.kbatch_target:KbatchTarget" in res.output
    assert "Kubernetes v1.37.0" in res.output
    line = next(ln for ln in res.output.splitlines() if ln.startswith("PASS "))
    assert "suspend" in line and "cronjob_controllerv2.go" in line  # semantic and its upstream source
    passed, failed, skipped, total = (int(g) for g in SUMMARY.search(res.output).groups())
    assert (failed, skipped) == (0, 0) and passed == total >= 1


def test_the_callers_pytest_options_do_not_reach_the_suite():
    # `kbatch conformance` reads none of the calling project's pytest configuration: PYTEST_ADDOPTS
    # naming a plugin it does not load (xdist's -n) would otherwise fail the run as a usage error (4)
    res = _invoke("-k", "cronjob and suspend", env={"PYTEST_ADDOPTS": "-n 2 --durations=3"})
    assert res.exit_code == 0, res.output
    assert "slowest" not in res.output and re.search(r"^PASS ", res.output, re.M), res.output


def test_an_unreachable_server_is_an_error_not_a_pass():
    # nothing listens there: the target cannot be built, so every selected check errors (exit 1)
    res = _invoke("-k", "cronjob and suspend", "--server", "http://127.0.0.1:9")
    assert res.exit_code == 1, res.output
    assert "target: conformance.http_target:from_kubeconfig" in res.output
    assert re.search(r"^ERR   suspend", res.output, re.M), res.output


def test_no_matching_check_exits_as_pytest_does():
    assert _invoke("-k", "no_such_check_anywhere").exit_code == 5  # NO_TESTS_COLLECTED


def test_json_and_junit_reports_validate_and_agree(tmp_path: Path):
    junit = tmp_path / "report.xml"
    res = _invoke("--family", "job", "-k", "cronjob or validation", "-o", "json", "--junit-xml", str(junit))
    assert res.exit_code == 0, res.stderr
    doc = json.loads(res.stdout)  # stdout is the JSON document alone; pytest's own output went to stderr
    validate_json(doc)
    assert doc["exitCode"] == 0 and doc["families"] == ["job"] and doc["seed"] == 0
    assert doc["target"]["kubernetesVersion"] == "v1.37.0"
    assert doc["summary"]["passed"] == doc["summary"]["total"] > 30
    counts = validate_junit(ET.parse(junit).getroot())
    assert counts == {k: doc["summary"][k] for k in counts}
    by_id = {s["id"]: s for s in doc["semantics"]}
    cases = {c.get("name"): c for c in ET.parse(junit).getroot().iter("testcase")}
    assert set(cases) == set(by_id)
    some = next(iter(by_id.values()))
    assert some["source"] in cases[some["id"]].find("system-out").text


def test_checks_a_target_cannot_run_are_skipped_with_the_reason_in_every_report(tmp_path: Path):
    env = {"KBATCH_CONFORMANCE_TARGET": NO_VIRTUAL_CLOCK}
    junit = tmp_path / "report.xml"
    res = _invoke("-k", "cronjob or validation", "-o", "json", "--junit-xml", str(junit), env=env)
    assert res.exit_code == 0, res.stderr
    doc = json.loads(res.stdout)
    validate_json(doc)
    timed = [s for s in doc["semantics"] if "virtual-clock" in s["requires"]]
    assert timed and all(s["outcome"] == "skipped" and "needs a virtual clock" in s["message"] for s in timed)
    rest = [s for s in doc["semantics"] if "virtual-clock" not in s["requires"]]
    assert rest and all(s["outcome"] == "passed" for s in rest)
    skipped = {c.get("name"): c.find("skipped") for c in ET.parse(junit).getroot().iter("testcase")}
    assert all(skipped[s["id"]] is not None and skipped[s["id"]].get("message") == s["message"]
               for s in timed)


def test_list_prints_every_semantic_with_its_source_and_runs_nothing():
    res = _invoke("--list", "-o", "json")
    assert res.exit_code == 0, res.stderr
    listed = json.loads(res.stdout)["semantics"]
    assert len(listed) == len({s["id"] for s in listed}) >= 80
    families = {f.name for f in FAMILIES}
    assert all(s["family"] in families and s["source"] and s["title"] for s in listed)
    assert {s["family"] for s in listed} == families, "every family has semantics"
    table = _invoke("--list")
    assert table.exit_code == 0 and "kbatch conformance report" not in table.output
    assert f"{len(listed)} semantics" in table.output
    for s in listed:
        assert f"  {s['id']}" in table.output and f"source: {s['source']}" in table.output


def test_family_selection_and_usage_errors():
    assert _invoke("--family", "job", "-k", "cronjob and suspend").exit_code == 0
    res = _invoke("--family", "nosuch")
    known = ", ".join(f.name for f in FAMILIES)
    assert res.exit_code == 1 and f"no conformance family 'nosuch'; known: {known}" in res.output
    res = _invoke("--server", "http://127.0.0.1:9", "--kubeconfig", "/nonexistent")
    assert res.exit_code == 1 and "--server and --kubeconfig" in res.output
    res = _invoke("--kubeconfig", "/nonexistent/config")
    assert res.exit_code == 1 and "no such file" in res.output
    res = _invoke("-o", "yaml")
    assert res.exit_code == 1 and "table or json" in res.output


def test_without_pytest_a_one_line_error_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch):
    real_import = builtins.__import__

    def hide_pytest(name, *args, **kwargs):
        if name == "pytest" or name.startswith("pytest."):
            raise ModuleNotFoundError("No module named 'pytest'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", hide_pytest)
    res = _invoke("-k", "anything")
    assert res.exit_code == 1
    assert res.output.strip().splitlines() == [
        "error: kbatch conformance needs pytest, which is not installed: "
        "pip install 'pytest>=8' 'hypothesis>=6.100'"]


def test_kubeconfig_names_the_server_and_token():
    doc = kubeconfig_for("https://h:6443", "t0k")
    ctx = doc["contexts"][0]
    assert doc["current-context"] == ctx["name"]
    assert doc["clusters"][0]["cluster"]["server"] == "https://h:6443"
    assert doc["users"][0]["user"] == {"token": "t0k"}


def test_version_prints_the_modelled_kubernetes_release_and_the_gates_in_force() -> None:
    res = CliRunner().invoke(app, ["version"])
    assert res.exit_code == 0 and "Kubernetes v1.37.0" in res.output
    gates = next(line for line in res.output.splitlines() if line.startswith("feature gates: "))
    named = dict(item.split("=") for item in gates.removeprefix("feature gates: ").split(","))
    assert named["JobManagedBy"] == "true" and named["SchedulerQueueingHints"] == "true"
    assert list(named) == sorted(named)
