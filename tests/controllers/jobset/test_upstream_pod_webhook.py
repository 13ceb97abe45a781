"""Upstream's pod-webhook tables, through kbatch's API (pods created as the Job controller creates
them: ``mpod.kb.io`` then ``vpod.kb.io``).

Source: kubernetes-sigs/jobset v0.12.0 ``pkg/webhooks/pod_webhook_test.go`` (``TestDefault``,
``TestLeaderPodName``, ``TestPodsOwnedBySameJob``, ``TestLeaderPodForFollower``), ``pod_webhook.go``,
the webhooks' ``objectSelector`` (``config/components/webhook/patches``: label
``jobset.sigs.k8s.io/jobset-name`` exists) and controller-runtime v0.24.0
``pkg/webhook/admission/{defaulter,validator}_custom.go`` (an error carrying an API status is
answered with that status, any other error is ``Denied``: 403).

Translation notes: upstream calls ``Default`` / the helpers on structs. Through the API a pod reaches
the webhooks only with the ``jobset-name`` label (the objectSelector; every JobSet pod has it), so each
JobSet pod carries it. The ``Priority`` admission plugin runs first and always sets ``spec.priority``
(0 without a class), so "no priority" reads ``priority: "0"``, and a priority of 100 comes from a
PriorityClass. The helpers (leader name, owners, leader lookup) are reached through ``vpod.kb.io``
with a follower that already has its topology node selector.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.core_v1 import Node, Pod
from kbatch.api.errors import Forbidden, NotFound, StatusError
from kbatch.api.scheduling_v1 import PriorityClass

ZONE = "topology.kubernetes.io/zone"
EXCLUSIVE = "alpha.jobset.sigs.k8s.io/exclusive-topology"
NAME = "jobset.sigs.k8s.io/jobset-name"
RJ = "jobset.sigs.k8s.io/replicatedjob-name"
INDEX = "jobset.sigs.k8s.io/job-index"
KEY = "jobset.sigs.k8s.io/job-key"
PRIORITY = "jobset.sigs.k8s.io/priority"
COMPLETION = "batch.kubernetes.io/job-completion-index"
JOB_LABELS = {NAME: "js", RJ: "rjob", INDEX: "0"}


def _plane() -> ControlPlane:
    cp = ControlPlane(seed=1, controllers="")
    cp.client.create(PriorityClass.model_validate({"metadata": {"name": "high"}, "value": 100}))
    return cp


def _pod(name: str, labels: dict[str, str] | None = None, annotations: dict[str, str] | None = None,
         owner: str | None = None, priority: bool = False, **spec: Any) -> Pod:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if labels:
        meta["labels"] = labels
    if annotations:
        meta["annotations"] = annotations
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": owner,
                                    "controller": True}]
    body: dict[str, Any] = {"containers": [{"name": "c", "image": "i"}], **spec}
    if priority:
        body["priorityClassName"] = "high"
    return Pod.model_validate({"metadata": meta, "spec": body})


def _create(cp: ControlPlane, pod: Pod) -> Pod:
    cp.client.create(pod)
    return cp.client.get(Pod, pod.name, "default")


def _refusal(cp: ControlPlane, pod: Pod) -> StatusError:
    with pytest.raises(StatusError) as info:
        cp.client.create(pod)
    with pytest.raises(NotFound):
        cp.client.get(Pod, pod.name, "default")
    return info.value


def _node(cp: ControlPlane, name: str = "node-a") -> None:
    cp.client.create(Node.model_validate({"metadata": {"name": name, "labels": {ZONE: "zone-a"}}}))


def _leader(cp: ControlPlane, name: str = "js-rjob-0-0-leader", owner: str = "job-uid-1",
            node: str | None = "node-a") -> None:
    spec = {"nodeName": node} if node else {}
    _create(cp, _pod(name, dict(JOB_LABELS), {EXCLUSIVE: ZONE, COMPLETION: "0"}, owner, **spec))


def _follower(owner: str | None = "job-uid-1", selector: bool = False, labels: dict[str, str] | None = None,
              name: str = "js-rjob-0-1-follower") -> Pod:
    spec = {"nodeSelector": {ZONE: "zone-a"}} if selector else {}
    return _pod(name, dict(JOB_LABELS) if labels is None else labels,
                {NAME: "js", EXCLUSIVE: ZONE, COMPLETION: "1"}, owner, priority=True, **spec)


# --- TestDefault ---------------------------------------------------------------------------------------
def test_default_not_a_jobset_pod() -> None:
    pod = _create(_plane(), _pod("p"))
    assert PRIORITY not in (pod.metadata.labels or {}) and pod.spec.affinity is None


def test_default_using_node_selector_strategy() -> None:
    annotations = {NAME: "js", "alpha.jobset.sigs.k8s.io/node-selector": ""}
    pod = _create(_plane(), _pod("p", {NAME: "js"}, annotations, priority=True))
    assert pod.metadata.labels == {NAME: "js"}


def test_default_jobset_pod_no_exclusive_placement_no_priority() -> None:
    pod = _create(_plane(), _pod("p", {NAME: "js"}, {NAME: "js"}))
    assert pod.metadata.labels == {NAME: "js", PRIORITY: "0"} and pod.spec.affinity is None


def test_default_jobset_pod_no_exclusive_placement_with_priority() -> None:
    pod = _create(_plane(), _pod("p", {NAME: "js"}, {NAME: "js"}, priority=True))
    assert pod.metadata.labels == {NAME: "js", PRIORITY: "100"} and pod.spec.affinity is None


def test_default_leader_pod_with_exclusive_placement() -> None:
    annotations = {NAME: "js", EXCLUSIVE: ZONE, COMPLETION: "0", RJ: "rjob", INDEX: "0"}
    pod = _create(_plane(), _pod("p-leader", {NAME: "js", KEY: "js-rjob-0"}, annotations, priority=True))
    assert pod.metadata.labels == {NAME: "js", KEY: "js-rjob-0", PRIORITY: "100"}
    affinity = pod.to_dict()["spec"]["affinity"]
    assert affinity == {
        "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchExpressions": [{"key": KEY, "operator": "In", "values": ["js-rjob-0"]}]},
            "topologyKey": ZONE, "namespaceSelector": {}}]},
        "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchExpressions": [
                {"key": KEY, "operator": "Exists"},
                {"key": KEY, "operator": "NotIn", "values": ["js-rjob-0"]},
                {"key": PRIORITY, "operator": "In", "values": ["100"]}]},
            "topologyKey": ZONE, "namespaceSelector": {}}]}}


def test_default_follower_pod_leader_not_scheduled() -> None:
    """``Default`` leaves the follower without a node selector; ``vpod.kb.io`` then refuses it."""
    cp = _plane()
    _leader(cp, node=None)
    err = _refusal(cp, _follower())
    assert isinstance(err, Forbidden)
    assert err.message == ('admission webhook "vpod.kb.io" denied the request: follower pod node selector '
                           "not set")


def test_default_follower_pod_leader_scheduled() -> None:
    cp = _plane()
    _node(cp)
    _leader(cp)
    pod = _create(cp, _follower())
    assert pod.spec.node_selector == {ZONE: "zone-a"}
    assert pod.metadata.labels == {**JOB_LABELS, PRIORITY: "100"}


def test_default_follower_pod_leader_scheduled_on_missing_node() -> None:
    """``Default`` returns the client's NotFound; controller-runtime answers with its status, which
    kube-apiserver passes on with the webhook's prefix (apiserver ``webhookerrors.ToStatusErr``)."""
    cp = _plane()
    _leader(cp)
    err = _refusal(cp, _follower())
    assert isinstance(err, NotFound) and err.status.code == 404
    assert err.message == 'admission webhook "mpod.kb.io" denied the request: nodes "node-a" not found'


