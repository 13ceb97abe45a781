"""The whole conformance suite through :class:`conformance.http_target.HttpTarget`, as a child pytest.

Against ``kbatch serve --clock virtual`` every semantic must pass, as it does in-process; against
``--clock real`` (standing in for a real cluster: no way to move time) every check that needs a
virtual clock is skipped. The child runs ``pytest conformance`` with
``KBATCH_CONFORMANCE_TARGET=conformance.http_target:from_kubeconfig``, exactly as a user would.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from kbatch.server.process import ServeProcess

ROOT = Path(__file__).resolve().parents[2]
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


def _in_process_total() -> int:
    """How many semantics the suite has (the in-process report counts them all)."""
    return len(re.findall(r'@pytest\.mark\.semantic\(', "".join(
        p.read_text() for p in (ROOT / "conformance").rglob("test_*.py"))))


def test_job_suite_passes_over_http_against_kbatch_serve(virtual_server: ServeProcess) -> None:
    out, (passed, failed, skipped, total) = _run_suite(virtual_server)
    assert f"HTTP {virtual_server.url} (virtual clock" in out, out
    assert "conformance.http_target:from_kubeconfig" in out
    assert (failed, skipped) == (0, 0), out
    assert passed == total == _in_process_total(), out


def test_without_a_virtual_clock_checks_that_need_one_are_skipped(real_server: ServeProcess) -> None:
    out, (passed, failed, skipped, total) = _run_suite(real_server)
    assert f"HTTP {real_server.url} (no virtual clock" in out, out
    assert failed == 0 and passed + skipped == total, out
    assert "SKIP" in out and skipped == _in_process_total(), out  # today every check needs one
