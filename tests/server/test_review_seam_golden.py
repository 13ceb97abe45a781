"""What ``kbatch serve`` answers about the create-only and aggregated resources, byte for byte, pinned
before they moved onto the family seam (``Family.virtual``): legacy and aggregated discovery, the
OpenAPI documents of the stored kinds, the four authorization reviews, SelfSubjectReview,
TokenReview, metrics.k8s.io, and the errors around them.

``data/review_seam_golden.json`` was recorded from main's server modules (``authentication_api``,
``authorization_api``, ``metrics_api`` routed by hand in ``app.py``). The OpenAPI documents are
compared without the paths of the virtual group versions: those the seam adds (kube-apiserver's
documents have them, ``pkg/registry/authorization/*/rest.go`` installs a ``post`` for each review);
everything else in them must not move. Two answers moved on purpose when metrics.k8s.io went onto the
seam, to what metrics-server's go-restful answers (``installer.go`` gives its ``nodes`` and ``pods``
only GET routes): ``POST .../nodes`` is the generic 405 ("the server does not allow this method on the
requested resource", where kbatch said "POST is not supported by metrics.k8s.io/v1beta1") and an
unknown resource the generic 404 with empty details (where kbatch appended the path). Kueue's
visibility API joined the seam later: discovery gained ``visibility.kueue.x-k8s.io`` (listed last, an
APIService's group) and its two group versions, OpenAPI v3 their documents and v2 their paths;
nothing else moved. The OpenAPI documents moved again when they gained the ``x-kubernetes-*``
extensions and a built-in PATCH's strategic merge content type (session 47; v2's ``consumes`` too),
and a custom resource's lost its nameless duplicate component. events.k8s.io/v1 (Event served in
both groups, one storage) added its group to discovery and its OpenAPI v3 document; nothing else
moved. Re-record
(only when an answer is meant to change) with
``cd tests/server && PYTHONPATH=/work/... python test_review_seam_golden.py --write``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

import httpx

from kbatch.server.aggregated_discovery import CONTENT_TYPE as AGGREGATED
from kbatch.server.app import KbatchApp
from kbatch.server.facade import ControlPlaneBackend, new_control_plane

GOLDEN = Path(__file__).with_name("data") / "review_seam_golden.json"
VIRTUAL_GVS = ("apis/authentication.k8s.io/v1", "apis/authorization.k8s.io/v1", "apis/metrics.k8s.io/v1beta1")
JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi"},
       "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
           {"name": "main", "image": "busybox", "command": ["sleep", "1h"],
            "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}}]}}}}
SSAR = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": {"namespace": "x", "verb": "list", "resource": "pods"}}}
SAR = {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
       "spec": {"user": "jane", "groups": ["devs"],
                "resourceAttributes": {"namespace": "x", "verb": "get", "resource": "pods"}}}
SAR_SA = {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
          "spec": {"user": "system:serviceaccount:kube-system:job-controller",
                   "resourceAttributes": {"verb": "create", "resource": "pods", "namespace": "default"}}}
LSAR = {"apiVersion": "authorization.k8s.io/v1", "kind": "LocalSubjectAccessReview",
        "metadata": {"namespace": "x"},
        "spec": {"user": "jane", "resourceAttributes": {"namespace": "x", "verb": "get", "resource": "pods"}}}
SSRR = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview", "spec": {"namespace": "x"}}
SSR = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
TR = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": "not-a-token"}}
JANE = {"impersonate-user": "jane"}
AUTHZ, AUTHN, METRICS = "/apis/authorization.k8s.io/v1", "/apis/authentication.k8s.io/v1", \
    "/apis/metrics.k8s.io/v1beta1"

# (method, path, json body or None, headers)
REQUESTS: list[tuple[str, str, Any, dict[str, str]]] = [
    ("POST", f"{AUTHZ}/selfsubjectaccessreviews", SSAR, {}),
    ("POST", f"{AUTHZ}/selfsubjectaccessreviews", SSAR, JANE),
    ("POST", f"{AUTHZ}/subjectaccessreviews", SAR, {}),
    ("POST", f"{AUTHZ}/subjectaccessreviews", SAR_SA, {}),
    ("POST", f"{AUTHZ}/namespaces/x/localsubjectaccessreviews", LSAR, {}),
    ("POST", f"{AUTHZ}/namespaces/y/localsubjectaccessreviews", LSAR, {}),
    ("POST", f"{AUTHZ}/selfsubjectrulesreviews", SSRR, JANE),
    ("POST", f"{AUTHZ}/subjectaccessreviews", {"kind": "SubjectAccessReview", "spec": {}}, {}),
    ("POST", f"{AUTHZ}/subjectaccessreviews", [1], {}),
    ("GET", f"{AUTHZ}/subjectaccessreviews", None, {}),
    ("GET", f"{AUTHZ}/subjectaccessreviews/x", None, {}),
    ("POST", f"{AUTHZ}/localsubjectaccessreviews", LSAR, {}),
    ("POST", f"{AUTHZ}/namespaces/x/subjectaccessreviews", SAR, {}),
    ("POST", f"{AUTHZ}/nothing", SAR, {}),
    ("POST", f"{AUTHN}/selfsubjectreviews", SSR, {}),
    ("POST", f"{AUTHN}/selfsubjectreviews", SSR, {**JANE, "impersonate-group": "devs"}),
    ("POST", f"{AUTHN}/selfsubjectreviews", [1], {}),
    ("GET", f"{AUTHN}/selfsubjectreviews", None, {}),
    ("POST", f"{AUTHN}/tokenreviews", TR, {}),
    ("POST", f"{AUTHN}/tokenreviews", {"kind": "TokenReview", "spec": {}}, {}),
    ("POST", f"{AUTHN}/namespaces/x/tokenreviews", TR, {}),
    ("GET", f"{METRICS}/nodes", None, {}),
    ("GET", f"{METRICS}/nodes/node-0", None, {}),
    ("GET", f"{METRICS}/nodes/missing", None, {}),
    ("GET", f"{METRICS}/nodes?labelSelector=nope%3Dx", None, {}),
    ("GET", f"{METRICS}/pods", None, {}),
    ("GET", f"{METRICS}/namespaces/default/pods", None, {}),
    ("GET", f"{METRICS}/namespaces/other/pods", None, {}),
    ("GET", f"{METRICS}/namespaces/default/pods?fieldSelector=metadata.namespace%3Ddefault", None, {}),
    ("GET", f"{METRICS}/namespaces/default/pods/missing", None, {}),
    ("GET", f"{METRICS}/nothing", None, {}),
    ("POST", f"{METRICS}/nodes", {}, {}),
    ("POST", AUTHZ, {}, {}),
    ("GET", f"{AUTHN}/", None, {}),
    ("GET", "/apis/authorization.k8s.io/v2", None, {}),
    ("GET", "/apis/metrics.k8s.io/v1", None, {}),
]


def _request(app: KbatchApp, method: str, path: str, body: Any, headers: dict[str, str]) -> httpx.Response:
    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://kbatch") as client:
            return await client.request(method, path, json=body, headers=headers)

    return asyncio.run(go())


def _app() -> KbatchApp:
    backend = ControlPlaneBackend(new_control_plane(controllers="*"))
    app = KbatchApp(backend, token=None)
    _request(app, "POST", "/apis/kbatch.dev/v1alpha1/actions/nodes-add", {"count": 2}, {})
    _request(app, "POST", "/apis/batch/v1/namespaces/default/jobs", JOB, {})
    _request(app, "POST", "/apis/kbatch.dev/v1alpha1/clock", {"advance": "30s"}, {})
    return app


def _without_virtual(doc: dict[str, Any]) -> dict[str, Any]:
    """An OpenAPI document without the paths of the virtual group versions (module docstring)."""
    paths = {p: v for p, v in doc["paths"].items() if not p.strip("/").startswith(VIRTUAL_GVS)}
    return {**doc, "paths": paths}


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _answer(resp: httpx.Response) -> dict[str, Any]:
    return {"status": resp.status_code, "content-type": resp.headers.get("content-type", ""),
            "body": resp.text}


def _discovery(app: KbatchApp) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for accept in ("application/json", AGGREGATED):
        for path in ("/api", "/apis"):
            out[f"{accept} {path}"] = _answer(_request(app, "GET", path, None, {"accept": accept}))
    groups = json.loads(out["application/json /apis"]["body"])["groups"]
    paths = ["/api/v1"] + [f"/apis/{g['name']}" for g in groups] + \
        [f"/apis/{v['groupVersion']}" for g in groups for v in g["versions"]]
    for path in paths:
        out[path] = _answer(_request(app, "GET", path, None, {}))
    return out


def _openapi(app: KbatchApp) -> dict[str, Any]:
    out: dict[str, Any] = {}
    v2 = _request(app, "GET", "/openapi/v2", None, {})
    out["/openapi/v2"] = _digest(json.dumps(_without_virtual(v2.json())).encode())
    proto = _request(app, "GET", "/openapi/v2", None,
                     {"accept": "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"})
    out["/openapi/v2 protobuf"] = _digest(proto.content)
    root = _request(app, "GET", "/openapi/v3", None, {}).json()
    stored = {gv: ref for gv, ref in root["paths"].items() if gv not in VIRTUAL_GVS}
    out["/openapi/v3"] = stored
    for gv in stored:
        out[f"/openapi/v3/{gv}"] = _digest(_request(app, "GET", f"/openapi/v3/{gv}", None, {}).content)
    return out


@cache
def record() -> dict[str, Any]:
    app = _app()
    reviews = [{"request": f"{m} {p} {json.dumps(b)} {json.dumps(h, sort_keys=True)}",
                **_answer(_request(app, m, p, b, h))} for m, p, b, h in REQUESTS]
    return {"discovery": _discovery(app), "openapi": _openapi(app), "requests": reviews}


def _golden() -> dict[str, Any]:
    return json.loads(GOLDEN.read_text())  # type: ignore[no-any-return]


def test_discovery_is_byte_identical() -> None:
    got, want = record(), _golden()
    assert got["discovery"].keys() == want["discovery"].keys()
    for key, answer in want["discovery"].items():
        assert got["discovery"][key] == answer, key


def test_the_stored_kinds_openapi_is_byte_identical() -> None:
    assert record()["openapi"] == _golden()["openapi"]


def test_reviews_and_metrics_answer_byte_identically() -> None:
    got, want = record()["requests"], _golden()["requests"]
    assert [g["request"] for g in got] == [w["request"] for w in want]
    for g, w in zip(got, want, strict=True):
        assert g == w, g["request"]


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    GOLDEN.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n")
