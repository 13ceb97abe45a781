"""The kubelet and the ConfigMaps/Secrets a pod references (docs/simulation.md, "Missing ConfigMaps
and Secrets").

Upstream: ``pkg/kubelet/kubelet_pods.go`` ``makeEnvironmentVariables`` (the env error messages),
``pkg/kubelet/kuberuntime/kuberuntime_container.go`` ``startContainer`` (``CreateContainerConfigError``
and the ``Failed`` event ``Error: ...``), ``pkg/kubelet/pod_workers.go`` (a failed sync is retried
after ``backOffPeriod``, 10 s), the configmap/secret/projected volume plugins and the volume
manager's exponential back-off (``FailedMount``, 0.5 s doubling to 2m2s).
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from kbatch.api.core_v1 import Event

from .cluster import get_pod, sim_cluster


def pod(name: str, container: dict[str, Any] | None = None, volumes: list[Any] | None = None,
        init: list[Any] | None = None) -> dict[str, Any]:
    main = {"name": "main", "image": "busybox", "command": ["sh", "-c", "sleep 5"], **(container or {})}
    spec: dict[str, Any] = {"restartPolicy": "Never", "containers": [main]}
    if volumes:
        spec["volumes"] = volumes
        main["volumeMounts"] = [{"name": v["name"], "mountPath": f"/m/{v['name']}"} for v in volumes]
    if init:
        spec["initContainers"] = init
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": spec}


def cm(name: str, **data: str) -> str:
    return yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
                           "data": data})


def secret(name: str, **data: str) -> str:
    return yaml.safe_dump({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name},
                           "stringData": data})


def waiting(cp: Any, name: str, init: bool = False) -> tuple[str, str]:
    status = get_pod(cp, name).status
    statuses = status.init_container_statuses if init else status.container_statuses
    state = statuses[0].state.waiting
    return state.reason, state.message or ""


def events(cp: Any, reason: str) -> list[tuple[str, int]]:
    return sorted((e.message or "", e.count or 1) for e in cp.client.list(Event, namespace="default").items
                  if e.reason == reason)


ENV_CASES = [
    ({"envFrom": [{"configMapRef": {"name": "x"}}]}, 'configmap "x" not found'),
    ({"envFrom": [{"secretRef": {"name": "x"}}]}, 'secret "x" not found'),
    ({"env": [{"name": "V", "valueFrom": {"configMapKeyRef": {"name": "x", "key": "k"}}}]},
     'configmap "x" not found'),
    ({"env": [{"name": "V", "valueFrom": {"secretKeyRef": {"name": "x", "key": "k"}}}]},
     'secret "x" not found'),
]


@pytest.mark.parametrize(("container", "message"), ENV_CASES)
def test_missing_env_object_is_create_container_config_error_until_it_exists(
        container: dict[str, Any], message: str) -> None:
    cp = sim_cluster(1)
    cp.apply(yaml.safe_dump(pod("p", container)))
    assert waiting(cp, "p") == ("CreateContainerConfigError", message)
    assert get_pod(cp, "p").status.phase == "Pending"
    assert events(cp, "Failed") == [(f"Error: {message}", 1)]
    cp.advance(25)  # retried at 10 s and 20 s
    assert events(cp, "Failed") == [(f"Error: {message}", 3)]
    cp.apply(cm("x", k="v") if "configmap" in message else secret("x", k="v"))
    cp.advance(6)  # the next retry (30 s) creates the container
    p = get_pod(cp, "p")
    assert p.status.phase == "Running" and p.status.container_statuses[0].state.running is not None
    cp.advance(5)
    assert get_pod(cp, "p").status.phase == "Succeeded"


def test_missing_key_messages_name_the_namespace() -> None:
    cp = sim_cluster(1)
    cp.apply(cm("x", other="1") + "---\n" + secret("s", other="1"))
    cp.apply(yaml.safe_dump(pod("a", {"env": [
        {"name": "V", "valueFrom": {"configMapKeyRef": {"name": "x", "key": "k"}}}]})))
    cp.apply(yaml.safe_dump(pod("b", {"env": [
        {"name": "V", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]})))
    assert waiting(cp, "a") == ("CreateContainerConfigError", "couldn't find key k in ConfigMap default/x")
    assert waiting(cp, "b") == ("CreateContainerConfigError", "couldn't find key k in Secret default/s")


def test_optional_references_are_skipped() -> None:
    cp = sim_cluster(1)
    cp.apply(cm("x", other="1"))
    cp.apply(yaml.safe_dump(pod("p", {
        "envFrom": [{"secretRef": {"name": "nope", "optional": True}}],
        "env": [{"name": "A", "valueFrom": {"configMapKeyRef": {"name": "x", "key": "k", "optional": True}}},
                {"name": "B", "valueFrom": {"secretKeyRef": {"name": "n", "key": "k", "optional": True}}}]},
        volumes=[{"name": "v", "configMap": {"name": "none", "optional": True}},
                 {"name": "w", "secret": {"secretName": "x", "optional": True,
                                          "items": [{"key": "a", "path": "a"}]}}])))
    assert get_pod(cp, "p").status.phase == "Running"
    assert events(cp, "Failed") == [] and events(cp, "FailedMount") == []


def test_env_values_come_from_the_objects() -> None:
    """The command vocabulary sees the resolved environment: exit code from a Secret's value."""
    cp = sim_cluster(1)
    cp.apply(secret("s", code="3") + "---\n" + cm("c", DELAY="2"))
    cp.apply(yaml.safe_dump(pod("p", {
        "command": ["sh", "-c", "sleep $P_DELAY; exit $CODE"],
        "envFrom": [{"configMapRef": {"name": "c"}, "prefix": "P_"}],
        "env": [{"name": "CODE", "valueFrom": {"secretKeyRef": {"name": "s", "key": "code"}}}]})))
    cp.advance(2)
    term = get_pod(cp, "p").status.container_statuses[0].state.terminated
    assert term is not None and term.exit_code == 3


