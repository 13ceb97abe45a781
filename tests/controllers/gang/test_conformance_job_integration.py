"""The gang family's Job-integration check (``conformance/gang/test_gang.py``, marked
``needs_workload_with_job``: it needs the alpha gate WorkloadWithJob, off by default upstream) is
collected by the suite: in process the suite turns the gate on for that check alone; over HTTP it runs
against a ``kbatch serve --feature-gates ...WorkloadWithJob=true`` (whose ``/metrics`` reports the
gate) and is skipped, with the requirement's reason, against one without it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from conformance.gang import WORKLOAD_WITH_JOB, test_gang
from conformance.http_target import _FEATURE_SERIES, HttpTarget
from conformance.kbatch_target import FEATURE_GATES, KbatchTarget, with_nodes
from conformance.kubeconfig import load_kubeconfig
from conformance.requirements import REQUIREMENTS
from conformance.target import feature_gate, gates_of
from kbatch.cli.app import app
from kbatch.families import BUILTIN_FAMILIES
from kbatch.families.composition import compose
from kbatch.server.feature_metrics import render_feature_enabled
from kbatch.server.process import ServeProcess

ROOT = Path(__file__).resolve().parents[3]
CHECK = "job_with_spec_scheduling"
ID = "gang.gang.a_job_with_spec_scheduling_gets_a_workload_and_pod_group"


def _semantic(doc: dict[str, Any]) -> dict[str, Any]:
    [found] = [s for s in doc["semantics"] if s["id"] == ID]
    return found


def test_in_process_the_suite_turns_the_gate_on_for_the_check_and_it_passes() -> None:
    res = CliRunner().invoke(app, ["conformance", "--family", "gang", "-k", CHECK, "-o", "json"])
    assert res.exit_code == 0, res.stderr
    semantic = _semantic(json.loads(res.stdout))
    assert semantic["outcome"] == "passed", semantic
    assert semantic["requires"] == sorted(["kubelet", WORKLOAD_WITH_JOB])


def test_the_in_process_target_declares_the_alpha_gates_it_runs_with() -> None:
    assert WORKLOAD_WITH_JOB not in KbatchTarget().capabilities  # GenericWorkload is beta: not declared
    target = with_nodes(1, feature_gates=f"{FEATURE_GATES},WorkloadWithJob=true")
    assert WORKLOAD_WITH_JOB in target.capabilities


def _over_http(tmp_path: Path, gates: str) -> tuple[dict[str, Any], frozenset[str]]:
    state = tmp_path / "state"
    subprocess.run([sys.executable, "-m", "kbatch.cli", "--state", str(state), "nodes", "add",
                    "--count", "2"], check=True, capture_output=True, timeout=60)
    with ServeProcess(state, "--clock", "virtual", "--feature-gates", gates) as server:
        target = HttpTarget(load_kubeconfig(server.kubeconfig))
        capabilities = target.capabilities
        target.close()
        proc = subprocess.run([sys.executable, "-m", "kbatch.cli", "conformance", "--server", server.url,
                               "--family", "gang", "-k", CHECK, "-o", "json"], cwd=tmp_path,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                              timeout=300)
    assert proc.stdout.lstrip().startswith("{"), proc.stdout + proc.stderr
    return json.loads(proc.stdout), capabilities


def test_over_kbatch_serve_with_the_gate_on_the_check_runs_and_passes(tmp_path: Path) -> None:
    doc, capabilities = _over_http(tmp_path, f"{FEATURE_GATES},WorkloadWithJob=true")
    assert WORKLOAD_WITH_JOB in capabilities  # read from the server's kubernetes_feature_enabled series
    assert _semantic(doc)["outcome"] == "passed", _semantic(doc)


def test_over_kbatch_serve_without_the_gate_the_check_is_skipped_with_its_reason(tmp_path: Path) -> None:
    doc, capabilities = _over_http(tmp_path, FEATURE_GATES)
    assert WORKLOAD_WITH_JOB not in capabilities
    semantic = _semantic(doc)
    assert semantic["outcome"] == "skipped"
    assert REQUIREMENTS["needs_workload_with_job"].reason in semantic["message"]


def test_importing_the_checks_from_tests_warns_of_no_unknown_marker() -> None:
    # this module imports conformance.gang.test_gang, whose checks carry the suite's markers; the
    # root conftest registers them
    check = test_gang.test_a_job_with_spec_scheduling_gets_a_workload_and_pod_group
    marks = {m.name for m in check.pytestmark}
    assert {"runs_pods", "needs_workload_with_job", "semantic"} <= marks
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:randomly",
                           "-W", "error::pytest.PytestUnknownMarkWarning", __file__],
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


_COMPOSED = compose(BUILTIN_FAMILIES)
_ALPHA = sorted(s.name for s in _COMPOSED.feature_specs if s.stage == "ALPHA" and not s.locked)


@settings(max_examples=30)
@given(st.sets(st.sampled_from(_ALPHA)))
def test_the_gates_a_server_publishes_are_the_alpha_gates_the_http_target_declares(on: set[str]) -> None:
    """``kbatch serve``'s ``kubernetes_feature_enabled`` series, read back by the HTTP target's parser,
    name exactly the alpha gates turned on; each becomes a ``feature-gate:<Name>`` capability."""
    wanted = dict.fromkeys(on, True)
    if "CompositePodGroup" in on:  # its dependency (docs/gang.md "Feature gates"), a beta gate
        wanted["GenericWorkload"] = True
    gates = _COMPOSED.feature_gates(wanted)
    text = render_feature_enabled(gates)
    read = sorted(m.group(1) for m in _FEATURE_SERIES.finditer(text)
                  if m.group(2) == "ALPHA" and m.group(3) == "1")
    assert read == sorted(on)
    assert gates_of({feature_gate(name) for name in read} | {"kubelet", "faults"}) == sorted(on)
