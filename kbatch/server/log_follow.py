"""``GET pods/{name}/log?follow=true``: the container's log as a chunked stream that ends with the run.

Upstream, kube-apiserver proxies the request to the node's kubelet (k8s.io/kubernetes
``pkg/registry/core/pod/rest/log.go``, ``LogREST.Get`` returning a ``LocationStreamer``), whose
``ReadLogs`` (``pkg/kubelet/kuberuntime/logs/logs.go``) first writes the lines the options select
(``tailLines``, ``sinceSeconds``/``sinceTime``, ``timestamps``), then, with ``follow``, waits for
more and writes each new line as the container writes it, until the container is no longer running
(``waitLogs``/``isContainerRunning``; ``tailLines`` only picks where reading starts);
``limitBytes`` bounds the whole stream. A terminated container's log is sent whole and the stream
ends at once.

kbatch's container writes a line when virtual time reaches it (``actions.pod_log_lines``), so a
stream is woken by the clock moving (:class:`ClockTicks`, rung after every clock request; with the
real clock, once a second) and by a change to the pod, and ends when the run it started on is over:
terminated, restarted (the rest of that run is sent first), or the
pod gone. It also ends at server shutdown and when the client goes away.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from kbatch.api.errors import NotFound
from kbatch.server.backend import Backend, WatchOptions
from kbatch.server.http import Request
from kbatch.server.pod_log_options import LogLine, LogOptions, cut_log, log_options
from kbatch.server.routing import ResourcePath

__all__ = ["ClockTicks", "FollowState", "follow_step", "run_of", "serve_log_follow"]

REAL_CLOCK_POLL = 1.0  # seconds between looks at a real-clock container's log


class ClockTicks:
    """The wakers of open log streams, rung when virtual time moves."""

    def __init__(self) -> None:
        self._wakers: set[Callable[[], None]] = set()

    def add(self, fn: Callable[[], None]) -> None:
        self._wakers.add(fn)

    def discard(self, fn: Callable[[], None]) -> None:
        self._wakers.discard(fn)

    def tick(self) -> None:
        for fn in list(self._wakers):
            fn()


@dataclass(frozen=True)
class FollowState:
    consumed: int = 0  # lines of the run already looked at (sent, or cut by the options)
    sent_bytes: int = 0
    started: bool = False


def follow_step(lines: Sequence[LogLine], state: FollowState, opts: LogOptions) -> tuple[bytes, FollowState]:
    """What to send now of the run's ``lines`` (all it has written so far): the first time, the lines
    ``opts`` select, as a plain ``GET``; later, each new line (``since`` and ``timestamps`` apply,
    ``tailLines`` does not), until ``limitBytes`` are sent."""
    if not state.started:
        data = cut_log(lines, opts)
    else:
        left = None if opts.limit_bytes is None else opts.limit_bytes - state.sent_bytes
        if left is not None and left <= 0:
            data = b""
        else:
            data = cut_log(lines[state.consumed:], replace(opts, tail_lines=None, limit_bytes=left))
    return data, FollowState(len(lines), state.sent_bytes + len(data), True)


def run_of(pod: dict[str, Any], container: str) -> tuple[str, str | None]:
    """``(state, startedAt)`` of the container's current run: which run a stream is on, and whether
    it is still running."""
    status = pod.get("status") or {}
    found: dict[str, Any] = {}
    for key in ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"):
        found = next((s for s in status.get(key) or () if s.get("name") == container), found)
    state = found.get("state") or {}
    kind = next(iter(sorted(state)), "waiting")
    return kind, (state.get(kind) or {}).get("startedAt")


def _container(pod: dict[str, Any], opts: LogOptions) -> str:
    return opts.container or ((pod.get("spec") or {}).get("containers") or [{}])[0].get("name", "")


async def serve_log_follow(backend: Backend, req: Request, rp: ResourcePath, send: Any, receive: Any,
                           ticks: ClockTicks, closing: Callable[[], bool],
                           shutdown_wakers: Any) -> None:
    """Answer a follow request. Errors before the stream starts (a bad option, a missing pod or
    container, one still waiting) propagate as a plain Status, as for a plain ``GET``."""
    name, namespace = rp.name or "", rp.namespace or "default"
    opts = log_options(req, name, backend.now())
    first = backend.pod_log_lines(namespace, name, opts.container, previous=opts.previous)
    pod = backend.get(rp.spec.info, namespace, name)
    container = _container(pod, opts)
    state, started = run_of(pod, container)
    data, progress = follow_step(first, FollowState(), opts)
    if opts.previous or state != "running":  # an ended run: its whole log, then the end
        await _send_whole(send, data)
        return
    stream = _Stream(send)
    await stream.start(data)
    pods = backend.watch(rp.spec.info, namespace, WatchOptions(field_selector=f"metadata.name={name}"))
    wake = asyncio.Event()
    pods.set_notify(wake.set)
    ticks.add(wake.set)
    shutdown_wakers.add(wake.set)
    watcher = asyncio.create_task(_disconnect(receive, stream, wake))
    real = not backend.clock().get("virtual", True)
    try:
        while not stream.gone and not closing():
            wake.clear()
            pods.poll()
            lines, over = _lines_now(backend, rp, namespace, name, container, started)
            data, progress = follow_step(lines, progress, opts)
            await stream.chunk(data)
            if over or (opts.limit_bytes is not None and progress.sent_bytes >= opts.limit_bytes):
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), REAL_CLOCK_POLL if real else None)
    except OSError:
        stream.gone = True
    finally:
        ticks.discard(wake.set)
        shutdown_wakers.discard(wake.set)
        pods.set_notify(None)
        pods.close()
        watcher.cancel()
    await stream.end()


def _lines_now(backend: Backend, rp: ResourcePath, namespace: str, name: str, container: str,
               started: str | None) -> tuple[Sequence[LogLine], bool]:
    """The run's lines so far, and whether the run is over (the kubelet's ``isContainerRunning``)."""
    try:
        pod = backend.get(rp.spec.info, namespace, name)
    except NotFound:
        return [], True
    state, now_started = run_of(pod, container)
    if now_started == started:
        return backend.pod_log_lines(namespace, name, container), state != "running"
    # restarted (once or more since the last look): the rest of the run it was on, then the end
    return backend.pod_log_lines(namespace, name, container, run_started=started), True


async def _disconnect(receive: Any, stream: _Stream, wake: asyncio.Event) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    stream.gone = True
    wake.set()


async def _send_whole(send: Any, data: bytes) -> None:
    headers = [(b"content-type", b"text/plain"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": data})


class _Stream:
    """The chunked 200 of one log stream, ended once with the last chunk unless the client left."""

    def __init__(self, send: Any) -> None:
        self._send = send
        self.gone = False

    async def start(self, data: bytes) -> None:
        await self._send({"type": "http.response.start", "status": 200,
                          "headers": [(b"content-type", b"text/plain"),
                                      (b"cache-control", b"no-cache, private")]})
        await self.chunk(data)

    async def chunk(self, data: bytes) -> None:
        if data:
            await self._send({"type": "http.response.body", "body": data, "more_body": True})

    async def end(self) -> None:
        if not self.gone:
            with contextlib.suppress(OSError):
                await self._send({"type": "http.response.body", "body": b"", "more_body": False})
