"""Writes against objects as served with Go's unset fields (kbatch.api.wire_zeros): a JSON patch
applies to the object as kube-apiserver encodes it (k8s.io/apiserver ``handlers/patch.go``,
``jsonPatcher.applyPatchToCurrentObject``), a merge or strategic patch's ``{}`` and a body's zeros
read as unset, in process as over HTTP; unset scalars, lists and pointers without ``omitempty``
are served as Go writes them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kbatch.api.core_v1 import Pod
from kbatch.server.facade import ControlPlaneBackend, new_control_plane
from tests.server.conftest import AppClient

JSON_PATCH = {"content-type": "application/json-patch+json"}
PODS = "/api/v1/namespaces/default/pods"
CRONJOBS = "/apis/batch/v1/namespaces/default/cronjobs"
ENV = [{"name": "CPU", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu"}}}]
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [
    {"name": "c", "image": "busybox", "command": ["sleep", "3600"], "env": ENV}]}}
CRONJOB = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c"}, "spec": {
    "schedule": "0 3 * * *", "jobTemplate": {"spec": {"template": {"spec": {
        "restartPolicy": "Never", "containers": [{"name": "m", "image": "busybox"}]}}}}}}


@pytest.fixture
def cp_api(make_api: Any) -> tuple[Any, AppClient]:
    backend = ControlPlaneBackend(new_control_plane())
    client: AppClient = make_api(backend)
    client.post("/apis/kbatch.dev/v1alpha1/actions/nodes-add", json={"count": 1})
    assert client.post(PODS, json=POD).status_code == 201
    assert client.post(CRONJOBS, json=CRONJOB).status_code == 201
    client.post("/apis/kbatch.dev/v1alpha1/clock", json={"advance": "5s"})
    return backend.control_plane, client


def _stored(cp: Any, key: bytes) -> bytes:
    return bytes(cp.store.range(key).kvs[0].value)


def test_json_patch_adds_under_an_empty_struct_the_client_read(cp_api: tuple[Any, AppClient]) -> None:
    """``resources: {}`` is there on the wire, so ``add …/resources/limits`` has a parent, and
    ``test`` against it holds (before: 422, the path was missing)."""
    _cp, api = cp_api
    base = "/spec/jobTemplate/spec/template/spec/containers/0/resources"
    out = api.patch(f"{CRONJOBS}/c", headers=JSON_PATCH, json=[
        {"op": "test", "path": base, "value": {}},
        {"op": "test", "path": "/spec/jobTemplate/spec/template/metadata", "value": {}},
        {"op": "add", "path": f"{base}/limits", "value": {"cpu": "1"}}])
    assert out.status_code == 200, out.text
    container = out.json()["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"] == {"limits": {"cpu": "1"}}


def test_json_patch_tests_a_served_null_time_and_zero(cp_api: tuple[Any, AppClient]) -> None:
    cp, api = cp_api
    before = _stored(cp, b"/registry/pods/default/p")
    out = api.patch(f"{PODS}/p", headers=JSON_PATCH, json=[
        {"op": "test", "path": "/status/conditions/0/lastProbeTime", "value": None},
        {"op": "test", "path": "/spec/containers/0/env/0/valueFrom/resourceFieldRef/divisor", "value": "0"},
        {"op": "add", "path": "/metadata/labels", "value": {"a": "b"}}])
    assert out.status_code == 200, out.text
    assert out.json()["metadata"]["labels"] == {"a": "b"}
    # the zeros the patch saw are not stored: only the label changed
    after = _stored(cp, b"/registry/pods/default/p")
    assert b'"divisor"' not in after and b'"resources"' not in after and b"lastProbeTime" not in after
    assert len(after) > len(before)


def test_json_patch_on_a_missing_path_still_fails_as_upstream(cp_api: tuple[Any, AppClient]) -> None:
    # a pod-level resources (PodSpec.Resources) is a pointer: absent on the wire, so absent here too
    _cp, api = cp_api
    out = api.patch(f"{PODS}/p", headers=JSON_PATCH, json=[
        {"op": "add", "path": "/spec/resources/limits", "value": {"cpu": "1"}}])
    assert out.status_code == 422, out.text


def test_strategic_patch_with_empty_resources_in_process(cp_api: tuple[Any, AppClient]) -> None:
    """The in-process entry point for clients (the CLI's ``kbatch patch`` without ``--server``)
    reads ``resources: {}`` as no change, as HTTP does: the pod's spec may not change, and does not
    (before: 422 ``changed: spec.containers``)."""
    cp, _api = cp_api
    before = _stored(cp, b"/registry/pods/default/p")
    out, _warnings = cp.server.unstructured.patch(
        "v1", "Pod", "p", {"spec": {"containers": [{"name": "c", "resources": {}}]}}, namespace="default",
        patch_type="strategic")
    assert "resources" not in out["spec"]["containers"][0]
    assert _stored(cp, b"/registry/pods/default/p") == before


def test_components_patch_what_they_hold(cp_api: tuple[Any, AppClient]) -> None:
    """kbatch's own components (the typed client) are not read as clients of the wire: what they
    send is what is stored (the kubelet's ``lastState: {}``)."""
    cp, _api = cp_api
    status = {"name": "c", "ready": True, "restartCount": 0, "image": "busybox", "lastState": {}}
    out = cp.client.patch_status(Pod, "p", {"status": {"containerStatuses": [status]}}, "default")
    assert out.status.container_statuses[0].last_state is not None


def test_a_pod_read_back_whole_is_no_change(cp_api: tuple[Any, AppClient]) -> None:
    """GET then PUT (``kubectl replace``): ``divisor: "0"``, ``resources: {}`` and the condition's
    ``lastProbeTime: null`` come back and read as unset."""
    cp, api = cp_api
    before = _stored(cp, b"/registry/pods/default/p")
    served = api.get(f"{PODS}/p").json()
    assert served["spec"]["containers"][0]["env"][0]["valueFrom"]["resourceFieldRef"]["divisor"] == "0"
    put = api.request("PUT", f"{PODS}/p", json=served)
    assert put.status_code == 200, put.text
    assert _stored(cp, b"/registry/pods/default/p") == before


def test_unset_scalars_lists_and_pointers_are_served(cp_api: tuple[Any, AppClient]) -> None:
    _cp, api = cp_api
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "r"}}
    roles = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles"
    created = api.post(roles, json=role)
    assert created.status_code == 201, created.text
    # Role.Rules has no omitempty: a nil slice is null (a real kube-apiserver prints `rules: null`)
    assert "rules" in created.json() and created.json()["rules"] is None
    assert api.request("PUT", f"{roles}/r", json=created.json()).status_code == 200
    pod = api.get(f"{PODS}/p").json()
    status = pod["status"]["containerStatuses"][0]
    assert (status["restartCount"], status["imageID"], status["lastState"]) == (0, "", {})
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "v"}, "spec": {
        "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
        "dataSource": {"kind": "PersistentVolumeClaim", "name": "other"}}}
    out = api.post("/api/v1/namespaces/default/persistentvolumeclaims", json=claim)
    assert out.status_code == 201, out.text
    # TypedLocalObjectReference.APIGroup is a *string without omitempty: null
    assert out.json()["spec"]["dataSource"] == {"apiGroup": None, "kind": "PersistentVolumeClaim",
                                                "name": "other"}


def test_server_side_apply_of_the_served_spec_is_no_change(cp_api: tuple[Any, AppClient]) -> None:
    """``kubectl apply --server-side`` of what ``get -o yaml`` printed: the merged configuration is
    decoded as Go decodes it, so ``resources: {}`` and ``divisor: "0"`` are no change to the pod's
    spec (before: 422 ``changed: spec.containers``)."""
    _cp, api = cp_api
    before = api.get(f"{PODS}/p").json()
    config = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": before["spec"]}
    out = api.patch(f"{PODS}/p?fieldManager=me&force=true", content=json.dumps(config),
                    headers={"content-type": "application/apply-patch+yaml"})
    assert out.status_code == 200, out.text
    assert out.json()["spec"] == before["spec"]
    assert out.json()["metadata"]["generation"] == before["metadata"]["generation"]
