"""``kbatch serve`` while its state loads: connections are accepted at once, the API when it is ready.

As kube-apiserver starts (``/livez`` and ``/version`` are served before the storage is ready;
``/readyz`` fails until its post-start hooks finish, k8s.io/apiserver ``pkg/server/healthz``), the
listening socket answers as soon as it is bound: ``/version``, ``/healthz`` and ``/livez`` at once,
``/readyz`` with 500 ``readyz check failed`` until the control plane is loaded, and every other
request as soon as it is (it waits, it is not refused). Loading (importing the controllers, restoring
the snapshot) runs in a worker thread meanwhile. This module imports nothing heavy: it is all that
stands between launch and the first answer.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from typing import Any

from kbatch.api.kube_version import version_info

__all__ = ["KUBE_VERSION", "StartingApp"]

KUBE_VERSION = version_info()  # GET /version: the release kbatch models (kbatch/api/kube_version.py)
_HEALTH = ("/healthz", "/livez", "/readyz")


class StartingApp:
    """The ASGI app uvicorn serves: early answers, then everything through the loaded ``app``."""

    def __init__(self, token: str | None = None) -> None:
        self.token = token
        self.app: Any = None
        self.failed = False
        self._ready = asyncio.Event()

    def ready(self, app: Any) -> None:
        self.app = app
        self._ready.set()

    def fail(self) -> None:
        """Loading failed: the server is stopping; waiting requests get a 503."""
        self.failed = True
        self._ready.set()

    def begin_shutdown(self) -> None:
        if self.app is not None:
            self.app.begin_shutdown()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if self.app is not None:
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            return
        path = scope.get("path", "").rstrip("/")
        if path == "/version" or path in _HEALTH:
            await self._early(scope, path, send)
            return
        await self._ready.wait()
        if self.app is None:
            body = _status(503, "ServiceUnavailable", "kbatch serve could not load its state")
            await _reply(send, 503, body)
            return
        await self.app(scope, receive, send)

    async def _early(self, scope: dict[str, Any], path: str, send: Any) -> None:
        if self.token is not None and not self._authorized(scope):
            await _reply(send, 401, _status(401, "Unauthorized", "Unauthorized"))
        elif path == "/version":
            await _reply(send, 200, json.dumps(KUBE_VERSION, indent=2).encode())  # http.raw_json_response
        elif path == "/readyz":
            body = b"[-]kbatch-state failed: not loaded yet\nreadyz check failed\n"
            await _reply(send, 500, body, "text/plain")
        else:
            await _reply(send, 200, b"ok", "text/plain")

    def _authorized(self, scope: dict[str, Any]) -> bool:
        """The same check as :class:`~kbatch.server.app.KbatchApp` makes on every request."""
        given = next((v for k, v in scope.get("headers", []) if k.lower() == b"authorization"), b"")
        return hmac.compare_digest(given, f"Bearer {self.token}".encode())


def _status(code: int, reason: str, message: str) -> bytes:
    return json.dumps({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                       "message": message, "reason": reason, "code": code}).encode() + b"\n"


async def _reply(send: Any, status: int, body: bytes, content_type: str = "application/json") -> None:
    headers = [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
