"""benchmarks/dra_bench.py keeps working: a tiny run prints every figure issue 18 asks for, and each
side makes exactly the writes per pod the docs account for (extended resource: pod, binding, kubelet
status, Scheduled event; DRA adds the claim, the pod's resourceClaimStatuses, the claim's finalizer
and its allocation with reservedFor). Speed is not judged here (benchmarks measure, tests do not
time)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import kbatch

ROOT = Path(kbatch.__file__).resolve().parents[1]


def test_a_small_dra_bench_runs_and_counts_the_writes() -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    bench = str(ROOT / "benchmarks" / "dra_bench.py")
    done = subprocess.run(
        [sys.executable, bench, "--nodes", "3", "--gpus", "2", "--pods", "5"],
        capture_output=True, text=True, timeout=600, env=env, cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    out = done.stdout
    assert re.search(r"extended-resource: .* 4\.0 writes/pod; peak RSS \d+ MiB", out), out
    assert re.search(r"dra: .* 8\.0 writes/pod; peak RSS \d+ MiB", out), out
    assert re.search(r"DRA / extended-resource wall: \d+\.\d\dx \(CPU \d+\.\d\dx; target <= 2x\)", out), out
