"""When the namespace controller looks at a terminating namespace, as upstream's, in virtual time.

Upstream (kubernetes ``pkg/controller/namespace``, v1.37): ``namespace_controller.go``
``enqueueNamespace`` queues a namespace being deleted after ``namespaceDeletionGracePeriod`` (5 s) and
watches nothing else; ``worker`` requeues after ``estimate/2 + 1`` s on a ``ResourcesRemainingError``
and rate-limited (``nsControllerRateLimiter``: 5 ms doubling, at most 60 s) on any other error.
``deletion/namespaced_resources_deleter.go``: the pods' estimate is their longest
``terminationGracePeriodSeconds`` (0 once the namespace has been deleting that long); items left with
a finalizer estimate 15 s (``finalizerEstimateSeconds``); items left with neither are the error
"unexpected items still remain in namespace".
"""

from __future__ import annotations

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Namespace, Pod
from kbatch.api.errors import NotFound
from kbatch.controllers.namespace import ContentTotals, NamespaceController
from kbatch.controllers.namespace.deleter import pod_grace_estimate
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import NodeTemplate, create_nodes
from kbatch.testing import make_job, make_pod

NS = "team"


def _gone(cp: ControlPlane) -> bool:
    cp.run_until_idle()
    try:
        cp.client.get(Namespace, NS)
    except NotFound:
        return True
    return False


def _reconciles(cp: ControlPlane) -> int:
    cp.run_until_idle()
    return cp.manager.get("namespace").reconciles


def _create_namespace(cp: ControlPlane) -> None:
    cp.client.create(Namespace.model_validate({"metadata": {"name": NS}}))
    cp.run_until_idle()  # the serviceaccount controller's "default" account, which pods need


def _bound_pod(name: str, grace: int = 30) -> Pod:
    pod = make_pod(name).obj()
    pod.metadata.namespace = NS
    pod.spec.node_name = "gone"  # no kubelet: a graceful delete leaves it terminating
    pod.spec.termination_grace_period_seconds = grace
    return pod


def test_an_empty_namespace_goes_after_the_deletion_grace_period() -> None:
    cp = ControlPlane(seed=0, controllers="namespace")
    _create_namespace(cp)
    cp.client.delete(Namespace, NS)
    cp.advance(4.9)
    assert not _gone(cp)
    cp.advance(0.1)
    assert _gone(cp)
    assert _reconciles(cp) == 1


def test_pods_are_rechecked_after_half_their_grace_period_not_on_their_events() -> None:
    cp = ControlPlane(seed=0)
    create_nodes(cp, 1, NodeTemplate())
    _create_namespace(cp)
    pod = make_pod("p").command("sleep 100000").obj()  # ignores SIGTERM: killed at its 30 s grace
    pod.metadata.namespace = NS
    cp.client.create(pod)
    cp.advance(5)
    cp.client.delete(Namespace, NS)
    # passes: 5 s (deletes the pod, writes the conditions: that update queues again at 10 s),
    # 10 s and 26 s (estimate 30: back in 30/2 + 1 = 16 s), 42 s (30 s passed: estimate 0, empty)
    cp.advance(36)
    assert not cp.client.list(Pod, NS).items  # the kubelet finished it at 35 s
    assert not _gone(cp)  # its deletion queued nothing
    cp.advance(41.9 - 36)
    assert not _gone(cp)
    cp.advance(0.1)
    assert _gone(cp)
    assert _reconciles(cp) == 4


def test_items_held_by_a_finalizer_are_rechecked_every_eight_seconds() -> None:
    cp = ControlPlane(seed=0, controllers="namespace")
    _create_namespace(cp)
    job = make_job("held").obj()
    job.metadata.namespace, job.metadata.finalizers = NS, ["example.com/hold"]
    cp.client.create(job)
    cp.client.delete(Namespace, NS)
    cp.advance(10)  # 5 s, then 10 s (the first pass's condition write is an update, queued +5 s)
    first = _reconciles(cp)
    assert first == 2
    cp.advance(7.9)
    assert _reconciles(cp) == first
    cp.advance(0.1)  # 15/2 + 1
    assert _reconciles(cp) == first + 1
    cp.client.patch(Job, "held", {"metadata": {"finalizers": None}}, NS)
    assert not _gone(cp)  # the release queues nothing either
    cp.advance(8)
    assert _gone(cp)


def test_a_pod_left_past_its_grace_is_a_content_failure_retried_with_backoff() -> None:
    cp = ControlPlane(seed=0, controllers="namespace,serviceaccount")
    _create_namespace(cp)
    cp.client.create(_bound_pod("p"))
    cp.client.delete(Namespace, NS)
    cp.advance(42)  # passes at 5, 10, 26 s waited on the pod's 30 s; at 42 s it is late
    ns = cp.client.get(Namespace, NS)
    failure = {c.type: c for c in ns.status.conditions or ()}["NamespaceDeletionContentFailure"]
    assert (failure.status, failure.reason) == ("True", "ContentDeletionFailed")
    assert failure.message == ("Failed to delete all resource types, 1 remaining: unexpected items still "
                               "remain in namespace: team for gvr: /v1, Resource=pods")
    late = _reconciles(cp)
    cp.advance(1)
    assert _reconciles(cp) - late == 7  # after 5, 10, 20, ... 320 ms: 635 ms; the next waits 640 ms


def test_the_pod_estimate_is_the_longest_live_grace_until_that_long_has_passed() -> None:
    pods = [_bound_pod("a", 30), _bound_pod("b", 90), _bound_pod("c", 600)]
    done = {**pods[2].model_dump(by_alias=True), "status": {"phase": "Succeeded"}}
    pods[2] = Pod.model_validate(done)  # terminal pods are not waited on
    assert pod_grace_estimate(pods, 0) == 90
    assert pod_grace_estimate(pods, 89.9) == 90
    assert pod_grace_estimate(pods, 90) == 0
    assert pod_grace_estimate([], 0) == 0


def test_the_requeue_is_half_the_estimate_plus_one_in_whole_seconds() -> None:
    class _Deleter:
        def __init__(self, estimate: int) -> None:
            self.estimate = estimate

        def sync(self, name: str) -> ContentTotals:
            return ContentTotals(resources={"pods": 1}, estimate=self.estimate)

    controller = NamespaceController.__new__(NamespaceController)
    for estimate, wait in ((30, 16), (15, 8), (1, 1), (601, 301)):
        controller.deleter = _Deleter(estimate)  # type: ignore[assignment]
        assert controller.reconcile(type("R", (), {"name": NS})()).requeue_after == wait
