"""benchmarks/gang_bench.py keeps working: a tiny run prints each side's figures and the ratios issue
17 asks for, no grouped side ever shows a partly bound gang, and the run says which variant it is
(by default what a user runs; ``--tuned`` the older benchmark knobs, printed as such). Speed is not
judged here (benchmarks measure, tests do not time)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import kbatch

ROOT = Path(kbatch.__file__).resolve().parents[1]


@pytest.mark.parametrize(("flags", "variant"), [((), "as a user runs it: default controllers, trace, Events"),
                                                (("--tuned",), "tuned: few controllers, no trace")])
def test_a_small_gang_bench_runs_every_side(flags: tuple[str, ...], variant: str) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "gang_bench.py"), "--nodes", "2", "--gangs", "4", *flags],
        capture_output=True, text=True, timeout=600, env=env, cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    out = done.stdout
    assert out.startswith("nodes=2 x 8 GPUs, gangs=4 x 8 pods") and variant in out.splitlines()[0], out
    for side in ("plain", "coscheduling", "native"):
        line = next(x for x in out.splitlines() if x.strip().startswith(f"{side}:"))
        figures = (r"\d+\.\d\dx plain, target <= 1\.5x\), \d+\.\d s CPU \(\d+\.\d\dx plain\), \d+ pods/s; "
                   r"\d+ virtual s; partly bound gangs seen \d+; peak RSS \d+ MiB")
        assert re.search(figures, line), line
        if side != "plain":
            assert "partly bound gangs seen 0;" in line, line
