"""``kubectl describe secret``: sizes of the values, never the values.

From k8s.io/kubectl 1.37 ``pkg/describe/describe.go`` ``describeSecret``: name, namespace, labels,
annotations, ``Type``, then a ``Data`` section with ``key:  N bytes`` per key (the one exception
kubectl makes, a service-account-token secret's ``token``, is printed as kubectl does). No events.
kbatch difference: kubectl prints the keys in Go's map order (it varies from run to run); kbatch
sorts them.
"""

from __future__ import annotations

import base64
import binascii

from kbatch.api.printing import DescribeReader, Obj
from kbatch.api.tabwriter import tabwrite
from kbatch.families.core.describe_text import annotation_lines, map_lines

__all__ = ["describe_secret_page", "secret_page"]

_SA_TOKEN = "kubernetes.io/service-account-token"


def _bytes(value: str) -> bytes:
    try:
        return base64.b64decode(value or "", validate=True)
    except (binascii.Error, ValueError):
        return b""


def secret_page(secret: Obj) -> str:
    meta = secret.get("metadata") or {}
    kind = secret.get("type") or ""
    lines = [f"Name:\t{meta.get('name') or ''}", f"Namespace:\t{meta.get('namespace') or ''}",
             *map_lines("Labels", meta.get("labels") or {}),
             *annotation_lines(meta.get("annotations") or {}),
             "", f"Type:\t{kind}", "", "Data", "===="]
    data = secret.get("data") or {}
    for name in sorted(data):
        raw = _bytes(data[name])
        if name == "token" and kind == _SA_TOKEN:
            lines.append(f"{name}:\t{raw.decode(errors='replace')}")
        else:
            lines.append(f"{name}:\t{len(raw)} bytes")
    return tabwrite("\n".join(lines)) + "\n"


def describe_secret_page(reader: DescribeReader, secret: Obj) -> str:
    return secret_page(secret)
