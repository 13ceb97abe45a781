"""Upstream's ``jobset_controller_test.go`` tables: the Jobs a JobSet gets, through kbatch's API and
controller, and the status bookkeeping through the decision.

Source: kubernetes-sigs/jobset v0.12.0 ``pkg/controllers/jobset_controller_test.go``
(``TestIsJobFinished``, ``TestConstructJobsFromTemplate``, ``TestUpdateConditions``,
``TestCalculateReplicatedJobStatuses``, ``TestCreateHeadlessSvcIfNecessary``, ``TestGlobalJobIndex``,
``TestGlobalReplicas``, ``TestGroupJobIndex``, ``TestGroupReplicas``, ``TestSyncJobScaling``) and
``jobset_controller.go`` (``constructJob``, ``labelAndAnnotateObject``).

``constructJobsFromTemplate`` cases with no Jobs yet run on a control plane with only the ``jobset``
controller: the JobSet is applied (CRD defaults, webhooks) and the Jobs it creates are compared with
upstream's ``makeJob`` plus its ``add{JobGlobalIndex,GlobalReplicas,JobGroupIndex,GroupReplicas}``
(the Job API's own ``job-name`` / ``controller-uid`` labels, which upstream's fake client does not
add, are left out of the comparison; upstream's replicated jobs ``replicated-job-A``/``-B`` are spelled
in lower case, as ``vjobset.kb.io`` refuses upper-case Job names). The cases with existing Jobs run
on the decision.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api import jobset_constants as c
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Service
from kbatch.api.jobset_v1alpha2 import JobSet
from kbatch.controllers.jobset import ChildJob, Cond, Gates, JobSetView, RJob, RJobStatus, Status, sync_jobset
from kbatch.controllers.jobset.adapt import child_view
from kbatch.controllers.jobset.conditions import Draft

from .upstream_helpers import jobset, pod_spec
from .world import T0

JS = "test-jobset"
TOPOLOGY = "test-topology-domain"
JOB_API_LABELS = {"job-name", "batch.kubernetes.io/job-name", "controller-uid",
                  "batch.kubernetes.io/controller-uid"}
TOLERATION = {"key": c.NO_SCHEDULE_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}


def _created(manifest: dict[str, Any], gates: str = "") -> tuple[JobSet, list[Job]]:
    cp = ControlPlane(seed=1, controllers="jobset", feature_gates=gates or None)
    cp.apply(manifest)
    js = cp.client.get(JobSet, manifest["metadata"]["name"], "default")
    return js, sorted(cp.client.list(Job, "default").items, key=lambda j: j.name)


def _pairs(js: JobSet, rj: str, idx: int, *, job_restart: int | None = None) -> dict[str, str]:
    """upstream's ``makeJob`` labels plus the ``add*`` index keys, from the JobSet's spec."""
    rjobs = [(r.name or "", r.replicas or 0, r.group_name or "") for r in js.spec.replicated_jobs or ()]
    mine = next(r for r in rjobs if r[0] == rj)
    before = sum(n for name, n, _ in rjobs[:[r[0] for r in rjobs].index(rj)])
    group_before = sum(n for name, n, g in rjobs[:[r[0] for r in rjobs].index(rj)] if g == mine[2])
    name = f"{JS}-{rj}-{idx}"
    out = {
        c.JOBSET_NAME_KEY: JS, c.JOBSET_UID_KEY: js.metadata.uid or "", c.REPLICATED_JOB_NAME_KEY: rj,
        c.GROUP_NAME_KEY: mine[2], c.REPLICATED_JOB_REPLICAS_KEY: str(mine[1]), c.JOB_INDEX_KEY: str(idx),
        c.RESTARTS_KEY: "0", c.JOB_KEY: hashlib.sha1(f"default/{name}".encode()).hexdigest(),
        c.JOB_GLOBAL_INDEX_KEY: str(before + idx), c.GLOBAL_REPLICAS_KEY: str(sum(n for _, n, _ in rjobs)),
        c.JOB_GROUP_INDEX_KEY: str(group_before + idx),
        c.GROUP_REPLICAS_KEY: str(sum(n for _, n, g in rjobs if g == mine[2])),
    }
    if job_restart is not None:
        out[c.JOB_RESTART_ATTEMPT_KEY] = str(job_restart)
    return out


def _labels(meta: Any) -> dict[str, str]:
    return {k: v for k, v in (meta.labels or {}).items() if k not in JOB_API_LABELS}


def _check(job: Job, pairs: dict[str, str], *, extra: dict[str, str] | None = None,
           user: dict[str, dict[str, str]] | None = None) -> None:
    """upstream's ``makeJob``: the template's own labels and annotations, then the pairs (and the
    placement annotations ``extra``), on the Job and on its pod template."""
    user = user or {}
    annotations = {**pairs, **(extra or {})}
    assert _labels(job.metadata) == {**user.get("labels", {}), **pairs}
    assert (job.metadata.annotations or {}) == {**user.get("annotations", {}), **annotations}
    pod = job.spec.template.metadata
    assert _labels(pod) == {**user.get("pod_labels", {}), **pairs}
    assert (pod.annotations or {}) == {**user.get("pod_annotations", {}), **annotations}


def _template(*, labels: dict[str, str] | None = None, annotations: dict[str, str] | None = None,
              pod_labels: dict[str, str] | None = None, pod_annotations: dict[str, str] | None = None,
              pod: dict[str, Any] | None = None) -> dict[str, Any]:
    meta = {k: v for k, v in (("labels", labels), ("annotations", annotations)) if v}
    pod_meta = {k: v for k, v in (("labels", pod_labels), ("annotations", pod_annotations)) if v}
    template: dict[str, Any] = {"spec": pod or pod_spec()}
    if pod_meta:
        template["metadata"] = pod_meta
    out: dict[str, Any] = {"spec": {"template": template}}
    if meta:
        out["metadata"] = meta
    return out


def _rj(name: str, replicas: int, **template: Any) -> dict[str, Any]:
    return {"name": name, "replicas": replicas, "template": _template(**template)}


# --- TestConstructJobsFromTemplate, through the API ----------------------------------------------------
def test_construct_all_jobs_created() -> None:
    js, jobs = _created(jobset(_rj("replicated-job", 2), name=JS))
    assert [j.name for j in jobs] == [f"{JS}-replicated-job-0", f"{JS}-replicated-job-1"]
    for idx, job in enumerate(jobs):
        _check(job, _pairs(js, "replicated-job", idx))
        assert job.spec.suspend is False


def test_construct_all_jobs_pods_created_with_labels_and_annotations() -> None:
    user = dict(labels={"job-label-key1": "job-label-value1", "job-label-key2": "job-label-value2"},
                annotations={"job-annotation-key1": "job-annotation-value1",
                             "job-annotation-key2": "job-annotation-value2"},
                pod_labels={"pod-label-key1": "pod-label-value1", "pod-label-key2": "pod-label-value2"},
                pod_annotations={"pod-annotation-key1": "pod-annotation-value1",
                                 "pod-annotation-key2": "pod-annotation-value2"})
    js, jobs = _created(jobset(_rj("replicated-job", 2, **user), name=JS))
    for idx, job in enumerate(jobs):
        pairs = _pairs(js, "replicated-job", idx)
        _check(job, pairs, user=user)


def test_construct_multiple_replicated_jobs_indexes() -> None:
    """"multiple replicated jobs": A (1 replica) and B (2): global index of B's Jobs continues A's."""
    js, jobs = _created(jobset(_rj("replicated-job-a", 1), _rj("replicated-job-b", 2), name=JS))
    by_name = {j.name: j for j in jobs}
    for rj, idx in (("replicated-job-a", 0), ("replicated-job-b", 0), ("replicated-job-b", 1)):
        _check(by_name[f"{JS}-{rj}-{idx}"], _pairs(js, rj, idx))


@pytest.mark.parametrize(("case", "js_annotations", "a_annotations", "b_annotations", "placed", "strategy"), [
    ("exclusive placement for a ReplicatedJob", None, {c.EXCLUSIVE_KEY: TOPOLOGY}, None, ("a",), False),
    ("exclusive placement using nodeSelectorStrategy for a ReplicatedJob", None,
     {c.EXCLUSIVE_KEY: TOPOLOGY, c.NODE_SELECTOR_STRATEGY_KEY: "true", c.GROUP_NAME_KEY: "default"},
     {c.GROUP_NAME_KEY: "default"}, ("a",), True),
    ("exclusive placement for entire JobSet", {c.EXCLUSIVE_KEY: TOPOLOGY}, None, None, ("a", "b"), False),
    ("exclusive placement using nodeSelectorStrategy for entire JobSet",
     {c.EXCLUSIVE_KEY: TOPOLOGY, c.NODE_SELECTOR_STRATEGY_KEY: "true"}, None, None, ("a", "b"), True),
])
def test_construct_exclusive_placement(case: str, js_annotations: dict[str, str] | None,
                                       a_annotations: dict[str, str] | None,
                                       b_annotations: dict[str, str] | None,
                                       placed: tuple[str, ...], strategy: bool) -> None:
    manifest = jobset(_rj("replicated-job-a", 1, annotations=a_annotations),
                      _rj("replicated-job-b", 1, annotations=b_annotations), name=JS)
    if js_annotations:
        manifest["metadata"]["annotations"] = js_annotations
    js, jobs = _created(manifest)
    for job, (letter, template) in zip(jobs, (("a", a_annotations), ("b", b_annotations)), strict=True):
        extra = {}
        if letter in placed:
            extra[c.EXCLUSIVE_KEY] = TOPOLOGY
            if strategy:
                extra[c.NODE_SELECTOR_STRATEGY_KEY] = "true"
        _check(job, _pairs(js, f"replicated-job-{letter}", 0), extra=extra,
               user={"annotations": template} if template else None)
        pod = job.to_dict()["spec"]["template"]["spec"]
        if letter in placed and strategy:
            assert pod["nodeSelector"] == {c.NAMESPACED_JOB_KEY: f"default_{job.name}"}, case
            assert pod["tolerations"] == [TOLERATION], case
        else:
            assert "nodeSelector" not in pod and "tolerations" not in pod, case


@pytest.mark.parametrize(("case", "suspend"), [
    ("pod dns hostnames enabled", None), ("suspend job set", True), ("resume job set", False)])
def test_construct_subdomain_and_suspend(case: str, suspend: bool | None) -> None:
    spec: dict[str, Any] = {"network": {"enableDNSHostnames": True, "subdomain": JS}}
    if suspend is not None:
        spec["suspend"] = suspend
    js, jobs = _created(jobset(_rj("replicated-job", 1), name=JS, **spec))
    (job,) = jobs
    assert job.spec.template.spec.subdomain == JS and job.spec.suspend is bool(suspend), case
    _check(job, _pairs(js, "replicated-job", 0))


def test_construct_node_selector_exclusive_placement_strategy_enabled() -> None:
    annotations = {c.EXCLUSIVE_KEY: TOPOLOGY, c.NODE_SELECTOR_STRATEGY_KEY: "true"}
    js, (job,) = _created(jobset(_rj("replicated-job", 1, annotations=annotations), name=JS,
                                 network={"enableDNSHostnames": True, "subdomain": JS}))
    _check(job, _pairs(js, "replicated-job", 0), extra=annotations, user={"annotations": annotations})
    pod = job.to_dict()["spec"]["template"]["spec"]
    assert pod["subdomain"] == JS and pod["tolerations"] == [TOLERATION]
    assert pod["nodeSelector"] == {c.NAMESPACED_JOB_KEY: f"default_{JS}-replicated-job-0"}


def test_construct_coordinator() -> None:
    """The coordinator endpoint is the same label and annotation on every Job and its pods."""
    template = _rj("replicated-job", 1)
    template["template"]["spec"].update(completionMode="Indexed", completions=1, parallelism=1)
    coordinator = {"replicatedJob": "replicated-job", "jobIndex": 0, "podIndex": 0}
    js, (job,) = _created(jobset(template, name=JS, network={"enableDNSHostnames": True, "subdomain": JS},
                                 coordinator=coordinator))
    _check(job, {**_pairs(js, "replicated-job", 0), c.COORDINATOR_KEY: f"{JS}-replicated-job-0-0.{JS}"})


def test_construct_startup_policy() -> None:
    js, (job,) = _created(jobset(_rj("replicated-job", 1), name=JS,
                                 startupPolicy={"startupPolicyOrder": "InOrder"},
                                 network={"enableDNSHostnames": True, "subdomain": JS}))
    _check(job, _pairs(js, "replicated-job", 0))
    assert job.spec.template.spec.subdomain == JS


def test_construct_volume_claim_policies() -> None:
    container = {"name": "test-container", "image": "busybox:latest",
                 "volumeMounts": [{"name": "test-volume", "mountPath": "/data"}]}
    claim = {"metadata": {"name": "test-volume"},
             "spec": {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "1Gi"}}}}
    _, (job,) = _created(jobset(_rj("replicated-job", 1, pod={"containers": [container]}), name=JS,
                                 network={"enableDNSHostnames": True, "subdomain": JS},
                                 volumeClaimPolicies=[{"templates": [claim],
                                                       "retentionPolicy": {"whenDeleted": "Retain"}}]))
    pod = job.to_dict()["spec"]["template"]["spec"]
    claim_volume = {"name": "test-volume", "persistentVolumeClaim": {"claimName": f"test-volume-{JS}"}}
    assert pod["volumes"] == [claim_volume]
    assert pod["subdomain"] == JS and pod["containers"][0]["volumeMounts"] == container["volumeMounts"]


@pytest.mark.parametrize(("case", "gates", "attempts"), [
    ("JobRestartAttempt based on ReplicatedJobsStatus", "RestartJob=true", (1, 0)),
    ("JobRestartAttempt not added when RestartJob feature is disabled", "", (None, None)),
])
def test_construct_job_restart_attempt(case: str, gates: str, attempts: tuple[int | None, ...]) -> None:
    """The Jobs carry ``job-restart-attempt`` from ``replicatedJobsStatus[].jobRestarts`` (gate on).
    Upstream sets that status on the struct; here the decision is given it."""
    js = JobSetView(name=JS, namespace="default", replicated_jobs=(RJob("replicated-job", replicas=2),),
                    status=Status(replicated_jobs_status=(RJobStatus("replicated-job",
                                                                     job_restarts=(1, 0)),)))
    plan = sync_jobset(js, [], T0, Gates(restart_job=bool(gates)))
    got = tuple(create.job_restart for group in plan.creates for create in group)
    assert got == attempts, case


# --- TestConstructJobsFromTemplate with existing Jobs, on the decision ----------------------------------
def _existing(name: str, **fields: Any) -> ChildJob:
    return ChildJob(name=name, rjob="replicated-job", job_index=name.rsplit("-", 1)[1], restart_attempt="0",
                    **fields)


J0 = f"{JS}-replicated-job-0"
J1 = f"{JS}-replicated-job-1"


@pytest.mark.parametrize(("case", "replicas", "existing", "previous", "strategy", "want"), [
    ("no jobs created", 1, [_existing(J0)], False, c.RECREATE, []),
    ("one job created, one job not created (already active)", 2, [_existing(J0)], False, c.RECREATE, [J1]),
    ("one job created, one job not created (already succeeded)", 2, [_existing(J0, finished="Complete")],
     False, c.RECREATE, [J1]),
    ("one job created, one job not created (marked for deletion)", 2, [_existing(J0, deleting=True)], True,
     c.RECREATE, [J1]),
    ("job creation blocked until all previous jobs no longer exist", 2, [_existing(J0)], True,
     c.BLOCKING_RECREATE, []),
])
def test_construct_with_existing_jobs(case: str, replicas: int, existing: list[ChildJob], previous: bool,
                                      strategy: str, want: list[str]) -> None:
    """Upstream hands ``constructJobsFromTemplate`` the Jobs already bucketed; the decision buckets
    them itself. A ``previous`` Job is one of attempt 0 while the JobSet is at attempt 1 (as after a
    restart). "(already failed)" does not translate: a failed Job of the current attempt makes the
    decision run the failure policy and stop before creating (upstream's ``reconcile`` too)."""
    js = JobSetView(name=JS, namespace="default",
                    replicated_jobs=(RJob("replicated-job", replicas=replicas),), failure_policy=True,
                    max_restarts=5, restart_strategy=strategy,
                    status=Status(restarts=1 if previous else 0))
    plan = sync_jobset(js, existing, T0)
    assert [create.name for group in plan.creates for create in group] == want, case


# --- TestIsJobFinished ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("case", "condition", "finished"), [
    ("succeeded", "Complete", "Complete"), ("failed", "Failed", "Failed"), ("active", "", ""),
    ("suspended", "Suspended", ""), ("failure target", "FailureTarget", ""),
])
def test_is_job_finished(case: str, condition: str, finished: str) -> None:
    job = Job.model_validate({"metadata": {"name": "j", "namespace": "default"}, "spec": {"template": {}},
                              "status": {"conditions": [{"type": condition, "status": "True"}]}})
    assert child_view(job).finished == finished, case


