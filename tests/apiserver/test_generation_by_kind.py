"""``metadata.generation`` is the kind's strategy's, as upstream: each kind's ``PrepareForCreate`` sets
it to 1 or leaves it unset, and its ``PrepareForUpdate`` bumps it on a spec change or never.

Upstream (kubernetes 1.37): ``pkg/registry/<group>/<kind>/strategy.go`` of each kind —
Pod, PodDisruptionBudget, Job, CronJob, DeviceClass, ResourceSlice and DeviceTaintRule set 1 and bump
on spec changes; PriorityClass sets 1 and never bumps; ConfigMap, Secret, Namespace, Node, Service, Event,
Lease, PersistentVolumeClaim, ResourceQuota, LimitRange, ResourceClaim, ResourceClaimTemplate and
scheduling.k8s.io/v1beta1 Workload and PodGroup carry none. Custom resources always start at 1
(apiextensions-apiserver ``pkg/registry/customresource/strategy.go``).
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.apiserver import APIServer
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore

_CONTAINERS = [{"name": "c", "image": "busybox"}]
_TEMPLATE = {"spec": {"restartPolicy": "Never", "containers": _CONTAINERS}}
_SELECTOR = {"cel": {"expression": "true"}}
_DEVICES = {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}

# (manifest, generation after create, a merge patch that changes the spec or None, generation after)
CASES: dict[str, tuple[dict[str, Any], int | None, dict[str, Any] | None, int | None]] = {
    "ConfigMap": ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": {"a": "1"}},
                  None, {"data": {"a": "2"}}, None),
    "Secret": ({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "x"}, "stringData": {"a": "1"}},
               None, {"data": {"a": "Mg=="}}, None),
    "Namespace": ({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}}, None, None, None),
    "Node": ({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "x"}},
             None, {"spec": {"unschedulable": True}}, None),
    "Service": ({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "x"},
                 "spec": {"ports": [{"port": 80}]}}, None, {"spec": {"ports": [{"port": 81}]}}, None),
    "Event": ({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "x"},
               "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"}}, None, None, None),
    "PersistentVolumeClaim": ({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "x"},
                               "spec": {"accessModes": ["ReadWriteOnce"],
                                        "resources": {"requests": {"storage": "1Gi"}}}}, None, None, None),
    "Lease": ({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "x"},
               "spec": {"holderIdentity": "a"}}, None, {"spec": {"holderIdentity": "b"}}, None),
    "PriorityClass": ({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                       "metadata": {"name": "x"}, "value": 10}, 1, {"description": "changed"}, 1),
    "Pod": ({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"},
             "spec": {"containers": _CONTAINERS}},
            1, {"spec": {"activeDeadlineSeconds": 30}}, 2),
    "PodDisruptionBudget": ({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                             "metadata": {"name": "x"}, "spec": {"minAvailable": 1}},
                            1, {"spec": {"minAvailable": 2}}, 2),
    "Job": ({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "x"},
             "spec": {"template": _TEMPLATE}}, 1, {"spec": {"suspend": True}}, 2),
    "CronJob": ({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "x"},
                 "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": _TEMPLATE}}}},
                1, {"spec": {"schedule": "*/5 * * * *"}}, 2),
    "DeviceClass": ({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
                     "spec": {}}, 1, {"spec": {"selectors": [_SELECTOR]}}, 2),
    "ResourceSlice": ({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "x"},
                       "spec": {"driver": "gpu.example.com", "nodeName": "n1",
                                "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
                                "devices": [{"name": "d0"}]}},
                      1, {"spec": {"devices": [{"name": "d1"}]}}, 2),
    "DeviceTaintRule": ({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule",
                         "metadata": {"name": "x"}, "spec": {"deviceSelector": {"driver": "gpu.example.com"},
                                  "taint": {"key": "k", "effect": "NoSchedule"}}},
                        1, {"spec": {"taint": {"value": "v"}}}, 2),
    "ResourceClaim": ({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "x"},
                       "spec": {"devices": _DEVICES}}, None, None, None),
    "ResourceClaimTemplate": ({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                               "metadata": {"name": "x"}, "spec": {"spec": {"devices": _DEVICES}}},
                              None, None, None),
    "Workload": ({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload", "metadata": {"name": "x"},
                  "spec": {"podGroupTemplates": [{"name": "g", "schedulingPolicy": {"basic": {}}}]}},
                 None, None, None),
    "PodGroup (scheduling.k8s.io)": ({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                                      "metadata": {"name": "x"}, "spec": {"schedulingPolicy": {"basic": {}}}},
                                     None, None, None),
    "JobSet (a custom resource)": (
        {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "x"},
         "spec": {"replicatedJobs": [{"name": "w", "template": {"spec": {"template": _TEMPLATE}}}]}},
        1, {"spec": {"suspend": True}}, 2),
    "ClusterQueue (a custom resource)": (
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "x"},
         "spec": {}}, 1, {"spec": {"stopPolicy": "Hold"}}, 2),
}


def _api() -> APIServer:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    return APIServer(MemoryStore(), builtin_registry(), now=lambda: now, rng=random.Random(5))


def _create(api: APIServer, manifest: dict[str, Any]) -> Any:
    kind = api.kind_for(manifest["apiVersion"], manifest["kind"])
    namespace = "default" if kind.info.namespaced else None
    return api.create(kind.model.model_validate(manifest), namespace=namespace)


@pytest.mark.parametrize("case", sorted(CASES))
def test_generation_after_create_and_spec_change(case: str) -> None:
    manifest, created, patch, patched = CASES[case]
    api = _api()
    obj = _create(api, manifest)
    assert obj.metadata.generation == created
    if patch is not None:
        model, meta = type(obj), obj.metadata
        after = api.patch(model, meta.name, patch, meta.namespace, patch_type="merge")
        assert after.metadata.resource_version != meta.resource_version
        assert after.metadata.generation == patched


def test_the_wire_object_of_a_configmap_has_no_generation() -> None:
    """What kubectl shows: ``metadata`` without a ``generation`` key (omitempty of a zero int64)."""
    api = _api()
    cm = _create(api, CASES["ConfigMap"][0])
    assert "generation" not in cm.model_dump(by_alias=True, exclude_none=True)["metadata"]


@settings(max_examples=40, deadline=None)
@given(steps=st.lists(st.sampled_from(["spec", "labels"]), max_size=6))
def test_generation_counts_spec_changes_only_for_kinds_that_keep_one(steps: list[str]) -> None:
    """A Job's generation is 1 + the number of spec-changing writes; a Node's stays unset through the
    same writes (its strategy has none to bump)."""
    api = _api()
    job = _create(api, CASES["Job"][0])
    node = _create(api, CASES["Node"][0])
    for i, step in enumerate(steps):
        if step == "spec":
            job_patch: dict[str, Any] = {"spec": {"activeDeadlineSeconds": 100 + i}}
            node_patch: dict[str, Any] = {"spec": {"podCIDR": f"10.0.{i}.0/24"} if i == 0 else
                                          {"unschedulable": i % 2 == 1}}
        else:
            job_patch = node_patch = {"metadata": {"labels": {"step": str(i)}}}
        job = api.patch(type(job), "x", job_patch, "default", patch_type="merge")
        node = api.patch(type(node), "x", node_patch, None, patch_type="merge")
    assert job.metadata.generation == 1 + steps.count("spec")
    assert node.metadata.generation is None
