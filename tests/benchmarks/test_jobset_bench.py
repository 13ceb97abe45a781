"""benchmarks/jobset_bench.py keeps working and runs what a user runs by default (the benchmark rule:
default controllers, trace and Events on, CPython's GC; the tuned variant only under ``--tuned``,
printed as such). Speed is not judged here (benchmarks measure, tests do not time)."""

from __future__ import annotations

import gc
import os
import re
import subprocess
import sys
from pathlib import Path

import kbatch
from kbatch.runtime.controlplane import ControlPlane
from kbatch.runtime.trace import NullTrace

ROOT = Path(kbatch.__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import jobset_bench  # noqa: E402


def _names(cp: ControlPlane) -> set[str]:
    return {c.name for c in cp.manager.controllers}


def test_the_default_side_is_a_users_control_plane_and_the_tuned_one_is_not() -> None:
    user, tuned = jobset_bench._control_plane("jobset", False), jobset_bench._control_plane("jobset", True)
    assert _names(user) == _names(ControlPlane(seed=1))
    assert not isinstance(user.trace, NullTrace)
    assert isinstance(tuned.trace, NullTrace)
    assert _names(tuned) < _names(user) and {"jobset", "job", "scheduler", "kubelet"} <= _names(tuned)
    assert "jobset" not in _names(jobset_bench._control_plane("job", True))


def test_a_side_keeps_cpythons_gc_thresholds_unless_tuned() -> None:
    before = gc.get_threshold()
    try:
        result = jobset_bench._run_side("jobset", 1, 2, 2, 2, 3600)
        assert gc.get_threshold() == before
        assert result["pods"] == 4 and result["virtual_s"] >= 60
        jobset_bench._run_side("job", 1, 1, 1, 1, 3600, tuned=True)
        assert gc.get_threshold() == (50_000, 20, 100)
    finally:
        gc.set_threshold(*before)


def test_a_small_run_prints_both_sides_and_the_variant() -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    bench = str(ROOT / "benchmarks" / "jobset_bench.py")
    for flags, variant in (([], "as a user runs it"), (["--tuned"], "tuned: ")):
        done = subprocess.run([sys.executable, bench, "--jobsets", "1", "--replicas", "2", "--pods", "2",
                               "--nodes", "2", *flags], capture_output=True, text=True, timeout=600, env=env,
                              cwd=ROOT)
        assert done.returncode in (0, 1), done.stderr  # 1: a target missed (tiny runs are all fixed cost)
        out = done.stdout
        assert variant in out.splitlines()[0], out
        for side in ("job", "jobset"):
            line = rf"^ *{side}: 4 pods, virtual \d+ s; .* us/pod; peak RSS \d+ MiB$"
            assert re.search(line, out, re.M), out
        assert re.search(r"JobSet cost per pod = \d+\.\d{3} x a plain Job's", out), out
