"""The orphan-pod queue on a real control plane: pods whose Job no longer counts them lose the
``batch.kubernetes.io/job-tracking`` finalizer (job_controller.go ``syncOrphanPod``,
``cleanupPodFinalizers``; KEP-2307)."""

from __future__ import annotations

import pytest

from kbatch.api.batch_constants import JOB_TRACKING_FINALIZER
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import NotFound
from kbatch.runtime.controlplane import ControlPlane

JOB = """
apiVersion: batch/v1
kind: Job
metadata: {name: work}
spec:
  parallelism: 3
  completions: 3
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox}]
"""


def _pods(cp: ControlPlane) -> list[Pod]:
    return list(cp.client.list(Pod, "default").items)


def _tracked(cp: ControlPlane) -> list[str]:
    return sorted(p.metadata.name or "" for p in _pods(cp) if JOB_TRACKING_FINALIZER in
                  (p.metadata.finalizers or ()))


@pytest.fixture
def cp() -> ControlPlane:
    cp = ControlPlane(seed=3, controllers="job,garbage-collector")  # no kubelet: pods stay active
    cp.apply(JOB)
    cp.advance("2s")
    assert len(_tracked(cp)) == 3
    return cp


def test_orphan_propagation_releases_the_finalizer_of_active_pods(cp: ControlPlane) -> None:
    cp.client.delete(Job, "work", "default", propagation_policy="Orphan")
    cp.advance("5s")
    with pytest.raises(NotFound):
        cp.client.get(Job, "work", "default")
    pods = _pods(cp)
    assert len(pods) == 3  # orphaned, not deleted
    assert all(p.metadata.controller_ref() is None for p in pods)
    assert _tracked(cp) == []  # the orphan queue released every finalizer


def test_background_propagation_lets_the_pods_go(cp: ControlPlane) -> None:
    cp.client.delete(Job, "work", "default", propagation_policy="Background")
    cp.advance("5s")
    assert _pods(cp) == []  # deleted by the GC, and not held back by the tracking finalizer


def test_foreground_propagation_lets_the_job_and_pods_go(cp: ControlPlane) -> None:
    cp.client.delete(Job, "work", "default", propagation_policy="Foreground")
    cp.advance("5s")
    assert _pods(cp) == []
    with pytest.raises(NotFound):
        cp.client.get(Job, "work", "default")


def test_a_pod_of_another_controller_keeps_the_finalizer() -> None:
    cp = ControlPlane(seed=3, controllers="job")
    cp.apply("""
apiVersion: v1
kind: Pod
metadata:
  name: foreign
  finalizers: [batch.kubernetes.io/job-tracking]
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u-1, controller: true}]
spec:
  containers: [{name: main, image: busybox}]
""")
    cp.advance("5s")
    assert _tracked(cp) == ["foreign"]


def test_an_orphan_pod_created_with_the_finalizer_loses_it() -> None:
    cp = ControlPlane(seed=3, controllers="job")
    cp.apply("""
apiVersion: v1
kind: Pod
metadata: {name: stray, finalizers: [batch.kubernetes.io/job-tracking, example.com/keep]}
spec:
  containers: [{name: main, image: busybox}]
""")
    cp.advance("2s")
    pod = cp.client.get(Pod, "stray", "default")
    assert pod.metadata.finalizers == ["example.com/keep"]  # only the tracking finalizer goes


def test_a_pod_whose_job_uid_differs_is_released_but_the_new_job_pods_are_not(cp: ControlPlane) -> None:
    old_uids = {p.metadata.uid for p in _pods(cp)}
    cp.client.delete(Job, "work", "default", propagation_policy="Orphan")
    cp.advance("5s")
    cp.apply(JOB)  # same name, new uid: adopts the orphans (selector is per uid: it does not match)
    cp.advance("5s")
    new = [p for p in _pods(cp) if p.metadata.uid not in old_uids]
    assert len(new) == 3
    assert all(JOB_TRACKING_FINALIZER in (p.metadata.finalizers or ()) for p in new)
    old = [p for p in _pods(cp) if p.metadata.uid in old_uids]
    assert all(JOB_TRACKING_FINALIZER not in (p.metadata.finalizers or ()) for p in old)


MANUAL_JOB = """
apiVersion: batch/v1
kind: Job
metadata: {name: manual}
spec:
  manualSelector: true
  selector: %s
  parallelism: 2
  completions: 2
  template:
    metadata: {labels: {app: manual}}
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox}]
"""

STRAY = """
apiVersion: v1
kind: Pod
metadata: {name: %s, labels: {app: %s}}
spec:
  containers: [{name: main, image: busybox}]
"""


@pytest.mark.parametrize("selector", [
    "{matchLabels: {app: manual}}",
    "{matchExpressions: [{key: app, operator: In, values: [manual]}]}",  # no matchLabels at all
])
def test_a_job_adopts_matching_orphans_only(selector: str) -> None:
    """``ClaimPods``: an orphan the selector matches gains the controller reference and the tracking
    finalizer (and counts as active: one fewer pod is created); a non-matching one is left alone."""
    cp = ControlPlane(seed=3, controllers="job")
    cp.apply(STRAY % ("stray", "manual"))
    cp.apply(STRAY % ("other", "else"))
    cp.apply(MANUAL_JOB % selector)
    cp.advance("3s")
    job = cp.client.get(Job, "manual", "default")
    stray, other = cp.client.get(Pod, "stray", "default"), cp.client.get(Pod, "other", "default")
    ref = stray.metadata.controller_ref()
    assert ref is not None and ref.uid == job.metadata.uid
    assert JOB_TRACKING_FINALIZER in (stray.metadata.finalizers or ())
    assert other.metadata.controller_ref() is None and not other.metadata.finalizers
    owned = [p for p in _pods(cp) if (r := p.metadata.controller_ref()) and r.uid == job.metadata.uid]
    assert len(owned) == 2  # the adopted pod and one created


def test_a_pod_relabelled_out_of_the_selector_is_released_and_replaced() -> None:
    """``ClaimPods`` releases a controlled pod the selector no longer matches (its ownerReference
    goes), even though an earlier sync had claimed that pod; the Job then creates a replacement."""
    cp = ControlPlane(seed=3, controllers="job")
    cp.apply(MANUAL_JOB % "{matchLabels: {app: manual}}")
    cp.advance("3s")
    job = cp.client.get(Job, "manual", "default")
    first = sorted(p.metadata.name or "" for p in _pods(cp))[0]
    cp.client.patch(Pod, first, {"metadata": {"labels": {"app": "moved"}}}, "default")
    cp.advance("3s")
    moved = cp.client.get(Pod, first, "default")
    assert moved.metadata.controller_ref() is None
    owned = [p for p in _pods(cp) if (r := p.metadata.controller_ref()) and r.uid == job.metadata.uid]
    assert len(owned) == 2 and first not in {p.metadata.name for p in owned}
