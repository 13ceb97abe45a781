"""The official ``kubernetes`` Python client against ``kbatch serve`` (typed APIs, watch, 410)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

kubernetes = pytest.importorskip("kubernetes", reason="the official Python client (pip install kubernetes)")
from kubernetes import client, config, watch  # noqa: E402
from kubernetes.client.rest import ApiException  # noqa: E402


@pytest.fixture(scope="module")
def apis(served: Any) -> tuple[Any, Any]:
    api_client = config.new_client_from_config(config_file=str(served.kubeconfig))
    return client.CoreV1Api(api_client), client.BatchV1Api(api_client)


def _pod(name: str, **labels: str) -> client.V1Pod:
    return client.V1Pod(metadata=client.V1ObjectMeta(name=name, labels=labels or None),
                        spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="busybox",
                                                                             command=["sleep", "5"])]))


def test_pods_create_list_patch_delete(apis: tuple[Any, Any]) -> None:
    core, _ = apis
    created = core.create_namespaced_pod("default", _pod("py-pod", app="py"))
    assert created.metadata.uid
    names = [p.metadata.name for p in core.list_namespaced_pod("default", label_selector="app=py").items]
    assert names == ["py-pod"]
    patched = core.patch_namespaced_pod("py-pod", "default", {"metadata": {"labels": {"extra": "1"}}})
    assert patched.metadata.labels["extra"] == "1"
    core.patch_namespaced_pod_status("py-pod", "default", {"status": {"conditions": [
        {"type": "ConfigIssue", "status": "True"}]}})
    status = core.read_namespaced_pod_status("py-pod", "default")
    assert any(c.type == "ConfigIssue" for c in status.status.conditions)
    core.delete_namespaced_pod("py-pod", "default")
    with pytest.raises(ApiException) as err:
        core.read_namespaced_pod("py-pod", "default")
    assert err.value.status == 404


def test_jobs_create_list_patch_delete(apis: tuple[Any, Any]) -> None:
    _, batch = apis
    job = client.V1Job(metadata=client.V1ObjectMeta(name="py-job"), spec=client.V1JobSpec(
        suspend=True, template=client.V1PodTemplateSpec(spec=client.V1PodSpec(
            restart_policy="Never", containers=[client.V1Container(name="c", image="busybox")]))))
    start = batch.list_namespaced_job("default").metadata.resource_version
    created = batch.create_namespaced_job("default", job)
    assert created.spec.selector.match_labels
    events = watch.Watch().stream(batch.list_namespaced_job, "default", resource_version=start,
                                  timeout_seconds=5)
    first = next(iter(events))
    assert first["type"] == "ADDED" and first["object"].metadata.name == "py-job"
    assert "py-job" in [j.metadata.name for j in batch.list_namespaced_job("default").items]
    patched = batch.patch_namespaced_job("py-job", "default", {"spec": {"parallelism": 2}})
    assert patched.spec.parallelism == 2
    batch.delete_namespaced_job("py-job", "default", propagation_policy="Background")
    assert "py-job" not in [j.metadata.name for j in batch.list_namespaced_job("default").items]


def test_watch_sees_changes(apis: tuple[Any, Any]) -> None:
    core, _ = apis
    start = core.list_namespaced_pod("default").metadata.resource_version
    core.create_namespaced_pod("default", _pod("w1"))
    seen = []
    for event in watch.Watch().stream(core.list_namespaced_pod, "default", resource_version=start,
                                      timeout_seconds=5):
        seen.append((event["type"], event["object"].metadata.name))
        if ("ADDED", "w1") in seen:
            break
    assert ("ADDED", "w1") in seen


def test_watch_survives_410_by_relisting(served: Any, apis: tuple[Any, Any]) -> None:
    core, _ = apis
    old = core.list_namespaced_pod("default").metadata.resource_version
    core.create_namespaced_pod("default", _pod("after-compaction"))
    core.create_namespaced_pod("default", _pod("after-compaction-2"))
    httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/actions/compact", json={},
               timeout=10).raise_for_status()
    expired = False
    try:
        for _ in watch.Watch().stream(core.list_namespaced_pod, "default", resource_version=old,
                                      timeout_seconds=5):
            pass
    except ApiException as err:
        expired = err.status == 410
    assert expired, "a watch from a compacted resourceVersion must end with 410 Expired"
    listing = core.list_namespaced_pod("default")  # relist, then watch from the fresh version
    assert "after-compaction" in [p.metadata.name for p in listing.items]
    names = []
    for event in watch.Watch().stream(core.list_namespaced_pod, "default",
                                      resource_version=listing.metadata.resource_version, timeout_seconds=1):
        names.append(event["object"].metadata.name)
    assert names == []


def _advance(served: Any, duration: str) -> None:
    httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/clock", json={"advance": duration},
               timeout=10).raise_for_status()


def _talker(name: str) -> client.V1Pod:
    script = "echo one; sleep 10; echo two; sleep 10; echo three"
    return client.V1Pod(metadata=client.V1ObjectMeta(name=name), spec=client.V1PodSpec(
        restart_policy="Never",
        containers=[client.V1Container(name="c", image="busybox", command=["sh", "-c", script])]))


def test_log_follow_streams_as_the_clock_moves(served: Any, apis: tuple[Any, Any]) -> None:
    # the kubelet writes each line as the container does and ends the stream with the container
    # (k8s.io/kubernetes pkg/kubelet/kuberuntime/logs/logs.go ReadLogs); the client reads the chunks
    core, _ = apis
    httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/actions/nodes-add", json={"count": 1},
               timeout=10).raise_for_status()
    core.create_namespaced_pod("default", _talker("py-talker"))
    _advance(served, "1s")
    resp = core.read_namespaced_pod_log("py-talker", "default", follow=True, _preload_content=False,
                                        _request_timeout=30)
    chunks = resp.stream(amt=None, decode_content=False)
    assert next(chunks) == b"one\n"
    _advance(served, "10s")
    assert next(chunks) == b"two\n"
    _advance(served, "20s")  # "three", then the container ends and so does the body
    assert b"".join(chunks) == b"three\n"
    resp.release_conn()


def test_watch_stream_of_a_pod_log(served: Any, apis: tuple[Any, Any]) -> None:
    # kubernetes.watch follows read_namespaced_pod_log (it sets follow=True) and yields its lines
    core, _ = apis
    core.create_namespaced_pod("default", _talker("py-watched-log"))
    _advance(served, "1s")
    lines = watch.Watch().stream(core.read_namespaced_pod_log, "py-watched-log", "default",
                                 _request_timeout=30)
    assert next(lines) == "one"
    _advance(served, "10s")
    assert next(lines) == "two"
    _advance(served, "20s")
    assert list(lines) == ["three"]
