"""Upstream's PodGroup protection controller table, through kbatch's API and its
``podgroup-protection`` controller.

Source: kubernetes/kubernetes ``pkg/controller/scheduling/podgroupprotection/
podgroup_protection_controller_test.go`` (the scheduling/v1beta1 version, 36,367 characters; an
earlier v1alpha2 one, 19,543 characters, still had the controller add a missing finalizer, which
upstream then dropped: "no action (admission plugin handles it)") — ``TestPodGroupProtectionController``
and ``TestHandlePodChange``, every PodGroup case — with ``podgroup_protection_controller.go``
beside it. Upstream feeds one informer event and compares the client's update actions; here the
objects are written through the API and the PodGroup's finalizers (or its absence, once deleted)
are the outcome. kbatch's PodGroups get the finalizer when created (``PodGroupProtection``
admission, the KEP's "created with a dedicated finalizer"), so upstream's "PodGroup without
finalizer" is one whose finalizer a user removed. Upstream's pods are bound to a node and Running
unless the case says otherwise; no kubelet runs.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gang.builders import NATIVE, gpu_cluster, gpu_pod, native_group
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import NotFound
from kbatch.api.scheduling_v1beta1 import PodGroup
from kbatch.controllers.gang.protection import pod_event_groups, releasable
from kbatch.runtime.controlplane import ControlPlane

FINALIZER = "scheduling.k8s.io/podgroup-protection"
PG = "my-podgroup"


@pytest.fixture
def cp() -> ControlPlane:
    return gpu_cluster(1, gates=NATIVE, controllers="podgroup-protection")


def _pod(cp: ControlPlane, name: str, *, group: str | None = PG, phase: str = "Running",
         scheduled: bool = True) -> None:
    doc = gpu_pod(name, group=group, gpus=0)
    if scheduled:
        doc["spec"]["nodeName"] = "node-0"
    cp.apply(doc)
    if phase != "Pending":
        cp.client.patch_status(Pod, name, {"status": {"phase": phase}}, "default")


def _group(cp: ControlPlane, *, finalizer: bool = True) -> None:
    cp.apply(native_group(PG, 1))
    if not finalizer:  # a user took it off
        cp.client.patch(PodGroup, PG, {"metadata": {"finalizers": None}}, "default")
    cp.run_until_idle()


def _finalizers(cp: ControlPlane) -> list[str] | None:
    """The PodGroup's finalizers ([] when none), None once it is gone."""
    try:
        return list(cp.client.get(PodGroup, PG, "default").metadata.finalizers or [])
    except NotFound:
        return None


def _delete_group(cp: ControlPlane) -> None:
    cp.client.delete(PodGroup, PG, "default")
    cp.run_until_idle()


# -- PodGroup events -------------------------------------------------------------------------------


def test_new_pod_group_without_finalizer_no_pods_no_action(cp: ControlPlane) -> None:
    _group(cp, finalizer=False)
    assert _finalizers(cp) == []


def test_new_pod_group_without_finalizer_active_pod_exists_no_action(cp: ControlPlane) -> None:
    """Admission stamps the finalizer; the controller never adds it back."""
    _group(cp)
    _pod(cp, "pod-1")
    cp.client.patch(PodGroup, PG, {"metadata": {"finalizers": None}}, "default")
    cp.run_until_idle()
    assert _finalizers(cp) == []


def test_pod_group_with_finalizer_not_being_deleted_no_action(cp: ControlPlane) -> None:
    _group(cp)
    assert _finalizers(cp) == [FINALIZER]


def test_deleted_pod_group_with_finalizer_no_active_pods_finalizer_is_removed(cp: ControlPlane) -> None:
    _group(cp)
    _delete_group(cp)
    assert _finalizers(cp) is None


def test_deleted_pod_group_with_finalizer_active_pod_exists_finalizer_is_kept(cp: ControlPlane) -> None:
    _group(cp)
    _pod(cp, "pod-1")
    _delete_group(cp)
    assert _finalizers(cp) == [FINALIZER]


def test_deleted_pod_group_with_finalizer_only_terminated_pods_finalizer_is_removed(cp: ControlPlane) -> None:
    _group(cp)
    _pod(cp, "pod-1", phase="Succeeded")
    _delete_group(cp)
    assert _finalizers(cp) is None


def test_deleted_pod_group_with_finalizer_mix_of_active_and_terminated_pods_finalizer_is_kept(
        cp: ControlPlane) -> None:
    _group(cp)
    _pod(cp, "pod-active")
    _pod(cp, "pod-done", phase="Succeeded")
    _delete_group(cp)
    assert _finalizers(cp) == [FINALIZER]


def test_pod_group_without_finalizer_already_deleted_no_action(cp: ControlPlane) -> None:
    """Not a deletion candidate: with no finalizer the delete goes through at once."""
    _group(cp, finalizer=False)
    _delete_group(cp)
    assert _finalizers(cp) is None


