"""Topology requests on the integrations other than batch/v1 Job: a JobSet's replicated jobs, plain
pods and pod groups read ``kueue.x-k8s.io/podset-required-topology`` (and the other two) from their
templates / pods, their Workload's pod sets carry the request with the integration's rank labels,
and their pods are gated by ``kueue.x-k8s.io/topology`` and placed by the TopologyUngater inside
one domain.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/jobset/jobset_controller.go``
(``PodSets``: ``NewPodSetTopologyRequest(..).PodIndexLabel(job-completion-index)
.SubGroup(jobset.sigs.k8s.io/job-index, replicas)``), ``pkg/controller/jobs/pod/pod_controller.go``
(``constructPodSet``: ``PodIndexLabel(kueue.x-k8s.io/pod-group-pod-index)``), ``pod_webhook.go``
(the ``kueue.x-k8s.io/pod-group-pod-index-label`` annotation copied into that label),
test/e2e/tas/{jobset,pod_group}_test.go."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.core_v1 import Pod
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.sim.nodes import NodeTemplate, create_nodes

from .helpers import KUEUE, World, cluster_queue, local_queue, quota
from .test_pods import pod

BLOCK, RACK, HOST = "cloud.com/topology-block", "cloud.com/topology-rack", "kubernetes.io/hostname"
REQUIRED = "kueue.x-k8s.io/podset-required-topology"
GROUP, TOTAL = "kueue.x-k8s.io/pod-group-name", "kueue.x-k8s.io/pod-group-total-count"


def _world() -> World:
    w = World({"apiVersion": KUEUE, "kind": "Topology", "metadata": {"name": "default"},
               "spec": {"levels": [{"nodeLabel": BLOCK}, {"nodeLabel": RACK}, {"nodeLabel": HOST}]}},
              {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "tas"},
               "spec": {"nodeLabels": {"group": "tas"}, "topologyName": "default"}}, controllers="*")
    for b, r in (("b1", "r1"), ("b1", "r2"), ("b2", "r1")):
        create_nodes(w.cp, 2, NodeTemplate(cpu="2", labels={"group": "tas", BLOCK: b, RACK: f"{b}-{r}"}),
                     prefix=f"{b}-{r}-")
    w.apply(cluster_queue("cq", (["cpu"], [("tas", [quota("cpu", "100")])])), local_queue("lq", "cq"))
    return w


def _owned(w: World, kind: str, name: str) -> Workload:
    return next(wl for wl in w.cp.client.list(Workload, "default").items
                if any(r.kind == kind and r.name == name for r in wl.metadata.owner_references or ()))


def _pods(w: World, **labels: str) -> list[Pod]:
    return [p for p in w.cp.client.list(Pod, "default").items
            if all((p.metadata.labels or {}).get(k) == v for k, v in labels.items())]


def _racks(pods: list[Pod]) -> set[str]:
    return {(p.spec.node_name or "").rsplit("-", 1)[0] for p in pods}


def _jobset(name: str, replicas: int, per_job: int) -> dict[str, Any]:
    container = {"name": "c", "image": "busybox", "args": ["sleep", "300"],
                 "resources": {"requests": {"cpu": "1"}}}
    rjob = {"name": "workers", "replicas": replicas, "template": {"spec": {
        "parallelism": per_job, "completions": per_job, "completionMode": "Indexed",
        "template": {"metadata": {"annotations": {REQUIRED: RACK}},
                     "spec": {"restartPolicy": "Never", "containers": [container]}}}}}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": name, "namespace": "default", "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
            "spec": {"replicatedJobs": [rjob]}}


def test_a_jobset_requiring_a_rack_lands_on_one_rack_by_job_and_completion_index() -> None:
    w = _world()
    w.apply(_jobset("js", replicas=2, per_job=2))
    wl = _owned(w, "JobSet", "js")
    tr = wl.spec.pod_sets[0].topology_request  # type: ignore[index]
    assert (tr.required, tr.pod_index_label, tr.sub_group_index_label, tr.sub_group_count) == (
        RACK, "batch.kubernetes.io/job-completion-index", "jobset.sigs.k8s.io/job-index", 2)
    w.cp.advance(5)
    w.cp.run_until_idle()
    assert w.admitted(wl.metadata.name or "")
    pods = _pods(w, **{"jobset.sigs.k8s.io/jobset-name": "js"})
    assert len(pods) == 4 and all((p.status.phase if p.status else "") == "Running" for p in pods)
    assert len(_racks(pods)) == 1
    assert all(not p.spec.scheduling_gates for p in pods)
    # rank = completion index + job index x 2: ranks 0,1 on the rack's first host, 2,3 on its second
    by_rank = {int(p.metadata.labels["batch.kubernetes.io/job-completion-index"])  # type: ignore[index]
               + 2 * int(p.metadata.labels["jobset.sigs.k8s.io/job-index"]): p.spec.node_name  # type: ignore[index]
               for p in pods}
    rack = _racks(pods).pop()
    assert [by_rank[r] for r in range(4)] == [f"{rack}-0", f"{rack}-0", f"{rack}-1", f"{rack}-1"]


def test_a_plain_pod_requiring_a_rack_gets_the_request_and_is_ungated_into_the_domain() -> None:
    w = _world()
    w.apply(pod("p", annotations={REQUIRED: RACK}, script="sleep 300"))
    wl = _owned(w, "Pod", "p")
    tr = wl.spec.pod_sets[0].topology_request  # type: ignore[index]
    assert (tr.required, tr.pod_index_label) == (RACK, "kueue.x-k8s.io/pod-group-pod-index")
    w.cp.advance(5)
    running = w.cp.client.get(Pod, "p", "default")
    assert not running.spec.scheduling_gates
    assert running.spec.node_selector == {"group": "tas", HOST: "b1-r1-0"}  # the flavor's, the domain's
    assert running.spec.node_name == "b1-r1-0"
    assert (running.status.phase if running.status else "") == "Running"


def test_a_pod_group_with_an_index_label_is_placed_by_rank_in_one_rack() -> None:
    w = _world()
    index_label = {"kueue.x-k8s.io/pod-group-pod-index-label": "app.example/index"}
    for i in (2, 0, 1, 3):  # created out of order: ranks decide
        w.apply(pod(f"m{i}", script="sleep 300", labels={GROUP: "g", "app.example/index": str(i)},
                    annotations={TOTAL: "4", REQUIRED: RACK, **index_label}))
    members = _pods(w, **{GROUP: "g"})
    assert {p.metadata.labels["kueue.x-k8s.io/pod-group-pod-index"] for p in members} == {"0", "1", "2", "3"}
    wl = w.wl("g")
    tr = wl.spec.pod_sets[0].topology_request  # type: ignore[index]
    assert (tr.required, tr.pod_index_label) == (RACK, "kueue.x-k8s.io/pod-group-pod-index")
    w.cp.advance(5)
    nodes = {p.metadata.name: p.spec.node_name for p in _pods(w, **{GROUP: "g"})}
    rack = _racks(_pods(w, **{GROUP: "g"}))
    assert len(rack) == 1
    first = rack.pop()
    assert [nodes[f"m{i}"] for i in range(4)] == [f"{first}-0", f"{first}-0", f"{first}-1", f"{first}-1"]


def test_the_pod_and_jobset_webhooks_refuse_bad_topology_annotations() -> None:
    """``ValidateTASPodSetRequest`` from the pod webhook's ``validateCommon`` (path ``metadata``) and
    the JobSet webhook's ``validateTopologyRequest`` (each replicated job's template metadata)."""
    from kbatch.api.errors import Forbidden
    from kbatch.api.jobset_v1alpha2 import JobSet

    w = _world()
    with pytest.raises(Forbidden) as err:
        w.cp.client.create(Pod.model_validate(pod("p", annotations={
            "kueue.x-k8s.io/podset-unconstrained-topology": "maybe"})))
    assert ('metadata.annotations[kueue.x-k8s.io/podset-unconstrained-topology]: Invalid value: "maybe": '
            "must be a boolean value") in str(err.value)
    bad = _jobset("js", replicas=1, per_job=1)
    bad["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["metadata"]["annotations"] = {
        REQUIRED: RACK, "kueue.x-k8s.io/podset-preferred-topology": RACK}
    with pytest.raises(Forbidden) as err:
        w.cp.client.create(JobSet.model_validate(bad))
    assert ("spec.replicatedJobs[0].template.spec.template.metadata.annotations: Invalid value: must not "
            "contain more than one topology annotation") in str(err.value)
    assert w.cp.client.list(Pod, "default").items == [] and w.cp.client.list(JobSet, "default").items == []