# --- TestLeaderPodName (through vpod.kb.io's leader lookup) --------------------------------------------
def test_leader_pod_name_valid_pod() -> None:
    """The leader of ``js/rjob/0`` is ``js-rjob-0-0`` (plus the pod suffix)."""
    cp = _plane()
    _node(cp)
    _leader(cp, name="js-rjob-0-0-xyz")
    assert _create(cp, _follower(selector=True)).spec.node_selector == {ZONE: "zone-a"}


def test_leader_pod_name_pod_missing_labels() -> None:
    cp = _plane()
    err = _refusal(cp, _follower(selector=True, labels={NAME: "js", RJ: "rjob"}))
    assert err.message.endswith("denied the request: pod missing label: jobset.sigs.k8s.io/job-index")


# --- TestPodsOwnedBySameJob and TestLeaderPodForFollower -----------------------------------------------
@pytest.mark.parametrize(("case", "leader_owner", "follower_owner", "want"), [
    ("pods owned by the same job", "job-uid-1", "job-uid-1", None),
    ("pods owned by different jobs", "job-uid-1", "job-uid-2",
     "follower pod owner UID (job-uid-2) != leader pod owner UID (job-uid-1)"),
    ("follower pod with no owner", "job-uid-1", None, "follower pod has no owner reference"),
    ("leader pod with no owner", None, "job-uid-2", 'leader pod "js-rjob-0-0-leader" has no owner reference'),
])
def test_pods_owned_by_same_job(case: str, leader_owner: str | None, follower_owner: str | None,
                                want: str | None) -> None:
    cp = _plane()
    _node(cp)
    _create(cp, _pod("js-rjob-0-0-leader", dict(JOB_LABELS), {EXCLUSIVE: ZONE, COMPLETION: "0"}, leader_owner,
                     nodeName="node-a"))
    follower = _follower(follower_owner, selector=True)
    if want is None:
        _create(cp, follower)
        return
    err = _refusal(cp, follower)
    assert isinstance(err, Forbidden) and err.message.endswith(f"denied the request: {want}"), case


