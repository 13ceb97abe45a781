"""kubectl's ``--append-hash``: a ConfigMap's or Secret's name suffixed with a hash of its content
(k8s.io/kubectl ``pkg/util/hash/hash.go``, used by ``create configmap`` and ``create secret
generic|docker-registry|tls``).

The hash is SHA-256 of Go's JSON of ``{"kind", "name", "data"}`` (a ConfigMap's ``binaryData`` too
when it has any; a Secret's ``type``, ``""`` when none), keys sorted; the suffix is its first ten hex
digits with ``0 1 3 a e`` written ``g h k m t`` (no vowels: no words). ``data`` is the generator's map,
``{}`` when empty (kubectl starts from empty maps), a Secret's values base64 as Go marshals bytes.
"""

from __future__ import annotations

import hashlib
from typing import Any

from kbatch.api.go_marshal import go_marshal
from kbatch.cli.generators import Obj

__all__ = ["content_hash", "with_hash_suffix"]

_NO_VOWELS = str.maketrans("013ae", "ghkmt")


def _encoded(obj: Obj) -> dict[str, Any]:
    name = obj["metadata"]["name"]
    if obj["kind"] == "ConfigMap":
        out = {"kind": "ConfigMap", "name": name, "data": obj.get("data") or {}}
        if obj.get("binaryData"):
            out["binaryData"] = obj["binaryData"]
        return out
    return {"kind": "Secret", "type": obj.get("type") or "", "name": name, "data": obj.get("data") or {}}


def content_hash(obj: Obj) -> str:
    """``ConfigMapHash`` / ``SecretHash`` of a generated ConfigMap or Secret."""
    digest = hashlib.sha256(go_marshal(_encoded(obj)).encode()).hexdigest()
    return digest[:10].translate(_NO_VOWELS)


def with_hash_suffix(obj: Obj) -> Obj:
    """``obj`` renamed ``NAME-HASH``, as the generators do last when ``--append-hash`` is given."""
    obj["metadata"]["name"] = f"{obj['metadata']['name']}-{content_hash(obj)}"
    return obj
