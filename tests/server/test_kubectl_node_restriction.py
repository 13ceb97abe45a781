"""NodeRestriction with the real kubectl against ``kbatch serve``, impersonating a kubelet
(``--as=system:node:n1 --as-group=system:nodes``), as one checks it on a kind cluster
(k8s.io/kubernetes ``plugin/pkg/admission/noderestriction/admission.go``; the e2e
``test/e2e/auth/node_authn.go`` does the same with a node's credentials).

The test binds the bootstrap ``system:node`` ClusterRole to the group ``system:nodes`` first (what
clusters did before the Node authorizer), so that RBAC allows the reads of another node's objects the
Node authorizer refuses (kubectl reads a node before it labels it) and each write reaches
NodeRestriction; tests/server/test_kubectl_node_authorizer.py has the Node authorizer alone."""

from __future__ import annotations

from typing import Any

import pytest

from tests.server.test_kubectl import KUBECTL, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
AS_N1 = ("--as=system:node:n1", "--as-group=system:nodes")
NODE = """apiVersion: v1
kind: Node
metadata: {name: %s}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}, allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""


@pytest.fixture(scope="module")
def nodes(served: Any) -> Any:
    kubectl(
        served,
        "create",
        "clusterrolebinding",
        "kubelets",
        "--clusterrole=system:node",
        "--group=system:nodes",
    )
    for name in ("n1", "n2"):
        kubectl(served, "apply", "-f", "-", input_=NODE % name)
    return served


def _as_n1(served: Any, *args: str) -> Any:
    return kubectl(served, *args, *AS_N1, check=False)


def test_a_node_labels_only_itself_and_only_with_kubelet_labels(nodes: Any) -> None:
    other = _as_n1(nodes, "label", "node", "n2", "team=a")
    assert (other.returncode, other.stderr) == (
        1,
        'Error from server (Forbidden): nodes "n2" is forbidden: '
        'node "n1" is not allowed to modify node "n2"\n',
    )
    restricted = _as_n1(nodes, "label", "node", "n1", "node-restriction.kubernetes.io/pool=gpu")
    assert (restricted.returncode, restricted.stderr) == (
        1,
        'Error from server (Forbidden): nodes "n1" is forbidden: is not allowed to modify labels: '
        "node-restriction.kubernetes.io/pool\n",
    )
    assert _as_n1(nodes, "label", "node", "n1", "team=a").stdout == "node/n1 labeled\n"
    assert (
        _as_n1(nodes, "label", "node", "n1", "topology.kubernetes.io/zone=z1").stdout == "node/n1 labeled\n"
    )
    # the admin is not a node: no restriction
    assert kubectl(nodes, "label", "node", "n2", "node-restriction.kubernetes.io/pool=gpu").returncode == 0


def test_a_node_may_not_taint_itself(nodes: Any) -> None:
    out = _as_n1(nodes, "taint", "node", "n1", "dedicated=me:NoSchedule")
    assert (out.returncode, out.stderr) == (
        1,
        'Error from server (Forbidden): nodes "n1" is forbidden: node "n1" is not allowed to modify taints\n',
    )


def test_a_node_creates_only_mirror_pods_and_deletes_only_its_pods(nodes: Any) -> None:
    made = _as_n1(nodes, "run", "p", "--image=busybox", "--restart=Never")
    assert made.returncode == 1
    assert made.stderr == (
        'Error from server (Forbidden): pods "p" is forbidden: pod does not have '
        '"kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods\n'
    )
    kubectl(
        nodes,
        "run",
        "on-n2",
        "--image=busybox",
        "--restart=Never",
        "--overrides",
        '{"spec": {"nodeName": "n2"}}',
    )
    gone = _as_n1(nodes, "delete", "pod", "on-n2", "--wait=false")
    assert (gone.returncode, gone.stderr) == (
        1,
        'Error from server (Forbidden): pods "on-n2" is forbidden: node "n1" can only delete pods with '
        "spec.nodeName set to itself\n",
    )


def test_a_node_renews_only_its_own_lease(nodes: Any) -> None:
    patch = '{"spec": {"holderIdentity": "n1"}}'
    other = _as_n1(nodes, "patch", "lease", "n2", "-n", "kube-node-lease", "-p", patch)
    assert (other.returncode, other.stderr) == (
        1,
        'Error from server (Forbidden): leases.coordination.k8s.io "n2" is forbidden: can only access node '
        "lease with the same name as the requesting node\n",
    )