# --- TestUpdateConditions ------------------------------------------------------------------------------
OLD = T0.replace(year=2024)
SUSPENDED = Cond(c.SUSPENDED, "True", c.SUSPENDED_REASON, c.SUSPENDED_MESSAGE, OLD)
COMPLETED = Cond(c.COMPLETED, "True", c.ALL_JOBS_COMPLETED_REASON, c.ALL_JOBS_COMPLETED_MESSAGE, OLD)
RESTARTING = Cond(c.RESTARTING, "True", c.RESTARTING_DEFAULT_FAILURE_POLICY, "old message", OLD)


@pytest.mark.parametrize(("case", "existing", "new", "updated"), [
    ("no existing conditions, add a condition", (),
     (c.COMPLETED, "True", c.ALL_JOBS_COMPLETED_REASON, c.ALL_JOBS_COMPLETED_MESSAGE), True),
    ("suspended", (), (c.SUSPENDED, "True", c.SUSPENDED_REASON, c.SUSPENDED_MESSAGE), True),
    ("resume (update suspended condition type in-place)", (SUSPENDED,),
     (c.SUSPENDED, "False", c.RESUMED_REASON, c.RESUMED_MESSAGE), True),
    ("existing conditions, attempt to add duplicate", (COMPLETED,),
     (c.COMPLETED, "True", c.ALL_JOBS_COMPLETED_REASON, c.ALL_JOBS_COMPLETED_MESSAGE), False),
    ("existing conditions, update reason/message but keep status same", (RESTARTING,),
     (c.RESTARTING, "True", "NewReason", "new message"), True),
])
def test_update_conditions(case: str, existing: tuple[Cond, ...], new: tuple[str, str, str, str],
                           updated: bool) -> None:
    """"no existing conditions, not adding conditions" (an empty ``conditionOpts``) does not translate:
    kbatch has no condition-less call. A changed status moves the transition time; a changed
    reason/message keeps it."""
    draft = Draft(Status(conditions=existing), T0)
    assert draft.set_condition(*new) is updated, case
    assert draft.should_update is updated, case
    got = next(x for x in draft.status.conditions if x.type == new[0])
    before = next((x for x in existing if x.type == new[0]), None)
    if before is not None and before.status == got.status:
        assert got.last_transition_time == before.last_transition_time, case


