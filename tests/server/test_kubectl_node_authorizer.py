"""The Node authorizer as kubectl meets it against ``kbatch serve`` (``--authorization-mode Node,RBAC``,
kind's and kubeadm's): a kubelet (``--as=system:node:n1 --as-group=system:nodes``) reads its own pods,
the secrets they reference and its own Node with no RoleBinding at all, and is refused another node's
with upstream's reason (k8s.io/kubernetes ``plugin/pkg/auth/authorizer/node/node_authorizer.go``, the
reasons joined by k8s.io/apiserver ``pkg/authorization/union/union.go``); NodeRestriction judges its
evictions (``plugin/pkg/admission/noderestriction/admission.go`` ``admitPodEviction``). The same
questions as SubjectAccessReviews: over HTTP, in process (``KbatchApp`` over a control plane) and from
``kbatch create -f`` in local mode, and with ``--authorization-mode RBAC`` alone, where RBAC decides."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.core_v1 import Pod
from kbatch.server.facade import ControlPlaneBackend
from kbatch.server.node_graph_feed import NodeGraphFeed
from kbatch.store import MemoryStore
from tests.server.test_kubectl import KUBECTL, kubectl

ROOT = Path(__file__).resolve().parents[2]
AS_N1 = ("--as=system:node:n1", "--as-group=system:nodes")
NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: %s}\n"
SECRET = "apiVersion: v1\nkind: Secret\nmetadata: {name: %s}\nstringData: {k: v}\n"
POD = """apiVersion: v1
kind: Pod
metadata: {name: %s}
spec:
  nodeName: %s
  restartPolicy: Never
  containers:
  - name: c
    image: registry.k8s.io/pause:3.10
    env: [{name: X, valueFrom: {secretKeyRef: {name: %s, key: k}}}]
