"""Upstream's JobSet controller integration table, on kbatch's control plane in virtual time.

Source: kubernetes-sigs/jobset v0.12.0 ``test/integration/controller/jobset_controller_test.go``
(``DescribeTable("jobset is created and its jobs go through a series of updates")`` and its helpers
``completeJob``, ``failJobWithOptions``, ``readyJob``, ``testJobSet``). Upstream runs envtest: an
API server and the JobSet controller, no Job controller, no garbage collector; each step writes Job
statuses and checks the JobSet. Here the control plane runs the ``jobset`` controller and the
garbage collector (which finishes the foreground deletions upstream's test finishes by removing the
``foregroundDeletion`` finalizers), and each step writes the same Job statuses through
``/status`` and settles the control plane.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api import edit
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Service
from kbatch.api.jobset_v1alpha2 import JobSet

A, B = "replicated-job-a", "replicated-job-b"
POD = {"containers": [{"name": "test", "image": "busybox"}]}


def test_jobset(**spec: Any) -> dict[str, Any]:
    """upstream's ``testJobSet``: replicated-job-a (1 Job) and Indexed replicated-job-b (3 Jobs)."""
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "test-js"},
            "spec": {"successPolicy": {"operator": "All", "targetReplicatedJobs": []},
                     "network": {"enableDNSHostnames": True},
                     "replicatedJobs": [
                         {"name": A, "replicas": 1, "template": {"spec": {"template": {"spec": POD}}}},
                         {"name": B, "replicas": 3, "template": {"spec": {"completionMode": "Indexed",
                                                                          "template": {"spec": POD}}}}],
                     **spec}}


test_jobset.__test__ = False  # type: ignore[attr-defined]  # a builder, not a test


class Cluster:
    """The control plane with the JobSet controller; the test plays the Job controller."""

    def __init__(self, manifest: dict[str, Any], gates: str = "",
                 controllers: str = "jobset,garbage-collector") -> None:
        self.cp = ControlPlane(seed=7, controllers=controllers, feature_gates=gates or None)
        self.cp.apply(manifest)
        self.name = manifest["metadata"]["name"]

    def js(self) -> JobSet:
        return self.cp.client.get(JobSet, self.name, "default")

    def jobs(self, rjob: str | None = None) -> list[Job]:
        items = sorted(self.cp.client.list(Job, "default").items, key=lambda j: j.name)
        return [j for j in items if rjob is None
                or (j.metadata.labels or {}).get("jobset.sigs.k8s.io/replicatedjob-name") == rjob]

    def _status(self, job: Job, status: dict[str, Any]) -> None:
        doc = self.cp.client.get(Job, job.name, "default").to_dict()
        doc["status"] = status
        self.cp.client.update_status(Job.model_validate(doc))

    def _now(self) -> str:
        return self.cp.now().strftime("%Y-%m-%dT%H:%M:%SZ")

    def complete(self, *jobs: Job) -> None:
        """``completeJob``."""
        for job in jobs:
            now = self._now()
            conds = [{"type": "SuccessCriteriaMet", "status": "True", "lastTransitionTime": now},
                     {"type": "Complete", "status": "True", "lastTransitionTime": now}]
            self._status(job, {"startTime": now, "completionTime": now, "conditions": conds,
                               "succeeded": job.spec.parallelism or 0})
        self.cp.run_until_idle()

    def fail(self, job: Job, reason: str = "", message: str = "") -> None:
        """``failJobWithOptions``."""
        now = self._now()
        conds = [{"type": "FailureTarget", "status": "True", "lastTransitionTime": now},
                 {"type": "Failed", "status": "True", "reason": reason, "message": message,
                  "lastTransitionTime": now}]
        self._status(job, {"startTime": now, "conditions": conds})
        self.cp.advance(1)  # the next failure is a second later: failure times order the Jobs
        self.cp.run_until_idle()

    def ready(self, *jobs: Job) -> None:
        """``readyJob``."""
        for job in jobs:
            n = job.spec.parallelism or 0
            self._status(job, {"active": n, "ready": n})
        self.cp.run_until_idle()

    def condition(self) -> str:
        """``testutil.JobSet{Active,Completed,Failed,Suspended}``: the terminal/suspended state."""
        st = self.js().status
        for kind in ("Failed", "Completed", "Suspended"):
            if st is not None and st.is_true(kind):
                return kind
        return "Active"

    def counts(self) -> tuple[int, int]:
        st = self.js().status
        return (st.restarts or 0, st.restarts_count_towards_max or 0) if st else (0, 0)

    def replicated(self) -> dict[str, dict[str, int]]:
        st = self.js().status
        return {s.name: {k: v for k, v in (("ready", s.ready), ("succeeded", s.succeeded),
                                           ("failed", s.failed), ("active", s.active),
                                           ("suspended", s.suspended)) if v}
                for s in (st.replicated_jobs_status or ())} if st else {}


Step = Callable[[Cluster], None]


