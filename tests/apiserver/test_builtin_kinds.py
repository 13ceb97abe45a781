"""The server with the real built-in kinds (core/v1 Pod and Namespace, batch/v1 Job)."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Namespace, Pod, ServiceAccount
from kbatch.api.errors import Invalid
from kbatch.apiserver import APIServer, GarbageCollector
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore
from tests.apiserver.conftest import FakeClock


@pytest.fixture
def api(clock: FakeClock) -> APIServer:
    return APIServer(MemoryStore(), builtin_registry(), now=clock.now, rng=random.Random(3))


def pod(name: str, node: str | None = None, owner: Any = None, **labels: str) -> Pod:
    refs = None
    if owner is not None:
        refs = [{"apiVersion": owner.api_version, "kind": owner.kind, "name": owner.name,
                 "uid": owner.metadata.uid, "controller": True, "blockOwnerDeletion": True}]
    return Pod.model_validate({
        "metadata": {"name": name, "namespace": "default", "labels": labels or None, "ownerReferences": refs},
        "spec": {"nodeName": node, "containers": [{"name": "main", "image": "busybox",
                                                   "env": [{"name": "A", "value": "1"}]}]}})


def job(name: str = "pi") -> Job:
    return Job.model_validate({"metadata": {"name": name, "namespace": "default"},
                               "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
                                   {"name": "pi", "image": "perl"}]}}}})


SYSTEM = ("default", "kube-node-lease", "kube-public", "kube-system")


def test_bootstrap_namespaces_exist(api: APIServer) -> None:
    assert [n.name for n in api.list(Namespace).items] == list(SYSTEM)


def test_cluster_info_is_published_in_kube_public(api: APIServer) -> None:
    """kubeadm's ``kube-public/cluster-info``: a cluster-only kubeconfig; publishing again with another
    address updates it, with the same address writes nothing."""
    import json

    from kbatch.api.core_v1 import ConfigMap
    from kbatch.apiserver.cluster_info import publish_cluster_info

    info = api.get(ConfigMap, "cluster-info", "kube-public")
    config = json.loads((info.data or {})["kubeconfig"])
    assert config["clusters"] == [{"name": "", "cluster": {"server": "http://127.0.0.1:6443"}}]
    assert config["users"] is None and config["kind"] == "Config"
    revision = api.store.revision
    publish_cluster_info(api)
    assert api.store.revision == revision
    publish_cluster_info(api, "http://127.0.0.1:40000")
    again = json.loads((api.get(ConfigMap, "cluster-info", "kube-public").data or {})["kubeconfig"])
    assert again["clusters"][0]["cluster"]["server"] == "http://127.0.0.1:40000"


def test_pod_create_defaults_and_status(api: APIServer) -> None:
    out = api.create(pod("p"))
    assert out.status is not None and out.status.phase == "Pending"
    assert out.spec.restart_policy == "Always"


def test_pod_graceful_deletion(api: APIServer, clock: FakeClock) -> None:
    api.create(pod("p", node="n1"))
    out = api.delete(Pod, "p", "default")
    assert out is not None and out.metadata.deletion_grace_period_seconds == 30
    assert out.metadata.deletion_timestamp == clock.now() + timedelta(seconds=30)
    assert api.delete(Pod, "p", "default", grace_period_seconds=0) is None
    api.create(pod("q"))
    assert api.delete(Pod, "q", "default") is None  # unscheduled: immediate


def test_pod_field_selectors(api: APIServer) -> None:
    api.create(pod("a", node="n1"))
    api.create(pod("b"))
    assert [p.name for p in api.list(Pod, field_selector="spec.nodeName=n1").items] == ["a"]
    pending = api.list(Pod, field_selector="status.phase=Pending,spec.nodeName!=n1")
    assert [p.name for p in pending.items] == ["b"]


def test_strategic_patch_on_pod_containers(api: APIServer) -> None:
    api.create(pod("p"))
    patch = {"spec": {"containers": [{"name": "main", "image": "busybox:2"}]},
             "metadata": {"labels": {"x": "y"}}}
    out = api.patch(Pod, "p", patch, "default", patch_type="strategic")
    assert [e.name for e in out.spec.containers[0].env or ()] == ["A"]  # merged by name, env kept
    assert out.spec.containers[0].image == "busybox:2"


def test_job_create_generates_selector_from_uid(api: APIServer) -> None:
    out = api.create(job())
    assert out.metadata.uid
    assert out.spec.selector is not None and out.spec.selector.match_labels is not None
    assert out.metadata.uid in out.spec.selector.match_labels.values()


def test_job_validation_errors(api: APIServer) -> None:
    bad = job()
    bad.spec.parallelism = -1
    with pytest.raises(Invalid, match=r"spec\.parallelism: Invalid value: -1"):
        api.create(bad)


def test_job_delete_defaults_to_orphan(api: APIServer) -> None:
    gc = GarbageCollector(api)
    j = api.create(job())
    api.create(pod("pi-1", owner=j))
    out = api.delete(Job, "pi", "default")
    assert out is not None and out.metadata.finalizers == ["orphan"]
    gc.sync()
    assert api.list(Job).items == []
    assert api.get(Pod, "pi-1", "default").metadata.owner_references is None


def test_job_delete_background_removes_pods(api: APIServer) -> None:
    gc = GarbageCollector(api)
    j = api.create(job())
    api.create(pod("pi-1", owner=j))
    api.create(pod("pi-2", node="n1", owner=j))
    assert api.delete(Job, "pi", "default", propagation_policy="Background") is None
    gc.sync()
    assert [p.name for p in api.list(Pod).items] == ["pi-2"]  # scheduled: terminating, grace 30
    assert api.get(Pod, "pi-2", "default").metadata.deletion_timestamp is not None


def test_namespace_deletion_with_real_kinds(api: APIServer) -> None:
    from kbatch.apiserver.local import LocalClient
    from kbatch.controllers.namespace import NamespaceDeleter

    gc = GarbageCollector(api)
    api.create(Namespace.model_validate({"metadata": {"name": "team"}}))
    # what the serviceaccount controller writes into a new namespace (no controller runs here)
    api.create(ServiceAccount.model_validate({"metadata": {"name": "default", "namespace": "team"}}))
    running, batch = pod("a", node="n1"), job("j")
    running.metadata.namespace = batch.metadata.namespace = "team"
    api.create(running)
    api.create(batch)
    out = api.delete(Namespace, "team")
    assert out is not None and out.status is not None and out.status.phase == "Terminating"
    gc.sync()  # the spec finalizer "kubernetes" is the namespace controller's: the GC leaves it
    deleter = NamespaceDeleter(LocalClient(api), api.registry, api.namespaces, api.timestamp)
    left = deleter.sync("team")  # the running pod terminates gracefully: the namespace waits
    assert left is not None and left.estimate == 30  # its grace period (estimateGracefulTermination)
    assert api.list(Job, "team").items == []
    left = api.list(Pod, "team").items
    assert [p.name for p in left] == ["a"] and left[0].metadata.deletion_timestamp is not None
    api.delete(Pod, "a", "team", grace_period_seconds=0)  # the kubelet's final delete
    assert deleter.sync("team") is None  # finalized
    assert [n.name for n in api.list(Namespace).items] == list(SYSTEM)