"""
FORBIDDEN = (
    'Error from server (Forbidden): {what} is forbidden: User "system:node:n1" cannot {verb} resource '
    '"{resource}" in API group "" {where}: node: {reason}\n'
)
OTHER_NODE = "no relationship found between node 'n1' and this object"


def _objects() -> list[str]:
    return [
        NODE % "n1",
        NODE % "n2",
        SECRET % "s1",
        SECRET % "s2",
        POD % ("p1", "n1", "s1"),
        POD % ("p2", "n2", "s2"),
    ]


@pytest.fixture(scope="module")
def cluster(served: Any) -> Any:
    if KUBECTL is None:
        pytest.skip("kubectl is not installed on this machine")
    kubectl(served, "apply", "-f", "-", input_="---\n".join(_objects()))
    return served


def _as_n1(served: Any, *args: str) -> subprocess.CompletedProcess[str]:
    return kubectl(served, *args, *AS_N1, check=False)


def test_a_node_reads_its_own_pod_and_not_another_nodes(cluster: Any) -> None:
    own = _as_n1(cluster, "get", "pod", "p1", "-o", "name")
    assert (own.returncode, own.stdout) == (0, "pod/p1\n")
    other = _as_n1(cluster, "get", "pod", "p2")
    assert (other.returncode, other.stderr) == (
        1,
        FORBIDDEN.format(
            what='pods "p2"',
            verb="get",
            resource="pods",
            where='in the namespace "default"',
            reason=OTHER_NODE,
        ),
    )


def test_a_node_reads_the_secrets_its_pods_reference(cluster: Any) -> None:
    assert _as_n1(cluster, "get", "secret", "s1", "-o", "name").stdout == "secret/s1\n"
    other = _as_n1(cluster, "get", "secret", "s2")
    assert other.stderr == FORBIDDEN.format(
        what='secrets "s2"',
        verb="get",
        resource="secrets",
        where='in the namespace "default"',
        reason=OTHER_NODE,
    )


def test_a_node_lists_pods_only_with_its_field_selector(cluster: Any) -> None:
    mine = _as_n1(cluster, "get", "pods", "-A", "--field-selector", "spec.nodeName=n1", "-o", "name")
    assert (mine.returncode, mine.stdout) == (0, "pod/p1\n")
    every = _as_n1(cluster, "get", "pods", "-A")
    assert every.stderr == FORBIDDEN.format(
        what="pods",
        verb="list",
        resource="pods",
        where="at the cluster scope",
        reason="can only list/watch pods with spec.nodeName field selector",
    )


def test_a_node_reads_only_its_own_node(cluster: Any) -> None:
    assert _as_n1(cluster, "get", "node", "n1", "-o", "name").stdout == "node/n1\n"
    # a kubelet's informer lists its Node with metadata.name=<node>, which names it (requestinfo.go)
    listed = _as_n1(cluster, "get", "nodes", "--field-selector", "metadata.name=n1", "-o", "name")
    assert (listed.returncode, listed.stdout) == (0, "node/n1\n")
    other = _as_n1(cluster, "get", "node", "n2")
    assert other.stderr == FORBIDDEN.format(
        what='nodes "n2"',
        verb="get",
        resource="nodes",
        where="at the cluster scope",
        reason="node 'n1' cannot read 'n2', only its own Node object",
    )


def test_a_node_evicts_only_its_own_pods(cluster: Any, tmp_path: Path) -> None:
    body = tmp_path / "eviction.json"
    body.write_text(json.dumps({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "p2"}}))
    other = _as_n1(cluster, "create", "--raw", "/api/v1/namespaces/default/pods/p2/eviction", "-f", str(body))
    assert other.returncode == 1
    assert other.stderr == (
        'Error from server (Forbidden): pods "p2" is forbidden: '
        "node n1 can only evict pods with spec.nodeName set to itself\n"
    )
    assert kubectl(cluster, "get", "pod", "p2", "-o", "name").stdout == "pod/p2\n"


def test_a_node_asks_tokens_only_for_pods_on_it(cluster: Any) -> None:
    """The Node authorizer allows the TokenRequest (the account is that of a pod on n1); NodeRestriction
    then checks the pod it is bound to."""

    def token(pod: str) -> subprocess.CompletedProcess[str]:
        uid = kubectl(cluster, "get", "pod", pod, "-o", "jsonpath={.metadata.uid}").stdout
        return _as_n1(
            cluster,
            "create",
            "token",
            "default",
            "--bound-object-kind=Pod",
            f"--bound-object-name={pod}",
            f"--bound-object-uid={uid}",
        )

    assert token("p1").returncode == 0
    other = token("p2")
    assert (other.returncode, other.stderr) == (
        1,
        'error: failed to create token: serviceaccounts "default" is '
        "forbidden: node requested token bound to a pod scheduled on a "
        "different node\n",
    )


# -- SubjectAccessReviews for a node ---------------------------------------------------------------


def _sar(verb: str, resource: str, name: str, user: str = "system:node:n1", **extra: Any) -> dict[str, Any]:
    attributes = {"namespace": "default", "verb": verb, "resource": resource, "name": name, **extra}
    return {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SubjectAccessReview",
        "spec": {"user": user, "groups": ["system:nodes"], "resourceAttributes": attributes},
    }


def _control_plane() -> ControlPlane:
    cp = ControlPlane(seed=0, controllers="")
    cp.apply("---\n".join(_objects()))
    return cp


def test_in_process_reviews_answer_for_a_node(make_api: Any) -> None:
    api = make_api(ControlPlaneBackend(_control_plane()))
    url = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
    assert api.post(url, json=_sar("get", "secrets", "s1")).json()["status"] == {"allowed": True}
    assert api.post(url, json=_sar("get", "secrets", "s2")).json()["status"] == {
        "allowed": False,
        "reason": f"node: {OTHER_NODE}",
    }
    selector = {
        "fieldSelector": {"requirements": [{"key": "spec.nodeName", "operator": "In", "values": ["n1"]}]}
    }
    assert api.post(url, json=_sar("list", "pods", "", **selector)).json()["status"] == {"allowed": True}
    # the graph follows the store: once p1 is gone, n1 may no longer read s1
    api.delete("/api/v1/namespaces/default/pods/p1?gracePeriodSeconds=0")
    assert api.post(url, json=_sar("get", "secrets", "s1")).json()["status"]["allowed"] is False


def test_with_rbac_alone_a_node_needs_a_binding(make_api: Any) -> None:
    api = make_api(ControlPlaneBackend(_control_plane()), authorization_modes=("RBAC",))
    node = {"impersonate-user": "system:node:n1", "impersonate-group": "system:nodes"}
    denied = api.get("/api/v1/namespaces/default/pods/p1", headers=node)
    assert denied.json()["message"] == (
        'pods "p1" is forbidden: User "system:node:n1" cannot get resource "pods" '
        'in API group "" in the namespace "default"'
    )
    url = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
    assert api.post(url, json=_sar("get", "secrets", "s1")).json()["status"] == {"allowed": False}


def test_a_rules_review_for_a_node_is_incomplete(make_api: Any) -> None:
    api = make_api(ControlPlaneBackend(_control_plane()))
    node = {"impersonate-user": "system:node:n1", "impersonate-group": "system:nodes"}
    body = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectRulesReview",
        "spec": {"namespace": "x"},
    }
    status = api.post("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", json=body, headers=node).json()
    assert (status["status"]["incomplete"], status["status"]["evaluationError"]) == (
        True,
        "node authorizer does not support user rule resolution",
    )


def test_kbatch_create_answers_a_node_review_in_local_mode(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for name in ("KBATCH_STATE", "KBATCH_SERVER", "KBATCH_FEATURE_GATES"):
        env.pop(name, None)

    def run(*args: str, input_: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "kbatch", "--state", str(tmp_path / "state"), *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=120,
            input=input_,
        )

    assert run("apply", "-f", "-", input_="---\n".join(_objects())).returncode == 0
    for secret, allowed in (("s1", True), ("s2", False)):
        out = run("create", "-f", "-", "-o", "json", input_=json.dumps(_sar("get", "secrets", secret)))
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["status"]["allowed"] is allowed


@pytest.mark.parametrize(
    ("modes", "error"),
    [
        ("ABAC,RBAC", '--authorization-mode: "ABAC" is not a mode kbatch has (Node, RBAC)'),
        ("Node,RBAC,Node", '--authorization-mode: "Node" has mode specified more than once'),
        ("Node", "--authorization-mode must include RBAC"),
    ],
)
def test_serve_refuses_modes_it_does_not_have(tmp_path: Path, modes: str, error: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "kbatch",
            "--state",
            str(tmp_path / "s"),
            "serve",
            "--port",
            "0",
            "--authorization-mode",
            modes,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 1
    assert error in out.stderr and "Traceback" not in out.stderr


def test_the_graph_lists_again_when_its_watch_history_is_compacted_away(
    make_api: Any, monkeypatch: Any
) -> None:
    cp = ControlPlane(seed=0, controllers="", store=MemoryStore(max_backlog=1))  # a watcher soon falls behind
    cp.apply("---\n".join(_objects()))
    lists = []
    relist = NodeGraphFeed._relist
    monkeypatch.setattr(NodeGraphFeed, "_relist", lambda feed: lists.append(1) or relist(feed))
    api = make_api(ControlPlaneBackend(cp))
    url = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
    assert api.post(url, json=_sar("get", "secrets", "s1")).json()["status"]["allowed"] is True
    for name in ("p3", "p4", "p5"):
        cp.apply(POD % (name, "n1", "s2"))
    cp.client.delete(Pod, "p1", "default", grace_period_seconds=0)
    store = cp.server.store
    store.compact(store.revision)  # the feed's watch has not read these writes: its history is gone
    assert api.post(url, json=_sar("get", "secrets", "s1")).json()["status"]["allowed"] is False
    assert api.post(url, json=_sar("get", "secrets", "s2")).json()["status"]["allowed"] is True
    assert len(lists) == 2
