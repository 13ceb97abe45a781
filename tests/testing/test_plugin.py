"""The pytest plugin, the builders and the virtual-time waits of kbatch.testing."""

from __future__ import annotations

import pytest

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Node, Pod
from kbatch.api.storage_v1 import StorageClass
from kbatch.runtime.controlplane import ControlPlane
from kbatch.testing import condition_true, make_job, make_node, make_pod, wait_until, wait_until_gone


def test_fixture_defaults(control_plane: ControlPlane) -> None:
    assert control_plane.seed == 0
    assert control_plane.now().isoformat() == "2025-01-01T00:00:00+00:00"
    assert "garbage-collector" in control_plane.enabled


@pytest.mark.controllers("ttl-after-finished")
@pytest.mark.seed(42)
def test_markers_choose_controllers_and_seed(control_plane: ControlPlane) -> None:
    assert control_plane.enabled == ["ttl-after-finished"] and control_plane.seed == 42


def test_the_fixture_has_the_default_storage_class(control_plane: ControlPlane) -> None:
    assert [c.metadata.name for c in control_plane.client.list(StorageClass).items] == ["standard"]


@pytest.mark.addons("*,-default-storage-class")
def test_the_addons_marker_opts_out(control_plane: ControlPlane) -> None:
    assert not control_plane.client.list(StorageClass).items


@pytest.mark.parametrize("control_plane", ["", "garbage-collector"], indirect=True)
def test_indirect_parametrization(control_plane: ControlPlane) -> None:
    assert control_plane.enabled in ([], ["garbage-collector"])


@pytest.mark.controllers("ttl-after-finished,garbage-collector")
def test_wait_helpers_advance_virtual_time(control_plane: ControlPlane) -> None:
    cp = control_plane
    cp.apply(make_job("train").manual_selector().ttl_after_finished(60).obj())
    at = "2025-01-01T00:00:00Z"
    cp.client.patch_status(Job, "train", {"status": {
        "startTime": at, "completionTime": at, "succeeded": 1,
        "conditions": [{"type": t, "status": "True", "lastTransitionTime": at, "lastProbeTime": at}
                       for t in ("SuccessCriteriaMet", "Complete")]}}, "default")
    assert condition_true(cp, Job, "train", "Complete")
    assert cp.wait_for((Job, "train", "Complete"), timeout=1) == 0
    assert wait_until_gone(cp, Job, "train", timeout="5m") == 60
    assert not condition_true(cp, Job, "train", "Complete")
    with pytest.raises(TimeoutError):
        wait_until(cp, lambda: False, timeout="30s")


def test_job_builder_produces_a_model() -> None:
    job = (make_job("train", "ml").indexed(4).parallelism(2).command("sleep 5").backoff_limit(3)
           .requests(cpu="1", memory="2Gi").label("team", "a").queue("q").suspend().obj())
    assert isinstance(job, Job)
    assert (job.metadata.namespace, job.spec.completion_mode, job.spec.completions, job.spec.parallelism) == (
        "ml", "Indexed", 4, 2)
    container = job.spec.template.spec.containers[0]
    assert container.command == ["sleep", "5"] and str(container.resources.requests["memory"]) == "2Gi"
    assert job.metadata.labels == {"team": "a", "kueue.x-k8s.io/queue-name": "q"} and job.spec.suspend


def test_builder_copies_are_independent() -> None:
    builder = make_job("a")
    first = builder.obj()
    builder.parallelism(5)
    assert first.spec.parallelism is None and builder.obj().spec.parallelism == 5


def test_pod_and_node_builders() -> None:
    node = make_node("n1").capacity(cpu="4", nvidia_com_gpu="2").taint("gpu", "true").obj()
    assert isinstance(node, Node) and str(node.status.allocatable["nvidia.com/gpu"]) == "2"
    assert node.spec.taints[0].effect == "NoSchedule"
    pod = make_pod("p").node("n1").phase("Running").toleration("gpu", "true", "NoSchedule").obj()
    assert isinstance(pod, Pod) and pod.spec.node_name == "n1" and pod.status.phase == "Running"
    assert pod.spec.tolerations[0].key == "gpu"


def test_invalid_builder_input_fails_at_obj() -> None:
    with pytest.raises(ValueError):
        make_job("a").parallelism("many").obj()  # type: ignore[arg-type]
