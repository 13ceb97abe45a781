"""HttpTarget's own behaviour against a live ``kbatch serve``: capabilities, apply and create, errors,
patch types, discovery, virtual time, faults, namespaces, and the no-virtual-clock (real cluster)
path."""

from __future__ import annotations

from datetime import timedelta
from itertools import islice

import pytest

from conformance import errors
from conformance.client_apply import LAST_APPLIED
from conformance.http_target import HttpTarget
from conformance.isolation import (
    PREFIX,
    NamespacedTarget,
    claim_namespace,
    namespace_names,
    release_namespace,
)
from conformance.job.driver import active_pods, job_manifest, pods_of
from conformance.kubeconfig import load_kubeconfig
from conformance.target import FAULTS, KUBELET, KUEUE, VIRTUAL_CLOCK, FaultInjector, Target
from kbatch.server.process import ServeProcess


def _labels(obj: dict) -> dict:
    return obj["metadata"].get("labels") or {}


def test_is_a_target_with_kbatch_capabilities(http_target: NamespacedTarget) -> None:
    assert isinstance(http_target, Target) and isinstance(http_target, FaultInjector)
    # no Ready node: no kubelet; Kueue's API is served (kbatch serve's default families)
    assert http_target.capabilities == {VIRTUAL_CLOCK, FAULTS, KUEUE}
    assert http_target.kubernetes_version == "v1.37.0-kbatch"
    assert http_target.namespace.startswith(PREFIX)


def test_create_never_updates(http_target: NamespacedTarget) -> None:
    created = http_target.create(job_manifest("once", parallelism=1, completions=1, suspend=True))
    assert created["metadata"]["namespace"] == http_target.namespace
    with pytest.raises(errors.AlreadyExists):
        http_target.create(job_manifest("once", parallelism=2, completions=2, suspend=True))
    assert http_target.get("Job", "once")["spec"]["parallelism"] == 1


def test_apply_is_client_side_apply(http_target: NamespacedTarget) -> None:
    manifest = job_manifest("ca", parallelism=1, completions=1, suspend=True)
    manifest["metadata"]["labels"] = {"a": "1", "b": "2"}
    created = http_target.apply(manifest)
    assert LAST_APPLIED in created["metadata"]["annotations"]
    http_target.patch("Job", "ca", {"metadata": {"labels": {"other": "x"}}})  # another writer's field
    manifest["metadata"]["labels"] = {"a": "3"}
    updated = http_target.apply(manifest)
    assert _labels(updated) == {"a": "3", "other": "x"}  # b dropped from the manifest: removed
    assert updated["metadata"]["uid"] == created["metadata"]["uid"]


def test_apply_yaml_text_lands_in_the_checks_namespace(http_target: NamespacedTarget) -> None:
    obj = http_target.apply("apiVersion: v1\nkind: Service\nmetadata: {name: svc}\n"
                            "spec: {clusterIP: None, selector: {app: x}}\n")
    assert obj["metadata"]["namespace"] == http_target.namespace and obj["spec"]["selector"] == {"app": "x"}


def test_errors_mirror_the_status_reason(http_target: NamespacedTarget) -> None:
    with pytest.raises(errors.Invalid) as err:
        http_target.apply(job_manifest("bad", parallelism=-1))
    assert err.value.code == 422 and err.value.reason == "Invalid"
    assert any(c.get("field") == "spec.parallelism" for c in err.value.causes), err.value.status
    with pytest.raises(errors.NotFound):
        http_target.patch("Job", "missing", {"spec": {"suspend": True}})
    assert http_target.get("Job", "missing") is None
    http_target.delete("Job", "missing")  # missing is fine


def test_patch_types_and_status_subresource(http_target: NamespacedTarget) -> None:
    http_target.apply(job_manifest("pt", parallelism=1, completions=1))
    job = http_target.patch("Job", "pt", [{"op": "add", "path": "/metadata/labels", "value": {"j": "1"}}],
                            patch_type="json")
    assert _labels(job) == {"j": "1"}
    job = http_target.patch("Job", "pt", {"metadata": {"labels": {"s": "2"}}}, patch_type="strategic")
    assert _labels(job) == {"j": "1", "s": "2"}
    pod = active_pods(http_target, "pt")[0]
    out = http_target.patch_status("Pod", pod["metadata"]["name"], {"status": {"phase": "Running"},
                                                                   "spec": {"nodeName": "ignored"}})
    assert out["status"]["phase"] == "Running" and not out["spec"].get("nodeName")


