"""Kueue's visibility API through ``kbatch serve``'s app: upstream's unit tables
(kueue ``pkg/visibility/storage/pending_workloads_{cq,lq}_test.go``, v0.19.2) translated, over HTTP.

A world is ClusterQueues without quota (so every workload stays pending), LocalQueues and workloads
created at ``now + seconds`` (the virtual clock moves between creations: the creation timestamp is
the queue order time). A case asks one path and wants ``(name, positionInClusterQueue,
positionInLocalQueue)`` per item, or an error status.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from kbatch.server.facade import ControlPlaneBackend, new_control_plane
from tests.controllers.kueue.helpers import cluster_queue, flavor, local_queue, quota, workload

GROUP = "visibility.kueue.x-k8s.io"
V = f"/apis/{GROUP}/v1beta2"
HIGH, LOW = 100, 50


@dataclass(frozen=True)
class Case:
    cqs: tuple[str, ...]
    lqs: tuple[tuple[str, str, str], ...]  # (namespace, name, clusterQueue)
    wls: tuple[tuple[str, str, str, int, int], ...]  # (namespace, name, localQueue, priority, seconds)
    path: str
    want: list[tuple[str, int, int]] = field(default_factory=list)
    want_status: int = 200


ONE_LQ = (("foo", "lq-a", "cq-a"),)
TWO_LQ = (("foo", "lq-a", "cq-a"), ("foo", "lq-b", "cq-a"))
ABC = (("foo", "a", "lq-a", HIGH, 0), ("foo", "b", "lq-a", HIGH, 1), ("foo", "c", "lq-a", HIGH, 2))
FOUR = (("foo", "lqa-high-prio", "lq-a", HIGH, 0), ("foo", "lqa-low-prio", "lq-a", LOW, 0),
        ("foo", "lqb-high-prio", "lq-b", HIGH, 1), ("foo", "lqb-low-prio", "lq-b", LOW, 1))
TWO_NS = (("foo", "lqa-high-prio", "lq-a", HIGH, 0), ("foo", "lqa-low-prio", "lq-a", LOW, 0),
          ("bar", "lqb-high-prio", "lq-b", HIGH, 1), ("bar", "lqb-low-prio", "lq-b", LOW, 1))
CQ = f"{V}/clusterqueues/cq-a/pendingworkloads"


def _lq(namespace: str, name: str) -> str:
    return f"{V}/namespaces/{namespace}/localqueues/{name}/pendingworkloads"


CQ_CASES = {
    "two workloads, default query": Case(
        ("cq-a",), ONE_LQ, (("foo", "a", "lq-a", HIGH, 0), ("foo", "b", "lq-a", LOW, 0)), CQ,
        [("a", 0, 0), ("b", 1, 1)]),
    "two LocalQueues, four workloads": Case(
        ("cq-a",), TWO_LQ, FOUR, CQ,
        [("lqa-high-prio", 0, 0), ("lqb-high-prio", 1, 0), ("lqa-low-prio", 2, 1), ("lqb-low-prio", 3, 1)]),
    "limit": Case(("cq-a",), ONE_LQ, ABC, CQ + "?limit=2", [("a", 0, 0), ("b", 1, 1)]),
    "offset": Case(("cq-a",), ONE_LQ, ABC, CQ + "?offset=1", [("b", 1, 1), ("c", 2, 2)]),
    "limit and offset": Case(("cq-a",), ONE_LQ, ABC, CQ + "?offset=1&limit=1", [("b", 1, 1)]),
    "negative limit is clamped to zero": Case(("cq-a",), ONE_LQ, ABC[:2], CQ + "?limit=-1", []),
    "excessive limit returns everything": Case(
        ("cq-a",), ONE_LQ, ABC[:2], CQ + "?limit=2000000000", [("a", 0, 0), ("b", 1, 1)]),
    "same LocalQueue name in two namespaces": Case(
        ("cq-a",), (("foo", "lq-a", "cq-a"), ("bar", "lq-a", "cq-a")),
        (("foo", "a", "lq-a", HIGH, 0), ("bar", "b", "lq-a", HIGH, 1)), CQ, [("a", 0, 0), ("b", 1, 0)]),
    "empty cluster queue": Case(("cq-a",), (), (), CQ, []),
    "nonexistent queue name": Case((), (), (), f"{V}/clusterqueues/nonexistent-queue/pendingworkloads",
                                   want_status=404),
}
LQ_CASES = {
    "two workloads, default query": Case(
        ("cq-a",), ONE_LQ, (("foo", "a", "lq-a", HIGH, 0), ("foo", "b", "lq-a", LOW, 0)), _lq("foo", "lq-a"),
        [("a", 0, 0), ("b", 1, 1)]),
    "two LocalQueues, LocalQueue A": Case(
        ("cq-a",), TWO_LQ, FOUR, _lq("foo", "lq-a"), [("lqa-high-prio", 0, 0), ("lqa-low-prio", 2, 1)]),
    "two LocalQueues, LocalQueue B": Case(
        ("cq-a",), TWO_LQ, FOUR, _lq("foo", "lq-b"), [("lqb-high-prio", 1, 0), ("lqb-low-prio", 3, 1)]),
    "two namespaces and ClusterQueues, LocalQueue A": Case(
        ("cq-a", "cq-b"), (("foo", "lq-a", "cq-a"), ("bar", "lq-b", "cq-b")), TWO_NS, _lq("foo", "lq-a"),
        [("lqa-high-prio", 0, 0), ("lqa-low-prio", 1, 1)]),
    "two namespaces and ClusterQueues, LocalQueue B": Case(
        ("cq-a", "cq-b"), (("foo", "lq-a", "cq-a"), ("bar", "lq-b", "cq-b")), TWO_NS, _lq("bar", "lq-b"),
        [("lqb-high-prio", 0, 0), ("lqb-low-prio", 1, 1)]),
    "limit": Case(("cq-a",), ONE_LQ, ABC, _lq("foo", "lq-a") + "?limit=2", [("a", 0, 0), ("b", 1, 1)]),
    "offset": Case(("cq-a",), ONE_LQ, ABC, _lq("foo", "lq-a") + "?offset=1", [("b", 1, 1), ("c", 2, 2)]),
    "limit and offset": Case(("cq-a",), ONE_LQ, ABC, _lq("foo", "lq-a") + "?offset=1&limit=1", [("b", 1, 1)]),
    "negative limit is clamped to zero": Case(
        ("cq-a",), ONE_LQ, ABC[:2], _lq("foo", "lq-a") + "?limit=-1", []),
    "excessive limit returns everything": Case(
        ("cq-a",), ONE_LQ, ABC[:2], _lq("foo", "lq-a") + "?limit=2000000000", [("a", 0, 0), ("b", 1, 1)]),
    "nonexistent queue name": Case(("cq-a",), ONE_LQ, (), _lq("foo", "nonexistent-queue"), want_status=404),
}


def _namespace(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def world(case: Case) -> Any:
    cp = new_control_plane(controllers="kueue")
    cp.apply([_namespace("foo"), _namespace("bar"), *(cluster_queue(n) for n in case.cqs),
              *(local_queue(n, cq, ns) for ns, n, cq in case.lqs)])
    elapsed = 0
    for ns, name, lq, priority, seconds in sorted(case.wls, key=lambda w: w[4]):
        if seconds > elapsed:
            cp.advance(seconds - elapsed)
            elapsed = seconds
        cp.apply([workload(name, lq, namespace=ns, priority=priority)])
    return cp


def _check(make_api: Any, case: Case) -> None:
    api = make_api(ControlPlaneBackend(world(case)))
    reply = api.get(case.path)
    assert reply.status_code == case.want_status, reply.text
    body = reply.json()
    if case.want_status != 200:
        assert body["kind"] == "Status" and body["reason"] == "NotFound"
        return
    assert (body["kind"], body["apiVersion"]) == ("PendingWorkloadsSummary", f"{GROUP}/v1beta2")
    got = [(i["metadata"]["name"], i["positionInClusterQueue"], i["positionInLocalQueue"])
           for i in body["items"]]
    assert got == case.want


@pytest.mark.parametrize("name", list(CQ_CASES))
def test_pending_workloads_in_cluster_queue(make_api: Any, name: str) -> None:
    _check(make_api, CQ_CASES[name])


@pytest.mark.parametrize("name", list(LQ_CASES))
def test_pending_workloads_in_local_queue(make_api: Any, name: str) -> None:
    _check(make_api, LQ_CASES[name])


def test_an_item_carries_upstreams_fields(make_api: Any) -> None:
    case = Case(("cq-a",), ONE_LQ, (("foo", "a", "lq-a", HIGH, 0),), CQ)
    api = make_api(ControlPlaneBackend(world(case)))
    v1beta1 = api.get(CQ.replace("v1beta2", "v1beta1")).json()
    assert v1beta1["apiVersion"] == "visibility.kueue.x-k8s.io/v1beta1"
    assert v1beta1["metadata"] == {"creationTimestamp": None}
    assert v1beta1["items"] == [{
        "metadata": {"name": "a", "namespace": "foo", "creationTimestamp": "2025-01-01T00:00:00Z"},
        "priority": HIGH, "localQueueName": "lq-a", "positionInClusterQueue": 0, "positionInLocalQueue": 0}]


@pytest.mark.parametrize("query", ["limit=x", "offset=1.5", "limit=%201"])
def test_a_query_that_is_not_an_integer_is_a_bad_request(make_api: Any, query: str) -> None:
    api = make_api(ControlPlaneBackend(world(Case(("cq-a",), (), (), CQ))))
    reply = api.get(f"{CQ}?{query}")
    assert reply.status_code == 400 and reply.json()["reason"] == "BadRequest"
    assert reply.json()["message"].startswith("strconv.ParseInt: parsing ")


def test_routes_discovery_and_a_missing_manager(make_api: Any) -> None:
    api = make_api(ControlPlaneBackend(new_control_plane(controllers="garbage-collector")))
    listing = api.get(V).json()["resources"]
    assert [(r["name"], r["verbs"]) for r in listing] == [
        ("clusterqueues", []), ("clusterqueues/pendingworkloads", ["get"]),
        ("localqueues", []), ("localqueues/pendingworkloads", ["get"])]
    assert api.get("/apis/visibility.kueue.x-k8s.io").json()["preferredVersion"]["version"] == "v1beta2"
    assert api.get(f"{V}/clusterqueues").status_code == 404  # CqREST implements no verb
    assert api.get(f"{V}/clusterqueues/cq-a/other").status_code == 404
    assert api.post(CQ, json={}).status_code == 405
    reply = api.get(CQ)  # no Kueue manager in this process: the APIService has no backend
    assert reply.status_code == 503 and reply.json()["reason"] == "ServiceUnavailable"


def test_visibility_on_demand_off_leaves_the_api_service_without_backend(make_api: Any) -> None:
    cp = new_control_plane(controllers="kueue", feature_gates="VisibilityOnDemand=false")
    assert make_api(ControlPlaneBackend(cp)).get(CQ).status_code == 503


RBAC = "/apis/rbac.authorization.k8s.io/v1"
JANE = {"impersonate-user": "jane"}


def _bind(kind: str, role: str) -> tuple[str, dict[str, Any]]:
    meta = {"name": f"jane-{role}"} | ({} if kind == "ClusterRoleBinding" else {"namespace": "foo"})
    body = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": meta,
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "jane"}]}
    return (f"{RBAC}/clusterrolebindings" if kind == "ClusterRoleBinding"
            else f"{RBAC}/namespaces/foo/rolebindings"), body


def test_rbac_as_kueues_viewer_roles_grant(make_api: Any) -> None:
    """examples/kueue/visibility-rbac.yaml (upstream's two viewer roles) aggregate into ``view``: bound to
    it in ``foo``, jane reads ``foo``'s LocalQueue, not the ClusterQueue, until the cq viewer role is
    bound cluster-wide."""
    case = Case(("cq-a",), ONE_LQ, (("foo", "a", "lq-a", HIGH, 0),), CQ)
    cp = world(case)
    cp.add_controller("clusterrole-aggregation")
    roles = Path(__file__).resolve().parents[2] / "examples" / "kueue" / "visibility-rbac.yaml"
    cp.apply(list(yaml.safe_load_all(roles.read_text())))
    api = make_api(ControlPlaneBackend(cp))
    assert api.get(_lq("foo", "lq-a"), headers=JANE).status_code == 403
    path, body = _bind("RoleBinding", "view")
    assert api.post(path, json=body).status_code == 201
    assert [i["metadata"]["name"] for i in api.get(_lq("foo", "lq-a"), headers=JANE).json()["items"]] == ["a"]
    denied = api.get(CQ, headers=JANE)
    assert denied.status_code == 403 and "clusterqueues/pendingworkloads" in denied.json()["message"]
    path, body = _bind("ClusterRoleBinding", "kueue-pending-workloads-cq-viewer-role")
    assert api.post(path, json=body).status_code == 201
    assert api.get(CQ, headers=JANE).status_code == 200


def test_kueue_metrics_on_the_metrics_route(make_api: Any) -> None:
    """``GET /metrics`` of ``kbatch serve`` carries Kueue's families (docs/kueue.md, "Metrics")."""
    case = Case(("cq-a",), ONE_LQ, (("foo", "a", "lq-a", HIGH, 0), ("foo", "b", "lq-a", LOW, 0)), CQ)
    text = make_api(ControlPlaneBackend(world(case))).get("/metrics").text
    assert "# TYPE kueue_pending_workloads gauge" in text
    role = 'replica_role="standalone"'
    assert f'kueue_pending_workloads{{cluster_queue="cq-a",status="inadmissible",{role}}} 2' in text
    lq = 'name="lq-a",namespace="foo",status="inadmissible"'
    assert f"kueue_local_queue_pending_workloads{{{lq},{role}}} 2" in text
    assert f'kueue_cluster_queue_status{{cluster_queue="cq-a",status="active",{role}}} 1' in text


def _job(name: str, queue: str, priority_class: str) -> dict[str, Any]:
    container = {"name": "c", "image": "busybox", "command": ["sleep", "3600"],
                 "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "1"}}}
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name, "namespace": "foo",
                         "labels": {"kueue.x-k8s.io/queue-name": queue,
                                    "kueue.x-k8s.io/priority-class": priority_class}},
            "spec": {"backoffLimit": 0,
                     "template": {"spec": {"restartPolicy": "Never", "containers": [container]}}}}


