"""Elastic batch/v1 Jobs through the whole control plane (``ElasticJobsViaWorkloadSlices``).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/workloadslicing``, ``pkg/controller/jobframework/
reconciler.go`` (the slice paths), ``pkg/scheduler/scheduler.go`` (``replaceWorkloadSlice``),
``pkg/scheduler/flavorassigner`` (the delta and the kept flavor), ``pkg/controller/elasticjobs``
(the ungater), ``pkg/controller/jobs/job/job_webhook.go``, ``pkg/webhooks/workload_webhook.go``;
the scenario of ``test/integration/singlecluster/controller/jobs/job`` "elastic job" specs and
KEP-77 (dynamically sized jobs).
"""

from __future__ import annotations

import pytest

from kbatch.api import edit
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Event, Pod
from kbatch.api.errors import Forbidden
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.jobframework.names import workload_name

from .helpers import World, cluster_queue, flavor, local_queue, quota
from .test_jobs import job, node

ELASTIC = {"kueue.x-k8s.io/elastic-job": "true"}
GATE = "kueue.x-k8s.io/elastic-job"


def _world(nominal: str = "4", **kw) -> World:
    return World(node("n-a", "a"), node("n-b", "b"), flavor("fa", labels={"pool": "a"}),
                 cluster_queue("cq", (["cpu"], [("fa", [quota("cpu", nominal)])])),
                 local_queue("lq", "cq"), controllers="*", **kw)


def elastic_job(name: str, parallelism: int, seconds: int = 600) -> dict:
    j = job(name, parallelism=parallelism, seconds=seconds)
    j["metadata"]["annotations"] = dict(ELASTIC)
    j["spec"]["completions"] = None
    return j


def scale(w: World, name: str, parallelism: int) -> None:
    j = edit(w.cp.client.get(Job, name, "default"))
    j.spec.parallelism = parallelism
    w.cp.client.update(j)
    w.cp.run_until_idle()


def _chain_order(x: Workload) -> tuple:
    """Creation time, then a replacement after what it replaces (both may share a virtual second)."""
    replacement = "kueue.x-k8s.io/workload-slice-replacement-for" in (x.metadata.annotations or {})
    return x.metadata.creation_timestamp, replacement


def slices(w: World, name: str) -> list[Workload]:
    out = [x for x in w.cp.client.list(Workload, "default").items
           if x.metadata.owner_references and x.metadata.owner_references[0].name == name]
    return sorted(out, key=_chain_order)


def live_pods(w: World, name: str) -> list[Pod]:
    return [p for p in w.cp.client.list(Pod, "default").items
            if (p.metadata.labels or {}).get("batch.kubernetes.io/job-name") == name
            and p.metadata.deletion_timestamp is None]


def gated(pod: Pod) -> bool:
    return any(g.name == GATE for g in pod.spec.scheduling_gates or ())


def cq_cpu(w: World) -> str:
    w.cp.advance(1)  # queue status is batched by 1 s
    usage = w.cq("cq").status.flavors_usage or []
    return str(next(r.total for f in usage for r in f.resources if r.name == "cpu"))


def test_the_template_is_gated_and_the_first_slice_names_its_chain() -> None:
    w = _world()
    w.apply(elastic_job("e", 2))
    w.cp.run_until_idle()
    j = w.cp.client.get(Job, "e", "default")
    assert [g.name for g in j.spec.template.spec.scheduling_gates] == [GATE]
    (wl,) = slices(w, "e")
    assert wl.metadata.name == workload_name("e", j.metadata.uid, "Job", "batch", extra="1")
    assert wl.metadata.annotations == {"kueue.x-k8s.io/elastic-job": "true",
                                       "kueue.x-k8s.io/workload-slice-name": wl.metadata.name}
    assert w.admitted(wl.metadata.name)
    assert j.spec.template.metadata.annotations["kueue.x-k8s.io/workload-slice-name"] == wl.metadata.name
    pods = live_pods(w, "e")
    assert len(pods) == 2 and not any(gated(p) for p in pods)  # the ungater let both run


