"""A small Kubernetes REST client over httpx: JSON in and out, failures as :mod:`conformance.errors`.

Knows only the Kubernetes API (and nothing of kbatch): discovery through
:class:`conformance.discovery.Discovery`, every request bounded by a timeout.
"""

from __future__ import annotations

from typing import Any

import httpx

from conformance.discovery import Discovery
from conformance.errors import from_status
from conformance.kubeconfig import ClusterConfig

__all__ = ["PATCH_TYPES", "ApiClient"]

PATCH_TYPES = {"merge": "application/merge-patch+json", "json": "application/json-patch+json",
               "strategic": "application/strategic-merge-patch+json"}

_DISCOVERY: dict[str, Discovery] = {}  # per server URL: discovery answers do not change during a run


class ApiClient:
    def __init__(self, config: ClusterConfig, timeout: float = 30.0) -> None:
        headers = {"Accept": "application/json", "User-Agent": "kbatch-conformance"}
        if config.token:
            headers["Authorization"] = f"Bearer {config.token}"
        self.config = config
        self.http = httpx.Client(base_url=config.server, headers=headers, verify=config.verify,
                                 cert=config.client_cert, auth=config.basic_auth, timeout=timeout)
        cached = _DISCOVERY.get(config.server)
        self.discovery = cached.rebind(self.get_json) if cached else Discovery(self.get_json)
        _DISCOVERY[config.server] = self.discovery

    def request(self, method: str, path: str, *, body: Any = None, params: dict[str, Any] | None = None,
                content_type: str = "application/json") -> httpx.Response:
        """Send one request; a non-2xx answer raises the matching ``TargetError``."""
        kwargs: dict[str, Any] = {"params": {k: v for k, v in (params or {}).items() if v is not None}}
        if body is not None:
            kwargs["json"] = body
            kwargs["headers"] = {"Content-Type": content_type}
        response = self.http.request(method, path, **kwargs)
        if response.status_code >= 400:
            try:
                payload = response.json()
            except ValueError:
                payload = None
            raise from_status(response.status_code, payload, f"{method} {path}: {response.text[:200]}")
        return response

    def get_json(self, path: str) -> dict[str, Any]:
        return self.request("GET", path).json()

    def close(self) -> None:
        self.http.close()
