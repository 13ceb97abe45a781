"""``pods/{name}/ephemeralcontainers``: get, update and patch as upstream's EphemeralContainersREST
(k8s.io/kubernetes ``pkg/registry/core/pod/storage/storage.go``) with ``podEphemeralContainersStrategy``
(``pkg/registry/core/pod/strategy.go``) and ``ValidatePodEphemeralContainersUpdate``
(``pkg/apis/core/validation/validation.go``; cases after ``TestValidatePodEphemeralContainersUpdate``
and ``TestValidateEphemeralContainers`` in ``validation_test.go``)."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.server.facade import ControlPlaneBackend, new_control_plane
from tests.server.conftest import AppClient

BASE = "/api/v1/namespaces/default/pods"
SUB = f"{BASE}/p/ephemeralcontainers"
MERGE = {"content-type": "application/merge-patch+json"}
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
       "spec": {"initContainers": [{"name": "init", "image": "busybox", "command": ["true"]}],
                "containers": [{"name": "c", "image": "busybox", "command": ["sleep", "100"]}],
                "volumes": [{"name": "vol", "emptyDir": {}}]}}
DEBUGGER = {"name": "debugger", "image": "busybox", "targetContainerName": "c", "stdin": True,
            "resources": {}}


@pytest.fixture
def api(make_api: Any) -> AppClient:
    client: AppClient = make_api(ControlPlaneBackend(new_control_plane()))
    client.post("/apis/kbatch.dev/v1alpha1/actions/nodes-add", json={"count": 1})
    assert client.post(BASE, json=POD).status_code == 201
    client.post("/apis/kbatch.dev/v1alpha1/clock", json={"advance": "5s"})
    return client


def _add(api: AppClient, *containers: dict[str, Any]) -> Any:
    return api.patch(SUB, json={"spec": {"ephemeralContainers": list(containers)}}, headers=MERGE)


def test_a_patch_adds_an_ephemeral_container_and_nothing_else(api: AppClient) -> None:
    # dropNonEphemeralContainerUpdates: the stored spec, status and metadata but ephemeralContainers
    before = api.get(f"{BASE}/p").json()
    out = api.patch(SUB, json={"metadata": {"labels": {"x": "y"}},
                               "spec": {"ephemeralContainers": [DEBUGGER], "activeDeadlineSeconds": 5}},
                    headers=MERGE)
    assert out.status_code == 200, out.text
    pod = out.json()
    assert [c["name"] for c in pod["spec"]["ephemeralContainers"]] == ["debugger"]
    assert pod["spec"]["ephemeralContainers"][0]["terminationMessagePolicy"] == "File"  # defaulted
    assert "activeDeadlineSeconds" not in pod["spec"] and "labels" not in pod["metadata"]
    assert pod["status"]["phase"] == before["status"]["phase"]
    assert pod["metadata"]["generation"] == before["metadata"]["generation"] + 1  # updatePodGeneration
    assert api.get(SUB).json()["spec"]["ephemeralContainers"] == pod["spec"]["ephemeralContainers"]


def test_strategic_merge_and_put(api: AppClient) -> None:
    # kubectl debug sends a strategic merge patch; a PUT carries the whole pod
    smp = {"spec": {"ephemeralContainers": [DEBUGGER]}}
    out = api.patch(SUB, json=smp, headers={"content-type": "application/strategic-merge-patch+json"})
    assert out.status_code == 200, out.text
    pod = api.get(SUB).json()  # the kubelet has written status since (observedGeneration)
    pod["spec"]["ephemeralContainers"].append({"name": "second", "image": "busybox"})
    put = api.request("PUT", SUB, json=pod)
    assert put.status_code == 200, put.text
    assert [c["name"] for c in put.json()["spec"]["ephemeralContainers"]] == ["debugger", "second"]


@pytest.mark.parametrize("container, message", [
    ({"name": "c", "image": "busybox"}, 'spec.ephemeralContainers[0].name: Duplicate value: "c"'),
    ({"name": "init", "image": "busybox"}, 'spec.ephemeralContainers[0].name: Duplicate value: "init"'),
    ({"name": "d", "image": "busybox", "targetContainerName": "bogus"},
     'spec.ephemeralContainers[0].targetContainerName: Not found: "bogus"'),
    ({"name": "d", "image": "busybox", "ports": [{"containerPort": 80}]},
     "spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container"),
    ({"name": "d", "image": "busybox", "resources": {"limits": {"cpu": "1"}}},
     "spec.ephemeralContainers[0].resources: Forbidden: cannot be set for an Ephemeral Container"),
    ({"name": "d", "image": "busybox", "livenessProbe": {"exec": {"command": ["true"]}}},
     "spec.ephemeralContainers[0].livenessProbe: Forbidden: cannot be set for an Ephemeral Container"),
    ({"name": "d", "image": "busybox", "lifecycle": {"preStop": {"exec": {"command": ["true"]}}}},
     "spec.ephemeralContainers[0].lifecycle: Forbidden: cannot be set for an Ephemeral Container"),
    ({"name": "d", "image": "busybox", "restartPolicy": "Always"},
     "spec.ephemeralContainers[0].restartPolicy: Forbidden: cannot be set for an Ephemeral Container"),
    ({"name": "d", "image": "busybox", "volumeMounts": [{"name": "vol", "mountPath": "/v", "subPath": "s"}]},
     "spec.ephemeralContainers[0].volumeMounts[0].subPath: Forbidden: cannot be set for an Ephemeral "
     "Container"),
    ({"name": "d"}, "spec.ephemeralContainers[0].image: Required value"),
    ({"name": "Bad_Name", "image": "busybox"}, 'spec.ephemeralContainers[0].name: Invalid value: "Bad_Name"'),
])
def test_invalid_ephemeral_containers_are_refused(api: AppClient, container: dict[str, Any],
                                                  message: str) -> None:
    out = _add(api, container)
    assert out.status_code == 422, out.text
    assert message in out.json()["message"]
    assert "ephemeralContainers" not in api.get(f"{BASE}/p").json()["spec"]  # no partial write


def test_existing_ephemeral_containers_may_be_neither_removed_nor_changed(api: AppClient) -> None:
    assert _add(api, DEBUGGER).status_code == 200
    removed = _add(api)
    assert removed.status_code == 422
    assert 'existing ephemeral containers "debugger" may not be removed' in removed.json()["message"]
    changed = _add(api, dict(DEBUGGER, image="alpine"))
    assert changed.status_code == 422
    assert 'existing ephemeral containers "debugger" may not be changed' in changed.json()["message"]


def test_static_pods_do_not_support_ephemeral_containers(api: AppClient) -> None:
    mirror = dict(POD, metadata={"name": "mirror", "annotations": {"kubernetes.io/config.mirror": "x"}})
    assert api.post(BASE, json=mirror).status_code == 201
    out = api.patch(f"{BASE}/mirror/ephemeralcontainers",
                    json={"spec": {"ephemeralContainers": [DEBUGGER]}}, headers=MERGE)
    assert out.status_code == 422
    assert "static pods do not support ephemeral containers" in out.json()["message"]


def test_discovery_lists_the_subresource(api: AppClient) -> None:
    listed = {r["name"]: r for r in api.get("/api/v1").json()["resources"]}
    assert listed["pods/ephemeralcontainers"]["kind"] == "Pod"
    assert listed["pods/ephemeralcontainers"]["verbs"] == ["get", "patch", "update"]


def test_other_kinds_have_no_ephemeralcontainers(api: AppClient) -> None:
    out = api.patch("/apis/batch/v1/namespaces/default/jobs/x/ephemeralcontainers", json={}, headers=MERGE)
    assert out.status_code == 404


# -- the kubelet side: the simulated kubelet runs them ---------------------------------------------
# Upstream k8s.io/kubernetes pkg/kubelet/kuberuntime/kuberuntime_manager.go computePodActions
# (EphemeralContainersToStart: those without a runtime status, never restarted) and
# pkg/kubelet/kubelet_pods.go convertToAPIContainerStatuses / status_manager.go normalizeStatus.
def _advance(api: AppClient, duration: str) -> None:
    api.post("/apis/kbatch.dev/v1alpha1/clock", json={"advance": duration})


def _ready(pod: dict[str, Any]) -> str:
    return next(c["status"] for c in pod["status"]["conditions"] if c["type"] == "Ready")


def test_the_kubelet_starts_an_added_ephemeral_container_and_reports_its_status(api: AppClient) -> None:
    debugger = dict(DEBUGGER, command=["sh", "-c", "echo hi from $HOSTNAME; sleep 3; exit 4"],
                    env=[{"name": "HOSTNAME", "value": "dbg"}])
    assert _add(api, debugger).status_code == 200
    pod = api.get(f"{BASE}/p").json()
    (status,) = pod["status"]["ephemeralContainerStatuses"]
    assert status["name"] == "debugger" and status["image"] == "busybox"
    assert "running" in status["state"] and status["ready"] is False and status["restartCount"] == 0
    assert "started" not in status  # the prober manager sets it for regular and init containers only
    assert pod["status"]["observedGeneration"] == pod["metadata"]["generation"]
    log = api.get(f"{BASE}/p/log", params={"container": "debugger"})
    assert log.status_code == 200 and log.text == "hi from dbg\n"
    _advance(api, "10s")
    pod = api.get(f"{BASE}/p").json()
    (status,) = pod["status"]["ephemeralContainerStatuses"]
    ended = status["state"]["terminated"]
    assert (ended["exitCode"], ended["reason"]) == (4, "Error")
    assert status["restartCount"] == 0  # never restarted, whatever the pod's restartPolicy (Always)
    assert pod["status"]["phase"] == "Running" and _ready(pod) == "True"


def test_ephemeral_statuses_are_listed_by_name(api: AppClient) -> None:
    second = {"name": "another", "image": "busybox", "command": ["sleep", "100"]}
    assert _add(api, dict(DEBUGGER, command=["sleep", "100"])).status_code == 200
    assert _add(api, dict(DEBUGGER, command=["sleep", "100"]), second).status_code == 200
    pod = api.get(f"{BASE}/p").json()
    assert [c["name"] for c in pod["spec"]["ephemeralContainers"]] == ["debugger", "another"]
    assert [s["name"] for s in pod["status"]["ephemeralContainerStatuses"]] == ["another", "debugger"]


def test_a_finished_pod_does_not_start_an_ephemeral_container(api: AppClient) -> None:
    done = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "done"},
            "spec": {"restartPolicy": "Never",
                     "containers": [{"name": "c", "image": "busybox", "command": ["true"]}]}}
    assert api.post(BASE, json=done).status_code == 201
    _advance(api, "5s")
    assert api.get(f"{BASE}/done").json()["status"]["phase"] == "Succeeded"
    out = api.patch(f"{BASE}/done/ephemeralcontainers",
                    json={"spec": {"ephemeralContainers": [{"name": "d", "image": "busybox"}]}},
                    headers=MERGE)
    assert out.status_code == 200
    _advance(api, "5s")
    assert "ephemeralContainerStatuses" not in api.get(f"{BASE}/done").json()["status"]
