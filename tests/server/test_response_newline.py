"""The bytes of ``kbatch serve``'s JSON answers, as kube-apiserver writes them: an API object — an
object, a list, a Table, a Status, discovery, a review, the Kueue visibility API (an aggregated
server on the same serializer) — ends with the newline of Go's ``json.Encoder.Encode``
(k8s.io/apimachinery ``pkg/runtime/serializer/json/json.go`` ``doEncode``, ``collections.go``);
``/version`` is ``responsewriters.WriteRawJSON``'s indented JSON without one (k8s.io/apiserver
``pkg/endpoints/handlers/responsewriters/writers.go``); watch events are one JSON line each."""

from __future__ import annotations

import json
from typing import Any

import httpx

from tests.server.test_kubectl import kubectl, pytestmark  # noqa: F401  (skipped without kubectl)

CQ = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "nl-cq"},
      "spec": {"namespaceSelector": {}}}
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"


def _body(served: Any, method: str, path: str, **kw: Any) -> bytes:
    return httpx.request(method, served.url + path, timeout=30, **kw).content


def test_api_objects_end_with_one_newline(served: Any) -> None:
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "nl"}, "data": {"a": "b"}}
    bodies = {
        "create": _body(served, "POST", "/api/v1/namespaces/default/configmaps", json=cm),
        "get": _body(served, "GET", "/api/v1/namespaces/default/configmaps/nl"),
        "list": _body(served, "GET", "/api/v1/namespaces/default/configmaps"),
        "table": _body(served, "GET", "/api/v1/namespaces/default/configmaps", headers={"accept": TABLE}),
        "status": _body(served, "GET", "/api/v1/namespaces/default/configmaps/absent"),
        "api": _body(served, "GET", "/api"),
        "apis": _body(served, "GET", "/apis"),
        "aggregated": _body(served, "GET", "/apis", headers={"accept": AGGREGATED}),
        "group": _body(served, "GET", "/apis/batch"),
        "resources": _body(served, "GET", "/apis/batch/v1"),
        "review": _body(served, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                        json={"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}),
        "cq": _body(served, "POST", "/apis/kueue.x-k8s.io/v1beta2/clusterqueues", json=CQ),
        "visibility": _body(served, "GET", "/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/nl-cq/"
                                           "pendingworkloads"),
    }
    for what, body in bodies.items():
        assert body.endswith(b"}\n") and not body.endswith(b"\n\n"), (what, body[-40:])
        assert b"\n" not in body[:-1], what  # compact
        json.loads(body)
    assert json.loads(bodies["status"])["reason"] == "NotFound"
    assert json.loads(bodies["visibility"])["kind"] == "PendingWorkloadsSummary"


def test_version_is_raw_indented_json(served: Any) -> None:
    raw = kubectl(served, "get", "--raw", "/version").stdout
    assert raw.startswith('{\n  "major": "1",\n') and raw.endswith("}")
    assert json.loads(raw)["major"] == "1"


def test_watch_events_are_lines(served: Any) -> None:
    path = "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1"
    with httpx.stream("GET", served.url + path, timeout=30) as reply:
        body = b"".join(reply.iter_bytes())
    assert body.endswith(b"}\n")
    assert all(json.loads(line)["type"] in ("ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR")
               for line in body.splitlines())
