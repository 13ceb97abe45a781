"""core/v1 ConfigMap (k8s.io/api ``core/v1/types.go``): configuration data, no spec or status.

``data`` holds UTF-8 strings, ``binaryData`` base64-encoded bytes (a Go ``[]byte``); ``immutable``
forbids changing either once set.
"""

from __future__ import annotations

from typing import ClassVar

from kbatch.api.base import ApiInfo
from kbatch.api.meta import Resource

__all__ = ["ConfigMap"]


class ConfigMap(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="", version="v1", kind="ConfigMap", plural="configmaps", namespaced=True,
        short_names=("cm",), singular="configmap", subresources=(),
    )
    # a Go []byte map: base64 on the wire, decoded by the API server as Go's decoder does
    go_bytes_fields: ClassVar[tuple[str, ...]] = ("binary_data",)

    immutable: bool | None = None
    data: dict[str, str] | None = None
    binary_data: dict[str, str] | None = None
