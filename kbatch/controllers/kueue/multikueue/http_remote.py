"""A worker cluster over HTTP: any Kubernetes API server (``kbatch serve``, a real cluster).

Built from a :class:`~.kubeconfig.ClientConfig` (server, bearer token, CA data) with httpx. Reads and
writes are plain REST calls (``/apis/GROUP/VERSION/…``), errors come back as ``Status`` bodies and are
raised as kbatch's :mod:`~kbatch.api.errors`; a transport error is :class:`~.remote.ConnectionFailed`.
:meth:`HttpRemote.watch` holds one streaming watch per kind (:mod:`.watch_stream`), whose events reach
the manager's loop through its :class:`~.inbox.RemoteInbox`, as upstream's remote client holds
controller-runtime watches (kubernetes-sigs/kueue v0.19.2 ``multikueuecluster.go``).
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
from kbatch.controllers.kueue.multikueue.remote import ConnectionFailed, WatchEvent
from kbatch.controllers.kueue.multikueue.watch_stream import WatchStream

if TYPE_CHECKING:
    import httpx

    from kbatch.controllers.kueue.multikueue.inbox import RemoteInbox

__all__ = ["HttpRemote"]

T = TypeVar("T", bound=Resource)
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

    def __init__(self, config: ClientConfig, inbox: RemoteInbox, *, timeout: float = 10.0) -> None:
        self.config, self.inbox, self.timeout = config, inbox, timeout
        self._http: httpx.Client | None = None
        self.streams: list[WatchStream] = []
        self.on_lost: Callable[[], None] | None = None
        self.watching = False  # kept through a save: a restored remote's streams are gone

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
        """A saved manager keeps the config, not the open connection nor the reader threads."""
        return {**self.__dict__, "_http": None, "streams": []}

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
        on_event: Callable[[WatchEvent], None],
        on_lost: Callable[[], None] | None = None,
        unlabelled: tuple[type[Resource], ...] = (),
    ) -> None:
        """One stream per kind, all established before this returns (upstream marks the client
        connected only once every watch is open, ``updateConfigAndRefreshWatchers``); the
        ``unlabelled`` kinds are watched without a selector."""
        from kbatch.api.kueue_v1beta2.multikueue import ORIGIN_LABEL

        self.stop()
        selector = f"{ORIGIN_LABEL}={origin}"
        try:
            for kind, sel in [*((k, selector) for k in kinds), *((k, "") for k in unlabelled)]:
                stream = WatchStream(self.http, kind, sel, self.inbox, on_event, self._lost)
                self.streams.append(stream)
                stream.start()
        except ConnectionFailed:
            self.stop()
            raise
        self.on_lost, self.watching = on_lost, True
        self.inbox.register(self)

    def _lost(self, stream: object) -> None:
        """On the loop thread: a stream ended by itself; the others stop, the owner is told once."""
        if stream in self.streams:
            self._end()

    def revive(self) -> None:
        """After a restore: the streams did not survive; the owner reconnects."""
        if self.watching:
            self._end()

    def _end(self) -> None:
        on_lost = self.on_lost
        self.stop()
        if on_lost is not None:
            on_lost()

    def stop(self) -> None:
        streams, self.streams = self.streams, []
        for stream in streams:
            stream.stop()
        self.on_lost, self.watching = None, False
        self.inbox.unregister(self)

    def close(self) -> None:
        self.stop()
        if self._http is not None:
            self._http.close()
