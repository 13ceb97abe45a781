"""``/openapi/v3`` and its group-version documents as kube-openapi's ``handler3`` serves them
(k8s.io/kube-openapi ``pkg/handler3/handler.go``): compact ``json.Marshal`` bytes; the root names each
document with ``?hash=`` its ETag (SHA-512, upper-case hex); a document fetched by that hash is
``Cache-Control: public, immutable`` with an ``Expires`` a year ahead, by another hash a 301 to the
current one; ``If-None-Match`` gets a 304; a group version the server lacks is an empty 200. kubectl's
HTTP cache then serves ``kubectl explain``'s second read of a document itself."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import httpx

from tests.server.test_kubectl import kubectl, pytestmark  # noqa: F401  (skipped without kubectl)


def _get(served: Any, path: str, **headers: str) -> httpx.Response:
    return httpx.get(served.url + path, headers={"user-agent": "x", **headers}, timeout=30,
                     follow_redirects=False)


def test_root_names_each_document_by_its_etag(served: Any) -> None:
    root = _get(served, "/openapi/v3")
    paths = root.json()["paths"]
    assert list(paths) == sorted(paths)  # Go marshals the map with its keys sorted
    assert root.headers["etag"] == '"' + hashlib.sha512(root.content).hexdigest().upper() + '"'
    assert _get(served, "/openapi/v3", **{"if-none-match": root.headers["etag"]}).status_code == 304
    url = paths["apis/batch/v1"]["serverRelativeURL"]
    doc = _get(served, url)
    digest = hashlib.sha512(doc.content).hexdigest().upper()
    assert url == f"/openapi/v3/apis/batch/v1?hash={digest}"
    assert doc.headers["etag"] == f'"{digest}"'
    assert doc.headers["cache-control"] == "public, immutable"
    assert doc.headers["vary"] == "Accept" and doc.headers["expires"].endswith(" UTC")
    assert b": " not in doc.content[:200] and json.loads(doc.content)["openapi"].startswith("3.")


def test_stale_hash_redirects_and_etags_revalidate(served: Any) -> None:
    current = _get(served, "/openapi/v3").json()["paths"]["api/v1"]["serverRelativeURL"]
    stale = _get(served, "/openapi/v3/api/v1?hash=0123")
    assert stale.status_code == 301 and stale.headers["location"] == current
    plain = _get(served, "/openapi/v3/api/v1")
    assert plain.status_code == 200 and "cache-control" not in plain.headers
    again = _get(served, "/openapi/v3/api/v1", **{"if-none-match": plain.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    missing = _get(served, "/openapi/v3/apis/nowhere.example.com/v1")
    assert (missing.status_code, missing.content, missing.headers["vary"]) == (200, b"", "Accept")
    assert _get(served, "/openapi/v3/api/v1", accept="text/plain").status_code == 406


def test_kubectl_explain_reads_the_document_from_its_cache_the_second_time(served: Any) -> None:
    kubectl(served, "explain", "jobs.spec.suspend")
    second = kubectl(served, "explain", "jobs.spec.suspend", "-v=8")
    assert "FIELD: suspend <boolean>" in second.stdout
    lines = second.stderr.splitlines()
    fetched = [i for i, line in enumerate(lines)
               if "GET " in line and "/openapi/v3/apis/batch/v1?hash=" in line]
    assert fetched, second.stderr
    rest = lines[fetched[-1] + 1:]
    end = next((i for i, line in enumerate(rest) if "round_trippers" in line and "GET " in line), len(rest))
    after = "\n".join(rest[:end])  # that request's headers, which Go prints in map order
    assert "X-From-Cache: 1" in after, after
