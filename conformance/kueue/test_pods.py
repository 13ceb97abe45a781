"""Kueue admitting plain Pods and pod groups (the ``pod`` integration, enabled by Kueue's shipped
manager configuration).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/pod/pod_webhook.go`` (gate, managed
label, finalizer), ``pkg/controller/jobs/pod/pod_controller.go`` (Workload per pod or per group, run,
finish) and ``test/integration/singlecluster/controller/jobs/pod/pod_controller_test.go`` ("Should
reconcile the single pod with the queue name", "Should ungate pods when admitted and finalize Pods
when succeeded", "Should schedule pods as they fit in their ClusterQueue").
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from conformance.kueue.test_admission import queues, sleeping_pod_spec
from conformance.target import Obj, condition, has_condition
from conformance.timing import budget

POD_CONTROLLER = "kubernetes-sigs/kueue pkg/controller/jobs/pod/pod_controller.go"
POD_WEBHOOK = "kubernetes-sigs/kueue pkg/controller/jobs/pod/pod_webhook.go"
GATE = "kueue.x-k8s.io/admission"
MANAGED = "kueue.x-k8s.io/managed"


def _pod(name: str, queue: str, seconds: int, cpu: str = "100m", group: tuple[str, int] | None = None) -> Obj:
    labels = {"kueue.x-k8s.io/queue-name": queue}
    annotations = {}
    if group is not None:
        labels["kueue.x-k8s.io/pod-group-name"] = group[0]
        annotations["kueue.x-k8s.io/pod-group-total-count"] = str(group[1])
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": labels, "annotations": annotations},
        "spec": sleeping_pod_spec(seconds, cpu),
    }


@contextlib.contextmanager
def pods(target, *manifests: Obj) -> Iterator[None]:
    """Create the pods; delete them at the end (Kueue removes its finalizer from deleted pods)."""
    try:
        for manifest in manifests:
            target.create(manifest)
        yield
    finally:
        for manifest in manifests:
            with contextlib.suppress(Exception):
                target.delete("Pod", manifest["metadata"]["name"])


def _gates(pod: Obj | None) -> list[str]:
    return [g["name"] for g in ((pod or {}).get("spec") or {}).get("schedulingGates") or ()]


def _phase(target, name: str) -> str:
    return ((target.get("Pod", name) or {}).get("status") or {}).get("phase") or ""


def _owned_workload(target, pod: str) -> Obj | None:
    for wl in target.list("Workload.kueue.x-k8s.io"):
        owners = wl["metadata"].get("ownerReferences") or ()
        if any(o.get("kind") == "Pod" and o.get("name") == pod for o in owners):
            return wl
    return None


@pytest.mark.runs_pods
@pytest.mark.needs_kueue
@pytest.mark.semantic(
    "a Pod naming a LocalQueue is created with Kueue's admission scheduling gate, the managed label and "
    "finalizer, gets a Workload pod-<name>-<hash> it owns; once admitted the gate is removed and the pod "
    "runs; "
    "when it succeeds the Workload is Finished and the pod's finalizer removed",
    source=f"{POD_WEBHOOK} Default; {POD_CONTROLLER} Run, Finished, Finalize",
)
def test_a_queued_pod_is_gated_admitted_and_finished(target) -> None:
    with queues(target, ("lq", "200m")), pods(target, _pod("p", "lq", 3)):
        created = target.get("Pod", "p")
        assert (created["metadata"].get("labels") or {}).get(MANAGED) == "true"
        assert MANAGED in (created["metadata"].get("finalizers") or ())
        assert target.wait_for(
            lambda: has_condition(_owned_workload(target, "p"), "Admitted"), timeout=budget(extra=5)
        )
        wl = _owned_workload(target, "p")
        assert wl["metadata"]["name"].startswith("pod-p-")
        assert [ps["count"] for ps in wl["spec"]["podSets"]] == [1]
        assert target.wait_for(lambda: _phase(target, "p") == "Succeeded", timeout=budget(runs=3, extra=5))
        assert target.wait_for(
            lambda: has_condition(_owned_workload(target, "p"), "Finished"), timeout=budget(extra=5)
        )
        assert target.wait_for(
            lambda: not ((target.get("Pod", "p") or {}).get("metadata") or {}).get("finalizers"),
            timeout=budget(extra=5),
        )


@pytest.mark.runs_pods
@pytest.mark.needs_kueue
@pytest.mark.semantic(
    "a Pod beyond the free quota keeps its admission gate and is not scheduled (its Workload "
    "QuotaReserved=False, Pending) until the admitted pod ends",
    source=f"{POD_CONTROLLER} IsSuspended; kubernetes-sigs/kueue pkg/scheduler/scheduler.go",
)
def test_a_queued_pod_waits_gated_for_quota(target) -> None:
    with queues(target, ("lq", "200m")), pods(target, _pod("first", "lq", 4, "200m")):
        assert target.wait_for(
            lambda: has_condition(_owned_workload(target, "first"), "Admitted"), timeout=budget(extra=5)
        )
        with pods(target, _pod("second", "lq", 1, "200m")):
            assert target.wait_for(
                lambda: has_condition(_owned_workload(target, "second"), "QuotaReserved", "False"),
                timeout=budget(extra=5),
            )
            waiting = target.get("Pod", "second")
            assert GATE in _gates(waiting) and not (waiting.get("spec") or {}).get("nodeName")
            assert condition(_owned_workload(target, "second"), "QuotaReserved")["reason"] == "Pending"
            assert target.wait_for(
                lambda: _phase(target, "second") == "Succeeded", timeout=budget(rounds=2, runs=6, extra=10)
            )


@pytest.mark.runs_pods
@pytest.mark.needs_kueue
@pytest.mark.semantic(
    "pods sharing kueue.x-k8s.io/pod-group-name with pod-group-total-count 2 get one Workload named after "
    "the group, owned by both, admitted as a whole; both are ungated and run; the Workload finishes with "
    "'Pods succeeded: 2/2.'",
    source=f"{POD_CONTROLLER} ConstructComposableWorkload, Run, Finished",
)
def test_a_pod_group_is_admitted_as_one_workload(target) -> None:
    group = f"{target.namespace}-g"
    members = (_pod("a", "lq", 2, group=(group, 2)), _pod("b", "lq", 2, group=(group, 2)))
    with queues(target, ("lq", "200m")), pods(target, *members):
        assert target.wait_for(
            lambda: has_condition(target.get("Workload.kueue.x-k8s.io", group), "Admitted"),
            timeout=budget(extra=5),
        )
        wl = target.get("Workload.kueue.x-k8s.io", group)
        assert sorted(o["name"] for o in wl["metadata"]["ownerReferences"]) == ["a", "b"]
        assert [ps["count"] for ps in wl["spec"]["podSets"]] == [2]
        assert target.wait_for(
            lambda: _phase(target, "a") == _phase(target, "b") == "Succeeded", timeout=budget(runs=2, extra=5)
        )

        def finished() -> Any:
            return condition(target.get("Workload.kueue.x-k8s.io", group), "Finished")

        assert target.wait_for(lambda: finished() is not None, timeout=budget(extra=5))
        assert finished()["message"] == "Pods succeeded: 2/2."