def test_scale_up_creates_a_slice_admitted_for_the_delta_that_replaces_the_old_one() -> None:
    w = _world(nominal="4")
    w.apply(elastic_job("e", 2))
    w.cp.run_until_idle()
    (old,) = slices(w, "e")
    scale(w, "e", 4)
    _, new = slices(w, "e")
    j = w.cp.client.get(Job, "e", "default")
    generation = str(j.metadata.generation)
    assert new.metadata.name == workload_name("e", j.metadata.uid, "Job", "batch", extra=generation)
    replaces = new.metadata.annotations["kueue.x-k8s.io/workload-slice-replacement-for"]
    assert replaces == f"default/{old.metadata.name}"
    assert new.metadata.annotations["kueue.x-k8s.io/workload-slice-name"] == old.metadata.name
    assert w.admitted(new.metadata.name)  # 2 more cpu fit beside the old slice's 2: only the delta is asked
    finished = w.cond(old.metadata.name, "Finished")
    assert (finished.status, finished.reason) == ("True", "WorkloadSliceReplaced")
    assert finished.message == (f"Replaced to accommodate a workload (UID: {new.metadata.uid}, JobUID: "
                                f"{j.metadata.uid}) due to workload slice aggregation")
    assert ("Normal", "WorkloadSliceReplaced", finished.message) in w.events(old.metadata.name)
    assert j.spec.suspend is False  # the Job ran throughout
    pods = live_pods(w, "e")
    assert len(pods) == 4 and not any(gated(p) for p in pods)
    w.cp.advance(2)
    assert all(p.status.phase == "Running" for p in live_pods(w, "e"))
    assert cq_cpu(w) == "4"


def test_a_scale_up_without_room_waits_with_the_old_slice_running_and_new_pods_gated() -> None:
    w = _world(nominal="4")
    w.apply(job("other", parallelism=2, seconds=30))
    w.apply(elastic_job("e", 2))
    w.cp.run_until_idle()
    scale(w, "e", 4)
    old, new = slices(w, "e")
    assert w.admitted(old.metadata.name) and not w.reserved(new.metadata.name)
    assert w.cond(new.metadata.name, "QuotaReserved").status == "False"
    pods = live_pods(w, "e")
    assert len(pods) == 4 and sum(gated(p) for p in pods) == 2  # not stopped: its new pods wait
    assert w.cp.client.get(Job, "e", "default").spec.suspend is False
    w.cp.advance(40)  # the other Job finishes; the new slice gets its 2 cpu
    old, new = slices(w, "e")
    assert w.admitted(new.metadata.name)
    assert w.cond(old.metadata.name, "Finished").reason == "WorkloadSliceReplaced"
    assert not any(gated(p) for p in live_pods(w, "e")) and len(live_pods(w, "e")) == 4


def test_scale_down_shrinks_the_slice_in_place_and_releases_quota_at_once() -> None:
    w = _world(nominal="4")
    w.apply(elastic_job("e", 4))
    w.cp.run_until_idle()
    w.apply(job("waiting", parallelism=2, seconds=30))
    w.cp.run_until_idle()
    (waiting,) = slices(w, "waiting")
    assert not w.reserved(waiting.metadata.name)
    scale(w, "e", 1)
    (wl,) = slices(w, "e")
    assert [ps.count for ps in wl.spec.pod_sets] == [1]
    assert wl.status.admission.pod_set_assignments[0].count == 4  # the admission stays as it was
    assert cq_cpu(w) == "3"  # 1 of the elastic Job, 2 of the waiting one the freed quota admitted
    assert w.reserved(waiting.metadata.name)
    assert len(live_pods(w, "e")) == 1


def _restarted(w: World, name: str) -> bool:
    """The Job was stopped and its Workload replaced by a new one (``ensureOneWorkload``)."""
    reasons = [e.reason for e in w.cp.client.list(Event, "default").items if e.involved_object.name == name]
    return "Stopped" in reasons and "DeletedWorkload" in reasons


