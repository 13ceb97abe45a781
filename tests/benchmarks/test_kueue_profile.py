"""benchmarks/kueue_profile.py: the sampled profile counts each stack once per function and runs
as a user runs it (a separate process)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from typing import Any

from tests.benchmarks.scripts import ROOT, load


def _profile() -> Any:
    return load("kueue_profile")


def test_shares_count_a_recursive_function_once_a_sample() -> None:
    """Inclusive: every function on the stack once per sample, however often it recurs; self: the
    innermost; under: the callee next below the outermost frame of the function asked about."""
    samples = _profile().Samples()
    samples.stacks.update({
        ("run", "reconcile", "validate", "validate", "object"): 3,
        ("run", "reconcile", "write"): 1,
        ("run", "trace"): 2,
    })
    assert samples.total == 6
    assert samples.inclusive() == {"run": 6, "reconcile": 4, "validate": 3, "object": 3, "write": 1,
                                   "trace": 2}
    assert samples.self_time() == {"object": 3, "write": 1, "trace": 2}
    assert samples.under("reconcile") == {"validate": 3, "write": 1}
    assert samples.under("object") == {"<self>": 3}
    report = _profile().report(samples, top=2, under="reconcile")
    assert report.splitlines()[:4] == ["6 samples", "== inclusive", " 100.0% run", "  66.7% reconcile"]
    assert "== under reconcile" in report and "  50.0% validate" in report


def test_a_tiny_profile_runs_in_its_own_process() -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "kueue_profile.py"), "--only", "baseline",
         "--scale", "0.002", "--top", "5", "--under", "kueue_bench.py:run"],
        capture_output=True, text=True, timeout=600, env=env, cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    out = done.stdout
    assert re.search(r"== baseline, scale 0\.002: 90 workloads, Kueue run cpu \d+\.\d\d s", out), out
    assert re.search(r"^\d+ samples$", out, re.M) and "== inclusive" in out and "== self" in out, out
    assert "== under kueue_bench.py:run" in out, out
