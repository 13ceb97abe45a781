"""Running a script in the machine's real shells, to compare the simulated shell's output with
theirs (bash in POSIX mode, dash when installed) in the C locale, in a scratch directory."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

from kbatch.sim.command import interpret
from kbatch.sim.files import FileSystem

__all__ = ["SETUP", "SHELLS", "agree", "real_output", "simulated_output"]

SHELLS = tuple(s for s in ("bash", "dash") if shutil.which(s))
SETUP = 'mkdir -p "$D" && cd "$D" && '
"""What a compared script starts with: into its scratch directory (``$D``)."""


def real_output(shell: str, script: str, args: tuple[str, ...] = (), posix: bool = True) -> tuple[str, int]:
    """What ``shell -c SCRIPT [ARG…]`` prints (standard output and error together) and its exit
    status, run in a fresh directory ``$D``, also its working directory, with ``LC_ALL=C``
    (bash in POSIX mode unless not ``posix``)."""
    argv = [shell, *(["--posix"] if shell == "bash" and posix else []), "-c", script, *args]
    with tempfile.TemporaryDirectory() as scratch:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "D": scratch}
        done = subprocess.run(argv, capture_output=False, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              env=env, text=True, timeout=20, check=False, cwd=scratch)
    return done.stdout, done.returncode


def simulated_output(script: str, files: FileSystem | None = None,
                     args: tuple[str, ...] = (), shell: str = "sh") -> tuple[str, int]:
    """What the simulated shell prints for ``sh -c SCRIPT [ARG…]`` (``shell``: ``bash -c``; its log,
    a line per log line) and its exit status, with ``$D`` a directory of the container's own layer."""
    run = interpret([shell, "-c", script, *args], env={"D": "/tmp/scratch"},
                    files=(lambda: files) if files is not None else None)
    return "".join(line + "\n" for line in run.logs), run.exit_code


def agree(script: str, shells: tuple[str, ...] = SHELLS, args: tuple[str, ...] = (),
          as_bash: bool = False) -> None:
    """The simulated shell prints what each real shell prints, and exits as it does (``as_bash``:
    the simulated one run as ``bash -c``, its bash-only constructs then bash's)."""
    for shell in shells:
        simulated = simulated_output(script, args=args, shell="bash" if as_bash else "sh")
        assert simulated == real_output(shell, script, args), shell