# --- TestCalculateReplicatedJobStatuses ----------------------------------------------------------------
R1, R2 = "replicated-job-1", "replicated-job-2"


def _job(name: str, rjob: str, parallelism: int = 1, completions: int | None = None, ready: int = 0,
         succeeded: int = 0, active: int = 0, finished: str = "", suspended: bool = False) -> ChildJob:
    return ChildJob(name, rjob=rjob, job_index="0", restart_attempt="0", parallelism=parallelism,
                    completions=completions, ready=ready, succeeded=succeeded, active=active,
                    finished=finished, suspended=suspended, failure_time=T0 if finished == "Failed" else None)


def _counts(**by_rjob: dict[str, int]) -> dict[str, dict[str, int]]:
    zero = {"ready": 0, "succeeded": 0, "failed": 0, "active": 0, "suspended": 0}
    return {R1: {**zero, **by_rjob.get("r1", {})}, R2: {**zero, **by_rjob.get("r2", {})}}


@pytest.mark.parametrize(("case", "jobs", "suspend", "want"), [
    ("partial jobs are ready, no succeeded jobs",
     [_job("a", R1, 1, 2, 1, 1), _job("b", R2, 5, None, 2, 3), _job("c", R2, 3, 2, 1, 1),
      _job("d", R2, 2, 3, 2, 1), _job("e", R2, 4, 5, 2, 1)], False,
     _counts(r1={"ready": 1}, r2={"ready": 3})),
    ("no jobs created", [], False, _counts()),
    ("partial jobs created", [_job("a", R2, 5, None, 2, 3)], False, _counts(r2={"ready": 1})),
    ("no ready jobs, only succeeded jobs",
     [_job("a", R2, finished="Complete"), _job("b", R1, finished="Complete")], False,
     _counts(r1={"succeeded": 1}, r2={"succeeded": 1})),
    ("no ready jobs, only failed jobs",
     [_job("a", R2, finished="Failed"), _job("b", R1, finished="Failed"), _job("c", R1, finished="Failed"),
      _job("d", R1, finished="Failed")], False, _counts(r1={"failed": 3}, r2={"failed": 1})),
    ("active jobs", [_job("a", R1, 5, active=1), _job("b", R2, 5, active=5), _job("c", R2, 1)], False,
     _counts(r1={"active": 1}, r2={"active": 1})),
    ("suspended jobs", [_job("a", R1, 5, suspended=True), _job("b", R2, 5), _job("c", R2, 1, suspended=True)],
     True, _counts(r1={"suspended": 1}, r2={"suspended": 1})),
])
def test_calculate_replicated_job_statuses(case: str, jobs: list[ChildJob], suspend: bool,
                                           want: dict[str, dict[str, int]]) -> None:
    """Read from the status the decision writes (the failed case: the failure policy's status, whose
    ``replicatedJobsStatus`` is the same count)."""
    js = JobSetView(name=JS, namespace="default", suspend=suspend,
                    replicated_jobs=(RJob(R1, replicas=1), RJob(R2, replicas=3)))
    plan = sync_jobset(js, jobs, T0)
    assert plan.status is not None
    got = {s.name: {"ready": s.ready, "succeeded": s.succeeded, "failed": s.failed, "active": s.active,
                    "suspended": s.suspended} for s in plan.status.replicated_jobs_status}
    assert got == want, case


