"""Core decisions of a Job sync: pod creation shape, counting, completion (job_controller.go)."""

from __future__ import annotations

from kbatch.controllers.job import PodConditionInfo, sync_job

from .builders import make_job
from .world import T0, World


def test_nonindexed_creates_parallelism_pods_with_owner_and_finalizer():
    w = World(make_job(parallelism=3, completions=5))
    w.sync()
    assert len(w.pods) == 3
    pod = w.created[0]
    assert pod["metadata"]["generateName"] == "pi-"
    assert pod["metadata"]["finalizers"] == ["batch.kubernetes.io/job-tracking"]
    assert pod["metadata"]["ownerReferences"] == [{
        "apiVersion": "batch/v1", "kind": "Job", "name": "pi", "uid": "job-uid",
        "controller": True, "blockOwnerDeletion": True}]
    assert "hostname" not in pod["spec"]
    assert pod["spec"]["subdomain"] == "svc"
    assert w.job.status.active == 3 and w.job.status.start_time == T0
    assert w.job.status.ready == 0 and w.job.status.terminating == 0
    assert w.reasons().count("SuccessfulCreate") == 3


def test_indexed_pod_shape_matches_upstream():
    w = World(make_job(parallelism=2, completions=4, indexed=True))
    w.sync()
    p0, p1 = w.created
    assert p1["metadata"]["generateName"] == "pi-1-"
    assert p1["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"] == "1"
    assert p1["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"] == "1"
    assert p1["spec"]["hostname"] == "pi-1"
    assert p1["spec"]["subdomain"] == "svc"
    env = p0["spec"]["containers"][0]["env"]
    assert env == [{"name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef": {
        "fieldPath": "metadata.labels['batch.kubernetes.io/job-completion-index']"}}}]


def test_long_job_name_truncates_generate_name_keeping_index():
    name = "a" * 60
    w = World(make_job(name=name, parallelism=1, completions=1, indexed=True))
    w.sync()
    gen = w.created[0]["metadata"]["generateName"]
    assert len(gen) == 58 and gen.endswith("-0-")


def test_success_goes_through_success_criteria_met_to_complete():
    w = World(make_job(parallelism=2, completions=2))
    w.sync()
    for pod in w.active():
        w.succeed(w.run_pod(pod))
    w.sync()
    st = w.job.status
    assert st.succeeded == 2 and st.active == 0 and not st.uncounted_succeeded
    scm, complete = w.cond("SuccessCriteriaMet"), w.cond("Complete")
    assert (scm.reason, scm.message) == ("CompletionsReached", "Reached expected number of succeeded pods")
    assert (complete.reason, complete.message) == (scm.reason, scm.message)
    assert st.completion_time == w.now
    assert "Completed" in w.reasons()
    assert all(not p.has_finalizer for p in w.pods.values())


def test_indexed_success_counts_indexes_once_and_formats_intervals():
    w = World(make_job(parallelism=8, completions=8, indexed=True))
    w.sync()
    by_index = {int(p.annotations["batch.kubernetes.io/job-completion-index"]): p for p in w.active()}
    for ix in (1, 3, 4, 5, 7):
        w.succeed(by_index[ix])
    w.sync()
    assert w.job.status.completed_indexes == "1,3-5,7"
    assert w.job.status.succeeded == 5
    assert w.job.status.uncounted_succeeded == ()


def test_two_phase_finalizer_tracking_records_uids_before_release():
    w = World(make_job(parallelism=1, completions=2))
    w.sync()
    w.succeed(w.active()[0])
    plan = sync_job(w.job, list(w.pods.values()), w.now)
    assert plan.flush_first
    assert len(plan.status.uncounted_succeeded) == 1 and plan.status.succeeded == 0
    assert [p.uid for p in plan.finalizers_to_remove] == list(plan.status.uncounted_succeeded)


def test_work_queue_job_stops_creating_after_first_success_and_completes_when_idle():
    w = World(make_job(parallelism=3, completions=None))
    w.sync()
    pods = w.active()
    w.succeed(pods[0])
    w.sync()
    assert len(w.active()) == 2 and w.cond("Complete") is None
    for p in w.active():
        w.succeed(p)
    w.sync()
    assert w.cond("Complete") is not None and w.job.status.succeeded == 3


def test_parallelism_decrease_deletes_without_counting_failures():
    w = World(make_job(parallelism=4, completions=10))
    w.sync()
    from dataclasses import replace
    w.job = replace(w.job, parallelism=1)
    w.sync()
    assert len(w.active()) == 1
    assert w.job.status.failed == 0 and w.job.status.active == 1
    assert w.reasons().count("SuccessfulDelete") == 3


def test_ready_counts_ready_active_pods():
    w = World(make_job(parallelism=2, completions=2))
    w.sync()
    a, b = w.active()
    w.run_pod(a, ready=True)
    w.run_pod(b, ready=False)
    w.sync()
    assert w.job.status.ready == 1


def test_managed_by_other_controller_is_left_alone():
    job = make_job(managed_by="example.com/other")
    plan = sync_job(job, [], T0)
    assert plan.skip == "ManagedExternally" and plan.status is None and not plan.creates


def test_reserved_managed_by_value_is_the_builtin_controller():
    plan = sync_job(make_job(managed_by="kubernetes.io/job-controller"), [], T0)
    assert len(plan.creates) == 1


def test_finished_job_releases_leftover_finalizers():
    w = World(make_job(parallelism=1, completions=1))
    w.sync()
    w.succeed(w.active()[0])
    w.sync()
    assert w.cond("Complete")
    plan = sync_job(w.job, list(w.pods.values()), w.now)
    assert plan.skip == "Finished" and plan.status is None


def test_deleting_job_releases_running_pods_uncounted():
    from dataclasses import replace
    w = World(make_job(parallelism=2, completions=2))
    w.sync()
    for p in w.active():
        w.run_pod(p)
    w.job = replace(w.job, deletion_timestamp=w.now)
    w.sync()
    assert all(not p.has_finalizer for p in w.pods.values())
    assert w.job.status.failed == 0 and not w.job.status.uncounted_failed


def test_slow_start_cap_500_per_sync():
    w = World(make_job(parallelism=1200, completions=1200))
    w.sync()
    assert len(w.pods) == 500
    w.sync()
    w.sync()
    assert len(w.pods) == 1200


def test_pod_conditions_helper_unused_condition_type():
    assert PodConditionInfo("Ready", "True").type == "Ready"


def test_uncounted_cap_records_the_lowest_indexes_first():
    # trackJobStatusAndRemoveFinalizers sorts an Indexed Job's pods byCompletionIndex before the
    # MaxUncountedPods (500) cap: with 600 pods done in one sync, indexes 0-499 are recorded first,
    # whatever order the pods were created or named in ("pi-10-…" sorts before "pi-2-…").
    from dataclasses import replace as _replace

    w = World(make_job(parallelism=600, completions=600, indexed=True))
    w.run(rounds=2)
    assert len(w.pods) == 600
    for pod in list(w.pods.values()):
        w.succeed(_replace(pod, name=f"pi-{pod.index}-x"))
    w.sync()
    assert w.job.status.completed_indexes == "0-499" and w.job.status.succeeded == 500
    w.sync()
    assert w.job.status.completed_indexes == "0-599"
