"""Upstream's generic job reconciler table (``TestReconcileGenericJob``), AdmissionGatedBy rows.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobframework/reconciler_test.go``
``TestReconcileGenericJob`` (case names quoted) against ``reconciler.go`` (``ensureOneWorkload``,
``UpdateAdmissionGatedBy``, ``PropagateAdmissionGatedByAnnotation``). A batch/v1 Job is created and
edited through the API with a queue that has room; a gated Workload is not admitted until its gates
are gone. Not translated: the elastic-job rows ("handle job with no workload
(elasticJobsViaWorkloadSlicesEnabled = ...)"), the MultiKueue worker-label row, and the
"update workload to match job preserves active=..." rows (a Workload's ``active`` field is set by
users on the Workload; ``test_lifecycle_examples.py`` covers deactivation).
"""

from __future__ import annotations

from kbatch.api.batch_v1 import Job

from .helpers import World, cluster_queue, flavor, local_queue, quota
from .test_jobs import node
from .test_upstream_job_reconciler import make_job, workload_of

GATED = "kueue.x-k8s.io/admission-gated-by"
TWO = "example.com/controller1,example.com/controller2"


def _world(gate: bool = True) -> World:
    return World(node("n-a", "a", cpu="16"), flavor("fa", labels={"pool": "a"}),
                 cluster_queue("cq", (["cpu"], [("fa", [quota("cpu", "16")])])), local_queue("lq", "cq"),
                 controllers="*", feature_gates={"AdmissionGatedBy": gate})


def _annotate(w: World, value: str | None) -> None:
    w.cp.client.patch(Job, "job", {"metadata": {"annotations": {GATED: value}}}, "default")
    w.cp.advance(2)


def _updated_events(w: World) -> list[str]:
    return [m for _, reason, m in w.events("job") if reason == "UpdatedWorkload"]


def test_job_with_admission_gated_by_annotation_creates_workload_with_annotation() -> None:
    """"job with AdmissionGatedBy annotation should create workload with annotation" and "job with
    multiple AdmissionGatedBy gates ..."; the gated Workload waits."""
    w = _world()
    w.apply(make_job(parallelism=2, seconds=600, annotations={GATED: TWO}))
    w.cp.advance(2)
    wl = workload_of(w)
    assert wl.metadata.annotations[GATED] == TWO
    assert not w.admitted(wl.metadata.name)


def test_job_with_admission_gated_by_annotation_changed_and_removed_updates_the_workload() -> None:
    """"job with AdmissionGatedBy annotation changed should emit event" (upstream adds a gate, which
    the job webhook refuses after creation; here a gate is removed, the same propagation) and "...
    annotation removed should update workload": the Workload follows and, ungated, is admitted."""
    w = _world()
    w.apply(make_job(parallelism=2, seconds=600, annotations={GATED: TWO}))
    w.cp.advance(2)
    _annotate(w, "example.com/controller2")
    assert workload_of(w).metadata.annotations[GATED] == "example.com/controller2"
    assert _updated_events(w) == ['Updated workload AdmissionGatedBy to "example.com/controller2"']
    _annotate(w, None)
    wl = workload_of(w)
    assert GATED not in (wl.metadata.annotations or {})
    assert w.admitted(wl.metadata.name)
    assert w.cp.client.get(Job, "job", "default").spec.suspend is False


def test_job_with_admission_gated_by_annotation_unchanged_should_not_emit_event() -> None:
    w = _world()
    w.apply(make_job(parallelism=2, seconds=600, annotations={GATED: "example.com/controller1"}))
    w.cp.advance(2)
    w.cp.client.patch(Job, "job", {"metadata": {"labels": {"unrelated": "change"}}}, "default")
    w.cp.advance(2)
    assert _updated_events(w) == []


def test_admission_gated_by_when_feature_gate_disabled() -> None:
    """"... when feature gate disabled should not propagate annotation" and "... changed when
    feature disabled should not emit event": the Workload has no annotation and is admitted."""
    w = _world(gate=False)
    w.apply(make_job(parallelism=2, seconds=600, annotations={GATED: "example.com/controller1"}))
    w.cp.advance(2)
    _annotate(w, TWO)
    wl = workload_of(w)
    assert GATED not in (wl.metadata.annotations or {})
    assert w.admitted(wl.metadata.name)
    assert _updated_events(w) == []
