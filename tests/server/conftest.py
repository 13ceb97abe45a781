"""Fixtures for the HTTP front end: an in-process app (httpx over ASGI) and a real ``kbatch serve``.

The subprocess (``kbatch.server.process.ServeProcess``) listens on a free port of 127.0.0.1 and is
ready when it prints its "listening on" line (a bounded wait); it is stopped with SIGTERM, and the
fixture checks that it exited cleanly having saved its state.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from kbatch.server.app import KbatchApp
from kbatch.server.facade import ControlPlaneBackend, new_control_plane
from kbatch.server.process import ServeProcess


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


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    server = ServeProcess(tmp_path_factory.mktemp("serve-state")).start()
    try:
        yield server
    finally:
        code = server.stop()
        assert code == 0, "".join(server.output)
        assert any("state saved" in line for line in server.output)
        # kubectl exec/attach/cp/port-forward ask an upgrade, which kbatch answers itself: uvicorn's
        # advice to install a WebSocket library would mislead (kbatch/server/runner.py UpgradeNoise)
        assert not any("WebSocket" in line or "upgrade request" in line for line in server.output), \
            "".join(server.output)


@pytest.fixture(scope="module")
def served_tls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    """``kbatch serve --tls``: kubectl sends bearer tokens only to an https server."""
    server = ServeProcess(tmp_path_factory.mktemp("serve-tls"), "--tls").start()
    try:
        yield server
    finally:
        assert server.stop() == 0, "".join(server.output)
