"""Run ``kbatch serve`` as a child process: for tests, benchmarks and tools that need a live server.

``ServeProcess`` starts ``python -m kbatch.cli serve --port 0`` on 127.0.0.1, waits (bounded) for
its "listening on" line, and stops it with SIGTERM, after which the server has saved its state::

    with ServeProcess(state_dir) as server:
        subprocess.run(["kubectl", "get", "pods"], env=server.env())
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

__all__ = ["ServeProcess"]


class ServeProcess:
    def __init__(self, state: str | os.PathLike[str], *extra: str, controllers: str | None = None,
                 start_timeout: float = 20.0, globals_after: bool = False) -> None:
        self.state = Path(state)
        self.extra = extra
        self.controllers = controllers
        self.start_timeout = start_timeout
        self.globals_after = globals_after  # `serve --state D` rather than `--state D serve`
        self.url = ""
        self.output: list[str] = []
        self.process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str] = queue.Queue()

    @property
    def kubeconfig(self) -> Path:
        return self.state / "kubeconfig"

    def env(self) -> dict[str, str]:
        """kubectl's environment for this server: its kubeconfig, and a discovery cache of its own
        (kubectl keys the cache by host and port, and a later server may reuse this one's port)."""
        cache = self.state.parent / f"{self.state.name}-kube-cache"
        return {**os.environ, "KUBECONFIG": str(self.kubeconfig), "KUBECACHEDIR": str(cache)}

    def start(self) -> ServeProcess:
        flags = ["--state", str(self.state)]
        if self.controllers:
            flags += ["--controllers", self.controllers]
        serve = ["serve", "--port", "0", *self.extra]
        args = [*serve, *flags] if self.globals_after else [*flags, *serve]
        cmd = [sys.executable, "-m", "kbatch.cli", *args]
        self.process = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        env={**os.environ, "PYTHONUNBUFFERED": "1"})
        threading.Thread(target=self._read, daemon=True).start()
        while not self.url:
            try:
                line = self._lines.get(timeout=self.start_timeout)
            except queue.Empty:
                self.process.kill()
                raise RuntimeError(f"kbatch serve did not start within {self.start_timeout}s: "
                                   f"{''.join(self.output)}") from None
            if not line:
                raise RuntimeError(f"kbatch serve exited early: {''.join(self.output)}")
            if "listening on" in line:
                self.url = line.split("listening on ", 1)[1].split()[0]
        return self

    def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            self.output.append(line)
            self._lines.put(line)
        self._lines.put("")

    def stop(self, timeout: float = 15.0) -> int:
        """SIGTERM, then wait; returns the exit code (0 after a clean shutdown that saved state)."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"kbatch serve did not stop within {timeout}s of SIGTERM; its output and "
                               f"every thread's stack:\n{self._dump_and_kill()}") from None
        while True:  # let the reader thread hand over the last lines
            try:
                if not self._lines.get(timeout=timeout):
                    break
            except queue.Empty:
                break
        return code

    def _dump_and_kill(self) -> str:
        """SIGUSR1 (the server prints every thread's stack, kbatch/server/runner.py), a moment for the
        dump to arrive, then SIGKILL; returns all the output the server wrote."""
        assert self.process is not None
        if hasattr(signal, "SIGUSR1"):
            self.process.send_signal(signal.SIGUSR1)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=2.0)
        self.process.kill()
        self.process.wait()
        while True:
            try:
                if not self._lines.get(timeout=5.0):
                    break
            except queue.Empty:
                break
        return "".join(self.output)

    def __enter__(self) -> ServeProcess:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