# --- TestCreateHeadlessSvcIfNecessary ------------------------------------------------------------------
@pytest.mark.parametrize(("case", "network", "name", "publish"), [
    ("service does not exist and should be created, subdomain not set", {}, JS, True),
    ("service does not exist and should be created, subdomain set", {"subdomain": "test-subdomain"},
     "test-subdomain", True),
    ("service does not exist and should be created, publishNotReadyAddresses is false",
     {"publishNotReadyAddresses": False}, JS, False),
    ("service does not exist and should be created, publishNotReadyAddresses is true",
     {"publishNotReadyAddresses": True}, JS, True),
])
def test_create_headless_service(case: str, network: dict[str, Any], name: str, publish: bool) -> None:
    cp = ControlPlane(seed=1, controllers="jobset")
    cp.apply(jobset(_rj("rj", 1), name=JS, network={"enableDNSHostnames": True, **network}))
    (svc,) = [s for s in cp.client.list(Service, "default").items if s.name != "kubernetes"]
    got = (svc.name, svc.spec.cluster_ip, svc.spec.publish_not_ready_addresses)
    assert got == (name, "None", publish), case


def test_headless_service_exists_and_should_not_be_created() -> None:
    """An existing Service of that name is left as it is (its own spec, no second one)."""
    cp = ControlPlane(seed=1, controllers="jobset")
    cp.client.create(Service.model_validate({"metadata": {"name": JS, "namespace": "default"},
                                             "spec": {"ports": [{"port": 80}]}}))
    cp.apply(jobset(_rj("rj", 1), name=JS))
    (svc,) = [s for s in cp.client.list(Service, "default").items if s.name != "kubernetes"]
    assert svc.spec.cluster_ip != "None" and svc.spec.selector is None


