"""Running ``kbatch serve``: bind, announce, load, serve with uvicorn, and save state on the way out.

The socket is bound first, so the "listening" line (and the kubeconfig) are printed once connections
can be accepted, and ``--port 0`` picks a free port. The control plane is loaded in a worker thread
while the server already answers (:mod:`kbatch.server.starting`): ``/version`` and the health checks
at once, everything else once loaded. SIGINT and SIGTERM stop accepting, end open watch streams, and
return, after which the caller saves the state. SIGUSR1 prints every thread's stack on stderr and
changes nothing else (a debugging aid, as a Go binary's stack dump; the server keeps running).
Binding anywhere but the loopback interface requires a bearer token. Nothing heavy is imported
before the socket is bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import faulthandler
import ipaddress
import logging
import signal
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kbatch.server.starting import StartingApp

if TYPE_CHECKING:
    from kbatch.server.tls import ServingCert

__all__ = ["ServeOptions", "dump_stacks_on_sigusr1", "is_loopback", "serve_forever"]


@dataclass(frozen=True, slots=True)
class ServeOptions:
    host: str = "127.0.0.1"
    port: int = 6443
    token: str | None = None
    tls: ServingCert | None = None  # HTTPS with this certificate (kbatch/server/tls.py)
    jwks_uri: str | None = None  # --service-account-jwks-uri (kbatch/server/oidc_discovery.py)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def dump_stacks_on_sigusr1() -> None:
    """From now on, SIGUSR1 writes every thread's Python stack to stderr, even while the main thread
    is blocked in C (faulthandler's handler runs outside the interpreter loop). For a server that
    does not stop: ``kill -USR1 PID`` shows where each thread waits."""
    if hasattr(signal, "SIGUSR1"):  # not on Windows
        faulthandler.register(signal.SIGUSR1, all_threads=True)


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


Loaded = tuple[Any, Callable[[], Any] | None]  # (the ASGI app, a background coroutine function or None)


def serve_forever(load: Callable[[], Loaded], opts: ServeOptions, *,
                  on_listening: Callable[[str], None]) -> None:
    """Serve until SIGINT/SIGTERM. ``load()`` runs in a worker thread once the socket listens and
    returns the app (a :class:`~kbatch.server.app.KbatchApp`) and, optionally, a background
    coroutine function (the real-clock control-plane loop), run beside the server and cancelled at
    shutdown. An exception from ``load`` stops the server and is raised here."""
    import uvicorn

    if not is_loopback(opts.host) and not opts.token:
        raise ValueError(f"binding to {opts.host} exposes the API beyond this machine: give a bearer "
                         "token with --token (or KBATCH_TOKEN)")
    sock = _bind(opts.host, opts.port)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    starting = StartingApp(token=opts.token)
    tls = opts.tls
    config = uvicorn.Config(starting, log_level="warning", access_log=False, lifespan="off",
                            timeout_graceful_shutdown=2, ws="none", http="auto",
                            ssl_certfile=str(tls.cert_file) if tls else None,
                            ssl_keyfile=str(tls.key_file) if tls else None)
    server = _Server(config, starting)
    logging.getLogger("uvicorn.error").addFilter(UpgradeNoise())
    failure: list[BaseException] = []

    loaded = asyncio.Event()

    async def loader() -> None:
        try:
            app, background = await asyncio.to_thread(load)
        except Exception as err:  # reported by the caller, once the server has stopped
            failure.append(err)
            starting.fail()
            server.should_exit = True
            return
        finally:
            loaded.set()
        starting.ready(app)
        if background is not None and not server.should_exit:
            await background()

    async def main() -> None:
        on_listening(f"{'https' if tls else 'http'}://{shown}:{port}")
        task = asyncio.ensure_future(loader())
        try:
            await server.serve(sockets=[sock])
        finally:
            await loaded.wait()  # a load still running is waited for: its thread cannot be stopped
            task.cancel()  # the background loop, if any
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
    if failure:
        raise failure[0]


UPGRADE_NOISE = ("Unsupported upgrade request.", "No supported WebSocket library detected.")


class UpgradeNoise(logging.Filter):
    """Drops uvicorn's two warnings about an upgrade request (``kubectl exec``, ``attach``, ``cp``,
    ``port-forward``): kbatch serves no WebSocket on purpose (``ws="none"``) and answers such a
    request itself, as a kube-apiserver whose kubelet cannot be dialled answers it
    (``kbatch/server/streaming.py``), so "pip install uvicorn[standard]" would be wrong advice."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(UPGRADE_NOISE)


class _Server:
    """uvicorn's Server, ending watch streams as soon as a shutdown signal arrives."""

    def __new__(cls, config: Any, app: StartingApp) -> Any:
        import uvicorn

        class Server(uvicorn.Server):
            def handle_exit(self, sig: int, frame: Any) -> None:
                # A signal handler runs between any two bytecodes of the loop's thread: ending the
                # streams there could fall between a stream's "closing?" check and its wait, whose
                # waker it would then clear, so the stream slept past uvicorn's graceful timeout and
                # was cancelled without its last chunk. The loop runs it between callbacks instead.
                try:
                    loop = asyncio.get_running_loop()
                except RuntimeError:  # before the loop runs (or after): nothing is streaming
                    app.begin_shutdown()
                else:
                    loop.call_soon_threadsafe(app.begin_shutdown)
                super().handle_exit(sig, frame)

        return Server(config)