def _expect(state: str) -> Step:
    def check(c: Cluster) -> None:
        assert c.condition() == state
    return check


def _restarts(restarts: int, towards_max: int | None = None) -> Step:
    def check(c: Cluster) -> None:
        assert c.counts() == (restarts, restarts if towards_max is None else towards_max)
    return check


def _fail_first(rjob: str | None = None, reason: str = "", message: str = "", index: int = 0) -> Step:
    def step(c: Cluster) -> None:
        c.fail(c.jobs(rjob)[index], reason, message)
    return step


def _complete(rjob: str | None = None, first: int | None = None) -> Step:
    def step(c: Cluster) -> None:
        jobs = c.jobs(rjob)
        c.complete(*(jobs if first is None else jobs[:first]))
    return step


def _jobs_count(n: int) -> Step:
    def check(c: Cluster) -> None:
        assert len([j for j in c.jobs() if j.metadata.deletion_timestamp is None]) == n
    return check


def _fp(max_restarts: int, *rules: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"failurePolicy": {"maxRestarts": max_restarts, "rules": list(rules), **extra}}


def _rule(action: str, **fields: Any) -> dict[str, Any]:
    return {"action": action, **fields}


def _restarting(status: str, reason: str) -> Step:
    def check(c: Cluster) -> None:
        cond = c.js().status.condition("RestartingJobSet")
        assert cond is not None and (cond.status, cond.reason) == (status, reason)
    return check


def _job_restarts(restarts: list[int] | None, towards_max: list[int] | None) -> Step:
    """``matchJobRestarts`` / ``matchJobRestartsCountTowardsMax`` (replicated-job-a)."""
    def check(c: Cluster) -> None:
        entry = next(s for s in c.js().status.replicated_jobs_status or () if s.name == A)
        assert (entry.job_restarts, entry.job_restarts_count_towards_max) == (restarts, towards_max)
    return check


def _by_attempt(want: dict[int, int]) -> Step:
    """``testutil.NumJobsByRestartAttempt``."""
    def check(c: Cluster) -> None:
        got: dict[int, int] = {}
        for job in c.jobs():
            attempt = int((job.metadata.labels or {})["jobset.sigs.k8s.io/restart-attempt"])
            got[attempt] = got.get(attempt, 0) + 1
        assert got == want
    return check


HOLD = "example.com/hold"


def _hold(c: Cluster) -> None:
    """Keeps the last Job's deletion pending (upstream: its foreground finalizer not yet removed)."""
    job = edit(c.jobs()[-1])
    job.metadata.finalizers = [*(job.metadata.finalizers or ()), HOLD]
    c.cp.client.update(job)


def _release(c: Cluster) -> None:
    """``removeForegroundDeletionFinalizers`` for the held Job."""
    for job in c.jobs():
        if HOLD in (job.metadata.finalizers or ()):
            job = edit(job)
            job.metadata.finalizers = [f for f in job.metadata.finalizers or () if f != HOLD]
            c.cp.client.update(job)
    c.cp.run_until_idle()


def _ready_all(c: Cluster) -> None:
    c.ready(*c.jobs())


MFIE = "MaxFailedIndexesExceeded"

def _patch(spec: dict[str, Any]) -> Step:
    def step(c: Cluster) -> None:
        c.cp.client.patch(JobSet, c.name, {"spec": spec}, "default")
        c.cp.run_until_idle()
    return step


def _jobs_suspended(suspended: bool) -> Step:
    """``matchJobsSuspendState``."""
    def check(c: Cluster) -> None:
        assert {bool(j.spec.suspend) for j in c.jobs()} == {suspended}
    return check


def _suspended_condition(status: str) -> Step:
    """``testutil.JobSetSuspended`` / ``JobSetResumed``."""
    def check(c: Cluster) -> None:
        cond = c.js().status.condition("Suspended")
        assert cond is not None and cond.status == status
    return check


def _set_jobs_suspended_condition(c: Cluster) -> None:
    """``setJobsSuspendedCondition`` (what the Job controller writes for a suspended Job)."""
    for job in c.jobs():
        c._status(job, {"conditions": [{"type": "Suspended", "status": "True",
                                        "lastTransitionTime": c._now()}]})
    c.cp.run_until_idle()


TEMPLATE_UPDATES = {"labels": {"label": "value"}, "annotations": {"annotation": "value"},
                    "nodeSelector": {"node-selector-test-a": "node-selector-test-a"},
                    "tolerations": [{"key": "key", "operator": "Exists"}]}


def _update_pod_templates(c: Cluster) -> None:
    """``updatePodTemplates``: what Kueue writes into a suspended JobSet."""
    doc = c.js().to_dict()
    for rjob in doc["spec"]["replicatedJobs"]:
        pod = rjob["template"]["spec"]["template"]
        pod["metadata"] = {"labels": TEMPLATE_UPDATES["labels"],
                           "annotations": TEMPLATE_UPDATES["annotations"]}
        pod["spec"]["nodeSelector"] = TEMPLATE_UPDATES["nodeSelector"]
        pod["spec"]["tolerations"] = TEMPLATE_UPDATES["tolerations"]
    c.cp.client.update(JobSet.model_validate(doc))
    c.cp.run_until_idle()


