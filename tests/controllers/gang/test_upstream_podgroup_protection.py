"""Upstream's PodGroup protection controller table, through kbatch's API and its
``podgroup-protection`` controller.

Source: kubernetes/kubernetes ``pkg/controller/podgroupprotection/podgroup_protection_controller_test.go``
(the stored version, 19,543 characters, scheduling/v1alpha2 era; the 1.37 KEP-4671 text
"PodGroup Deletion Protection" describes the same controller) — ``TestPodGroupProtectionController``,
every case — with ``podgroup_protection_controller.go`` beside it. Upstream feeds one informer event
and compares the client's update actions; here the objects are written through the API and the
PodGroup's finalizers (or its absence, once deleted) are the outcome. kbatch's PodGroups get the
finalizer when created (``PodGroupProtection`` admission, the KEP's "created with a dedicated
finalizer"), so upstream's "PodGroup without finalizer" is one whose finalizer a user removed.
Upstream's pods are bound to a node and Running unless the case says otherwise; no kubelet runs.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gang.builders import NATIVE, gpu_cluster, gpu_pod, native_group
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import NotFound
from kbatch.api.scheduling_v1beta1 import PodGroup
from kbatch.controllers.gang.protection import needs_finalizer, releasable
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


def test_new_pod_group_without_finalizer_active_pod_exists_finalizer_is_added(cp: ControlPlane) -> None:
    _group(cp)
    _pod(cp, "pod-1")
    cp.client.patch(PodGroup, PG, {"metadata": {"finalizers": None}}, "default")
    cp.run_until_idle()
    assert _finalizers(cp) == [FINALIZER]


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


def test_new_unscheduled_pod_pod_group_needs_finalizer_finalizer_is_added(cp: ControlPlane) -> None:
    _group(cp, finalizer=False)
    _pod(cp, "pod-1", phase="Pending", scheduled=False)
    cp.run_until_idle()
    assert _finalizers(cp) == [FINALIZER]


def test_pod_without_scheduling_group_no_pod_group_action(cp: ControlPlane) -> None:
    _group(cp)
    _pod(cp, "pod-1", group=None)
    cp.run_until_idle()
    assert _finalizers(cp) == [FINALIZER]


PHASES = st.sampled_from(["Pending", "Running", "Succeeded", "Failed", None])


@given(st.booleans(), st.booleans(), st.lists(PHASES))
def test_the_two_decisions_never_both_apply_and_each_settles(deleting: bool, has: bool,
                                                             phases: list[str | None]) -> None:
    """Adding and removing exclude each other, and after either the controller has nothing left to do."""
    finalizers = [FINALIZER] if has else []
    release, add = releasable(deleting, finalizers, phases), needs_finalizer(deleting, finalizers, phases)
    assert not (release and add)
    after = [] if release else [FINALIZER] if add else finalizers
    assert not releasable(deleting, after, phases) and not needs_finalizer(deleting, after, phases)
