"""The simulated kubelet and RuntimeClass handlers (kbatch/controllers/kubelet/sandbox.py): upstream's
``createPodSandbox`` fails for a class the kubelet cannot find or a handler the CRI has no runtime for,
``SyncPod`` records ``FailedCreatePodSandBox`` and the pod worker retries after 10 s. A node reports
its handlers in ``status.runtimeHandlers``; one that reports none runs every handler."""

from __future__ import annotations

from kbatch import ControlPlane
from kbatch.api.core_v1 import Event, Node, Pod
from kbatch.api.node_v1 import RuntimeClass
from kbatch.sim import NodeTemplate, create_nodes


def _class(name: str, handler: str) -> RuntimeClass:
    return RuntimeClass.model_validate({"metadata": {"name": name}, "handler": handler})


def _pod(name: str, rc: str, node: str) -> Pod:
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": {
        "runtimeClassName": rc, "nodeName": node,
        "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}})


def _phase(cp: ControlPlane, name: str) -> str | None:
    pod = cp.client.get(Pod, name, "default")
    return pod.status.phase if pod.status else None


def _sandbox_events(cp: ControlPlane, name: str) -> list[tuple[str | None, int | None]]:
    return [(e.message, e.count) for e in cp.client.list(Event, "default").items
            if e.involved_object.name == name and e.reason == "FailedCreatePodSandBox"]


def test_a_handler_the_node_does_not_report_fails_the_sandbox() -> None:
    cp = ControlPlane(seed=0, controllers="kubelet")
    create_nodes(cp, 1, NodeTemplate(runtime_handlers=("", "runc")), prefix="runc-")
    create_nodes(cp, 1, NodeTemplate(), prefix="any-")  # reports no handlers: runs them all
    node = cp.client.get(Node, "runc-0")
    assert [h.name for h in node.status.runtime_handlers or ()] == ["", "runc"]  # type: ignore[union-attr]
    cp.client.create(_class("kata", "kata"))
    cp.client.create(_class("runc", "runc"))
    cp.client.create(_pod("kata-here", "kata", "runc-0"))
    cp.client.create(_pod("runc-here", "runc", "runc-0"))
    cp.client.create(_pod("kata-anywhere", "kata", "any-0"))
    cp.advance(1)
    assert _phase(cp, "kata-here") == "Pending"
    assert _sandbox_events(cp, "kata-here") == [(
        'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: '
        'no runtime for "kata" is configured', 1)]
    assert _phase(cp, "runc-here") == "Running" and _phase(cp, "kata-anywhere") == "Running"
    cp.advance(10)  # the pod worker's back-off: tried again, failed again
    assert [count for _, count in _sandbox_events(cp, "kata-here")] == [2]
    assert _phase(cp, "kata-here") == "Pending"


def test_a_class_deleted_after_admission_fails_until_it_is_back() -> None:
    cp = ControlPlane(seed=0, controllers="kubelet")
    create_nodes(cp, 1, NodeTemplate())
    cp.client.create(_class("gvisor", "runsc"))
    cp.client.create(_pod("p", "gvisor", "node-0"))
    cp.client.delete(RuntimeClass, "gvisor")  # before the kubelet first sees the pod
    cp.advance(1)
    assert _sandbox_events(cp, "p") == [
        ('Failed to create pod sandbox: runtimeclass.node.k8s.io "gvisor" not found', 1)]
    cp.client.create(_class("gvisor", "runsc"))
    cp.advance(10)
    assert _phase(cp, "p") == "Running"