def _pod_templates_updated(c: Cluster) -> None:
    """``checkPodTemplateUpdates``."""
    for job in c.jobs():
        pod = job.to_dict()["spec"]["template"]
        assert TEMPLATE_UPDATES["labels"].items() <= pod["metadata"]["labels"].items()
        assert TEMPLATE_UPDATES["annotations"].items() <= pod["metadata"]["annotations"].items()
        assert TEMPLATE_UPDATES["nodeSelector"].items() <= pod["spec"]["nodeSelector"].items()
        assert all(t in pod["spec"]["tolerations"] for t in TEMPLATE_UPDATES["tolerations"])


def _services(names: list[str]) -> Step:
    def check(c: Cluster) -> None:
        assert [s.name for s in _job_services(c)] == names
    return check


def _delete_service(c: Cluster) -> None:
    c.cp.client.delete(Service, "test-js", "default")
    c.cp.run_until_idle()


def _startup(type_: str) -> Step:
    """``JobSetStartupPolicyNotFinished`` / ``...Complete``: that condition True."""
    def check(c: Cluster) -> None:
        assert c.js().status.is_true(type_)
    return check


def _ready_rjob(rjob: str) -> Step:
    def step(c: Cluster) -> None:
        c.ready(*c.jobs(rjob))
    return step


def _active_rjob(rjob: str) -> Step:
    def step(c: Cluster) -> None:
        for job in c.jobs(rjob):
            c._status(job, {"active": job.spec.parallelism or 0})
        c.cp.run_until_idle()
    return step


def _replicated(want: dict[str, dict[str, int]]) -> Step:
    def check(c: Cluster) -> None:
        assert c.replicated() == want
    return check


def _coordinator(endpoint: str) -> Step:
    """``checkCoordinator``: the label and annotation on every Job and its pod template."""
    def check(c: Cluster) -> None:
        key = "jobset.sigs.k8s.io/coordinator"
        for job in c.jobs():
            pod = job.spec.template.metadata
            assert {(job.metadata.labels or {})[key], (job.metadata.annotations or {})[key],
                    (pod.labels or {})[key], (pod.annotations or {})[key]} == {endpoint}
    return check


def _depends_on() -> dict[str, Any]:
    """upstream's ``depends-on`` JobSet (its name kept as ``test-js``): rjob-b waits for rjob-a Ready."""
    manifest = test_jobset()
    a, b = manifest["spec"]["replicatedJobs"]
    a["name"], b["name"] = "rjob-a", "rjob-b"
    b["template"]["spec"].pop("completionMode")
    b["dependsOn"] = [{"name": "rjob-a", "status": "Ready"}]
    return manifest


def _coordinated() -> dict[str, Any]:
    """upstream's entry leaves replicated-job-a without completions, which ``vjobset.kb.io`` refuses
    (upstream's controller suite runs without webhooks): here it is Indexed with one completion."""
    manifest = test_jobset(coordinator={"replicatedJob": A, "jobIndex": 0, "podIndex": 0})
    manifest["spec"]["replicatedJobs"][0]["template"]["spec"].update(completionMode="Indexed", completions=1)
    return manifest


def _chain(*rjobs: tuple[str, int, list[tuple[str, str]]]) -> dict[str, Any]:
    """A JobSet ``test-js`` of replicated jobs (name, replicas, dependsOn (name, status)...)."""
    manifest = test_jobset()
    manifest["spec"]["replicatedJobs"] = [
        {"name": n, "replicas": r, "template": {"spec": {"template": {"spec": POD}}},
         **({"dependsOn": [{"name": d, "status": st} for d, st in deps]} if deps else {})}
        for n, r, deps in rjobs]
    return manifest


DEPENDS_CHAIN = _chain(("rjob-a", 1, []), ("rjob-b", 1, [("rjob-a", "Complete")]),
                       ("rjob-c", 3, [("rjob-b", "Ready")]))


DEPENDS_ON = _depends_on()
COORDINATED = _coordinated()


PFP, BLE = "PodFailurePolicy", "BackoffLimitExceeded"
MSG = "Pod default/mypod-0 has condition DisruptionTarget matching FailJob rule at index 0"

