"""Workload timelines against hand-built objects with known time stamps."""

from __future__ import annotations

import pytest

from kbatch.reporting import build_report
from kbatch.reporting.kinds import SelfFacts, default_kinds
from kbatch.reporting.pods import pod_facts
from kbatch.reporting.workloads import peak_reached
from tests.reporting.builders import T0, custom, job, node, pod, ts


def _only(report, name):
    [found] = [w for w in report.workloads if w.name == name]
    return found


def test_one_pod_job_on_a_free_cluster() -> None:
    j = job("j", 0, started=0, complete=73)
    objs = [node("node-0", gpu=8), j, pod("j-a", 0, owner=j, scheduled=0, started=0, finished=72,
                                            requests={"nvidia.com/gpu": "8"})]
    w = _only(build_report(objs), "j")
    assert (w.kind, w.outcome, w.pods, w.failures, w.restarts) == ("Job", "Succeeded", 1, 0, 0)
    assert w.completion_time == 73 and w.run_time == 73
    assert w.queueing_delay == 0 and w.scheduling_latency == 0 and w.admission_delay == 0
    assert w.all_running == T0 and w.finished == T0.replace(minute=1, second=13)


def test_a_job_that_waited_for_a_node() -> None:
    j = job("late", 10, started=10, complete=115)
    objs = [node("node-0"), j, pod("late-a", 11, owner=j, scheduled=42.5, started=43, finished=114)]
    w = _only(build_report(objs), "late")
    assert w.queueing_delay == 32.5  # created 10, scheduled 42.5
    assert w.scheduling_latency == 31.5  # its pod was created at 11
    assert w.run_time == 72.5 and w.completion_time == 105
    assert w.queueing_delay + w.run_time == w.completion_time


def test_failed_job_counts_restarts_and_failures_from_the_job() -> None:
    j = job("bad", 0, started=0, failed_at=30, failed=3, parallelism=2, completions=4)
    objs = [j,
            pod("bad-a", 0, owner=j, scheduled=1, started=2, finished=10, exit_code=1, restarts=2),
            pod("bad-b", 0, owner=j, scheduled=1, started=3, finished=12, exit_code=1),
            pod("bad-c", 12, owner=j, scheduled=13, started=14, finished=29, exit_code=1, restarts=1)]
    w = _only(build_report(objs), "bad")
    assert (w.outcome, w.failures, w.restarts, w.pods) == ("Failed", 3, 3, 3)
    assert w.completion_time == 30 and w.first_scheduled == T0.replace(second=1)
    assert w.all_running == T0.replace(second=3)  # parallelism 2: both running from t=3


def test_all_running_needs_pods_running_at_once() -> None:
    j = job("par", 0, started=0, parallelism=3, completions=3)
    one = pod("p1", 0, owner=j, scheduled=0, started=1, finished=5)
    two = pod("p2", 0, owner=j, scheduled=0, started=5, finished=9)  # starts as p1 ends: not together
    three = pod("p3", 0, owner=j, scheduled=0, started=6)
    facts = [pod_facts(p) for p in (one, two, three)]
    assert peak_reached(facts, 2) == T0.replace(second=6)
    assert peak_reached(facts, 3) is None
    w = _only(build_report([j, one, two, three]), "par")
    assert w.all_running is None and w.outcome == "Running" and w.finished is None
    assert w.completion_time is None and w.queueing_delay == 0


def test_bare_pod_is_its_own_workload_and_owned_pods_of_unknown_kinds_are_not() -> None:
    rs = custom("apps/v1", "ReplicaSet", "rs", 0)
    objs = [node("node-0"), rs, pod("bare", 5, scheduled=6, started=7, finished=20),
            pod("rs-x", 0, owner=rs, scheduled=0, started=0, requests={"cpu": "2"})]
    report = build_report(objs, end=T0.replace(second=40))
    assert [(w.kind, w.name) for w in report.workloads] == [("Pod", "bare")]
    w = report.workloads[0]
    assert (w.outcome, w.completion_time, w.queueing_delay, w.run_time) == ("Succeeded", 15, 1, 14)
    cpu = next(u for u in report.utilisation if u.resource == "cpu")
    assert cpu.ratio[0].value == 0.5  # the ReplicaSet's pod still uses half the node's cpu


def test_pending_and_suspended_jobs() -> None:
    waiting = job("waiting", 0, started=0)
    held = job("held", 0, suspend=True)
    objs = [waiting, pod("waiting-a", 0, owner=waiting, node_name=None), held]
    report = build_report(objs, end=T0.replace(second=50))
    assert _only(report, "waiting").outcome == "Pending" and _only(report, "held").outcome == "Suspended"
    assert _only(report, "held").admitted is None and _only(report, "held").admission_delay is None
    assert [(s.t, s.value) for s in report.pending_pods] == [(0.0, 1.0)]
    assert [(s.t, s.value) for s in report.pending_workloads] == [(0.0, 2.0)]
    assert report.makespan == 50  # nothing finished: to the report's end


