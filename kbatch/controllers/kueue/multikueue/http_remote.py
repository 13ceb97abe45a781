"""A worker cluster over HTTP: any Kubernetes API server (``kbatch serve``, a real cluster).

Built from a :class:`~.kubeconfig.ClientConfig` (server, bearer token, CA data) with httpx. Reads and
writes are plain REST calls (``/apis/GROUP/VERSION/…``), errors come back as ``Status`` bodies and are
raised as kbatch's :mod:`~kbatch.api.errors`; a transport error is :class:`~.remote.ConnectionFailed`.

Difference from upstream: the "watch" lists the labelled objects every ``poll_interval`` seconds of the
manager's clock (1 s) and reports what changed, instead of holding a streaming watch open: the
manager's loop runs on one thread and is woken only by its own writes and timers, so a poll from a
timer keeps the loop single-threaded and deterministic. A failed poll ends the watch (``on_lost``), as
a dropped stream does upstream.
"""

from __future__ import annotations

import contextlib
import ssl
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from kbatch.api import errors
from kbatch.api.meta import Resource
from kbatch.api.rest_paths import resource_path as _path
from kbatch.api.rest_paths import status_error
from kbatch.controllers.kueue.multikueue.kubeconfig import ClientConfig
from kbatch.controllers.kueue.multikueue.remote import ConnectionFailed

if TYPE_CHECKING:
    import httpx

__all__ = ["POLL_INTERVAL", "HttpRemote"]

T = TypeVar("T", bound=Resource)
POLL_INTERVAL = 1.0
Schedule = Callable[[float, Callable[[], None]], object]  # (delay seconds, callback)
def _raise(resp: httpx.Response) -> None:
    if resp.status_code < 400:
        return
    try:
        body = resp.json()
    except ValueError:
        body = {}
    fallback = resp.text.strip() or f"HTTP {resp.status_code}"
    raise status_error(body if isinstance(body, dict) else {}, fallback)


class HttpRemote:
    """:class:`~.remote.RemoteCluster` over the Kubernetes REST API."""

    def __init__(self, config: ClientConfig, schedule: Schedule, *, timeout: float = 10.0) -> None:
        self.config, self.schedule, self.timeout = config, schedule, timeout
        self._http: httpx.Client | None = None
        self.generation = 0  # bumped by stop(): a pending poll of an older watch does nothing

    @property
    def http(self) -> httpx.Client:
        """The connection, opened on first use (and again after the manager's state was restored)."""
        if self._http is None:
            import httpx  # imported on first use: a manager without HTTP workers never loads it

            verify: Any = True
            if self.config.ca_data is not None:
                verify = ssl.create_default_context(cadata=self.config.ca_data.decode())
            token = self.config.token
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            self._http = httpx.Client(
                base_url=self.config.server, headers=headers, verify=verify, timeout=self.timeout
            )
        return self._http

    def __getstate__(self) -> dict[str, Any]:
        """A saved manager keeps the config, not the open connection."""
        return {**self.__dict__, "_http": None}

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        import httpx

        try:
            resp = self.http.request(method, path, **kwargs)
        except httpx.HTTPError as err:
            raise ConnectionFailed(f"{method} {self.http.base_url}{path}: {err}") from None
        _raise(resp)
        return resp.json()

    def get(self, kind: type[T], name: str, namespace: str | None) -> T | None:
        try:
            return kind.from_dict(self._call("GET", _path(kind.api_info, namespace, name)))
        except errors.NotFound:
            return None

    def list(self, kind: type[T], labels: dict[str, str]) -> list[T]:
        selector = ",".join(f"{k}={v}" for k, v in sorted(labels.items()))
        body = self._call("GET", _path(kind.api_info, None), params={"labelSelector": selector})
        info = kind.api_info
        return [
            kind.from_dict({"apiVersion": info.api_version, "kind": info.kind, **item})
            for item in body.get("items") or ()
        ]

    def create(self, obj: T) -> T:
        m = obj.metadata
        return type(obj).from_dict(self._call("POST", _path(obj.api_info, m.namespace), json=obj.to_dict()))

    def update(self, obj: T) -> T:
        m = obj.metadata
        path = _path(obj.api_info, m.namespace, m.name)
        return type(obj).from_dict(self._call("PUT", path, json=obj.to_dict()))

    def update_status(self, obj: T) -> T:
        m = obj.metadata
        path = _path(obj.api_info, m.namespace, m.name, "status")
        return type(obj).from_dict(self._call("PUT", path, json=obj.to_dict()))

    def delete(self, kind: type[Resource], name: str, namespace: str | None) -> None:
        body = {"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"}
        with contextlib.suppress(errors.NotFound):
            self._call("DELETE", _path(kind.api_info, namespace, name), json=body)

    def watch(
        self,
        kinds: tuple[type[Resource], ...],
        origin: str,
        on_change: Callable[[Resource], None],
        on_lost: Callable[[], None] | None = None,
    ) -> None:
        from kbatch.api.kueue_v1beta2.multikueue import ORIGIN_LABEL

        labels = {ORIGIN_LABEL: origin}
        seen = {kind: self._versions(kind, labels) for kind in kinds}  # raises ConnectionFailed
        self.schedule(POLL_INTERVAL, _Poll(self, labels, seen, on_change, on_lost, self.generation))

    def _versions(
        self, kind: type[Resource], labels: dict[str, str]
    ) -> dict[tuple[str, str], tuple[str, Resource]]:
        return {
            (o.metadata.namespace or "", o.metadata.name or ""): (o.metadata.resource_version or "", o)
            for o in self.list(kind, labels)
        }

    def report(
        self,
        kind: type[Resource],
        labels: dict[str, str],
        before: dict[tuple[str, str], tuple[str, Resource]],
        on_change: Callable[[Resource], None],
    ) -> dict[tuple[str, str], tuple[str, Resource]]:
        now = self._versions(kind, labels)
        for key in sorted(now.keys() | before.keys()):
            old, new = before.get(key), now.get(key)
            if new is None and old is not None:
                on_change(old[1])
            elif new is not None and (old is None or old[0] != new[0]):
                on_change(new[1])
        return now

    def stop(self) -> None:
        self.generation += 1

    def close(self) -> None:
        self.stop()
        if self._http is not None:
            self._http.close()


class _Poll:
    """One watch's next poll (an object, not a closure: a saved manager's timers pickle)."""

    def __init__(
        self,
        remote: HttpRemote,
        labels: dict[str, str],
        seen: dict[type[Resource], dict[tuple[str, str], tuple[str, Resource]]],
        on_change: Callable[[Resource], None],
        on_lost: Callable[[], None] | None,
        generation: int,
    ) -> None:
        self.remote, self.labels, self.seen = remote, labels, seen
        self.on_change, self.on_lost, self.generation = on_change, on_lost, generation

    def __call__(self) -> None:
        remote = self.remote
        if self.generation != remote.generation:
            return
        try:
            for kind in list(self.seen):
                self.seen[kind] = remote.report(kind, self.labels, self.seen[kind], self.on_change)
        except (ConnectionFailed, errors.StatusError):
            remote.generation += 1
            if self.on_lost is not None:
                self.on_lost()
            return
        remote.schedule(POLL_INTERVAL, self)