ENTRIES: list[tuple[str, dict[str, Any], str, list[Step]]] = [
    ("jobset should successfully create jobs", test_jobset(), "", [_jobs_count(4)]),
    ("jobset should succeed after all jobs succeed", test_jobset(), "",
     [_complete(), _expect("Completed"),
      lambda c: _eq(c.replicated(), {B: {"succeeded": 3}, A: {"succeeded": 1}})]),
    ("jobset should not succeed if any job is not completed", test_jobset(), "",
     [lambda c: (c.complete(*c.jobs()[:-1]), c.ready(c.jobs()[-1])), _expect("Active"),
      lambda c: _eq(c.replicated(), {B: {"succeeded": 2, "ready": 1, "active": 1}, A: {"succeeded": 1}})]),
    ("success policy 'all' with empty replicated jobs list", test_jobset(), "",
     [_complete(A), _expect("Active"), _complete(B), _expect("Completed")]),
    ("success policy 'all' with replicated jobs specified",
     test_jobset(successPolicy={"operator": "All", "targetReplicatedJobs": [B]}), "",
     [_complete(A), _expect("Active"), _complete(B, first=1), _expect("Active"),
      lambda c: c.complete(*c.jobs(B)[1:]), _expect("Completed")]),
    ("success policy 'any' with replicated job specified",
     test_jobset(successPolicy={"operator": "Any", "targetReplicatedJobs": [B]}), "",
     [_complete(B, first=1), _expect("Completed")]),
    ("success policy 'any' without replicated job specified",
     test_jobset(successPolicy={"operator": "Any", "targetReplicatedJobs": []}), "",
     [lambda c: c.complete(c.jobs()[1]), _expect("Completed")]),
    ("[failure policy] jobset with no failure policy should fail if any jobs fail", test_jobset(), "",
     [_fail_first(), _expect("Failed")]),
    ("jobset with DNS hostnames enabled should created 1 headless service per job and succeed when all jobs "
     "succeed", test_jobset(), "",
     [lambda c: _eq(len(_job_services(c)), 1), _complete(), _expect("Completed")]),
    ("fails from first run, no restarts", test_jobset(), "", [_fail_first(), _expect("Failed")]),
    ("jobset fails after reaching max restarts", test_jobset(**_fp(1)), "",
     [_fail_first(), _expect("Active"), _jobs_count(4), _fail_first(index=1), _expect("Failed")]),
    ("[failure policy] jobset fails immediately with FailJobSet failure policy action.",
     test_jobset(**_fp(1, _rule("FailJobSet", onJobFailureReasons=[]))), "",
     [_fail_first(reason=PFP), _expect("Failed"), _restarts(0)]),
    ("[failure policy] jobset does not fail immediately with FailJobSet failure policy action as the failure "
     "reason is not matched.",
     test_jobset(**_fp(1, _rule("FailJobSet", onJobFailureReasons=[PFP]))), "",
     [_fail_first(reason=BLE), _expect("Active"), _restarts(1)]),
    ("[failure policy] jobset does not fail immediately with FailJobSet failure policy action as the failure "
     "message is not matched.",
     test_jobset(**_fp(1, _rule("FailJobSet", onJobFailureMessagePatterns=[".* DisruptionTarget .*"]))), "",
     [_fail_first(reason=PFP, message="another message"), _expect("Active"), _restarts(1)]),
    ("[failure policy] jobset does not fail immediately with FailJobSet failure policy action as the failure "
     "message is not matched, even if reason is matched.",
     test_jobset(**_fp(1, _rule("FailJobSet", onJobFailureReasons=[PFP],
                                onJobFailureMessagePatterns=[".* DisruptionTarget .*"]))), "",
     [_fail_first(reason=PFP, message="another message"), _expect("Active"), _restarts(1)]),
    ("[failure policy] jobset fails immediately with FailJobSet failure policy action as the failure reason "
     "and message are matched.",
     test_jobset(**_fp(1, _rule("FailJobSet", onJobFailureReasons=[PFP],
                                onJobFailureMessagePatterns=[".* DisruptionTarget .*"]))), "",
     [_fail_first(reason=PFP, message=MSG), _expect("Failed"), _restarts(0)]),
    ("[failure policy] jobset restarts with RestartJobSet failure policy action (without RestartJob feature "
     "gate).", test_jobset(**_fp(1, _rule("RestartJobSet", onJobFailureReasons=[PFP]))), "",
     [_fail_first(reason=PFP), _expect("Active"), _restarts(1), _jobs_count(4), _fail_first(reason=PFP),
      _expect("Failed"), _restarts(1)]),
    ("[failure policy] jobset restarts with RestartJobSet failure policy action (with RestartJob feature "
     "gate).", test_jobset(**_fp(1, _rule("RestartJobSet", onJobFailureReasons=[PFP]))), "RestartJob=true",
     [_fail_first(reason=PFP), _expect("Active"), _restarts(1), _jobs_count(4), _fail_first(reason=PFP),
      _expect("Failed"), _restarts(1)]),
    ("[failure policy] jobset restarts with RestartJobSetAndIgnoreMaxRestarts failure policy action "
     "(without RestartJob feature gate).",
     test_jobset(**_fp(1, _rule("RestartJobSetAndIgnoreMaxRestarts", onJobFailureReasons=[PFP]))), "",
     [_fail_first(reason=PFP), _expect("Active"), _restarts(1, 0), _fail_first(reason=PFP), _expect("Active"),
      _restarts(2, 0), _fail_first(reason=BLE), _expect("Active"), _restarts(3, 1), _fail_first(reason=BLE),
      _expect("Failed"), _restarts(3, 1)]),
    ("[failure policy] job fails and the parent replicated job is contained in TargetReplicatedJobs.",
     test_jobset(**_fp(1, _rule("FailJobSet", targetReplicatedJobs=[A]))), "",
     [_fail_first(A), _expect("Failed"), _restarts(0)]),
    ("[failure policy] job fails and the parent replicated job is not contained in TargetReplicatedJobs.",
     test_jobset(**_fp(1, _rule("FailJobSet", targetReplicatedJobs=[A]))), "",
     [_fail_first(B), _expect("Active"), _restarts(1)]),
    ("job succeeds after one failure", test_jobset(**_fp(1)), "",
     [_fail_first(), _expect("Active"), _jobs_count(4), _complete(), _expect("Completed")]),
    ("jobset created in suspended state", test_jobset(suspend=True), "",
     [lambda c: _eq({bool(j.spec.suspend) for j in c.jobs()}, {True}), _expect("Suspended")]),
    ("update replicatedJobsStatuses after all jobs succeed", test_jobset(), "",
     [_complete(), lambda c: _eq(c.replicated(), {A: {"succeeded": 1}, B: {"succeeded": 3}})]),
    ("active jobs are deleted after jobset succeeds",
     test_jobset(successPolicy={"operator": "Any", "targetReplicatedJobs": []}), "",
     [lambda c: c.complete(c.jobs()[0]), _expect("Completed"), _jobs_count(1)]),
    ("active jobs are deleted after jobset fails", test_jobset(), "",
     [_fail_first(), _expect("Failed"), _jobs_count(1)]),
    ("jobset restarting condition transitions",
     test_jobset(**_fp(1, _rule("RestartJobSet", name="Rule1", onJobFailureReasons=[PFP]))), "",
     [_fail_first(reason=PFP), _expect("Active"), _restarting("True", "FailurePolicy_Rule1"), _ready_all,
      _restarting("False", "JobsReady")]),
    ("[failure policy] jobset restarts with RestartJob failure policy action.",
     test_jobset(**_fp(1, _rule("RestartJob", onJobFailureReasons=[PFP]), _rule("FailJobSet"))),
     "RestartJob=true",
     [_fail_first(reason=PFP), _expect("Active"), _restarts(0), _job_restarts([1], [1])]),
    ("[failure policy] jobset restarts with RestartJobAndIgnoreMaxRestarts failure policy action.",
     test_jobset(**_fp(1, _rule("RestartJobAndIgnoreMaxRestarts", onJobFailureReasons=[PFP]),
                       _rule("FailJobSet"))), "RestartJob=true",
     [_fail_first(reason=PFP), _expect("Active"), _restarts(0), _job_restarts([1], None)]),
    ("[failure policy] jobset restarts with RestartJobSet failure policy action (with RestartJob feature "
     "gate), job restarts untouched",
     test_jobset(**_fp(1, _rule("RestartJobSet", onJobFailureReasons=[PFP]), _rule("FailJobSet"))),
     "RestartJob=true",
     [_fail_first(reason=PFP), _expect("Active"), _restarts(1), _job_restarts(None, None)]),
    ("[failure policy] jobs are restarted individually with Recreate strategy.",
     test_jobset(**_fp(1, restartStrategy="Recreate")), "",
     [_hold, _fail_first(reason=PFP), _expect("Active"), _restarts(1), _by_attempt({0: 1, 1: 3}), _release,
      _by_attempt({1: 4})]),
    ("[failure policy] jobs are recreated after all Jobs are deleted with BlockingRecreate strategy.",
     test_jobset(**_fp(1, restartStrategy="BlockingRecreate")), "",
     [_hold, _fail_first(reason=PFP), _expect("Active"), _restarts(1), _by_attempt({0: 1}), _release,
      _by_attempt({1: 4})]),
    ("[failure policy] failure policy rules order verification test 1",
     test_jobset(**_fp(1, _rule("FailJobSet", onJobFailureReasons=[MFIE], targetReplicatedJobs=[A]),
                       _rule("RestartJobSet", onJobFailureReasons=[MFIE], targetReplicatedJobs=[A]))), "",
     [_fail_first(A, reason=MFIE), _expect("Failed"), _restarts(0)]),
    ("[failure policy] failure policy rules order verification test 2",
     test_jobset(**_fp(1, _rule("RestartJobSet", onJobFailureReasons=[MFIE], targetReplicatedJobs=[A]),
                       _rule("FailJobSet", onJobFailureReasons=[MFIE], targetReplicatedJobs=[A]))), "",
     [_fail_first(A, reason=MFIE), _expect("Active"), _restarts(1)]),
    ("[failure policy] failure policy rules order verification test 3",
     test_jobset(**_fp(1, _rule("RestartJobSetAndIgnoreMaxRestarts", onJobFailureReasons=[MFIE],
                                targetReplicatedJobs=[A]),
                       _rule("FailJobSet", onJobFailureReasons=[], targetReplicatedJobs=[]))), "",
     [_fail_first(A, reason=MFIE), _expect("Active"), _restarts(1, 0), _fail_first(A, reason=MFIE),
      _expect("Active"), _restarts(2, 0), _fail_first(A, reason=MFIE), _expect("Active"), _restarts(3, 0),
      _fail_first(B), _expect("Failed"), _restarts(3, 0)]),
    ("jobset created in suspended state (replicated status)", test_jobset(suspend=True), "",
     [_jobs_suspended(True), _suspended_condition("True"),
      _replicated({B: {"suspended": 3}, A: {"suspended": 1}})]),
    ("resume a suspended jobset", test_jobset(suspend=True), "",
     [_jobs_suspended(True), _suspended_condition("True"), _set_jobs_suspended_condition,
      _update_pod_templates,
      _replicated({B: {"suspended": 3}, A: {"suspended": 1}}), _patch({"suspend": False}),
      _jobs_suspended(False), _suspended_condition("False"), _pod_templates_updated, _complete(),
      _expect("Completed"), _replicated({B: {"succeeded": 3}, A: {"succeeded": 1}})]),
    ("suspend a running jobset", test_jobset(suspend=False), "",
     [_jobs_suspended(False), _patch({"suspend": True}), _jobs_suspended(True),
      _suspended_condition("True")]),
    ("service deleted", test_jobset(), "", [_services(["test-js"]), _delete_service, _services(["test-js"])]),
    ("startupPolicy InOrder; replicated-job-a not ready then replicated-job-b should not run",
     test_jobset(startupPolicy={"startupPolicyOrder": "InOrder"}), "",
     [_jobs_count(1), _startup("StartupPolicyInProgress"), _ready_rjob(A), _jobs_count(4),
      _replicated({B: {}, A: {"ready": 1, "active": 1}}), _active_rjob(B),
      _replicated({B: {"active": 3}, A: {"ready": 1, "active": 1}}), _startup("StartupPolicyInProgress"),
      _ready_rjob(B), _replicated({B: {"ready": 3, "active": 3}, A: {"ready": 1, "active": 1}}),
      _startup("StartupPolicyCompleted")]),
    ("DependsOn: rjob-b depends on ready status of rjob-a", DEPENDS_ON, "",
     [_jobs_count(1), _ready_rjob("rjob-a"), _replicated({"rjob-b": {}, "rjob-a": {"ready": 1, "active": 1}}),
      _jobs_count(4), _ready_rjob("rjob-b"),
      _replicated({"rjob-b": {"ready": 3, "active": 3}, "rjob-a": {"ready": 1, "active": 1}})]),
    ("jobset with coordinator set should have annotation and label set on all jobs", COORDINATED, "",
     [_coordinator("test-js-replicated-job-a-0-0.test-js")]),
    ("succeeds from first run", test_jobset(), "",
     [_services(["test-js"]), _complete(), _expect("Completed")]),
    ("[failure policy] jobset fails immediately with FailJobSet failure policy action as the failure reason "
     "and message are matched, even if message string is not an exact match",
     test_jobset(**_fp(1, _rule("FailJobSet", onJobFailureReasons=[PFP],
                                onJobFailureMessagePatterns=["some message"]))), "",
     [_fail_first(reason=PFP, message="this is some message with critical error"), _expect("Failed"),
      _restarts(0)]),
    ("[failure policy] jobset restarts with RestartJobSetAndIgnoreMaxRestarts failure policy action (with "
     "RestartJob feature gate).",
     test_jobset(**_fp(1, _rule("RestartJobSetAndIgnoreMaxRestarts", onJobFailureReasons=[PFP]),
                       _rule("FailJobSet"))), "RestartJob=true",
     [_fail_first(reason=PFP), _expect("Active"), _restarts(1, 0), _fail_first(reason=PFP), _expect("Active"),
      _restarts(2, 0), _fail_first(reason=PFP), _expect("Active"), _restarts(3, 0),
      _job_restarts(None, None)]),
    ("startupPolicy with InOrder; suspend should keep jobs suspended",
     test_jobset(suspend=True, startupPolicy={"startupPolicyOrder": "InOrder"}), "",
     [_replicated({B: {"suspended": 3}, A: {"suspended": 1}})]),
    ("startupPolicy with AnyOrder; suspend should keep jobs suspended",
     test_jobset(suspend=True, startupPolicy={"startupPolicyOrder": "AnyOrder"}), "",
     [_replicated({B: {"suspended": 3}, A: {"suspended": 1}})]),
    ("startupPolicy with AnyOrder; resume suspended JobSet",
     test_jobset(suspend=True, startupPolicy={"startupPolicyOrder": "AnyOrder"}), "",
     [_replicated({B: {"suspended": 3}, A: {"suspended": 1}}), _patch({"suspend": False}),
      _jobs_suspended(False), _replicated({B: {}, A: {}})]),
    ("startupPolicy with InOrder; resume suspended JobSet",
     test_jobset(suspend=True, startupPolicy={"startupPolicyOrder": "InOrder"}), "",
     [_replicated({B: {"suspended": 3}, A: {"suspended": 1}}), _patch({"suspend": False}),
      _replicated({B: {"suspended": 3}, A: {}}), _ready_rjob(A),
      _replicated({B: {}, A: {"ready": 1, "active": 1}}), _startup("StartupPolicyInProgress"), _ready_rjob(B),
      _replicated({B: {"ready": 3, "active": 3}, A: {"ready": 1, "active": 1}}),
      _startup("StartupPolicyCompleted")]),
    ("DependsOn: rjob-b depends on complete status of rjob-a, and rjob-c depends on ready status of rjob-b",
     DEPENDS_CHAIN, "",
     [_jobs_count(1), _complete("rjob-a"),
      _replicated({"rjob-c": {}, "rjob-b": {}, "rjob-a": {"succeeded": 1}}),
      _jobs_count(2), _ready_rjob("rjob-b"), _jobs_count(5),
      _replicated({"rjob-c": {}, "rjob-b": {"ready": 1, "active": 1}, "rjob-a": {"succeeded": 1}}),
      _complete(), _replicated({"rjob-c": {"succeeded": 3}, "rjob-b": {"succeeded": 1},
                                "rjob-a": {"succeeded": 1}})]),
]


