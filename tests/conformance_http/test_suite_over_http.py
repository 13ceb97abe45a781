"""The whole conformance suite through :class:`conformance.http_target.HttpTarget`, as a child pytest.

Three families of checks: those that play the kubelet (``plays_kubelet``: pod status patches, virtual
time), those whose pods really run (``runs_pods``: the container command decides) and API validation
(``api_validation``: invalid Jobs/CronJobs refused with 422, no pods, no time), which runs against every
server. Against
``kbatch serve --clock virtual --controllers job,cronjob`` (no nodes) the first family passes and
the second is skipped; against a virtual serve with the default controllers and nodes the second
passes and the first is skipped; against ``--clock real`` with default controllers and nodes
(standing in for a real cluster: no way to move time) the real-pod checks pass and every check that
needs a virtual clock is skipped. The child runs ``pytest conformance`` with
``KBATCH_CONFORMANCE_TARGET=conformance.http_target:from_kubeconfig``, exactly as a user would.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from kbatch.server.process import ServeProcess

ROOT = Path(__file__).resolve().parents[2]
COLLECTED = re.compile(r"^conformance/\S+\.py: (\d+)$", re.M)
SUMMARY = re.compile(r"(\d+) passed, (\d+) failed, (\d+) skipped of (\d+) semantics")


def _run_suite(server: ServeProcess) -> tuple[str, tuple[int, int, int, int]]:
    env = {**server.env(), "KBATCH_CONFORMANCE_TARGET": "conformance.http_target:from_kubeconfig"}
    env.pop("KBATCH_CONFORMANCE_NAMESPACE", None)
    proc = subprocess.run([sys.executable, "-m", "pytest", "conformance", "-q", "-p", "no:cacheprovider"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    out = proc.stdout + proc.stderr
    match = SUMMARY.search(out)
    assert match, out
    passed, failed, skipped, total = (int(g) for g in match.groups())
    assert proc.returncode == 0 or failed, out  # a non-zero exit must come with a failed semantic
    return out, (passed, failed, skipped, total)


def _semantics(marker: str | None = None) -> int:
    """How many checks the suite has (each carries one semantic), or how many are marked ``marker``:
    pytest's own collection, so module-level and per-check marks both count."""
    args = [sys.executable, "-m", "pytest", "conformance", "--collect-only", "-q", "-p", "no:cacheprovider"]
    proc = subprocess.run(args + (["-m", marker] if marker else []), cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    counts = COLLECTED.findall(proc.stdout)  # "conformance/job/test_x.py: 6" per module
    assert proc.returncode in (0, 5) and (counts or marker), proc.stdout + proc.stderr
    return sum(int(n) for n in counts)


def _validation_passed(out: str) -> int:
    """How many API-validation checks the report lists as passed (all of them, on every server)."""
    return sum(1 for line in out.splitlines() if line.startswith("PASS  validation:"))


def test_kubelet_playing_checks_pass_over_http_against_kbatch_serve(virtual_server: ServeProcess) -> None:
    out, (passed, failed, skipped, total) = _run_suite(virtual_server)
    assert f"HTTP {virtual_server.url} (virtual clock" in out, out
    assert "conformance.http_target:from_kubeconfig" in out
    assert failed == 0 and total == _semantics(), out
    assert skipped == _semantics("runs_pods") > 0 and passed == total - skipped, out
    assert _validation_passed(out) == _semantics("api_validation") > 0, out


def test_real_pod_checks_pass_against_kbatch_serve_with_nodes(virtual_cluster_server: ServeProcess) -> None:
    out, (passed, failed, skipped, total) = _run_suite(virtual_cluster_server)
    assert f"HTTP {virtual_cluster_server.url} (virtual clock" in out and "pods run by nodes" in out, out
    assert failed == 0 and total == _semantics(), out
    assert skipped == _semantics("plays_kubelet") > 0 and passed == total - skipped, out
    assert _validation_passed(out) == _semantics("api_validation") > 0, out


def test_without_a_virtual_clock_the_real_pod_checks_run(real_server: ServeProcess) -> None:
    out, (passed, failed, skipped, total) = _run_suite(real_server)
    assert f"HTTP {real_server.url} (no virtual clock" in out, out
    assert failed == 0 and total == _semantics(), out
    validation = _semantics("api_validation")
    assert passed == _semantics("runs_pods") + validation and skipped == total - passed, out
    assert _validation_passed(out) == validation > 0, out
    assert all(line.startswith(("PASS  real pods:", "PASS  validation:")) for line in out.splitlines()
               if line.startswith("PASS ")), out
