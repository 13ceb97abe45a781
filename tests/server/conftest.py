"""Fixtures for the HTTP front end: an in-process app (httpx over ASGI) and a real ``kbatch serve``.

The subprocess is started on a free port of 127.0.0.1 (``--port 0``) and its readiness is its own
"listening on" line on stdout, read with a bounded wait; it is stopped with SIGTERM, and the test
checks that it exited cleanly having saved its state.
"""

from __future__ import annotations

import asyncio
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from kbatch.server.app import KbatchApp
from kbatch.server.facade import ControlPlaneBackend, new_control_plane

START_TIMEOUT = 20.0


class AppClient:
    """Synchronous calls into the ASGI app (one event loop per call: the app keeps no loop state)."""

    def __init__(self, app: KbatchApp) -> None:
        self.app = app

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        async def go() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(transport=transport, base_url="http://kbatch") as client:
                return await client.request(method, path, **kwargs)

        return asyncio.run(go())

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("POST", path, **kwargs)

    def patch(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("PATCH", path, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("DELETE", path, **kwargs)


@pytest.fixture
def backend() -> ControlPlaneBackend:
    return ControlPlaneBackend(new_control_plane(controllers="garbage-collector"))


@pytest.fixture
def api(backend: ControlPlaneBackend) -> AppClient:
    return AppClient(KbatchApp(backend))


@pytest.fixture
def make_api() -> Any:
    """``make_api(backend, token=...)``: a client for an app built with other options."""
    return lambda backend, **kwargs: AppClient(KbatchApp(backend, **kwargs))


@dataclass
class Served:
    url: str
    kubeconfig: Path
    state: Path
    process: subprocess.Popen[str]
    lines: list[str]

    def env(self) -> dict[str, str]:
        return {**os.environ, "KUBECONFIG": str(self.kubeconfig)}


def _reader(stream: Any, out: queue.Queue[str]) -> None:
    for line in stream:
        out.put(line)
    out.put("")


def start_server(state: Path, *extra: str, controllers: str | None = None) -> Served:
    cmd = [sys.executable, "-m", "kbatch.cli", "--state", str(state)]
    if controllers:
        cmd += ["--controllers", controllers]
    cmd += ["serve", "--port", "0", *extra]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_reader, args=(proc.stdout, lines), daemon=True).start()
    seen: list[str] = []
    while True:
        try:
            line = lines.get(timeout=START_TIMEOUT)
        except queue.Empty:
            proc.kill()
            raise RuntimeError(f"kbatch serve did not start within {START_TIMEOUT}s: {seen}") from None
        if not line:
            raise RuntimeError(f"kbatch serve exited early: {''.join(seen)}")
        seen.append(line)
        if "listening on" in line:
            url = line.split("listening on ", 1)[1].split()[0]
            break
    served = Served(url, state / "kubeconfig", state, proc, seen)
    served._queue = lines  # type: ignore[attr-defined]
    return served


def stop_server(served: Served) -> str:
    served.process.send_signal(signal.SIGTERM)
    try:
        served.process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        served.process.kill()
        raise
    rest = []
    q: queue.Queue[str] = served._queue  # type: ignore[attr-defined]
    while True:
        try:
            line = q.get(timeout=5)
        except queue.Empty:
            break
        if not line:
            break
        rest.append(line)
    return "".join(rest)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    state = tmp_path_factory.mktemp("serve-state")
    server = start_server(state)
    try:
        yield server
    finally:
        tail = stop_server(server)
        assert server.process.returncode == 0, tail
        assert "state saved" in tail
