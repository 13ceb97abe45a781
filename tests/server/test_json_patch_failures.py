"""A JSON patch that decodes but does not apply, sent with kubectl and over HTTP to a ``kbatch serve``
process: kube-apiserver's generic 422.

Upstream (Kubernetes 1.37): k8s.io/apiserver ``pkg/endpoints/handlers/patch.go``,
``jsonPatcher.applyJSPatch``: an error of json-patch's ``Apply`` (a failing ``test``, a path that is
not there, an unknown ``op``) is ``NewGenericServerResponse(http.StatusUnprocessableEntity, …)``, which
keeps reason Invalid and the generic message and drops json-patch's own text (no causes).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import zlib
from typing import Any

import httpx
import pytest

CM = "/api/v1/namespaces/default/configmaps"
GENERIC = {"apiVersion": "v1", "kind": "Status", "metadata": {}, "status": "Failure",
           "message": "the server rejected our request due to an error in our request", "reason": "Invalid",
           "details": {}, "code": 422}


@pytest.fixture(scope="module")
def made(served: Any) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "jp"}, "data": {"a": "1"}}
    assert httpx.post(f"{served.url}{CM}", json=body, timeout=10).status_code == 201


@pytest.mark.parametrize("patch", [
    [{"op": "test", "path": "/data/a", "value": "2"}],
    [{"op": "remove", "path": "/data/zz"}],
    [{"op": "replace", "path": "/nope/zz", "value": "x"}],  # (a missing key of a map is set: json-patch v4)
    [{"op": "add", "path": "/nope/x", "value": "x"}],
    [{"op": "move", "from": "/data/zz", "path": "/data/b"}],
    [{"op": "copy", "from": "/data/zz", "path": "/data/b"}],
    [{"op": "bogus", "path": "/data/a"}],
    [{"op": "add", "path": "/data/b", "value": "2"}, {"op": "test", "path": "/data/a", "value": "2"}],
], ids=["test", "remove", "replace", "add", "move", "copy", "unknown-op", "all-or-nothing"])
def test_a_patch_that_does_not_apply_is_the_generic_422(served: Any, made: None, patch: list[Any]) -> None:
    resp = httpx.patch(f"{served.url}{CM}/jp", content=json.dumps(patch), timeout=10,
                       headers={"Content-Type": "application/json-patch+json"})
    assert resp.status_code == 422
    assert resp.json() == GENERIC
    assert httpx.get(f"{served.url}{CM}/jp", timeout=10).json()["data"] == {"a": "1"}


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed on this machine")
def test_kubectl_patch_shows_the_generic_message(served: Any, made: None) -> None:
    out = subprocess.run(["kubectl", "patch", "configmap", "jp", "--type=json",
                          "-p", '[{"op":"test","path":"/data/a","value":"2"}]'],
                         env=served.env(), capture_output=True, text=True, timeout=30)
    assert out.returncode == 1
    assert out.stderr.strip() == f"The request is invalid: {GENERIC['message']}"


@pytest.mark.parametrize(("path", "value", "applies"), [
    ("/spec/parallelism", True, False),
    ("/spec/parallelism", 1, True),
    ("/spec/suspend", 1, False),
    ("/spec/suspend", True, True),
    ("/spec/template/spec/containers/0/command", ["true"], True),
    ("/spec/template/spec/containers/0/command", [True], False),
    ("/metadata/labels", {"k": "v", "extra": "x"}, False),
])
def test_a_test_op_compares_json_types(served: Any, path: str, value: Any, applies: bool) -> None:
    # json-patch v4.13.0 lazyNode.equal: scalars by their JSON text (true is not 1, 1 is not true)
    jobs = "/apis/batch/v1/namespaces/default/jobs"
    name = f"jt-{zlib.crc32(json.dumps([path, value]).encode())}"
    pod = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox", "command": ["true"]}]}
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "labels": {"k": "v"}},
           "spec": {"suspend": True, "parallelism": 1, "template": {"spec": pod}}}
    assert httpx.post(f"{served.url}{jobs}", json=job, timeout=10).status_code == 201
    patch = [{"op": "test", "path": path, "value": value},
             {"op": "add", "path": "/metadata/annotations", "value": {"tested": "yes"}}]
    resp = httpx.patch(f"{served.url}{jobs}/{name}", content=json.dumps(patch), timeout=10,
                       headers={"Content-Type": "application/json-patch+json"})
    assert resp.status_code == (200 if applies else 422), resp.text