def test_discovery_maps_kinds_to_resources(http_target: NamespacedTarget) -> None:
    job = http_target.api.discovery.resolve("Job")
    assert (job.api_version, job.plural, job.namespaced) == ("batch/v1", "jobs", True)
    assert "status" in job.subresources
    assert job.path("ns", "j", "status") == "/apis/batch/v1/namespaces/ns/jobs/j/status"
    assert http_target.api.discovery.resolve("Event").path("ns") == "/api/v1/namespaces/ns/events"
    assert not http_target.api.discovery.resolve("Node").namespaced
    with pytest.raises(LookupError):
        http_target.api.discovery.resolve("Job", "batch/v9")


def test_virtual_time(http_target: NamespacedTarget) -> None:
    start = http_target.now()
    http_target.advance(90)
    assert http_target.now() - start == timedelta(seconds=90)
    http_target.apply(job_manifest("bo", parallelism=1, completions=1))
    pod = active_pods(http_target, "bo")[0]
    http_target.patch_status("Pod", pod["metadata"]["name"], {"status": {"phase": "Failed"}})
    before = http_target.now()
    assert http_target.wait_for(lambda: len(active_pods(http_target, "bo")) == 1, 60)
    assert timedelta(seconds=10) <= http_target.now() - before <= timedelta(seconds=11)  # the back-off
    before = http_target.now()
    assert not http_target.wait_for(lambda: False, 5)
    assert http_target.now() - before == timedelta(seconds=5)


def test_faults_reach_the_servers_actions(http_target: NamespacedTarget) -> None:
    http_target.apply(job_manifest("cond", parallelism=1, completions=1))
    pod = active_pods(http_target, "cond")[0]["metadata"]["name"]
    out = http_target.fault("condition-pod", {"name": pod, "type": "ConfigIssue"})
    assert out == {"pod": pod, "condition": "ConfigIssue"}
    conditions = http_target.get("Pod", pod)["status"]["conditions"]
    assert any(c["type"] == "ConfigIssue" and c["status"] == "True" for c in conditions), conditions


def test_namespaces_are_claimed_never_reused(virtual_server: ServeProcess) -> None:
    target = HttpTarget(load_kubeconfig(virtual_server.kubeconfig))
    first, second = islice(namespace_names(7, "check"), 2)
    target.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": first}})  # someone else's
    target.apply(job_manifest("theirs", parallelism=1, completions=1, suspend=True), first)
    before = target.get("Job", "theirs", first)
    mine = claim_namespace(target, namespace_names(7, "check"))
    assert mine == second  # the next name of the same seeded stream
    release_namespace(target, mine, ("CronJob", "Job", "Pod"))
    assert target.get("Job", "theirs", first) == before  # the other namespace was not written
    assert target.get("Namespace", first)["metadata"].get("deletionTimestamp") is None
    assert target.get("Namespace", mine)["metadata"].get("deletionTimestamp")
    target.close()


def test_without_clock_extension_a_real_cluster_path(real_server: ServeProcess,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A server without kbatch's clock (simulated by hiding it): no virtual clock, no faults, its
    nodes assumed to run pods; real-time polling."""
    monkeypatch.setattr(HttpTarget, "_clock", lambda self: None)
    inner = HttpTarget(load_kubeconfig(real_server.kubeconfig), poll_interval=0.05)
    assert inner.capabilities == {KUBELET, KUEUE}
    with pytest.raises(errors.NotFound, match="no fault commands"):
        inner.fault("node-down", {"name": "node-0"})
    target = NamespacedTarget(inner, claim_namespace(inner, namespace_names(1, "real")))
    job = target.apply(job_manifest("rt", parallelism=2, completions=2))
    assert job["metadata"]["namespace"] == target.namespace
    assert target.wait_for(lambda: len(pods_of(target, "rt")) == 2, 20)  # the controller runs on its own
    assert abs(target.now() - target.now()) < timedelta(seconds=5)  # the Date header
    release_namespace(inner, target.namespace, ("CronJob", "Job", "Pod"))
    ns = inner.get("Namespace", target.namespace)
    assert ns is None or ns["metadata"].get("deletionTimestamp"), ns
    inner.close()
