"""Paths no route matches, over HTTP (and kubectl) to a ``kbatch serve`` process: a JSON Status or
Go's plain-text 404, as kube-apiserver's handler chain answers each.

Upstream (Kubernetes 1.37): k8s.io/apiserver ``pkg/server/handler.go`` (the director hands a path
under a go-restful WebService root, ``/api`` or ``/apis/<built-in group>[/<version>]``, to go-restful,
whose 404 ``serviceErrorHandler`` answers with ``NewGenericServerResponse(404)``: "the server could not
find the requested resource", empty details) and ``pkg/util/notfoundhandler`` (every other path: Go's
``http.NotFound``, ``404 page not found`` in text/plain); apiextensions-apiserver
``pkg/apiserver/customresource_handler.go`` (a custom resource's group: an unknown resource, a version
not served or a scope that does not fit goes to the delegate, hence the plain text; an unknown
subresource of a served resource is the resource's NotFound).
"""

from __future__ import annotations

import shutil
import subprocess
from typing import Any

import httpx
import pytest

GENERIC = {"apiVersion": "v1", "kind": "Status", "metadata": {}, "status": "Failure",
           "message": "the server could not find the requested resource", "reason": "NotFound",
           "details": {}, "code": 404}
JOBSETS = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets"


@pytest.mark.parametrize("path", [
    "/foo",
    "/apis/nope",
    "/apis/nope/v1",
    "/apis/nope/v1/namespaces/default/things",
    "/apis/jobset.x-k8s.io/v9",
    "/apis/jobset.x-k8s.io/v9/namespaces/default/jobsets",
    "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/widgets",
    "/apis/jobset.x-k8s.io/v1alpha2/widgets",
])
def test_paths_no_handler_claims_are_go_plain_text(served: Any, path: str) -> None:
    resp = httpx.get(f"{served.url}{path}", timeout=10)
    assert resp.status_code == 404
    assert resp.headers["content-type"] == "text/plain; charset=utf-8"
    assert resp.headers["x-content-type-options"] == "nosniff"
    assert resp.text == "404 page not found\n"


@pytest.mark.parametrize("path", [
    "/apis/batch/v1/namespaces/default/jobs/x/scale",
    "/apis/batch/v1/namespaces/default/foos",
    "/apis/batch/v1/foos",
    "/apis/batch/v9",
    "/apis/batch/v9/namespaces/default/jobs",
    "/api/v2/pods",
    "/api/v1/namespaces/default/nodes",
    "/api/v1/nodes/n1/status/extra",
])
def test_unmatched_paths_under_built_in_groups_are_go_restful_statuses(served: Any, path: str) -> None:
    resp = httpx.get(f"{served.url}{path}", timeout=10)
    assert resp.status_code == 404
    assert resp.headers["content-type"] == "application/json"
    assert resp.json() == GENERIC


def test_an_unknown_custom_resource_subresource_is_the_resources_not_found(served: Any) -> None:
    resp = httpx.get(f"{served.url}{JOBSETS}/x/scale", timeout=10)
    assert resp.status_code == 404
    status = resp.json()
    assert status["message"] == 'jobsets.jobset.x-k8s.io "x" not found'
    assert status["details"] == {"name": "x", "group": "jobset.x-k8s.io", "kind": "jobsets"}


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed on this machine")
@pytest.mark.parametrize("path", ["/foo", "/apis/batch/v1/namespaces/default/jobs/x/scale"])
def test_kubectl_shows_either_as_not_found(served: Any, path: str) -> None:
    out = subprocess.run(["kubectl", "get", "--raw", path], env=served.env(), capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 1
    assert out.stderr.strip() == f"Error from server (NotFound): {GENERIC['message']}"


CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kept"}, "data": {"a": "1"}}


@pytest.mark.parametrize(("method", "path", "code"), [
    ("GET", "/api/v1/configmaps/kept", 404),
    ("DELETE", "/api/v1/configmaps/kept", 404),
    ("PATCH", "/api/v1/configmaps/kept", 404),
    ("GET", "/api/v1/configmaps/kept?watch=1", 404),
    ("POST", "/api/v1/configmaps", 405),
    ("DELETE", "/api/v1/configmaps", 405),
])
def test_a_namespaced_kind_outside_namespaces_only_lists(served: Any, method: str, path: str,
                                                         code: int) -> None:
    # only list and watch have routes without a namespace; nothing may land in (or leave) "default"
    httpx.post(f"{served.url}/api/v1/namespaces/default/configmaps", json=CM, timeout=10)
    body = {"content": b'{"data": {"a": "2"}}', "headers": {"Content-Type": "application/merge-patch+json"}} \
        if method in ("PATCH", "POST") else {}
    resp = httpx.request(method, f"{served.url}{path}", timeout=10, **body)  # type: ignore[arg-type]
    assert resp.status_code == code
    message = "the server does not allow this method on the requested resource" if code == 405 else \
        GENERIC["message"]
    assert resp.json() == {**GENERIC, "message": message, "code": code,
                           "reason": "MethodNotAllowed" if code == 405 else "NotFound"}
    kept = httpx.get(f"{served.url}/api/v1/namespaces/default/configmaps/kept", timeout=10).json()
    assert kept["data"] == {"a": "1"}
    assert httpx.get(f"{served.url}/api/v1/configmaps", timeout=10).status_code == 200  # the list stays


@pytest.mark.parametrize("method", ["GET", "DELETE", "POST"])
def test_a_custom_resource_outside_namespaces_is_plain_text(served: Any, method: str) -> None:
    path = "/apis/jobset.x-k8s.io/v1alpha2/jobsets" + ("" if method == "POST" else "/x")
    resp = httpx.request(method, f"{served.url}{path}", content=b"{}", timeout=10)
    assert (resp.status_code, resp.text) == (404, "404 page not found\n")
