"""The whole conformance suite over HTTP, run as a user would: ``kbatch conformance --server URL -o json
--junit-xml FILE`` as a child process against ``kbatch serve`` children.

Three servers, three capability sets (conftest.py): a virtual clock without nodes (the checks that
play the kubelet run, the real-pod ones are skipped), a virtual clock with the default controllers and
two nodes (the other way round), and a REAL clock with nodes, standing in for a real cluster: every
check that needs a virtual clock must be reported as skipped with its reason, never failed, and every
other check must pass. Each run's JSON report is validated against its schema and its JUnit report
against the JUnit structure, and every semantic's outcome is checked against what the target's
declared capabilities allow (:mod:`conformance.requirements`) — nothing is hard-coded per check.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import conformance.dra
import conformance.gang  # noqa: F401  (the same)
from conformance.requirements import REQUIREMENTS, unmet
from conformance.target import FAULTS, KUBELET, KUEUE, VIRTUAL_CLOCK
from kbatch.server.process import ServeProcess
from tests.conformance_suite.validate import validate_json, validate_junit

ROOT = Path(__file__).resolve().parents[2]


def _markers(semantic: dict[str, Any]) -> list[str]:
    """The requirement markers a semantic's ``requires``/``excludes`` stand for (a family's own, such
    as the gang family's ``needs_workload_with_job``, from its registration)."""
    by_need = {VIRTUAL_CLOCK: "needs_virtual_clock", KUBELET: "runs_pods", FAULTS: "needs_faults",
               KUEUE: "needs_kueue"}
    by_need |= {next(iter(r.needs)): m for m, r in REQUIREMENTS.items() if len(r.needs) == 1 and m not in
                by_need.values()}
    return [by_need[c] for c in semantic["requires"]] + ["plays_kubelet" for c in semantic["excludes"]
                                                          if c == KUBELET]


def run_over_http(server: ServeProcess, tmp_path: Path,
                  *extra: str) -> tuple[dict[str, Any], ET.Element, int]:
    """``kbatch conformance --server URL -o json --junit-xml FILE``: the JSON, the JUnit, the exit code."""
    junit = tmp_path / "junit.xml"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "kbatch.cli", "conformance", "--server", server.url,
                           "-o", "json", "--junit-xml", str(junit), *extra],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.stdout.lstrip().startswith("{"), proc.stdout + proc.stderr
    doc = json.loads(proc.stdout)
    validate_json(doc)
    assert doc["exitCode"] == proc.returncode, proc.stderr
    return doc, ET.parse(junit).getroot(), proc.returncode


def assert_outcomes_follow_capabilities(doc: dict[str, Any], junit: ET.Element) -> dict[str, int]:
    """Every semantic the target can run passed; every other was skipped with exactly the unmet
    requirements' reasons. Returns the summary."""
    caps = frozenset(doc["target"]["capabilities"])
    for semantic in doc["semantics"]:
        reasons = unmet(_markers(semantic), caps)
        if reasons:
            assert semantic["outcome"] == "skipped", semantic
            # the reasons of the shared requirements, in order; a family's own marker (e.g. dra's
            # simulated_dra, not visible in the report's capabilities) may add its reason
            assert all(reason in semantic["message"] for reason in reasons), semantic
        else:
            assert semantic["outcome"] == "passed", semantic
    counts = validate_junit(junit)
    summary = doc["summary"]
    assert {k: summary[k] for k in counts} == counts
    assert summary["failed"] == summary["error"] == 0 and summary["passed"] > 0 and summary["skipped"] > 0
    return summary


def _requiring(doc: dict[str, Any], capability: str, key: str = "requires") -> list[dict[str, Any]]:
    return [s for s in doc["semantics"] if capability in s[key]]


def test_kubelet_playing_checks_pass_over_http_against_kbatch_serve(virtual_server: ServeProcess,
                                                                      tmp_path: Path) -> None:
    doc, junit, code = run_over_http(virtual_server, tmp_path)
    assert code == 0 and set(doc["target"]["capabilities"]) == {VIRTUAL_CLOCK, FAULTS, KUEUE}
    assert doc["target"]["kubernetesVersion"] == "v1.37.0-kbatch"
    assert doc["target"]["descriptions"][0].startswith(f"HTTP {virtual_server.url} (virtual clock")
    assert_outcomes_follow_capabilities(doc, junit)
    assert all(s["outcome"] == "passed" for s in _requiring(doc, KUBELET, "excludes"))


def test_real_pod_checks_pass_against_kbatch_serve_with_nodes(virtual_cluster_server: ServeProcess,
                                                              tmp_path: Path) -> None:
    doc, junit, code = run_over_http(virtual_cluster_server, tmp_path)
    assert code == 0 and set(doc["target"]["capabilities"]) == {VIRTUAL_CLOCK, FAULTS, KUBELET, KUEUE}
    assert_outcomes_follow_capabilities(doc, junit)
    caps = frozenset(doc["target"]["capabilities"])  # a gated check (an alpha gate off) is skipped
    assert all(s["outcome"] == "passed" for s in _requiring(doc, KUBELET) if not unmet(_markers(s), caps))


def test_real_clock_skips_the_virtual_clock_checks_with_their_reason(real_server: ServeProcess,
                                                                     tmp_path: Path) -> None:
    doc, junit, code = run_over_http(real_server, tmp_path)
    assert code == 0 and set(doc["target"]["capabilities"]) == {FAULTS, KUBELET, KUEUE}
    assert doc["target"]["descriptions"][0].startswith(f"HTTP {real_server.url} (no virtual clock")
    summary = assert_outcomes_follow_capabilities(doc, junit)
    virtual = _requiring(doc, VIRTUAL_CLOCK)
    assert virtual and all(s["outcome"] == "skipped" and "virtual clock" in s["message"] for s in virtual)
    gated = [s for s in doc["semantics"] if s not in virtual and unmet(_markers(s), frozenset(
        doc["target"]["capabilities"]))]  # needs an alpha feature gate the server runs with off
    assert all(c.startswith("feature-gate:") for s in gated for c in s["requires"] if c != KUBELET)
    assert summary["passed"] == summary["total"] - len(virtual) - len(gated)  # nothing else is skipped
    skipped = junit.findall(".//testcase/skipped")
    assert len(skipped) == summary["skipped"] and all(el.get("message") for el in skipped)


def test_gang_checks_skip_on_a_server_without_kubernetes_podgroups(tmp_path: Path) -> None:
    """A server that serves scheduler-plugins' PodGroup but not scheduling.k8s.io/v1beta1 (the
    GenericWorkload gate off, as upstream's default) skips the gang family's checks with the reason:
    a bare "PodGroup" resolved to scheduling.x-k8s.io, so the validation check ran and failed with
    "the server does not serve kind 'PodGroup' in scheduling.k8s.io/v1beta1"."""
    state = tmp_path / "state"
    # with the two controllers that ready the checks' namespaces for pods, as on any cluster
    controllers = "job,serviceaccount,root-ca-cert-publisher"
    server = ServeProcess(state, "--clock", "virtual", controllers=controllers).start()
    try:
        doc, _, code = run_over_http(server, tmp_path, "--family", "gang")
    finally:
        assert server.stop() == 0, "".join(server.output)
    assert code == 0 and doc["summary"]["failed"] == doc["summary"]["error"] == 0
    [validation] = [s for s in doc["semantics"] if s["id"].endswith("gang_min_count_must_be_positive")]
    assert validation["outcome"] == "skipped"
    assert "does not serve PodGroup.scheduling.k8s.io" in validation["message"]
