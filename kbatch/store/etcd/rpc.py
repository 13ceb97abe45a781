"""The gRPC connection to etcd: one channel, its stubs, and etcd's errors as the store's errors.

The channel is kbatch's own (``grpc.insecure_channel``), not the client library's connection
object: that one marks an endpoint failed for five minutes after any ``UNAVAILABLE`` and refuses to
use it meanwhile, while the store must recover as soon as etcd is back. gRPC reconnects a channel by
itself (with back-off), and a call on a channel that cannot connect fails at once with
``UNAVAILABLE`` rather than waiting (``wait_for_ready`` off), so a request made while etcd is down
fails fast: the API server answers 503 instead of hanging.

Errors (etcd ``api/v3rpc/rpctypes/error.go``): ``ErrCompacted`` and ``ErrFutureRev`` (``OUT_OF_RANGE``)
become :class:`CompactedError` / :class:`FutureRevisionError`; ``UNAVAILABLE``, ``DEADLINE_EXCEEDED``
and ``ErrTimeout``-style failures become :class:`UnavailableError`. Anything else is a bug in how
the request was built and surfaces as ``StoreError`` with etcd's message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import grpc
from pyetcd import etcdrpc

from kbatch.store.errors import FutureRevisionError, StoreError, UnavailableError

__all__ = ["Connection", "RpcCompacted", "translate"]

R = TypeVar("R")

# etcd keeps a watch stream's messages small; a range over every stored object may be large
_MAX_MESSAGE = 512 * 1024 * 1024
_UNAVAILABLE = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED,
                grpc.StatusCode.UNKNOWN}


class RpcCompacted(StoreError):
    """etcd said ``ErrCompacted`` for revision ``requested``; the store looks up the compaction
    point (etcd's error does not carry it) and raises ``CompactedError``."""

    def __init__(self, requested: int) -> None:
        super().__init__(f"revision {requested} has been compacted")
        self.requested = requested


def translate(err: grpc.RpcError, requested: int = 0) -> StoreError:
    code = err.code() if hasattr(err, "code") else grpc.StatusCode.UNKNOWN
    details = (err.details() if hasattr(err, "details") else str(err)) or ""
    if code == grpc.StatusCode.OUT_OF_RANGE and "compacted" in details:
        return RpcCompacted(requested)
    if code == grpc.StatusCode.OUT_OF_RANGE and "future" in details:
        return FutureRevisionError(requested, -1)
    if code in _UNAVAILABLE or "timed out" in details or "leader" in details:
        return UnavailableError(f"etcd is unavailable: {details or code.name}")
    return StoreError(f"etcd: {details or code.name}")


class Connection:
    """A channel to etcd and the stubs of its KV, Watch and Maintenance services."""

    def __init__(self, target: str, timeout: float) -> None:
        self.target = target
        self.timeout = timeout
        options = [("grpc.max_receive_message_length", _MAX_MESSAGE),
                   ("grpc.max_send_message_length", _MAX_MESSAGE),
                   ("grpc.lb_policy_name", "pick_first"),
                   # reconnect quickly once etcd is back (gRPC's default back-off grows to 120 s)
                   ("grpc.initial_reconnect_backoff_ms", 100),
                   ("grpc.min_reconnect_backoff_ms", 100),
                   ("grpc.max_reconnect_backoff_ms", 1000),
                   ("grpc.keepalive_time_ms", 10_000),
                   ("grpc.keepalive_timeout_ms", 5_000),
                   ("grpc.keepalive_permit_without_calls", 1)]
        self.channel = grpc.insecure_channel(target, options=options)
        self.kv = etcdrpc.KVStub(self.channel)
        self.watch = etcdrpc.WatchStub(self.channel)
        self.maintenance = etcdrpc.MaintenanceStub(self.channel)

    def call(self, method: Callable[..., R], request: Any, requested: int = 0) -> R:
        """One unary call with the connection's deadline, etcd's errors translated."""
        try:
            return method(request, timeout=self.timeout)
        except grpc.RpcError as err:
            raise translate(err, requested) from None

    def close(self) -> None:
        self.channel.close()
