"""List continue tokens, shaped as kube-apiserver's: base64url (unpadded) JSON
``{"v": "meta.k8s.io/v1", "rv": <revision>, "start": "<key after the prefix>\\u0000"}``
(``staging/src/k8s.io/apiserver/pkg/storage/continue.go``)."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass

from kbatch.api.errors import BadRequest

__all__ = ["ContinueToken", "decode_continue", "encode_continue"]

_VERSION = "meta.k8s.io/v1"


@dataclass(frozen=True, slots=True)
class ContinueToken:
    revision: int
    start: bytes  # the next key to read, relative to the list prefix


def encode_continue(revision: int, last_key: bytes, prefix: bytes) -> str:
    start = (last_key[len(prefix):] + b"\0").decode()
    raw = json.dumps({"v": _VERSION, "rv": revision, "start": start}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_continue(token: str) -> ContinueToken:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        data = json.loads(raw)
        if not isinstance(data, dict) or data.get("v") != _VERSION:
            raise ValueError("unsupported continue token version")
        revision, start = data["rv"], data["start"]
        if not isinstance(revision, int) or revision <= 0 or not isinstance(start, str) or not start:
            raise ValueError("invalid continue token")
        if "/.." in "/" + start or start.startswith("/"):
            raise ValueError("continue key is not valid: path must not escape the list prefix")
    except (ValueError, KeyError, binascii.Error, UnicodeDecodeError) as err:
        raise BadRequest(f"continue key is not valid: {err}") from None
    return ContinueToken(revision, start.encode())
