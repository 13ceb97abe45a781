"""core/v1 Secret (k8s.io/api ``core/v1/types.go``): sensitive data, no spec or status.

``data`` holds base64-encoded bytes (a Go ``[]byte`` map: base64 on the wire, kept so here);
``stringData`` is write-only: the API server merges it into ``data`` (its values win) and never
stores it. ``type`` names the shape of the data (default ``Opaque``); ``immutable`` forbids changing
the data once set.
"""

from __future__ import annotations

from typing import ClassVar

from kbatch.api.base import ApiInfo
from kbatch.api.meta import Resource

__all__ = ["Secret"]


class Secret(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="", version="v1", kind="Secret", plural="secrets", namespaced=True,
        short_names=(), singular="secret", subresources=(),
    )

    immutable: bool | None = None
    data: dict[str, str] | None = None
    string_data: dict[str, str] | None = None
    type: str | None = None
