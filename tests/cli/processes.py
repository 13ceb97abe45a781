"""``kbatch`` commands as separate processes on one state directory, as a user types them: the
helpers the scenario tests share (each command a fresh interpreter; nothing survives but the state)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

__all__ = ["kbatch_ok", "kbatch_process"]


def kbatch_process(state: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """``python -m kbatch --state STATE ARGS…``, its exit code and output as they came."""
    return subprocess.run([sys.executable, "-m", "kbatch", "--state", str(state), *args],
                          capture_output=True, text=True, timeout=timeout, env=dict(os.environ))


def kbatch_ok(state: Path, *args: str, timeout: float = 180) -> str:
    """The command's standard output; it must exit 0 without a traceback."""
    out = kbatch_process(state, *args, timeout=timeout)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr, out.stderr
    return out.stdout