SKIP_CREATION_CHECK = {  # upstream's skipCreationCheck: true
    "startupPolicy InOrder; replicated-job-a not ready then replicated-job-b should not run",
    "DependsOn: rjob-b depends on ready status of rjob-a",
    "DependsOn: rjob-b depends on complete status of rjob-a, and rjob-c depends on ready status of rjob-b",
}


def _eq(got: object, want: object) -> None:
    assert got == want


def _job_services(c: Cluster) -> list[Service]:
    """The Services of ``default`` but the API server's own ``kubernetes``."""
    return [s for s in c.cp.client.list(Service, "default").items if s.name != "kubernetes"]


@pytest.mark.parametrize(("case", "manifest", "gates", "steps"), ENTRIES, ids=[e[0][:90] for e in ENTRIES])
def test_jobset_through_a_series_of_updates(case: str, manifest: dict[str, Any], gates: str,
                                            steps: list[Step]) -> None:
    cluster = Cluster(manifest, gates)
    if case not in SKIP_CREATION_CHECK:
        replicas = sum(r.get("replicas", 1) for r in manifest["spec"]["replicatedJobs"])
        assert len(cluster.jobs()) == replicas, "checking all jobs were created successfully"
    for i, step in enumerate(steps):
        try:
            step(cluster)
        except AssertionError as err:
            raise AssertionError(f"{case}: step {i}: {err}") from err


