"""Serving the OpenAPI v3 documents as kube-openapi's ``handler3`` does (k8s.io/kube-openapi
``pkg/handler3/handler.go``), so that kubectl's HTTP cache keeps them:

* ``/openapi/v3``: the discovery document, its ETag (``"<SHA-512 of the bytes>"``), ``If-None-Match``
  answered with a 304 (``http.ServeContent``);
* ``/openapi/v3/<group version>``: ``Vary: Accept``, the document's ETag; with ``?hash=`` equal to it,
  ``Cache-Control: public, immutable`` and an ``Expires`` a year ahead (the URL names the content, so
  it never changes); with another hash, a 301 to the current URL; an ``If-None-Match`` naming the
  ETag, a 304. An ``Accept`` with no JSON (or protobuf) clause is a 406 with no body; a group version
  the server does not have is upstream's empty 200 (``getSingleGroupBytes`` fails and the handler
  returns without writing).

kbatch writes JSON only: a client preferring the protobuf form (``application/com.github.proto-openapi
.spec.v3.v1.0+protobuf``, which kubectl does not ask for) gets JSON when it also accepts that, and a
406 when it does not.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from kbatch.server.http import Request, Response
from kbatch.server.openapi import OpenAPI, etag

__all__ = ["serve_v3_document", "serve_v3_root"]

_JSON_CLAUSES = frozenset({"*/*", "application/*", "application/json"})
_PROTOBUF = ("application/com.github.proto-openapi.spec.v3@v1.0+protobuf",
             "application/com.github.proto-openapi.spec.v3.v1.0+protobuf")
_VARY = ("vary", "Accept")


def serve_v3_root(openapi: OpenAPI, req: Request) -> Response:
    body = openapi.v3_root_bytes()
    tag = ("etag", f'"{etag(body)}"')
    if _not_modified(req, tag[1]):
        return Response(304, b"", content_type="", headers=(tag,))
    return Response(200, body, headers=(tag,))


def serve_v3_document(openapi: OpenAPI, req: Request, gv_path: str, now: datetime) -> Response:
    """``now``: the wall clock, for ``Expires`` (an HTTP cache's time, not the cluster's)."""
    if not _accepts_json(req.headers.get("accept") or "*/*"):
        return Response(406, b"", content_type="", headers=(_VARY,))
    body = openapi.v3_document(gv_path)
    if body is None:
        return Response(200, b"", content_type="", headers=(_VARY,))
    current = etag(body)
    headers = [_VARY, ("etag", f'"{current}"')]
    wanted = req.param("hash")
    if wanted:
        if wanted != current:
            location = f"/openapi/v3/{gv_path}?hash={current}"
            return Response(301, f'<a href="{location}">Moved Permanently</a>.\n\n'.encode(),  # http.Redirect
                            content_type="text/html; charset=utf-8",
                            headers=(*headers, ("location", location)))
        expires = (now + timedelta(days=365)).strftime("%a, %d %b %Y %H:%M:%S UTC")  # time.RFC1123
        headers += [("cache-control", "public, immutable"), ("expires", expires)]
    if _not_modified(req, headers[1][1]):
        return Response(304, b"", content_type="", headers=tuple(headers))
    return Response(200, body, headers=tuple(headers))


def _accepts_json(accept: str) -> bool:
    """goautoneg's clauses in order: the first JSON one wins; a protobuf one kbatch cannot write is
    passed over; q=0 refuses."""
    for clause in accept.split(","):
        media, *params = (part.strip() for part in clause.split(";"))
        if any(p.replace(" ", "") in ("q=0", "q=0.0") for p in params):
            continue
        if media.lower() in _JSON_CLAUSES:
            return True
    return False


def _not_modified(req: Request, quoted: str) -> bool:
    """``http.ServeContent``'s ``If-None-Match``: ``*`` or any listed (weak or strong) ETag."""
    given = req.headers.get("if-none-match")
    if not given:
        return False
    tags = [t.strip().removeprefix("W/") for t in given.split(",")]
    return "*" in tags or quoted in tags
