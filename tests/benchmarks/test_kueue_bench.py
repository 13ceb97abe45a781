"""benchmarks/kueue_bench.py keeps working, and Kueue's speed work changes no decision.

The pinned scenario is a mid-size replay of upstream's ``test/performance/scheduler`` baseline
(2 cohorts x 3 ClusterQueues, 510 workloads, queueing and 30 preemptions): the digest of its
admission/eviction/finish log (workload and virtual instant, in order) was recorded before the
throughput work (branch point 87ff30c) and must not move: an optimisation that changes which
workload is admitted, evicted or finished, or when, fails here. The whole-trace digest pins every
write; it moves only with a deliberate, documented change to what is written (docs/kueue.md,
"Performance"), and then together with this comment.

Speed is not judged here (docs: benchmarks measure, tests do not time).
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import kbatch

ROOT = Path(kbatch.__file__).resolve().parents[1]

# recorded at 87ff30c (before the throughput work); see the module docstring
ORDER_DIGEST = "f3a82899fa6ae3b55acced0db7c66890c12098d5048ada0491fe1c1ff77cba0d"
TRACE_DIGEST = "8893838cd86cd10bbe1175703b2410363be40f9d542554e5dd83d4d384d98956"


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("kueue_bench", ROOT / "benchmarks" / "kueue_bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("kueue_bench", module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_a_mid_size_replay_admits_in_the_pinned_order() -> None:
    result = _bench().run("baseline", 0.17, True, shape=(2, 3))
    assert result["workloads"] == 510
    assert result["evictions"] == 30
    assert result["order_digest"] == ORDER_DIGEST
    assert result["trace_digest"] == TRACE_DIGEST


def test_a_tiny_kueue_bench_prints_every_figure() -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "kueue_bench.py"), "--only", "baseline",
         "--scale", "0.002"],
        capture_output=True, text=True, timeout=600, env=env, cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    out = done.stdout
    for figure in (
        r"== baseline: 90 workloads \(scale 0\.002\)",
        r"Kueue / floor cpu ratio \d+\.\dx",
        r"ClusterQueue CPU usage \d+\.\d% of nominal",
        r"small +average time to admission +\d+\.\d s",
        r"peak RSS \d+ MiB",
    ):
        assert re.search(figure, out), (figure, out)