# --- the integration suite's ``When``/``It`` blocks -----------------------------------------------------
def _managed_elsewhere() -> Cluster:
    """"A JobSet is managed by another controller": upstream's ``other-controller`` is refused by
    ``vjobset.kb.io`` (not a domain-prefixed path; upstream's controller suite runs without webhooks),
    so the manager is ``example.com/other-controller``."""
    return Cluster(test_jobset(managedBy="example.com/other-controller"))


def test_managed_by_another_controller_no_jobs_while_suspended() -> None:
    cluster = _managed_elsewhere()
    cluster.cp.advance(30)
    assert cluster.jobs() == []


def test_managed_by_another_controller_no_jobs_when_unsuspended() -> None:
    cluster = _managed_elsewhere()
    _patch({"suspend": False})(cluster)
    cluster.cp.advance(30)
    assert cluster.jobs() == []


def test_managed_by_another_controller_status_updates_are_preserved() -> None:
    cluster = _managed_elsewhere()
    doc = cluster.js().to_dict()
    rjob_status = {"name": A, "ready": 2, "succeeded": 3, "failed": 4, "active": 5, "suspended": 6}
    doc["status"] = {"conditions": [{"type": "Failed", "status": "False", "reason": "ByTest", "message": "",
                                     "lastTransitionTime": cluster._now()}],
                     "restarts": 1, "replicatedJobsStatus": [rjob_status]}
    cluster.cp.client.update_status(JobSet.model_validate(doc))
    cluster.cp.advance(30)
    status = cluster.js().to_dict()["status"]
    assert status["restarts"] == 1 and status["conditions"][0]["reason"] == "ByTest"
    assert status["replicatedJobsStatus"] == doc["status"]["replicatedJobsStatus"]