def _classes() -> list[dict[str, Any]]:
    return [{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass", "metadata": {"name": n},
             "value": v} for n, v in (("high", 100), ("mid", 75), ("low", 50))]


def _owned(body: dict[str, Any]) -> list[tuple[str, int, str, int, int]]:
    return [(i["metadata"]["ownerReferences"][0]["name"], i["priority"], i["localQueueName"],
             i["positionInClusterQueue"], i["positionInLocalQueue"]) for i in body["items"]]


def test_upstream_e2e_positions_of_jobs_by_priority_class(make_api: Any) -> None:
    """test/e2e/singlecluster/baseline/visibility_test.go: a 1-cpu ClusterQueue held by a high-priority
    Job; three more Jobs by WorkloadPriorityClass over LocalQueues a and b; positions in the
    ClusterQueue and each LocalQueue; once the blocking Job is gone, the next one is admitted and
    leaves the answer."""
    cp = new_control_plane()
    cp.apply([_namespace("foo"), flavor("default"), *_classes(),
              cluster_queue("cq", (["cpu"], [("default", [quota("cpu", "1")])])),
              local_queue("a", "cq", "foo"), local_queue("b", "cq", "foo")])
    cp.apply([_job("test-job-1", "a", "high")])
    cp.advance(2)
    for name, queue, cls in (("lq-a-high-prio", "a", "high"), ("lq-b-mid-prio", "b", "mid"),
                             ("lq-b-low-prio", "b", "low")):
        cp.apply([_job(name, queue, cls)])
    cp.advance(2)
    api = make_api(ControlPlaneBackend(cp))
    assert _owned(api.get(f"{V}/clusterqueues/cq/pendingworkloads").json()) == [
        ("lq-a-high-prio", 100, "a", 0, 0), ("lq-b-mid-prio", 75, "b", 1, 0),
        ("lq-b-low-prio", 50, "b", 2, 1)]
    assert _owned(api.get(_lq("foo", "a")).json()) == [("lq-a-high-prio", 100, "a", 0, 0)]
    assert _owned(api.get(_lq("foo", "b")).json()) == [("lq-b-mid-prio", 75, "b", 1, 0),
                                                       ("lq-b-low-prio", 50, "b", 2, 1)]
    assert api.delete("/apis/batch/v1/namespaces/foo/jobs/test-job-1",
                      params={"propagationPolicy": "Foreground"}).status_code == 200
    cp.advance(5)
    assert _owned(api.get(_lq("foo", "a")).json()) == []
    assert _owned(api.get(f"{V}/clusterqueues/cq/pendingworkloads").json()) == [
        ("lq-b-mid-prio", 75, "b", 0, 0), ("lq-b-low-prio", 50, "b", 1, 1)]