def test_a_non_elastic_job_changing_parallelism_is_stopped_as_before() -> None:
    w = _world()
    w.apply(elastic_job("plain", 2) | {"metadata": {"name": "plain", "namespace": "default",
                                                   "labels": {"kueue.x-k8s.io/queue-name": "lq"}}})
    w.cp.run_until_idle()
    scale(w, "plain", 3)
    assert _restarted(w, "plain")
    assert len(slices(w, "plain")) == 1


def test_the_gate_off_makes_the_annotation_inert() -> None:
    w = _world(feature_gates="ElasticJobsViaWorkloadSlices=false")
    w.apply(elastic_job("e", 2))
    w.cp.run_until_idle()
    j = w.cp.client.get(Job, "e", "default")
    assert not j.spec.template.spec.scheduling_gates
    (wl,) = slices(w, "e")
    assert wl.metadata.name == workload_name("e", j.metadata.uid, "Job", "batch")
    scale(w, "e", 3)
    assert _restarted(w, "e")


# --- webhooks ----------------------------------------------------------------------------------------
def _denied(w: World, obj: dict) -> str:
    with pytest.raises(Forbidden) as err:
        w.apply(obj)
    return str(err.value)


def test_the_elastic_annotation_cannot_be_added_or_removed() -> None:
    w = _world()
    w.apply(elastic_job("e", 2))
    w.apply(job("plain", parallelism=1))
    w.cp.run_until_idle()
    j = edit(w.cp.client.get(Job, "e", "default"))
    j.metadata.annotations = None
    with pytest.raises(Forbidden) as err:
        w.cp.client.update(j)
    assert ('admission webhook "vjob.kb.io" denied the request: '
            "metadata.annotations[kueue.x-k8s.io/elastic-job]: Invalid value: false: field is immutable"
            ) in str(err.value)
    p = edit(w.cp.client.get(Job, "plain", "default"))
    p.metadata.annotations = dict(ELASTIC)
    with pytest.raises(Forbidden) as err:
        w.cp.client.update(p)
    assert "Invalid value: true: field is immutable" in str(err.value)


def test_partial_admission_and_elastic_cannot_be_combined() -> None:
    w = _world()
    j = elastic_job("e", 3)
    j["metadata"]["annotations"]["kueue.x-k8s.io/job-min-parallelism"] = "1"
    assert ('metadata.annotations[kueue.x-k8s.io/job-min-parallelism]: Invalid value: "1": '
            "partial admission and elastic job cannot be used together") in _denied(w, j)


def test_elastic_is_refused_on_a_kind_without_slices() -> None:
    w = _world()
    js = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
          "metadata": {"name": "js", "namespace": "default", "annotations": dict(ELASTIC),
                       "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
          "spec": {"replicatedJobs": [{"name": "r", "replicas": 1, "template": {"spec": {
              "template": {"spec": {"restartPolicy": "Never",
                                    "containers": [{"name": "c", "image": "busybox"}]}}}}}]}}
    assert ('metadata.annotations[kueue.x-k8s.io/elastic-job]: Forbidden: elastic job is not supported '
            'for "jobset.x-k8s.io/v1alpha2, Kind=JobSet"') in _denied(w, js)


def test_an_admitted_slice_may_shrink_but_not_grow() -> None:
    w = _world()
    w.apply(elastic_job("e", 2))
    w.cp.run_until_idle()
    (wl,) = slices(w, "e")
    grown = edit(wl)
    grown.spec.pod_sets[0].count = 3
    with pytest.raises(Forbidden) as err:
        w.cp.client.update(grown)
    assert "spec.podSets[0]" in str(err.value) and "field is immutable" in str(err.value)


def test_events_name_the_created_slices() -> None:
    w = _world()
    w.apply(elastic_job("e", 1))
    w.cp.run_until_idle()
    scale(w, "e", 2)
    names = [x.metadata.name for x in slices(w, "e")]
    created = [e.message for e in w.cp.client.list(Event, "default").items
               if e.reason == "CreatedWorkload" and e.involved_object.name == "e"]
    assert created == [f"Created Workload: default/{n}" for n in names]