def test_kueue_workload_admits_its_job() -> None:
    j = job("kj", 0, started=20, complete=95)
    wl = custom("kueue.x-k8s.io/v1beta2", "Workload", "job-kj", 0, owner=j, status={
        "conditions": [{"type": "QuotaReserved", "status": "True", "lastTransitionTime": ts(19)},
                       {"type": "Admitted", "status": "True", "lastTransitionTime": ts(19.5)}],
        "admission": {"clusterQueue": "cq-a"}})
    objs = [j, wl, pod("kj-a", 20, owner=j, scheduled=21, started=21, finished=94)]
    report = build_report(objs, by="queue")
    w = _only(report, "kj")
    assert [x.name for x in report.workloads] == ["kj"]  # the Workload is no workload of its own
    assert w.queue == "cq-a" and w.admission_delay == 19.5 and w.queueing_delay == 21
    assert w.scheduling_latency == 1
    assert [g.group for g in report.groups] == ["cq-a", "all"]


def test_a_pending_workload_counts_under_its_local_queues_cluster_queue() -> None:
    """Before admission QUEUE is the ClusterQueue behind the LocalQueue the Workload waits in, so one
    ClusterQueue's pending and admitted workloads aggregate together (kueue ``localqueue_types.go``)."""
    done, waiting, stray = (job("done", 0, started=5, complete=40), job("waiting", 1, suspend=True),
                            job("stray", 1, suspend=True))
    kueue = "kueue.x-k8s.io/v1beta2"
    reserved = [{"type": "QuotaReserved", "status": "True", "lastTransitionTime": ts(4)}]
    admitted = custom(kueue, "Workload", "job-done", 0, owner=done, spec={"queueName": "cq-a"},
                      status={"conditions": reserved, "admission": {"clusterQueue": "cq-a"}})
    pending = custom(kueue, "Workload", "job-waiting", 1, owner=waiting, spec={"queueName": "team-a"})
    lost = custom(kueue, "Workload", "job-stray", 1, owner=stray, spec={"queueName": "nowhere"})
    routes = [custom(kueue, "LocalQueue", "team-a", 0, spec={"clusterQueue": "cq-a"}),
              custom(kueue, "LocalQueue", "cq-a", 0, spec={"clusterQueue": "cq-b"})]
    objs = [done, admitted, waiting, pending, stray, lost,
            pod("done-a", 5, owner=done, scheduled=5, started=5, finished=39)]
    report = build_report([*objs, *routes], by="queue")
    queues = {w.name: w.queue for w in report.workloads}
    # admitted: its admission's ClusterQueue, never re-routed through a LocalQueue of that name
    assert queues == {"done": "cq-a", "waiting": "cq-a", "stray": "nowhere"}  # no LocalQueue "nowhere"
    assert [g.group for g in report.groups] == ["cq-a", "nowhere", "all"]
    without = build_report(objs, by="queue")  # e.g. `kubectl get jobs,workloads -o json` alone
    assert {w.name: w.queue for w in without.workloads}["waiting"] == "team-a"


def test_jobset_folds_in_its_jobs_and_their_pods() -> None:
    js = custom("jobset.x-k8s.io/v1alpha2", "JobSet", "js", 0, spec={"replicatedJobs": [
        {"name": "w", "replicas": 2, "template": {"spec": {"parallelism": 1}}}]},
        status={"conditions": [{"type": "Completed", "status": "True", "lastTransitionTime": ts(80)}]})
    j1, j2 = job("js-w-0", 1, started=1, complete=79, owner=js), job("js-w-1", 1, started=1, complete=78,
                                                                      owner=js)
    objs = [js, j1, j2, pod("a", 1, owner=j1, scheduled=2, started=2, finished=77),
            pod("b", 1, owner=j2, scheduled=4, started=4, finished=76)]
    [w] = build_report(objs).workloads
    assert (w.kind, w.name, w.pods, w.outcome) == ("JobSet", "js", 2, "Succeeded")
    assert w.completion_time == 80 and w.queueing_delay == 2 and w.all_running == T0.replace(second=4)


