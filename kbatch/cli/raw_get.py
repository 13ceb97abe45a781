"""``kbatch get --raw URI``: the server's answer to ``GET URI``, as is (kubectl ``get --raw``,
``staging/src/k8s.io/kubectl/pkg/cmd/get/get.go`` → ``RawGet``: the body printed unchanged).

Against ``kbatch serve`` (``--server``) it is an HTTP GET; on local state, the same request is
dispatched to the API server's router in this process (:class:`kbatch.server.app.KbatchApp`), so a
path answered only by ``kbatch serve``'s handlers (Kueue's visibility API, discovery, ``/metrics``)
is answered here too, as the local administrator. An error is the server's Status
(``Error from server (NotFound): …``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

if TYPE_CHECKING:
    from kbatch.server.backend import Backend

__all__ = ["raw_get"]


def raw_get(backend: Backend, uri: str) -> str:
    """The body of ``GET uri``."""
    remote = getattr(backend, "raw_get", None)
    if remote is not None:  # kbatch.cli.remote.HttpBackend
        return str(remote(uri))
    from kbatch.server.app import KbatchApp
    from kbatch.server.http import Request
    from kbatch.server.routing import PageNotFound, route_not_found

    parts = urlsplit(uri if uri.startswith("/") else "/" + uri)
    request = Request("GET", parts.path, parse_qs(parts.query, keep_blank_values=True), {}, b"")
    try:
        return KbatchApp(backend).dispatch(request).body.decode()
    except PageNotFound:
        raise route_not_found() from None
