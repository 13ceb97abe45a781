"""Running ``kbatch serve``: bind, announce, serve with uvicorn, and save state on the way out.

The socket is bound before uvicorn starts, so the "listening" line (and the kubeconfig) are
printed only once connections can be accepted, and ``--port 0`` picks a free port. SIGINT and
SIGTERM stop accepting, end open watch streams, and return, after which the caller saves the
state. Binding anywhere but the loopback interface requires a bearer token.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import signal
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kbatch.server.app import KbatchApp

__all__ = ["ServeOptions", "is_loopback", "serve_forever"]


@dataclass(frozen=True, slots=True)
class ServeOptions:
    host: str = "127.0.0.1"
    port: int = 6443
    token: str | None = None


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto IPPROTO_TCP: asyncio sets TCP_NODELAY only on sockets that say they are TCP; without it
    # a keep-alive client waits out Nagle + delayed ACK (~40 ms) on every response
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(1024)
    sock.setblocking(False)
    return sock


def serve_forever(app: KbatchApp, opts: ServeOptions, *, on_listening: Callable[[str], None],
                  background: Callable[[], Any] | None = None) -> None:
    """Serve until SIGINT/SIGTERM. ``background`` (e.g. the real-clock control-plane loop) runs as a
    task beside the server and is cancelled at shutdown."""
    import uvicorn

    if not is_loopback(opts.host) and not opts.token:
        raise ValueError(f"binding to {opts.host} exposes the API beyond this machine: give a bearer "
                         "token with --token (or KBATCH_TOKEN)")
    sock = _bind(opts.host, opts.port)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                            timeout_graceful_shutdown=2, ws="none", http="auto")
    server = _Server(config, app)

    async def main() -> None:
        task = asyncio.ensure_future(background()) if background is not None else None
        on_listening(f"http://{shown}:{port}")
        try:
            await server.serve(sockets=[sock])
        finally:
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    # Ours until uvicorn installs its own, and again after it restores them: a signal that arrives
    # before uvicorn listens still stops it, and the one uvicorn re-raises on its way out is harmless
    # (the caller then saves the state and exits 0).
    previous = {sig: signal.signal(sig, server.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        asyncio.run(main())
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


class _Server:
    """uvicorn's Server, ending watch streams as soon as a shutdown signal arrives."""

    def __new__(cls, config: Any, app: KbatchApp) -> Any:
        import uvicorn

        class Server(uvicorn.Server):
            def handle_exit(self, sig: int, frame: Any) -> None:
                app.begin_shutdown()
                super().handle_exit(sig, frame)

        return Server(config)