def _terminating_leader(cp: ControlPlane) -> None:
    leader = _pod("js-rjob-0-0-xyz", dict(JOB_LABELS), {EXCLUSIVE: ZONE}, "job-uid-1", nodeName="node-a")
    leader.metadata.finalizers = ["batch.kubernetes.io/job-tracking"]
    cp.client.create(leader)
    cp.client.delete(Pod, leader.name, "default")


@pytest.mark.parametrize(("case", "leaders", "want"), [
    ("valid leader pod exists", [("js-rjob-0-0-xyz", "job-uid-1")], None),
    ("no leader pod found", [], "expected 1 leader pod (js-rjob-0-0), but got 0"),
    ("multiple leader pods found", [("js-rjob-0-0-xyz", "job-uid-1"), ("js-rjob-0-0-uvw", "job-uid-1")],
     "expected 1 leader pod (js-rjob-0-0), but got 2"),
    ("leader pod is terminating", "terminating", "expected 1 leader pod (js-rjob-0-0), but got 0"),
    ("leader and follower owned by different jobs", [("js-rjob-0-0-xyz", "job-uid-2")],
     "follower pod owner UID (job-uid-1) != leader pod owner UID (job-uid-2)"),
])
def test_leader_pod_for_follower(case: str, leaders: Any, want: str | None) -> None:
    cp = _plane()
    _node(cp)
    if leaders == "terminating":
        _terminating_leader(cp)
    for name, owner in leaders if leaders != "terminating" else ():
        _create(cp, _pod(name, dict(JOB_LABELS), {EXCLUSIVE: ZONE}, owner, nodeName="node-a"))
    follower = _follower(selector=True, name="js-rjob-0-1-abc")
    if want is None:
        _create(cp, follower)
        return
    err = _refusal(cp, follower)
    assert isinstance(err, Forbidden) and want in err.message, (case, err.message)


def test_leader_pod_for_follower_missing_labels() -> None:
    """"follower pod missing labels" of ``TestLeaderPodForFollower``."""
    cp = _plane()
    _node(cp)
    _leader(cp, name="js-rjob-0-0-xyz")
    err = _refusal(cp, _follower(selector=True, labels={NAME: "js", RJ: "rjob"}, name="js-rjob-0-1-abc"))
    assert "pod missing label: jobset.sigs.k8s.io/job-index" in err.message
