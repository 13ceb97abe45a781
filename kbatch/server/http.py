"""Minimal HTTP plumbing over raw ASGI: a parsed ``Request`` and JSON/Status responses.

No framework: the app needs a dozen routes, streaming for watches, and full control over error
bodies (always a ``Status``, k8s.io/apimachinery ``pkg/api/errors``), which a raw ASGI callable
gives with less code than an adapter would.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, unquote

from kbatch.api.errors import BadRequest, StatusError
from kbatch.api.go_int import NumError, go_parse_int
from kbatch.apiserver.go_json_syntax import GoSyntaxError, loads
from kbatch.server.protobuf import PROTOBUF, decode_object

__all__ = ["MAX_BODY", "Request", "Response", "document_response", "json_response", "raw_json_response",
           "read_request", "status_response"]

MAX_BODY = 16 * 1024 * 1024  # 16 MiB; etcd's default request limit is 1.5 MiB per object

Scope = dict[str, Any]


@dataclass(slots=True)
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    raw_headers: list[tuple[bytes, bytes]] | tuple[()] = ()  # as received: each repeated header too
    user: Any = None  # who the request acts as (kbatch.authz.user.UserInfo); None: the local administrator

    def param(self, name: str, default: str | None = None) -> str | None:
        """The parameter's first value, as the parameter codec reads a repeated one into a scalar
        (k8s.io/apimachinery ``pkg/runtime/conversion.go``, ``Convert_Slice_string_To_string``)."""
        values = self.query.get(name)
        return values[0] if values else default

    def flag(self, name: str) -> bool:
        """A ``bool`` query parameter as ``Convert_Slice_string_To_bool`` decodes it: absent is false,
        else its first value is false only when ``0`` or ``false`` in any case, and true otherwise
        (``?watch=``, ``?watch=on``, ``?watch=TRUE`` all watch)."""
        return self.opt_flag(name) or False

    def opt_flag(self, name: str) -> bool | None:
        """A ``*bool`` query parameter (``Convert_Slice_string_To_Pointer_bool``): ``None`` when
        absent, else as :meth:`flag`."""
        values = self.query.get(name)
        if values is None:
            return None
        return not (values[0] == "0" or values[0].casefold() == "false")  # Go's strings.EqualFold

    def int_param(self, name: str) -> int | None:
        value = self.param(name)
        if value in (None, ""):
            return None
        # upstream's parameter codec: strconv.ParseInt(v, 10, 64) (apimachinery pkg/runtime/conversion.go
        # Convert_Slice_string_To_int64), its error as the BadRequest's message
        try:
            return go_parse_int(value)
        except NumError as err:
            raise BadRequest(str(err)) from None

    def json(self) -> Any:
        """The body as JSON; a Kubernetes protobuf body (kubectl's typed clients) is decoded to JSON."""
        if not self.body:
            raise BadRequest("the request body is empty; an object is required")
        try:
            return self.parsed()
        except GoSyntaxError as err:
            raise BadRequest(f"the body of the request was in an unknown format: {err}") from None

    def parsed(self) -> Any:
        """The body as JSON (a protobuf body decoded), or :class:`GoSyntaxError` in Go's words, for
        the handlers that wrap it as their upstream counterpart does."""
        if self.content_type == PROTOBUF:
            return decode_object(self.body)
        return loads(self.body)

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip().lower()


@dataclass(slots=True)
class Response:
    status: int
    body: bytes
    content_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()
    negotiated: bool = False  # written by the negotiated serializer: indented on request (server/pretty.py)


async def read_request(scope: Scope, receive: Any) -> Request:
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
    chunks, size = [], 0
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            raise _TooLarge()
        chunks.append(chunk)
        more = message.get("more_body", False)
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
    return Request(scope["method"].upper(), unquote(scope.get("path", "/")), query, headers, b"".join(chunks),
                   scope.get("headers", ()))


class _TooLarge(StatusError):
    code, reason = 413, "RequestEntityTooLarge"

    def __init__(self) -> None:
        super().__init__(f"the request body is larger than {MAX_BODY} bytes")


def json_response(obj: Any, status: int = 200, headers: tuple[tuple[str, str], ...] = ()) -> Response:
    """An API object (a Status, a list, discovery, a review) as kube-apiserver's JSON serializer writes
    it: compact, ending in a newline (``json.Encoder.Encode``, k8s.io/apimachinery
    ``pkg/runtime/serializer/json/json.go`` ``doEncode``; a streamed list's ``collections.go`` ends
    with ``}\\n`` too)."""
    return Response(status, json.dumps(obj, separators=(",", ":")).encode() + b"\n", headers=headers,
                    negotiated=True)


def raw_json_response(obj: Any) -> Response:
    """A non-API object (``/version``) as k8s.io/apiserver ``responsewriters.WriteRawJSON`` writes it:
    ``json.MarshalIndent(object, "", "  ")``, no newline after."""
    return Response(200, json.dumps(obj, indent=2).encode())


def document_response(obj: Any) -> Response:
    """An OpenAPI document as kube-openapi's handlers serve it: ``json.Marshal``'s bytes, no newline
    (k8s.io/kube-openapi ``pkg/handler/handler.go``, ``pkg/handler3/handler.go``)."""
    return Response(200, json.dumps(obj, separators=(",", ":")).encode())


def status_response(err: StatusError) -> Response:
    body = err.status.to_dict()
    headers: tuple[tuple[str, str], ...] = ()
    retry = err.details.retry_after_seconds if err.details else None
    if retry:
        headers = (("retry-after", str(retry)),)
    return json_response(body, err.code, headers)
