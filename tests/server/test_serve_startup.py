"""``kbatch serve`` answers before its state is loaded (/version and health checks at once, everything
else once loaded, as kube-apiserver starts), and a state that cannot be loaded or taken stops it with
one error line. Start-up time itself is measured by benchmarks/startup_bench.py, not here."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kbatch.server.process import ServeProcess
from kbatch.server.starting import KUBE_VERSION, StartingApp

TIMEOUT = 60


class Recorder:
    """A stand-in for the loaded app: answers 200 with the path it was asked for."""

    def __init__(self) -> None:
        self.shutdown = False

    def begin_shutdown(self) -> None:
        self.shutdown = True

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": scope["path"].encode()})


async def _get(app: Any, path: str, headers: list[tuple[bytes, bytes]] | None = None) -> tuple[int, bytes]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app({"type": "http", "method": "GET", "path": path, "headers": headers or []}, receive, send)
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


def test_version_and_health_before_the_state_is_loaded_the_rest_after() -> None:
    async def scenario() -> None:
        starting = StartingApp()
        # WriteRawJSON: indented, no newline (k8s.io/apiserver responsewriters/writers.go)
        assert await _get(starting, "/version") == (200, json.dumps(KUBE_VERSION, indent=2).encode())
        assert await _get(starting, "/livez") == (200, b"ok")
        status, body = await _get(starting, "/readyz")
        assert status == 500 and body.endswith(b"readyz check failed\n")
        waiting = asyncio.ensure_future(_get(starting, "/api/v1/pods"))
        await asyncio.sleep(0)  # the request is in: it waits for the control plane, it is not refused
        assert not waiting.done()
        loaded = Recorder()
        starting.ready(loaded)
        assert await waiting == (200, b"/api/v1/pods")
        assert await _get(starting, "/readyz") == (200, b"/readyz")  # the loaded app answers now
        starting.begin_shutdown()
        assert loaded.shutdown

    asyncio.run(scenario())


def test_early_answers_need_the_token_too_and_a_failed_load_answers_503() -> None:
    async def scenario() -> None:
        starting = StartingApp(token="t")
        status, body = await _get(starting, "/version")
        assert status == 401 and json.loads(body)["reason"] == "Unauthorized"
        assert (await _get(starting, "/version", [(b"authorization", b"Bearer t")]))[0] == 200
        waiting = asyncio.ensure_future(_get(starting, "/api/v1/pods"))
        await asyncio.sleep(0)
        starting.fail()
        status, body = await waiting
        assert status == 503 and json.loads(body)["reason"] == "ServiceUnavailable"

    asyncio.run(scenario())


def _serve(state: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kbatch.cli", "serve", "--state", str(state), "--port", "0"],
                          capture_output=True, text=True, timeout=TIMEOUT,
                          env={**os.environ, "PYTHONUNBUFFERED": "1"})


def test_a_state_that_cannot_be_loaded_stops_the_server_with_one_line(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "state.kbatch").write_bytes(b"not a snapshot")
    out = _serve(state)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines()[-1].endswith("is not a kbatch control-plane image")
    assert (state / "state.kbatch").read_bytes() == b"not a snapshot"  # left as it was
    assert not (state / "server").exists()


def test_a_state_already_served_is_refused(tmp_path: Path) -> None:
    with ServeProcess(tmp_path / "state") as first:
        out = _serve(tmp_path / "state")
        assert out.returncode == 1
        assert f"is being served by kbatch serve at {first.url}" in out.stderr
        assert (tmp_path / "state" / "server").read_text().strip() == first.url  # not the refused one's


@pytest.mark.parametrize("clock", ["virtual", "real"])
def test_a_signal_while_serving_saves_the_loaded_state(tmp_path: Path, clock: str) -> None:
    server = ServeProcess(tmp_path / "state", "--clock", clock).start()
    assert server.stop() == 0, "".join(server.output)
    assert any("state saved" in line for line in server.output)
    assert (tmp_path / "state" / "state.kbatch").exists()


def test_sigusr1_prints_every_threads_stack_and_the_server_keeps_serving(tmp_path: Path) -> None:
    """The debugging aid for a server that does not stop: its stacks on stderr, nothing else changed."""
    import signal

    import httpx

    if not hasattr(signal, "SIGUSR1"):
        pytest.skip("no SIGUSR1 on this platform")
    server = ServeProcess(tmp_path / "state").start()
    try:
        assert server.process is not None
        assert httpx.get(f"{server.url}/api/v1/namespaces/default", timeout=TIMEOUT).status_code == 200
        server.process.send_signal(signal.SIGUSR1)
        assert httpx.get(f"{server.url}/api/v1/namespaces/default", timeout=TIMEOUT).status_code == 200
    finally:
        assert server.stop() == 0, "".join(server.output)
    dump = "".join(server.output)
    assert "Current thread" in dump or "Thread 0x" in dump, dump
    assert "serve_forever" in dump  # the main thread, where uvicorn runs


def test_a_server_that_does_not_stop_is_reported_with_its_stacks(tmp_path: Path) -> None:
    """``ServeProcess.stop`` gives up after its timeout with what the server printed, stacks included."""
    import signal

    if not hasattr(signal, "SIGUSR1"):
        pytest.skip("no SIGUSR1 on this platform")
    server = ServeProcess(tmp_path / "state").start()
    assert server.process is not None
    server.process.send_signal(signal.SIGSTOP)  # SIGTERM (and the SIGUSR1) wait; SIGKILL does not
    with pytest.raises(RuntimeError, match=r"did not stop within 0\.5s of SIGTERM"):
        server.stop(timeout=0.5)
    assert server.process.poll() is not None, "killed in the end"