def test_ttl_deletes_only_the_finished_jobset_with_ttl_after_it_passes() -> None:
    """"JobSet controller should delete it after configured ttl duration passes": js1 (ttl 2s) fails,
    js2 (no ttl) completes; js1's active Jobs are deleted, then js1 itself once 2s have passed."""
    cp = ControlPlane(seed=7, controllers="jobset,garbage-collector")
    from kbatch.api.core_v1 import Namespace
    for ns in ("ns1", "ns2"):
        cp.client.create(Namespace.model_validate({"metadata": {"name": ns}}))
    cp.apply(test_jobset(ttlSecondsAfterFinished=2), namespace="ns1")
    cp.apply(test_jobset(), namespace="ns2")
    one = sorted(cp.client.list(Job, "ns1").items, key=lambda j: j.name)
    two = cp.client.list(Job, "ns2").items
    assert len(one) == len(two) == 4
    now = cp.now().strftime("%Y-%m-%dT%H:%M:%SZ")
    failed = one[0].to_dict()
    failed["status"] = {"startTime": now, "conditions": [
        {"type": "FailureTarget", "status": "True", "lastTransitionTime": now},
        {"type": "Failed", "status": "True", "lastTransitionTime": now}]}
    cp.client.update_status(Job.model_validate(failed))
    for job in two:
        done = job.to_dict()
        done["status"] = {"startTime": now, "completionTime": now, "succeeded": 1, "conditions": [
            {"type": "SuccessCriteriaMet", "status": "True", "lastTransitionTime": now},
            {"type": "Complete", "status": "True", "lastTransitionTime": now}]}
        cp.client.update_status(Job.model_validate(done))
    cp.run_until_idle()
    assert cp.client.get(JobSet, "test-js", "ns1").status.is_true("Failed")
    assert cp.client.get(JobSet, "test-js", "ns2").status.is_true("Completed")
    assert [j.name for j in cp.client.list(Job, "ns1").items] == [one[0].name]  # the active ones deleted
    cp.advance(3)
    assert not cp.client.list(JobSet, "ns1").items
    assert cp.client.get(JobSet, "test-js", "ns2").metadata.deletion_timestamp is None


