"""Three ways to run the same kbatch command lines, for the continuity tests (issue 15).

* :class:`KeptControlPlane` — the CLI's commands (the real entry point, ``main``) against ONE
  in-process control plane that is never saved or loaded: the session a command opens is that
  control plane's backend, settled before and after the command as the CLI's session settles it.
  This is "the same calls on one ``ControlPlane``".
* :class:`CliProcesses` — every command a separate ``python -m kbatch.cli --state DIR …`` process
  (a fresh interpreter, its own hash seed: nothing survives but the state directory). They share
  a bytecode cache, as an installed kbatch has one (pip compiles on install).
* :class:`CliInProcess` — every command through ``main`` with ``--state DIR`` in this process: the
  same load, act, save of the image as a separate process, minus the interpreter start (quick enough
  for the CI-sized property test).

Each runner answers :meth:`run` (exit code, stdout) and :meth:`observe`: every registered kind listed
with ``get KINDS -A -o json`` (one command, all kinds) and the trace digest.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import kbatch
from kbatch.cli import main

ROOT = Path(kbatch.__file__).resolve().parents[1]  # the checkout whose kbatch the tests import
TIMEOUT = 300
_BYTECODE = tempfile.TemporaryDirectory(prefix="kbatch-pyc-")  # removed when the test process ends


@dataclass(frozen=True, slots=True)
class Outcome:
    code: int
    out: str
    err: str = ""


@dataclass(frozen=True, slots=True)
class Observation:
    """What the three runs must agree on, byte for byte."""

    objects: str  # `kbatch get <every kind> -A -o json`
    digest: str  # the trace digest


def every_kind(registry: Any) -> str:
    """Every registered kind, as ``get`` takes several (``pods,jobs.batch,…``), in registry order."""
    return ",".join(f"{s.info.plural}.{s.info.group}" if s.info.group else s.info.plural for s in registry)


def _in_process(argv: list[str]) -> Outcome:
    """``kbatch ARGV`` through the real entry point, capturing what a terminal would show."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    gc.unfreeze()  # a loaded image is frozen for the command's life (runtime/image.py); not the test's
    return Outcome(code, out.getvalue(), err.getvalue())


class KeptControlPlane:
    """The CLI's commands against one in-process control plane (module docstring)."""

    def __init__(self) -> None:
        from kbatch.cli.state import StateConfig
        from kbatch.server.facade import ControlPlaneBackend

        self.control_plane = StateConfig().build()  # what the CLI builds for a new state directory
        self.backend = ControlPlaneBackend(self.control_plane)

    @contextlib.contextmanager
    def _session(self, opts: Any, *, save: bool = True) -> Iterator[Any]:
        """kbatch/cli/session.py's ``session``, minus the image: settle, act, settle (also after a
        failed API call, as the CLI keeps what succeeded before it)."""
        self.backend.settle()
        try:
            yield self.backend
        finally:
            self.backend.settle()

    def run(self, *args: str) -> Outcome:
        with mock.patch("kbatch.cli.session.session", self._session):
            return _in_process(list(args))

    def observe(self) -> Observation:
        listed = self.run("get", every_kind(self.control_plane.registry), "-A", "-o", "json")
        assert listed.code == 0, listed.err
        return Observation(listed.out, self.control_plane.trace.digest())

    def close(self) -> None:
        self.control_plane.close()


class _StateDirRunner:
    def __init__(self, state: Path) -> None:
        self.state = state

    def run(self, *args: str) -> Outcome:
        raise NotImplementedError

    def observe(self) -> Observation:
        from kbatch.families import builtin

        composed = builtin()  # the kinds a default control plane serves (gated ones at their defaults)
        listed = self.run("get", every_kind(composed.registry(composed.feature_gates())), "-A", "-o", "json")
        assert listed.code == 0, listed.err
        digest = self.run("trace", "--digest")
        assert digest.code == 0, digest.err
        return Observation(listed.out, digest.out.strip())

    def close(self) -> None:
        return None


class CliProcesses(_StateDirRunner):
    """Every command a separate ``python -m kbatch.cli`` process over one state directory."""

    def run(self, *args: str) -> Outcome:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
        env["PYTHONPYCACHEPREFIX"] = _BYTECODE.name
        for name in ("PYTHONDONTWRITEBYTECODE", "KBATCH_STATE", "KBATCH_SERVER", "KBATCH_CONTROLLERS",
                     "KBATCH_FEATURE_GATES", "KBATCH_ETCD_SERVERS"):
            env.pop(name, None)
        done = subprocess.run([sys.executable, "-m", "kbatch.cli", "--state", str(self.state), *args],
                              capture_output=True, text=True, timeout=TIMEOUT, env=env, cwd=ROOT)
        return Outcome(done.returncode, done.stdout, done.stderr)


class CliInProcess(_StateDirRunner):
    """Every command through ``main`` with ``--state DIR`` in this process (load, act, save)."""

    def run(self, *args: str) -> Outcome:
        return _in_process(["--state", str(self.state), *args])


class Commands:
    """A user's session of ``kbatch --state DIR`` commands through ``runner`` (separate processes or
    in process), each asserted to succeed unless told; manifests written under ``tmp``."""

    def __init__(self, tmp: Path, runner: _StateDirRunner) -> None:
        self.tmp = tmp
        self.runner = runner

    def file(self, name: str, text: str) -> str:
        path = self.tmp / name
        path.write_text(text)
        return str(path)

    def ok(self, *args: str) -> str:
        done = self.runner.run(*args)
        assert done.code == 0, f"kbatch {' '.join(args)}: {done.err}{done.out}"
        return done.out

    def refused(self, *args: str) -> str:
        """The command's error output, once it is asserted to exit 1."""
        done = self.runner.run(*args)
        assert done.code == 1, f"kbatch {' '.join(args)}: {done.out}"
        return done.err

    def json(self, *args: str) -> Any:
        return json.loads(self.ok(*args, "-o", "json"))
