"""List continue tokens, shaped as kube-apiserver's: base64url (unpadded) JSON
``{"v": "meta.k8s.io/v1", "rv": <revision>, "start": "<key after the prefix>\\u0000"}``
(``staging/src/k8s.io/apiserver/pkg/storage/continue.go``)."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

from kbatch.api.errors import BadRequest
from kbatch.api.go_unmarshal import cannot_unmarshal, go_number, json_kind
from kbatch.apiserver.go_json_syntax import GoSyntaxError, loads

__all__ = ["LATEST", "ContinueToken", "decode_continue", "encode_continue", "reissue_continue"]

_VERSION = "meta.k8s.io/v1"
LATEST = -1  # a token's revision meaning "the rest of the list at the latest revision" (etcd3 store)


@dataclass(frozen=True, slots=True)
class ContinueToken:
    revision: int
    start: bytes  # the next key to read, relative to the list prefix


def encode_continue(revision: int, last_key: bytes, prefix: bytes) -> str:
    return _encode(revision, (last_key[len(prefix):] + b"\0").decode())


def reissue_continue(token: ContinueToken) -> str:
    """The same start key at revision -1: upstream's ``handleCompactedErrorForPaging``
    (``storage/etcd3/errors.go``) hands this out when a token's revision was compacted; listing on
    with it reads the rest at the latest revision (``ValidateListOptions``: a negative revision)."""
    return _encode(LATEST, token.start.decode())


def _encode(revision: int, start: str) -> str:
    raw = json.dumps({"v": _VERSION, "rv": revision, "start": start}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


_INVALID = "invalid continue token: continue key is not valid"
_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
_FIELDS = {"v": "string", "rv": "int64", "start": "string"}  # continueToken's fields and Go types


def decode_continue(token: str) -> ContinueToken:
    """Upstream's ``DecodeContinue`` with the etcd3 store's ``invalid continue token: …`` BadRequest
    around its error: the same checks, in its order, with its words. Where Go's decoders word their
    own errors (base64, JSON), the cause is said in Go's terms where it is simple to (an invalid byte's
    offset, a value of the wrong JSON type, a syntax error)."""
    fields = _fields(_json(_base64(token)))
    version, revision, start = (fields.get(name) for name in _FIELDS)
    if version != _VERSION:
        raise BadRequest(f"{_INVALID}: server does not recognize this encoded version {version or ''}")
    if not revision:
        raise BadRequest(f"{_INVALID}: incorrect encoded start resourceVersion (version {_VERSION})")
    if not start:
        raise BadRequest(f"{_INVALID}: encoded start key empty (version {_VERSION})")
    key = start if start.startswith("/") else "/" + start
    if _clean(key) != key:  # no path traversal out of the list's prefix
        raise BadRequest(f"{_INVALID}: {start}")
    return ContinueToken(int(revision), key[1:].encode())


def _base64(token: str) -> bytes:
    """``base64.RawURLEncoding.DecodeString``: no padding, the URL alphabet."""
    bad = next((i for i, c in enumerate(token) if c not in _ALPHABET), None)
    if bad is None and len(token) % 4 == 1:
        bad = len(token) - 1
    if bad is not None:
        raise BadRequest(f"{_INVALID}: illegal base64 data at input byte {bad}")
    return base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))


def _json(raw: bytes) -> dict[str, Any]:
    try:
        data = loads(raw, literals=True)  # encoding/json's words for a token that is not JSON
    except GoSyntaxError as err:
        raise BadRequest(f"{_INVALID}: {err}") from None
    if data is None:
        return {}  # Go decodes null into the zero token
    if not isinstance(data, dict):
        raise BadRequest(f"{_INVALID}: json: cannot unmarshal {json_kind(data)} into Go value of type "
                         "storage.continueToken")
    return data


def _fields(data: dict[str, Any]) -> dict[str, Any]:
    """``json.Unmarshal`` into ``continueToken``: each key, in the document's order, sets the field
    it names (exactly, else ignoring case: encoding/json's ``foldName``); an unknown key or a null
    sets nothing; the first value of the wrong type is the error (``UnmarshalTypeError``)."""
    fields: dict[str, Any] = {}
    for key, value in data.items():
        name = key if key in _FIELDS else next((f for f in _FIELDS if f.casefold() == key.casefold()), None)
        if name is None or value is None:
            continue
        go_type = _FIELDS[name]
        if not _fits(value, go_type):  # a number target names the literal (literalStore)
            raise BadRequest(f"{_INVALID}: " + cannot_unmarshal(
                value, "continueToken", name, go_type, integer=go_type == "int64", text=go_number))
        fields[name] = value
    return fields


def _fits(value: Any, go_type: str) -> bool:
    if go_type == "string":
        return isinstance(value, str)
    return type(value) is int and -(1 << 63) <= value < (1 << 63)


def _clean(path: str) -> str:
    """Go's ``path.Clean`` of a rooted path: no empty or ``.`` elements, ``..`` resolved."""
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return "/" + "/".join(parts)