# --- TestGlobalJobIndex, TestGlobalReplicas, TestGroupJobIndex, TestGroupReplicas (on built Jobs) ------
def _built(rjobs: list[tuple[str, int, str]]) -> dict[str, dict[str, str]]:
    """The labels of every Job the JobSet gets, by Job name (kbatch's builder, which those helpers feed)."""
    from kbatch.controllers.jobset import build_job
    js = JobSet.model_validate({"metadata": {"name": "js", "namespace": "default", "uid": "u"}, "spec": {
        "replicatedJobs": [{"name": n, "replicas": r, "groupName": g, "template": {"spec": {"template": {}}}}
                           for n, r, g in rjobs]}})
    return {job.name: job.metadata.labels or {} for i, (_, r, _) in enumerate(rjobs) for idx in range(r)
            for job in [build_job(js, i, idx)]}


@pytest.mark.parametrize(("case", "rjobs", "job", "want"), [
    ("single replicated job", [("rjob", 3, "default")], "js-rjob-1", "1"),
    ("multiple replicated jobs", [("rjob1", 2, "default"), ("rjob2", 4, "default"), ("rjob3", 1, "default")],
     "js-rjob2-3", "5"),
])
def test_global_job_index(case: str, rjobs: list[tuple[str, int, str]], job: str, want: str) -> None:
    assert _built(rjobs)[job][c.JOB_GLOBAL_INDEX_KEY] == want, case


