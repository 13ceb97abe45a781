"""Translated cases of upstream ``pkg/controller/disruption/disruption_test.go`` (kubernetes/kubernetes,
stored commit 003e8629, the ctx-taking version): the disruption controller of a :class:`ControlPlane`
(no nodes, so pods stay where the test puts them) keeps PDB ``foobar`` over pods labelled ``foo=bar``.

Upstream's ``VerifyPdbStatus(disruptionsAllowed, currentHealthy, desiredHealthy, expectedPods,
disruptedPods)`` is :func:`_verify`: the counters, ``observedGeneration == generation`` and the
``DisruptionAllowed`` condition True exactly when a disruption is allowed. Cases that need
ReplicationControllers, ReplicaSets, Deployments, StatefulSets or a custom ``scale`` subresource do not
translate (kbatch serves none of them); a Job owner stands where upstream asks what a controller
without scale does.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from kbatch.api.core_v1 import Event, Pod
from kbatch.api.frozen import edit
from kbatch.api.policy_v1 import PodDisruptionBudget
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import add_pod_condition
from kbatch.testing import make_job, make_pod

PDB = "foobar"


def _cp() -> ControlPlane:
    return ControlPlane(seed=0)


def _pdb(cp: ControlPlane, selector: Any = None, **spec: Any) -> None:
    sel = {"matchLabels": {"foo": "bar"}} if selector is None else selector
    cp.client.create(PodDisruptionBudget.model_validate(
        {"metadata": {"name": PDB, "namespace": "default"}, "spec": {"selector": sel, **spec}}))
    cp.run_until_idle()


def _pod(cp: ControlPlane, name: str, *, ready: bool = True, finalizer: bool = False, running: bool = False,
         **meta: Any) -> None:
    builder = make_pod(name).label("foo", "bar").command("sleep 1000")
    obj = edit(builder.obj())
    if finalizer:
        obj.metadata.finalizers = ["example.com/hold"]
    for key, value in meta.items():
        setattr(obj.metadata, key, value)
    cp.client.create(obj)
    cp.run_until_idle()
    if running:  # upstream's test pods have no phase; a Pending one would skip the budget check
        cp.client.patch_status(Pod, name, {"status": {"phase": "Running"}}, "default", patch_type="strategic")
    if ready:
        add_pod_condition(cp, name, "Ready")


def _set_ready(cp: ControlPlane, name: str, ready: bool) -> None:
    add_pod_condition(cp, name, "Ready", status="True" if ready else "False")


def _pdb_obj(cp: ControlPlane) -> PodDisruptionBudget:
    return cp.client.get(PodDisruptionBudget, PDB, "default")


def _verify(cp: ControlPlane, allowed: int, healthy: int, desired: int, expected: int,
            disrupted: set[str] | None = None) -> None:
    pdb = _pdb_obj(cp)
    status = pdb.status
    assert (status.disruptions_allowed, status.current_healthy, status.desired_healthy,
            status.expected_pods) == (allowed, healthy, desired, expected)
    assert set(status.disrupted_pods or {}) == (disrupted or set())
    assert status.observed_generation == pdb.metadata.generation
    cond = next(c for c in status.conditions if c.type == "DisruptionAllowed")
    assert cond.status == ("True" if allowed > 0 else "False")
    assert cond.reason == ("SufficientPods" if allowed > 0 else "InsufficientPods")


def _events(cp: ControlPlane, reason: str) -> list[Event]:
    return [e for e in cp.client.list(Event, "default").items if e.reason == reason]


def test_no_selector() -> None:
    """TestNoSelector: an empty selector matches every pod of the namespace."""
    cp = _cp()
    _pdb(cp, selector={}, minAvailable=3)
    _verify(cp, 0, 0, 3, 0)
    _pod(cp, "yo-yo-yo")
    _verify(cp, 0, 1, 3, 1)


def test_unavailable() -> None:
    """TestUnavailable: counts go up as pods are added, and down when one stops being ready."""
    cp = _cp()
    _pdb(cp, minAvailable=3)
    for i in range(4):
        _verify(cp, 0, i, 3, i)
        _pod(cp, f"yo-yo-yo-{i}")
    _verify(cp, 1, 4, 3, 4)
    _set_ready(cp, "yo-yo-yo-0", False)
    _verify(cp, 0, 3, 3, 4)


def test_integer_max_unavailable_naked_pod() -> None:
    """TestIntegerMaxUnavailable: an integer maxUnavailable allows nothing for a pod without a
    controller (no pods: nothing either), and says so with an UnmanagedPods event."""
    cp = _cp()
    _pdb(cp, maxUnavailable=1)
    assert _pdb_obj(cp).status.disruptions_allowed == 0
    _pod(cp, "naked")
    assert _pdb_obj(cp).status.disruptions_allowed == 0
    assert _events(cp, "UnmanagedPods")


def test_naked_pod_with_a_percentage() -> None:
    """TestNakedPod / TestStatusForUnmanagedPod / TestTotalUnmanagedPods: minAvailable 28% over an
    unmanaged pod allows nothing, warns UnmanagedPods, and is not a sync failure."""
    cp = _cp()
    _pdb(cp, minAvailable="28%")
    assert _pdb_obj(cp).status.disruptions_allowed == 0
    assert [e.message for e in _events(cp, "NoPods")] == ["No matching pods found"]
    _pod(cp, "unmanaged")
    status = _pdb_obj(cp).status
    assert status.disruptions_allowed == 0 and status.expected_pods == 0
    assert all(c.reason != "SyncFailed" for c in status.conditions)
    (event,) = {e.message for e in _events(cp, "UnmanagedPods")}
    assert event.startswith("Pods selected by this PodDisruptionBudget (selector: &LabelSelector{"
                            "MatchLabels:map[string]string{foo: bar,},")


def test_unsupported_controller_pod() -> None:
    """TestUnsupportedControllerPod: a controller of a kind with no REST mapping fails the count
    (CalculateExpectedPodCountFailed) and the PDB allows nothing (failSafe, SyncFailed)."""
    cp = _cp()
    _pdb(cp, minAvailable="28%")
    ref = {"apiVersion": "apps.test.io/v1", "kind": "TestWorkload", "name": "fake-controller",
           "uid": "b7329742-8daa-493a-8881-6ca07139172b", "controller": True}
    from kbatch.api.meta import OwnerReference
    # The garbage collector keeps a pod whose owner kind it cannot resolve (it retries the mapping).
    _pod(cp, "naked", owner_references=[OwnerReference.model_validate(ref)])
    status = _pdb_obj(cp).status
    assert status.disruptions_allowed == 0
    (event,) = {e.message for e in _events(cp, "CalculateExpectedPodCountFailed")}
    assert event == ('Failed to calculate the number of expected pods: no matches for kind "TestWorkload" '
                     'in version "apps.test.io/v1"')
    cond = next(c for c in status.conditions if c.type == "DisruptionAllowed")
    assert (cond.status, cond.reason) == ("False", "SyncFailed")


def test_job_owned_pods_have_no_scale() -> None:
    """getScaleController for a Job: the scale GET is NotFound and discovery lists no ``jobs/scale``,
    so the count fails with "jobs.batch does not implement the scale subresource" (upstream has no
    Job finder); an integer minAvailable needs no scale."""
    cp = _cp()
    cp.client.create(make_job("train").parallelism(2).completions(2).label("foo", "bar")
                     .command("sleep 1000").obj())
    cp.run_until_idle()
    _pdb(cp, selector={"matchLabels": {"job-name": "train"}}, maxUnavailable="50%")
    (event,) = {e.message for e in _events(cp, "CalculateExpectedPodCountFailed")}
    assert event.endswith("jobs.batch does not implement the scale subresource")
    cond = next(c for c in _pdb_obj(cp).status.conditions if c.type == "DisruptionAllowed")
    assert (cond.reason, cond.message) == ("SyncFailed",
                                           "jobs.batch does not implement the scale subresource")


def test_pdb_not_exist() -> None:
    """TestPDBNotExist: a sync of a missing PDB is no error (and writes nothing)."""
    cp = _cp()
    _pdb(cp, minAvailable="67%")
    from kbatch.controllers.disruption import DisruptionController
    from kbatch.runtime.reconcile import Request
    controller = DisruptionController(cp.context("disruption"), cp.registry)
    before = _pdb_obj(cp).metadata.resource_version
    assert controller.reconcile(Request("default", "notExist")) is None
    assert _pdb_obj(cp).metadata.resource_version == before


def test_update_disrupted_pods() -> None:
    """TestUpdateDisruptedPods: p1 (terminating) and p2 (3 minutes old) leave disruptedPods, p3 (1 minute)
    stays and is not healthy, "notthere" (no pod) leaves."""
    cp = _cp()
    _pdb(cp, minAvailable=1)
    _pod(cp, "p1", finalizer=True)
    for name in ("p2", "p3"):
        _pod(cp, name)
    cp.client.delete(Pod, "p1", "default")
    cp.run_until_idle()
    now = cp.server.timestamp()
    pdb = edit(_pdb_obj(cp))
    pdb.status.disrupted_pods = {"p1": now, "p2": now - timedelta(minutes=3),
                                 "p3": now - timedelta(minutes=1), "notthere": now}
    cp.client.update_status(pdb)
    cp.run_until_idle()
    _verify(cp, 0, 1, 1, 3, {"p3"})


def test_update_pdb_status_after_delete_and_evictions() -> None:
    """TestUpdatePDBStatusRetries (outcome only: kbatch's single-threaded loop cannot interleave the
    evictions inside the controller's status write): moe is deleted, then larry and curly are evicted
    against the budget the controller wrote before (2 allowed); the status the controller writes next
    reflects the evictions (0 allowed), not the stale count."""
    cp = _cp()
    _pdb(cp, minAvailable=1)
    for name in ("moe", "larry", "curly"):
        _pod(cp, name, running=True)
    _verify(cp, 2, 3, 1, 3)
    cp.client.delete(Pod, "moe", "default")  # (A)
    for name in ("larry", "curly"):  # (B), before the controller runs again
        assert cp.client.evict(name, "default").status == "Success"
    assert _pdb_obj(cp).status.disruptions_allowed == 0
    cp.run_until_idle()
    assert _pdb_obj(cp).status.disruptions_allowed == 0  # (C)


def test_stale_pod_disruption() -> None:
    """TestStalePodDisruption/stale pod disruption and /pod disruption in progress: a DisruptionTarget
    True of a live pod goes False once stalePodDisruptionTimeout (2 min) passes, not before."""
    cp = _cp()
    _pod(cp, "foo", ready=False)
    add_pod_condition(cp, "foo", "DisruptionTarget", reason="EvictionByEvictionAPI")
    cp.advance(timedelta(minutes=2, seconds=-1).total_seconds())
    assert _target(cp, "foo").status == "True"
    cp.advance(2)
    assert _target(cp, "foo").status == "False"


def test_stale_pod_disruption_actuated() -> None:
    """TestStalePodDisruption/pod disruption actuated: a terminating pod keeps its condition."""
    cp = _cp()
    _pod(cp, "foo", ready=False, finalizer=True)
    add_pod_condition(cp, "foo", "DisruptionTarget", reason="EvictionByEvictionAPI")
    cp.client.delete(Pod, "foo", "default")
    cp.advance(timedelta(minutes=2, seconds=1).total_seconds())
    assert _target(cp, "foo").status == "True"


def _target(cp: ControlPlane, name: str) -> Any:
    pod = cp.client.get(Pod, name, "default")
    return next(c for c in pod.status.conditions if c.type == "DisruptionTarget")


def test_stale_pod_disruption_not_set_or_cleared() -> None:
    """TestStalePodDisruption/no pod disruption and /pod disruption cleared: nothing to reset."""
    cp = _cp()
    _pod(cp, "none", ready=False)
    _pod(cp, "cleared", ready=False)
    add_pod_condition(cp, "cleared", "DisruptionTarget", status="False")
    before = cp.client.get(Pod, "cleared", "default").metadata.resource_version
    cp.advance(timedelta(minutes=2, seconds=1).total_seconds())
    assert all(c.type != "DisruptionTarget" for c in cp.client.get(Pod, "none", "default").status.conditions)
    assert cp.client.get(Pod, "cleared", "default").metadata.resource_version == before


def test_stale_pod_disruption_set_by_the_kubelet_is_kept() -> None:
    """nonTerminatingPodHasStaleDisruptionCondition: reason TerminationByKubelet is never stale."""
    cp = _cp()
    _pod(cp, "foo", ready=False)
    add_pod_condition(cp, "foo", "DisruptionTarget", reason="TerminationByKubelet")
    cp.advance(timedelta(minutes=2, seconds=1).total_seconds())
    assert _target(cp, "foo").status == "True"


def test_keep_existing_pdb_condition_during_sync() -> None:
    """TestKeepExistingPDBConditionDuringSync: another condition of the PDB survives the status write."""
    cp = _cp()
    _pdb(cp, selector={}, minAvailable=3)
    pdb = edit(_pdb_obj(cp))
    from kbatch.api.meta import Condition
    pdb.status.conditions = [*pdb.status.conditions, Condition.model_validate({
        "type": "ExistingTestCondition", "status": "True", "message": "This is a test condition",
        "reason": "Test", "lastTransitionTime": "2025-01-01T00:00:00Z"})]
    pdb.status.desired_healthy = 0  # something the controller corrects, so it writes the status again
    cp.client.update_status(pdb)
    cp.run_until_idle()
    _verify(cp, 0, 0, 3, 0)
    assert sorted(c.type for c in _pdb_obj(cp).status.conditions) == ["DisruptionAllowed",
                                                                     "ExistingTestCondition"]