def test_podgroup_gathers_pods_by_label() -> None:
    pg = custom("scheduling.x-k8s.io/v1alpha1", "PodGroup", "gang", 0, spec={"minMember": 2},
                status={"phase": "Running"})
    label = {"scheduling.x-k8s.io/pod-group": "gang"}
    objs = [pg, pod("g0", 0, labels=label, scheduled=30, started=30),
            pod("g1", 0, labels=label, scheduled=30, started=31),
            pod("other", 0, labels={"scheduling.x-k8s.io/pod-group": "gang"}, ns="elsewhere")]
    report = build_report(objs, end=T0.replace(minute=1))
    w = _only(report, "gang")
    assert (w.kind, w.pods, w.outcome) == ("PodGroup", 2, "Running")
    assert w.queueing_delay == 30 and w.all_running == T0.replace(second=31)
    assert _only(report, "other").kind == "Pod"  # same label in another namespace: not a member


def test_a_jobs_pods_in_a_podgroup_are_the_jobs_gang_not_a_second_workload() -> None:
    # seed 002's coscheduling study: a PodGroup and a Job of the same name, the Job's pods labelled
    pg = custom("scheduling.x-k8s.io/v1alpha1", "PodGroup", "train-0", 0, spec={"minMember": 2},
                status={"phase": "Finished"})
    lonely = custom("scheduling.x-k8s.io/v1alpha1", "PodGroup", "unused", 0, spec={"minMember": 2})
    j = job("train-0", 0, started=0, complete=73)
    label = {"scheduling.x-k8s.io/pod-group": "train-0"}
    objs = [pg, lonely, j, pod("t0", 0, owner=j, labels=label, scheduled=0, started=0, finished=72),
            pod("t1", 0, owner=j, labels=label, scheduled=0, started=0, finished=72)]
    report = build_report(objs)
    assert [(w.kind, w.name, w.pods) for w in report.workloads] == [("Job", "train-0", 2),
                                                                     ("PodGroup", "unused", 0)]
    assert report.workloads[0].completion_time == 73


def test_a_new_kind_plugs_in() -> None:
    class Widget:
        group, kind = "example.dev", "Widget"

        def member(self, pod):
            return None

        def facts(self, obj):
            return SelfFacts(created=None, admitted=None, finished=None, outcome="Succeeded")

    kinds = default_kinds()
    kinds.register(Widget())
    with pytest.raises(ValueError, match="already registered"):
        kinds.register(Widget())
    w = custom("example.dev/v1", "Widget", "w", 0)
    report = build_report([w, pod("w-p", 3, owner=w, scheduled=4, started=4, finished=9)], kinds=kinds)
    assert [(x.kind, x.outcome, x.pods) for x in report.workloads] == [("Widget", "Succeeded", 1)]


def test_missing_time_stamps_give_none_not_errors() -> None:
    j = job("j", 0)
    j["metadata"].pop("creationTimestamp")
    broken = pod("p", 0, owner=j, scheduled=1, started=1)
    broken["status"]["conditions"][0]["lastTransitionTime"] = "not a time"
    [w] = build_report([j, broken, {"kind": "Pod"}, "not an object"]).workloads  # type: ignore[list-item]
    assert w.created is None and w.completion_time is None and w.queueing_delay is None
    assert w.first_scheduled == T0.replace(second=1)  # a bound pod's start stands in for PodScheduled


def test_native_podgroup_gathers_pods_by_scheduling_group() -> None:
    pg = custom("scheduling.k8s.io/v1beta1", "PodGroup", "ring", 0,
                spec={"schedulingPolicy": {"gang": {"minCount": 2}}})
    a, b = pod("r0", 1, scheduled=20, started=20, finished=50), pod("r1", 1, scheduled=20, started=21,
                                                                    finished=50)
    for p in (a, b):
        p["spec"]["schedulingGroup"] = {"podGroupName": "ring"}
    owned = job("trainer", 0, started=0, complete=70)  # a PodGroup its Job owns is folded into the Job
    report = build_report([pg, a, b, owned, custom("scheduling.k8s.io/v1beta1", "PodGroup", "trainer-pg", 0,
                                                   owner=owned)])
    assert [(w.kind, w.name) for w in report.workloads] == [("Job", "trainer"), ("PodGroup", "ring")]
    w = report.workloads[1]
    assert (w.pods, w.outcome, w.queueing_delay, w.completion_time) == (2, "Succeeded", 20, 50)
    assert w.all_running == T0.replace(second=21)


def test_a_wrongly_shaped_object_is_named_in_one_error() -> None:
    from kbatch.reporting.wire import MalformedObject

    bad = pod("p", 0, scheduled=1, started=1)
    bad["spec"]["containers"] = ["not a container"]
    with pytest.raises(MalformedObject, match=r"cannot read pod default/p: a field has the wrong type"):
        build_report([bad])
    broken_job = job("j", 0, started=0)
    broken_job["spec"] = ["no"]
    with pytest.raises(MalformedObject, match=r"cannot read job.batch default/j"):
        build_report([broken_job])
