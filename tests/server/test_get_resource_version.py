"""GET of one object with ``resourceVersion``, sent to a ``kbatch serve`` process as an operator's
informer-less code sends it (client-go ``Get`` with ``ResourceVersion`` in GetOptions).

Upstream (Kubernetes 1.37): k8s.io/apiserver ``pkg/storage/cacher/delegator.go`` ``CacheDelegator.Get``
serves an unset resourceVersion from etcd and any other from the watch cache, "at least that fresh";
the cache's ``waitUntilFreshAndBlock`` (``cacher/watch_cache.go``) answers a revision it has not
reached with ``storage.NewTooLargeResourceVersionError``: 504 Timeout, cause ResourceVersionTooLarge,
Retry-After 1, before the key is looked up.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

CM = "/api/v1/namespaces/default/configmaps"


@pytest.fixture(scope="module")
def made(served: Any) -> dict[str, Any]:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "rv-get"}, "data": {"a": "1"}}
    resp = httpx.post(f"{served.url}{CM}", json=body, timeout=10)
    assert resp.status_code == 201, resp.text
    return dict(resp.json())


def _get(served: Any, name: str, rv: str) -> httpx.Response:
    return httpx.get(f"{served.url}{CM}/{name}", params={"resourceVersion": rv}, timeout=10)


@pytest.mark.parametrize("name", ["rv-get", "never-made"])
def test_a_future_resource_version_is_too_large(served: Any, made: dict[str, Any], name: str) -> None:
    current = int(httpx.get(f"{served.url}{CM}", timeout=10).json()["metadata"]["resourceVersion"])
    resp = _get(served, name, str(current + 1000))
    assert resp.status_code == 504
    assert resp.headers["retry-after"] == "1"
    status = resp.json()
    assert (status["reason"], status["code"]) == ("Timeout", 504)
    assert status["message"] == f"Timeout: Too large resource version: {current + 1000}, current: {current}"
    assert status["details"]["causes"] == [{"reason": "ResourceVersionTooLarge",
                                            "message": "Too large resource version"}]


@pytest.mark.parametrize("which", ["0", "own", "current"])
def test_a_written_resource_version_reads_the_latest(served: Any, made: dict[str, Any], which: str) -> None:
    current = httpx.get(f"{served.url}{CM}", timeout=10).json()["metadata"]["resourceVersion"]
    rv = {"0": "0", "own": made["metadata"]["resourceVersion"], "current": current}[which]
    resp = _get(served, "rv-get", rv)
    assert resp.status_code == 200, resp.text
    assert resp.json()["metadata"]["uid"] == made["metadata"]["uid"]


def test_a_missing_object_at_a_written_revision_is_not_found(served: Any, made: dict[str, Any]) -> None:
    resp = _get(served, "never-made", made["metadata"]["resourceVersion"])
    assert (resp.status_code, resp.json()["reason"]) == (404, "NotFound")


def test_a_resource_version_that_is_no_number_is_a_bad_request(served: Any, made: dict[str, Any]) -> None:
    # deliberate difference (docs/serve.md): upstream's APIObjectVersioner.ParseResourceVersion error is
    # a storage InvalidError that no layer converts, so kube-apiserver answers 500 reason Unknown
    resp = _get(served, "rv-get", "abc")
    assert resp.status_code == 400
    assert resp.json()["reason"] == "BadRequest"