# -- Pod events ------------------------------------------------------------------------------------


def test_pod_deleted_pod_group_being_deleted_was_last_active_pod_finalizer_is_removed(
        cp: ControlPlane) -> None:
    _group(cp)
    _pod(cp, "pod-1")
    _delete_group(cp)
    assert _finalizers(cp) == [FINALIZER]
    cp.client.delete(Pod, "pod-1", "default", grace_period_seconds=0)
    cp.run_until_idle()
    assert _finalizers(cp) is None


def test_pod_terminated_succeeded_pod_group_being_deleted_was_last_active_pod_finalizer_is_removed(
        cp: ControlPlane) -> None:
    _group(cp)
    _pod(cp, "pod-1")
    _delete_group(cp)
    cp.client.patch_status(Pod, "pod-1", {"status": {"phase": "Succeeded"}}, "default")
    cp.run_until_idle()
    assert _finalizers(cp) is None


def test_new_unscheduled_pod_pod_group_without_finalizer_no_action(cp: ControlPlane) -> None:
    _group(cp, finalizer=False)
    _pod(cp, "pod-1", phase="Pending", scheduled=False)
    cp.run_until_idle()
    assert _finalizers(cp) == []


def test_pod_without_scheduling_group_no_pod_group_action(cp: ControlPlane) -> None:
    _group(cp)
    _pod(cp, "pod-1", group=None)
    cp.run_until_idle()
    assert _finalizers(cp) == [FINALIZER]


PHASES = st.sampled_from(["Pending", "Running", "Succeeded", "Failed", None])


@given(st.booleans(), st.booleans(), st.lists(PHASES))
def test_the_decision_settles_and_never_touches_a_live_group(deleting: bool, has: bool,
                                                            phases: list[str | None]) -> None:
    """Only a deleting group holding the finalizer can lose it, and after that nothing is left to do."""
    finalizers = [FINALIZER] if has else []
    release = releasable(deleting, finalizers, phases)
    assert not release or (deleting and has)
    after = [] if release else finalizers
    assert not releasable(deleting, after, phases)


# -- TestHandlePodChange: which pod events enqueue a group ---------------------------------------------


def _p(group: str | None = PG, phase: str = "Running", uid: str = "pod-1-uid", node: str = "node-1") -> Pod:
    spec: dict = {"nodeName": node, "containers": [{"name": "c", "image": "busybox"}]}
    if group is not None:
        spec["schedulingGroup"] = {"podGroupName": group}
    return Pod.model_validate({"metadata": {"name": "pod-1", "namespace": "default", "uid": uid},
                               "spec": spec, "status": {"phase": phase}})


@pytest.mark.parametrize(("old", "new", "want"), [
    pytest.param(_p(), None, ["default/my-podgroup"], id="deleted pod with schedulingGroup enqueues"),
    pytest.param(_p(), _p(phase="Succeeded"), ["default/my-podgroup"], id="terminated pod enqueues"),
    pytest.param(None, _p(node=""), [], id="unscheduled new pod does not enqueue"),
    pytest.param(None, _p(), [], id="scheduled running pod does not enqueue"),
    pytest.param(_p(group=None), None, [], id="deleted pod without schedulingGroup does not enqueue"),
    pytest.param(_p(uid="old-uid"), _p(phase="Succeeded", uid="new-uid"), ["default/my-podgroup"],
                 id="UID mismatch with terminated new pod, same PodGroup, deduplicates enqueue"),
    pytest.param(_p(uid="old-uid"), _p(group="other-pg", phase="Failed", uid="new-uid"),
                 ["default/other-pg", "default/my-podgroup"],
                 id="UID mismatch with terminated new pod referencing different PodGroup enqueues both"),
    pytest.param(_p(uid="old-uid"), _p(node="", uid="new-uid"), ["default/my-podgroup"],
                 id="UID mismatch on update with non-terminated new pod enqueues only old pod"),
])
def test_handle_pod_change(old: Pod | None, new: Pod | None, want: list[str]) -> None:
    assert pod_event_groups(old, new) == want


def test_updates_of_a_live_group_and_of_running_pods_reconcile_nothing(cp: ControlPlane) -> None:
    """``handlePodGroupUpdate`` queues deletion candidates only; ``handlePodChange`` a running pod's
    update not at all (kbatch queued every PodGroup and every member pod event)."""
    _group(cp)
    _pod(cp, "pod-1")
    cp.run_until_idle()
    before = cp.manager.get("podgroup-protection").reconciles
    cp.client.patch(PodGroup, PG, {"metadata": {"labels": {"touch": "1"}}}, "default")
    cp.client.patch(Pod, "pod-1", {"metadata": {"labels": {"touch": "1"}}}, "default")
    cp.run_until_idle()
    assert cp.manager.get("podgroup-protection").reconciles == before
