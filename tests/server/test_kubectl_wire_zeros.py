"""kubectl against ``kbatch serve`` prints unset by-value structs as a 1.37 API server does
(``resources: {}`` in every container, ``status: {}``, ``loadBalancer: {}``, a template's
``metadata: {}``), applying what it printed changes nothing, and the store keeps none of it. See
kbatch.api.wire_zeros."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.server.test_kubectl import KUBECTL, kubectl
from tests.server.test_kubectl_zero_times import _kbatch

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

def _sleeper(name: str) -> dict[str, Any]:
    return {"name": name, "image": "busybox", "command": ["sleep", "3600"]}


# two containers, neither with resources; the template without metadata
JOB = json.dumps({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "bare"}, "spec": {
    "template": {"spec": {"containers": [_sleeper("main"), _sleeper("side")], "restartPolicy": "Never"}}}})


@pytest.fixture(scope="module")
def running(served: Any) -> Any:
    _kbatch(served, "nodes", "add", "--count", "1")
    kubectl(served, "apply", "-f", "-", input_=JOB)
    kubectl(served, "create", "cronjob", "nightly", "--image=busybox", "--schedule=0 3 * * *")
    kubectl(served, "create", "service", "clusterip", "front", "--tcp=80")
    _kbatch(served, "advance", "10s")
    return served


def test_kubectl_get_pod_yaml_shows_empty_resources_per_container(running: Any) -> None:
    pod = kubectl(running, "get", "pods", "-l", "job-name=bare", "-o", "yaml").stdout
    assert pod.count("resources: {}") == 2
    job = json.loads(kubectl(running, "get", "job", "bare", "-o", "json").stdout)
    assert all(c["resources"] == {} for c in job["spec"]["template"]["spec"]["containers"])


def test_cronjob_template_metadata_and_service_status_as_upstream(running: Any) -> None:
    cron = json.loads(kubectl(running, "get", "cronjob", "nightly", "-o", "json").stdout)
    template = cron["spec"]["jobTemplate"]["spec"]["template"]
    assert template["metadata"] == {} and template["spec"]["containers"][0]["resources"] == {}
    svc = kubectl(running, "get", "service", "front", "-o", "yaml").stdout
    assert "status:\n  loadBalancer: {}" in svc


def test_http_body_keeps_go_field_order(running: Any) -> None:
    body = httpx.get(f"{running.url}/apis/batch/v1/namespaces/default/cronjobs/nightly").text
    # JobTemplateSpec: metadata before spec; Container: resources after command/args, before
    # terminationMessagePath (k8s.io/api core/v1 types.go)
    assert '"template":{"metadata":{},"spec":{"containers":[{"name":"nightly","image":"busybox",' \
           '"resources":{}' in body


def _spec_view(job: dict[str, Any]) -> dict[str, Any]:
    meta = {k: v for k, v in job["metadata"].items() if k not in ("annotations", "managedFields",
                                                                     "resourceVersion")}
    return {**job, "metadata": meta, "status": None}


def test_applying_what_kubectl_printed_changes_nothing_but_the_last_applied_note(running: Any) -> None:
    """kubectl apply of its own ``get -o yaml`` output (``resources: {}`` and all) is a no-op for the
    object: the same spec and generation; only kubectl's last-applied annotation is rewritten, as
    against kube-apiserver."""
    before = json.loads(kubectl(running, "get", "job", "bare", "-o", "json").stdout)
    printed = kubectl(running, "get", "job", "bare", "-o", "yaml").stdout
    kubectl(running, "apply", "-f", "-", input_=printed)
    after = json.loads(kubectl(running, "get", "job", "bare", "-o", "json").stdout)
    assert _spec_view(after) == _spec_view(before)
    assert after["metadata"]["generation"] == before["metadata"]["generation"]


def test_the_store_and_the_model_keep_none_of_it(api: Any, backend: Any) -> None:
    """The wire pass is not stored: the stored bytes and the decoded object carry no ``resources``
    or ``status: {}``, while every answer does."""
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
    assert api.post("/api/v1/namespaces/default/pods", json=pod).status_code == 201
    served = api.get("/api/v1/namespaces/default/pods/p").json()
    assert served["spec"]["containers"][0]["resources"] == {}
    stored = backend.control_plane.store.range(b"/registry/pods/default/p").kvs[0].value
    assert b"resources" not in stored
    from kbatch.api.core_v1 import Pod
    model = backend.control_plane.client.get(Pod, "p", "default").to_dict()
    assert "resources" not in model["spec"]["containers"][0]
    # a client that PUTs back what it read (kubectl replace, edit) changes nothing: Go reads
    # `resources: {}` as no resources, and the pod's spec may not change
    put = api.request("PUT", "/api/v1/namespaces/default/pods/p", json=served)
    assert put.status_code == 200, put.text
    assert backend.control_plane.store.range(b"/registry/pods/default/p").kvs[0].value == stored


def test_kubectl_json_patch_adds_under_the_empty_resources_it_read(running: Any) -> None:
    """``kubectl patch --type json`` addresses the zeros a client reads: the patch applies to the
    object as served (k8s.io/apiserver ``handlers/patch.go``, ``applyPatchToCurrentObject``)."""
    base = "/spec/jobTemplate/spec/template/spec/containers/0/resources"
    patch = json.dumps([{"op": "test", "path": base, "value": {}},
                        {"op": "add", "path": f"{base}/limits", "value": {"memory": "64Mi"}}])
    kubectl(running, "patch", "cronjob", "nightly", "--type", "json", "-p", patch)
    cron = json.loads(kubectl(running, "get", "cronjob", "nightly", "-o", "json").stdout)
    container = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"] == {"limits": {"memory": "64Mi"}}


ROLE = json.dumps({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                   "metadata": {"name": "none"}})
DOWNWARD = json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "downward"}, "spec": {
    "containers": [{"name": "c", "image": "busybox", "command": ["sleep", "3600"], "env": [
        {"name": "CPU", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu"}}}]}]}})


def test_kubectl_prints_unset_scalars_and_lists_and_takes_them_back(running: Any) -> None:
    """``rules: null`` (a nil slice without omitempty), ``divisor: "0"`` (a Quantity by value),
    ``restartCount: 0``: printed as a 1.37 API server prints them; ``kubectl replace`` of that
    output changes nothing, as Go reads them as unset."""
    kubectl(running, "apply", "-f", "-", input_=ROLE)
    assert "rules: null" in kubectl(running, "get", "role", "none", "-o", "yaml").stdout
    kubectl(running, "apply", "-f", "-", input_=DOWNWARD)
    _kbatch(running, "advance", "5s")
    printed = kubectl(running, "get", "pod", "downward", "-o", "yaml").stdout
    assert 'divisor: "0"' in printed and "restartCount: 0" in printed
    before = json.loads(kubectl(running, "get", "pod", "downward", "-o", "json").stdout)
    kubectl(running, "replace", "-f", "-", input_=printed)
    after = json.loads(kubectl(running, "get", "pod", "downward", "-o", "json").stdout)
    assert after["spec"] == before["spec"]
    assert after["metadata"]["generation"] == before["metadata"]["generation"]
