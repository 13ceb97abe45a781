"""benchmarks/cli_phases.py keeps working: one command of a tiny state directory, its phases in the
order the CLI's session runs them, each with its resident set and its own peak (Linux's VmHWM reset
per phase), and the save's detail (the pickler's memo by type). Sizes are not judged here."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import kbatch

ROOT = Path(kbatch.__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300, env=env,
                          cwd=ROOT)


def test_one_command_is_measured_phase_by_phase(tmp_path: Path) -> None:
    state = str(tmp_path / "state")
    made = _run("-m", "kbatch.cli", "--state", state, "nodes", "add", "--count", "1")
    assert made.returncode == 0, made.stderr
    done = _run(str(ROOT / "benchmarks" / "cli_phases.py"), "--save-detail", "--state", state,
                "advance", "5s")
    assert done.returncode == 0, done.stderr
    assert "advanced 5s" in done.stdout
    phases = re.findall(r"^\[phase\] (.+?)\s+rss\s+[\d,]+ MiB\s+peak\s+[\d,]+ MiB\s+cpu", done.stderr, re.M)
    assert phases == ["imports", "load image (unpickle)", "settle before the command", "command, settle",
                      "save image"], done.stderr
    assert re.search(r"^\[save\] memo entries [\d,]+: \[\('", done.stderr, re.M), done.stderr