@pytest.mark.parametrize(("case", "rjobs", "want"), [
    ("single replicated job", [("a", 3, "default")], "3"),
    ("multiple replicated jobs", [("a", 2, "default"), ("b", 5, "default")], "7"),
])
def test_global_replicas(case: str, rjobs: list[tuple[str, int, str]], want: str) -> None:
    assert {labels[c.GLOBAL_REPLICAS_KEY] for labels in _built(rjobs).values()} == {want}, case


@pytest.mark.parametrize(("case", "rjobs", "job", "want"), [
    ("single replicated job in group", [("rjob1", 3, "groupa")], "js-rjob1-1", "1"),
    ("multiple replicated jobs in group",
     [("rjob1", 1, "groupa"), ("rjob2", 2, "groupb"), ("rjob3", 3, "groupa")], "js-rjob3-1", "2"),
])
def test_group_job_index(case: str, rjobs: list[tuple[str, int, str]], job: str, want: str) -> None:
    assert _built(rjobs)[job][c.JOB_GROUP_INDEX_KEY] == want, case


@pytest.mark.parametrize(("case", "rjobs", "group", "want"), [
    ("single replicated job in group", [("a", 1, "groupa")], "groupa", "1"),
    ("multiple replicated jobs in group", [("a", 1, "groupa"), ("b", 2, "groupa")], "groupa", "3"),
    ("multiple groups, replicas in target group", [("a", 1, "groupa"), ("b", 2, "groupb")], "groupb", "2"),
])
def test_group_replicas(case: str, rjobs: list[tuple[str, int, str]], group: str, want: str) -> None:
    got = {labels[c.GROUP_REPLICAS_KEY] for labels in _built(rjobs).values()
           if labels[c.GROUP_NAME_KEY] == group}
    assert got == {want}, case


# --- TestSyncJobScaling --------------------------------------------------------------------------------
@pytest.mark.parametrize(("case", "template", "elastic", "patched"), [
    ("jobs in sync, no patch needed", (2, 2), True, False),
    ("jobs out of sync, patch needed", (8, 8), True, True),
    ("parallelism is changed, completions kept the same (invalid scaling, no patch)", (8, 2), True, False),
    ("parallelism kept the same, completions is changed (invalid scaling, no patch)", (2, 8), True, False),
    ("jobs out of sync, but feature gate disabled (no patch)", (8, 8), False, False),
])
def test_sync_job_scaling(case: str, template: tuple[int, int], elastic: bool, patched: bool) -> None:
    js = JobSetView(name=JS, namespace="default",
                    replicated_jobs=(RJob("replicated-job", replicas=1, parallelism=template[0],
                                          completions=template[1]),))
    job = ChildJob(f"{JS}-replicated-job-0", rjob="replicated-job", job_index="0", restart_attempt="0",
                   parallelism=2, completions=2)
    plan = sync_jobset(js, [job], T0, Gates(elastic=elastic))
    assert [(s.name, s.parallelism, s.completions) for s in plan.scale] == (
        [(job.name, 8, 8)] if patched else []), case
