"""Every built-in kind with a struct-typed status reads back with upstream's empty status.

k8s.io/api declares ``Status XStatus `json:"status,omitempty"``` as a struct for Pod, Node, Namespace,
Service, Job and CronJob; Go's encoding/json never omits a struct, so kube-apiserver returns
``"status": {}`` (or the kind's struct-typed members) for an object created without one.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from kbatch.apiserver import APIServer
from kbatch.apiserver.empty_status import STRUCT_STATUS_KINDS
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore
from tests.apiserver.conftest import FakeClock

POD_SPEC = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}
NODE_INFO = {"machineID": "", "systemUUID": "", "bootID": "", "kernelVersion": "", "osImage": "",
             "containerRuntimeVersion": "", "kubeletVersion": "", "kubeProxyVersion": "",
             "operatingSystem": "", "architecture": ""}
NODE_EMPTY = {"daemonEndpoints": {"kubeletEndpoint": {"Port": 0}}, "nodeInfo": NODE_INFO}

# kind → (manifest without status, the status kube-apiserver returns after create)
CASES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "Job": ({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "default"},
             "spec": {"suspend": True, "template": {"spec": POD_SPEC}}}, {}),
    "CronJob": ({"apiVersion": "batch/v1", "kind": "CronJob",
                 "metadata": {"name": "cj", "namespace": "default"},
                 "spec": {"schedule": "0 0 1 1 *",
                          "jobTemplate": {"spec": {"template": {"spec": POD_SPEC}}}}}, {}),
    "Node": ({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}, NODE_EMPTY),
    "Service": ({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "default"},
                 "spec": {"ports": [{"port": 80}]}}, {"loadBalancer": {}}),
    "PodDisruptionBudget": ({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                             "metadata": {"name": "b", "namespace": "default"}, "spec": {"minAvailable": 1}},
                            {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0,
                             "expectedPods": 0}),
    "Namespace": ({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}},
                  {"phase": "Active"}),
    "Pod": ({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
             "spec": POD_SPEC}, {"phase": "Pending", "qosClass": "BestEffort"}),
    "PersistentVolumeClaim": ({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                               "metadata": {"name": "c", "namespace": "default"},
                               "spec": {"accessModes": ["ReadWriteOnce"],
                                        "resources": {"requests": {"storage": "1Gi"}}}},
                              {"phase": "Pending"}),
    # the storage family's strategy sets it on create (phase and its transition time, docs/storage.md)
    "PersistentVolume": ({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv"},
                          "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                                   "hostPath": {"path": "/data"}}},
                         {"phase": "Pending", "lastPhaseTransitionTime": "2026-01-01T00:00:00Z"}),
    # declared by their strategies (fill_empty_status), not by the API server's table
    "ValidatingAdmissionPolicy": ({"apiVersion": "admissionregistration.k8s.io/v1",
                                   "kind": "ValidatingAdmissionPolicy", "metadata": {"name": "vap"},
                                   "spec": {"matchConstraints": {"resourceRules": [
                                       {"apiGroups": ["batch"], "apiVersions": ["v1"],
                                        "operations": ["CREATE"], "resources": ["jobs"]}]},
                                       "validations": [{"expression": "true"}]}}, {}),
    "ResourceQuota": ({"apiVersion": "v1", "kind": "ResourceQuota",
                       "metadata": {"name": "q", "namespace": "default"},
                       "spec": {"hard": {"pods": "1"}}}, {}),
    "ResourceClaim": ({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                       "metadata": {"name": "c", "namespace": "default"},
                       "spec": {"devices": {"requests": [
                           {"name": "r", "exactly": {"deviceClassName": "x"}}]}}}, {}),
    "PodGroup": ({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                  "metadata": {"name": "g", "namespace": "default"},
                  "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}}, {}),
    "CompositePodGroup": ({"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "CompositePodGroup",
                           "metadata": {"name": "cg", "namespace": "default"},
                           "spec": {"workloadRef": {"workloadName": "w", "templateName": "t"},
                                    "schedulingPolicy": {"gang": {"minGroupCount": 1}}}}, {}),
    "DeviceTaintRule": ({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule",
                         "metadata": {"name": "t"}, "spec": {"taint": {"key": "k", "effect": "NoSchedule"}}},
                        {}),
}

# Kinds upstream serves from a CustomResourceDefinition: stored as written, no status until their
# controller writes one.
CRD_KINDS = frozenset({"JobSet.jobset.x-k8s.io", "PodGroup.scheduling.x-k8s.io"})


@pytest.fixture
def api() -> APIServer:
    return APIServer(MemoryStore(), builtin_registry(), now=FakeClock().now, rng=random.Random(5))


def _name(manifest: dict[str, Any]) -> tuple[str, str | None]:
    return manifest["metadata"]["name"], manifest["metadata"].get("namespace")


def test_the_cases_cover_every_kind_with_a_struct_status() -> None:
    specs = [spec for spec in builtin_registry() if "status" in spec.model.model_fields
             and not getattr(spec.strategy, "custom_resource", False)]  # CRDs: see the test below
    declared = {spec.info.group_kind for spec in specs if hasattr(spec.strategy, "fill_empty_status")}
    kinds = {spec.info.group_kind for spec in specs} - CRD_KINDS
    assert kinds - declared == STRUCT_STATUS_KINDS
    assert {k.split(".")[0] for k in kinds} == set(CASES)


@pytest.mark.parametrize("kind", sorted(CASES))
def test_create_then_read_shows_the_empty_status(api: APIServer, kind: str) -> None:
    manifest, expected = CASES[kind]
    created, _ = api.unstructured.create(manifest)
    assert created["status"] == expected
    name, namespace = _name(manifest)
    raw = api.unstructured.get(manifest["apiVersion"], kind, name, namespace)
    assert raw["status"] == expected
    typed = api.get(api.kind_for(manifest["apiVersion"], kind).model, name, namespace)
    assert typed.to_dict() == raw  # the raw read path's invariant holds with the filled status
    listed = api.unstructured.list(manifest["apiVersion"], kind, namespace)["items"]
    assert [item["status"] for item in listed if item["metadata"]["name"] == name] == [expected]


def test_a_custom_resource_has_no_status_until_one_is_written(api: APIServer) -> None:
    manifest = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
                "metadata": {"name": "js", "namespace": "default"},
                "spec": {"replicatedJobs": [
                    {"name": "rj", "template": {"spec": {"template": {"spec": POD_SPEC}}}}]}}
    created, _ = api.unstructured.create(manifest)
    assert "status" not in created
    assert "status" not in api.unstructured.get("jobset.x-k8s.io/v1alpha2", "JobSet", "js", "default")


# Namespace left out: upstream's SetDefaults_NamespaceStatus would default the phase to Active on
# decode, a defaulting that belongs to kbatch/api (kbatch stores {} there).
@pytest.mark.parametrize("kind", sorted(set(CASES) - {"Namespace"}))
def test_a_status_write_without_status_stores_the_empty_status(api: APIServer, kind: str) -> None:
    manifest, expected = CASES[kind]
    created, _ = api.unstructured.create(manifest)
    name, namespace = _name(manifest)
    body = {k: v for k, v in created.items() if k != "status"}
    if kind == "Pod":  # the status set on create is replaced by the (empty) one written, but for the
        # QoS class, which pods/status backfills (podStatusStrategy.PrepareForUpdate)
        expected = {"qosClass": created["status"]["qosClass"]}
    if kind == "PersistentVolume":  # decoding defaults the phase (SetDefaults_PersistentVolume); the
        # phase did not change, so no transition time is set (persistentvolumeStatusStrategy)
        expected = {"phase": "Pending"}
    updated, _ = api.unstructured.update(body, status=True)
    assert updated["status"] == expected
    assert api.unstructured.get(manifest["apiVersion"], kind, name, namespace)["status"] == expected


def test_a_client_side_manifest_without_status_still_round_trips(api: APIServer) -> None:
    manifest = CASES["Job"][0]
    model = api.kind_for("batch/v1", "Job").model
    assert "status" not in model.from_dict(manifest).to_dict()


NEW_CONDITION = {"type": "Example", "status": "True", "reason": "Test", "message": "m",
                 "lastTransitionTime": "2026-01-01T00:00:00Z"}
CONDITIONS = {
    "Service": NEW_CONDITION,
    "Node": NEW_CONDITION | {"lastHeartbeatTime": "2026-01-01T00:00:00Z"},
    "Job": NEW_CONDITION | {"lastProbeTime": "2026-01-01T00:00:00Z"},
}


@pytest.mark.parametrize("kind", ["Service", "Node", "Job", "CronJob"])
def test_json_patch_add_status_conditions_works_on_a_fresh_object(api: APIServer, kind: str) -> None:
    manifest, expected = CASES[kind]
    api.unstructured.create(manifest)
    name, namespace = _name(manifest)
    if kind == "CronJob":  # CronJobStatus has no conditions; its fields are added the same way
        path, value = "/status/lastScheduleTime", "2026-01-01T00:00:00Z"
    else:
        path, value = "/status/conditions", [CONDITIONS[kind]]
    patched, _ = api.unstructured.patch(manifest["apiVersion"], kind, name, [
        {"op": "add", "path": path, "value": value}], namespace=namespace, patch_type="json", status=True)
    field = path.rsplit("/", 1)[1]
    assert patched["status"] == expected | {field: value}
    assert api.unstructured.get(manifest["apiVersion"], kind, name, namespace)["status"] == patched["status"]


def test_a_custom_resource_created_without_status_reads_back_without_one(api: APIServer) -> None:
    """CRDs (Kueue's kinds) are unstructured on the server: nothing fills an absent status."""
    manifest = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
                "metadata": {"name": "q", "namespace": "default"}, "spec": {"clusterQueue": "cq"}}
    created, _ = api.unstructured.create(manifest)
    assert "status" not in created
    assert "status" not in api.unstructured.get(manifest["apiVersion"], "LocalQueue", "q", "default")
