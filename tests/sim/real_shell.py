"""Running a script in the machine's real shells, to compare the simulated shell's output with
theirs (bash in POSIX mode, dash when installed) in the C locale, in a scratch directory."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

__all__ = ["SHELLS", "real_output"]

SHELLS = tuple(s for s in ("bash", "dash") if shutil.which(s))


def real_output(shell: str, script: str) -> tuple[str, int]:
    """What ``shell -c SCRIPT`` prints (standard output and error together) and its exit status, run
    in a fresh directory ``$D`` (the script ``cd``s there itself) with ``LC_ALL=C``."""
    argv = [shell, "--posix", "-c", script] if shell == "bash" else [shell, "-c", script]
    with tempfile.TemporaryDirectory() as scratch:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "D": scratch}
        done = subprocess.run(argv, capture_output=False, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              env=env, text=True, timeout=20, check=False)
    return done.stdout, done.returncode