def test_an_invalid_job_template_emits_an_accumulating_warning_event() -> None:
    """"a JobSet is created with an invalid Job template": a container without an image passes the
    CRD and the webhooks, the Job create fails, and ``JobCreationFailed`` is a Warning event whose
    repeats accumulate on the one event (``series.count`` > 1 upstream; an event's count here)."""
    from kbatch.api.core_v1 import Event
    manifest = test_jobset()
    manifest["metadata"]["name"] = "invalid-jobset"
    manifest["spec"]["replicatedJobs"] = [{"name": A, "replicas": 1, "template": {"spec": {"template": {
        "spec": {"containers": [{"name": "test", "image": ""}]}}}}}]
    cluster = Cluster(manifest)
    cluster.cp.advance(60)
    events = [e for e in cluster.cp.client.list(Event, "default").items
              if e.involved_object.kind == "JobSet" and e.reason == "JobCreationFailed"]
    assert len(events) == 1 and events[0].type == "Warning"
    series = events[0].series.count if events[0].series else None
    assert (events[0].count or 0) > 1 or (series or 0) > 1


def test_generate_name_with_dns_hostnames_names_the_service_after_the_jobset() -> None:
    """"jobset using generateName with enableDNSHostnames should have headless service name set to the
    jobset name": the name is generated before the controller sees the JobSet."""
    manifest = test_jobset()
    manifest["metadata"] = {"generateName": "name-prefix"}
    cp = ControlPlane(seed=7, controllers="jobset,garbage-collector")
    cp.client.create(JobSet.model_validate({**manifest, "metadata": {"generateName": "name-prefix",
                                                                     "namespace": "default"}}))
    cp.run_until_idle()
    (js,) = cp.client.list(JobSet, "default").items
    assert js.name.startswith("name-prefix")
    assert [s.name for s in cp.client.list(Service, "default").items if s.name != "kubernetes"] == [js.name]


def test_jobset_should_ignore_jobs_with_same_owner_name_but_different_owner_uid() -> None:
    """The entry of that name, without the garbage collector (as envtest), so the stray Job stays."""
    cluster = Cluster(test_jobset(), controllers="jobset")
    stray = Job.model_validate({
        "metadata": {"name": "dummy-job", "namespace": "default",
                     "ownerReferences": [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
                                          "name": "test-js", "uid": "12345678-1234-1234-1234-123456789abc",
                                          "controller": True}],
                     "labels": {"jobset.sigs.k8s.io/jobset-name": "test-js",
                                "jobset.sigs.k8s.io/replicatedjob-name": "non-existent-replicated-job"}},
        "spec": {"template": {"spec": {"restartPolicy": "Never",
                                       "containers": [{"name": "test", "image": "bash:latest"}]}}}})
    cluster.cp.client.create(stray)
    cluster.complete(*[j for j in cluster.jobs() if j.name != "dummy-job"])
    assert cluster.condition() == "Completed"
    assert cluster.replicated() == {B: {"succeeded": 3}, A: {"succeeded": 1}}