def test_missing_volume_source_is_failed_mount_with_backoff_until_it_exists() -> None:
    cp = sim_cluster(1)
    cp.apply(yaml.safe_dump(pod("p", volumes=[{"name": "cfg", "configMap": {"name": "x"}}])))
    p = get_pod(cp, "p")
    assert p.status.phase == "Pending" and p.status.start_time is not None
    assert waiting(cp, "p") == ("ContainerCreating", "")
    msg = 'MountVolume.SetUp failed for volume "cfg" : configmap "x" not found'
    assert events(cp, "FailedMount") == [(msg, 1)]
    cp.advance(8)  # tries at 0.5, 1.5, 3.5, 7.5 s
    assert events(cp, "FailedMount") == [(msg, 5)]
    assert get_pod(cp, "p").status.phase == "Pending"
    cp.apply(cm("x", a="1"))
    cp.advance(7)
    assert get_pod(cp, "p").status.phase == "Pending"  # not before the try at 15.5 s
    cp.advance(1)  # the try at 15.5 s mounts it: the container runs from then
    running = get_pod(cp, "p").status.container_statuses[0].state.running
    assert running is not None and running.started_at.second == 15
    assert events(cp, "FailedMount") == [(msg, 5)]


def test_volume_messages_for_secrets_items_and_projections() -> None:
    cp = sim_cluster(1)
    cp.apply(cm("c", a="1"))
    cp.apply(yaml.safe_dump(pod("p", volumes=[
        {"name": "s", "secret": {"secretName": "gone"}},
        {"name": "k", "configMap": {"name": "c", "items": [{"key": "missing", "path": "m"}]}},
        {"name": "pr", "projected": {"sources": [{"configMap": {"name": "nocm"}},
                                                 {"secret": {"name": "nos"}}]}}])))
    failed = 'MountVolume.SetUp failed for volume "{}" : {}'
    assert events(cp, "FailedMount") == sorted([
        (failed.format("s", 'secret "gone" not found'), 1),
        (failed.format("k", "configmap references non-existent config key: missing"), 1),
        (failed.format("pr", '[configmap "nocm" not found, secret "nos" not found]'), 1),
    ])


def test_an_init_container_with_a_config_error_holds_the_pod() -> None:
    cp = sim_cluster(1)
    init = [{"name": "setup", "image": "busybox", "command": ["sh", "-c", "sleep 1"],
             "envFrom": [{"configMapRef": {"name": "x"}}]}]
    cp.apply(yaml.safe_dump(pod("p", init=init)))
    assert waiting(cp, "p", init=True) == ("CreateContainerConfigError", 'configmap "x" not found')
    assert waiting(cp, "p") == ("PodInitializing", "")
    cp.apply(cm("x", a="1"))
    cp.advance(11)
    assert get_pod(cp, "p").status.phase == "Running"


def test_deleting_a_blocked_pod_ends_it() -> None:
    from kbatch.api.core_v1 import Pod
    cp = sim_cluster(1)
    cp.apply(yaml.safe_dump(pod("p", {"envFrom": [{"configMapRef": {"name": "x"}}]})))
    cp.client.delete(Pod, "p", "default")
    cp.advance(31)
    assert cp.client.list(Pod, namespace="default").items == []
