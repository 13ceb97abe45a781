"""NodeRestriction's decisions, in the manner of upstream's table (k8s.io/kubernetes
``plugin/pkg/admission/noderestriction/admission_test.go`` ``Test_nodePlugin_Admit``: a node user, a
resource and operation, the object and the stored one, the expected error text), against
:func:`kbatch.apiserver.admission_plugins.node_restriction.refusal` (pure but for the node lookup),
and the labels a kubelet may set (``k8s.io/kubelet/pkg/apis/well_known_labels_test.go``)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.coordination_v1 import Lease
from kbatch.api.core_v1 import ConfigMap, Node, PersistentVolumeClaim, Pod
from kbatch.api.meta import Resource
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.apiserver.admission_plugins.node_restriction import forbidden_labels, is_kubelet_label, refusal
from kbatch.apiserver.identities import component_user, node_identity, node_user
from kbatch.apiserver.requester import LOCAL_ADMIN
from kbatch.authz.user import UserInfo

MYNODE = node_user("mynode")
NODE_UID = "6b5d0b8e-0000-4000-8000-000000000001"
MIRROR = {"kubernetes.io/config.mirror": "x"}
OWNER = {"apiVersion": "v1", "kind": "Node", "name": "mynode", "uid": NODE_UID, "controller": True}


def _nodes(name: str) -> Node:
    return Node.model_validate({"metadata": {"name": name, "uid": NODE_UID}})


def _pod(name: str = "p", node: str | None = "mynode", **meta: Any) -> Pod:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "i"}]}
    if node is not None:
        spec["nodeName"] = node
    spec.update(meta.pop("spec", {}))
    status = meta.pop("status", {})
    return Pod.model_validate(
        {"metadata": {"name": name, "namespace": "ns", **meta}, "spec": spec, "status": status}
    )


def _mirror(**spec: Any) -> Pod:
    return _pod(annotations=MIRROR, ownerReferences=[OWNER], spec=spec)


def _node(name: str = "mynode", labels: dict[str, str] | None = None, **spec: Any) -> Node:
    return Node.model_validate({"metadata": {"name": name, "labels": labels or {}}, "spec": spec})


def _ask(
    op: str, obj: Resource, old: Resource | None = None, sub: str = "", user: UserInfo = MYNODE
) -> str | None:
    return refusal(AdmissionRequest(op, obj, old, sub, user=user), _nodes)  # type: ignore[arg-type]


CASES: list[tuple[str, Any, str | None]] = [
    # not a node: nothing to restrict
    (
        "admin deletes any pod",
        lambda: _ask("DELETE", _pod(node="other"), _pod(node="other"), user=LOCAL_ADMIN),
        None,
    ),
    (
        "a node name without the group is not a node",
        lambda: _ask("DELETE", _pod(node="other"), _pod(node="other"), user=UserInfo("system:node:mynode")),
        None,
    ),
    (
        "a node user with no name",
        lambda: _ask(
            "CREATE",
            ConfigMap.model_validate({"metadata": {"name": "c"}}),
            user=component_user("system:node:"),
        ),
        'could not determine node from user "system:node:"',
    ),
    # mirror pods
    ("allow creating a mirror pod bound to self", lambda: _ask("CREATE", _mirror()), None),
    (
        "forbid creating a pod that is not a mirror pod",
        lambda: _ask("CREATE", _pod()),
        'pod does not have "kubernetes.io/config.mirror" annotation, '
        'node "mynode" can only create mirror pods',
    ),
    (
        "forbid creating a mirror pod bound to another node",
        lambda: _ask("CREATE", _pod(node="other", annotations=MIRROR, ownerReferences=[OWNER])),
        'node "mynode" can only create pods with spec.nodeName set to itself',
    ),
    (
        "forbid a mirror pod without an owner",
        lambda: _ask("CREATE", _pod(annotations=MIRROR)),
        'node "mynode" can only create pods with an owner reference set to itself',
    ),
    (
        "forbid a mirror pod with two owners",
        lambda: _ask(
            "CREATE", _pod(annotations=MIRROR, ownerReferences=[OWNER, {**OWNER, "name": "x", "uid": "u"}])
        ),
        'node "mynode" can only create pods with a single owner reference set to itself',
    ),
    (
        "forbid a mirror pod owned by another node",
        lambda: _ask("CREATE", _pod(annotations=MIRROR, ownerReferences=[{**OWNER, "name": "other"}])),
        'node "mynode" can only create pods with an owner reference set to itself',
    ),
    (
        "forbid a non-controller owner",
        lambda: _ask("CREATE", _pod(annotations=MIRROR, ownerReferences=[{**OWNER, "controller": False}])),
        'node "mynode" can only create pods with a controller owner reference set to itself',
    ),
    (
        "forbid blockOwnerDeletion",
        lambda: _ask(
            "CREATE", _pod(annotations=MIRROR, ownerReferences=[{**OWNER, "blockOwnerDeletion": True}])
        ),
        'node "mynode" must not set blockOwnerDeletion on an owner reference',
    ),
    (
        "forbid a wrong node uid",
        lambda: _ask("CREATE", _pod(annotations=MIRROR, ownerReferences=[{**OWNER, "uid": "other"}])),
        f"node mynode UID mismatch: expected other got {NODE_UID}",
    ),
    (
        "forbid a service account",
        lambda: _ask("CREATE", _mirror(serviceAccountName="foo")),
        'node "mynode" can not create pods that reference a service account',
    ),
    (
        "forbid a secret volume",
        lambda: _ask("CREATE", _mirror(volumes=[{"name": "v", "secret": {"secretName": "s"}}])),
        'node "mynode" can not create pods that reference secrets',
    ),
    (
        "forbid a configmap env",
        lambda: _ask(
            "CREATE",
            _mirror(
                containers=[
                    {
                        "name": "c",
                        "image": "i",
                        "env": [{"name": "e", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "k"}}}],
                    }
                ]
            ),
        ),
        'node "mynode" can not create pods that reference configmaps',
    ),
    (
        "forbid a cluster trust bundle",
        lambda: _ask(
            "CREATE",
            _mirror(
                volumes=[
                    {
                        "name": "v",
                        "projected": {"sources": [{"clusterTrustBundle": {"name": "b", "path": "p"}}]},
                    }
                ]
            ),
        ),
        'node "mynode" can not create pods that reference clustertrustbundles',
    ),
    (
        "forbid a claim",
        lambda: _ask("CREATE", _mirror(volumes=[{"name": "v", "persistentVolumeClaim": {"claimName": "c"}}])),
        'node "mynode" can not create pods that reference persistentvolumeclaims',
    ),
    # pods it runs
    ("allow deleting a pod bound to self", lambda: _ask("DELETE", _pod(), _pod()), None),
    (
        "forbid deleting a pod bound to another node",
        lambda: _ask("DELETE", _pod(node="other"), _pod(node="other")),
        'node "mynode" can only delete pods with spec.nodeName set to itself',
    ),
    (
        "forbid deleting an unbound pod",
        lambda: _ask("DELETE", _pod(node=None), _pod(node=None)),
        'node "mynode" can only delete pods with spec.nodeName set to itself',
    ),
    (
        "forbid updating a pod",
        lambda: _ask("UPDATE", _pod(), _pod()),
        'unexpected operation "UPDATE", node "mynode" can only create and delete mirror pods',
    ),
    (
        "allow updating the status of a pod bound to self",
        lambda: _ask("UPDATE", _pod(), _pod(), "status"),
        None,
    ),
    (
        "forbid the status of a pod bound to another node",
        lambda: _ask("UPDATE", _pod(node="other"), _pod(node="other"), "status"),
        'node "mynode" can only update pod status for pods with spec.nodeName set to itself',
    ),
    (
        "forbid labels through pod status",
        lambda: _ask("UPDATE", _pod(labels={"a": "b"}), _pod(), "status"),
        'node "mynode" cannot update labels through pod status',
    ),
    (
        "forbid resource claim statuses through pod status",
        lambda: _ask(
            "UPDATE",
            _pod(status={"resourceClaimStatuses": [{"name": "c", "resourceClaimName": "x"}]}),
            _pod(),
            "status",
        ),
        'node "mynode" cannot update resource claim statues',
    ),
    (
        "forbid another pod subresource",
        lambda: _ask("UPDATE", _pod(), _pod(), "ephemeralcontainers"),
        "unexpected pod subresource \"ephemeralcontainers\", only 'status' and 'eviction' are allowed",
    ),
    # its Node
    (
        "allow creating its node with kubelet labels",
        lambda: _ask(
            "CREATE",
            _node(
                labels={
                    "kubernetes.io/hostname": "mynode",
                    "foo.node.kubernetes.io/x": "y",
                    "example.com/mine": "z",
                }
            ),
        ),
        None,
    ),
    (
        "forbid creating another node",
        lambda: _ask("CREATE", _node("other")),
        'node "mynode" is not allowed to modify node "other"',
    ),
    (
        "forbid creating its node with restricted labels",
        lambda: _ask(
            "CREATE",
            _node(
                labels={
                    "node-restriction.kubernetes.io/x": "",
                    "kubernetes.io/role": "m",
                    "foo.k8s.io/bar": "",
                }
            ),
        ),
        'node "mynode" is not allowed to set the following labels: foo.k8s.io/bar, kubernetes.io/role, '
        "node-restriction.kubernetes.io/x",
    ),
    (
        "forbid a configSource on create",
        lambda: _ask("CREATE", _node(configSource={"configMap": {}})),
        'node "mynode" is not allowed to create pods with a non-nil configSource',
    ),
    ("allow updating its node", lambda: _ask("UPDATE", _node(labels={"a": "b"}), _node()), None),
    (
        "forbid updating another node",
        lambda: _ask("UPDATE", _node("other"), _node("other")),
        'node "mynode" is not allowed to modify node "other"',
    ),
    (
        "forbid deleting another node",
        lambda: _ask("DELETE", _node("other"), _node("other")),
        'node "mynode" is not allowed to modify node "other"',
    ),
    ("allow deleting its node", lambda: _ask("DELETE", _node(), _node()), None),
    (
        "forbid changing taints",
        lambda: _ask("UPDATE", _node(taints=[{"key": "k", "effect": "NoSchedule"}]), _node(), "status"),
        'node "mynode" is not allowed to modify taints',
    ),
    (
        "forbid removing a restricted label",
        lambda: _ask("UPDATE", _node(), _node(labels={"node-restriction.kubernetes.io/x": "y"})),
        "is not allowed to modify labels: node-restriction.kubernetes.io/x",
    ),
    (
        "allow keeping a restricted label",
        lambda: _ask(
            "UPDATE",
            _node(labels={"kubernetes.io/role": "m", "a": "b"}),
            _node(labels={"kubernetes.io/role": "m"}),
        ),
        None,
    ),
    # leases
    (
        "allow its lease",
        lambda: _ask(
            "CREATE", Lease.model_validate({"metadata": {"name": "mynode", "namespace": "kube-node-lease"}})
        ),
        None,
    ),
    (
        "forbid another node's lease",
        lambda: _ask(
            "UPDATE",
            *[Lease.model_validate({"metadata": {"name": "other", "namespace": "kube-node-lease"}})] * 2,
        ),
        "can only access node lease with the same name as the requesting node",
    ),
    (
        "forbid a lease elsewhere",
        lambda: _ask(
            "CREATE", Lease.model_validate({"metadata": {"name": "mynode", "namespace": "default"}})
        ),
        'can only access leases in the "kube-node-lease" system namespace',
    ),
    # claims
    (
        "forbid a claim's main resource",
        lambda: _ask("UPDATE", _claim(), _claim()),
        "may only update PVC status",
    ),
    (
        "allow a claim's capacity and conditions",
        lambda: _ask(
            "UPDATE",
            _claim({"capacity": {"storage": "2Gi"}, "conditions": [{"type": "Resizing", "status": "True"}]}),
            _claim(),
            "status",
        ),
        None,
    ),
    (
        "forbid a claim's phase",
        lambda: _ask("UPDATE", _claim({"phase": "Lost"}), _claim(), "status"),
        'node "mynode" is not allowed to update fields other than status.quantity and status.conditions: '
        "status.phase",
    ),
]


def _claim(status: dict[str, Any] | None = None) -> PersistentVolumeClaim:
    return PersistentVolumeClaim.model_validate(
        {
            "metadata": {"name": "c", "namespace": "ns", "resourceVersion": "1"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
            "status": {"phase": "Bound", **(status or {})},
        }
    )


@pytest.mark.parametrize(("name", "ask", "want"), CASES, ids=[c[0] for c in CASES])
def test_node_plugin_admit(name: str, ask: Any, want: str | None) -> None:
    assert ask() == want


@pytest.mark.parametrize(
    ("key", "kubelet"),
    [
        ("kubernetes.io/hostname", True),
        ("topology.kubernetes.io/zone", True),
        ("beta.kubernetes.io/os", True),
        ("node.kubernetes.io/instance-type", True),
        ("kubelet.kubernetes.io/anything", True),
        ("foo.node.kubernetes.io/x", True),
        ("foo.kubelet.kubernetes.io/x", True),
        ("kubernetes.io/role", False),
        ("node-role.kubernetes.io/control-plane", False),
        ("k8s.io/x", False),
        ("example.com/x", False),
        ("plain", False),
        ("evilnode.kubernetes.io/x", False),
    ],
)
def test_is_kubelet_label(key: str, kubelet: bool) -> None:
    assert is_kubelet_label(key) is kubelet


LABEL_KEYS = st.sampled_from(
    [
        "a",
        "example.com/x",
        "kubernetes.io/hostname",
        "kubernetes.io/role",
        "x.k8s.io/y",
        "node-restriction.kubernetes.io/z",
        "node.kubernetes.io/n",
    ]
)
LABELS = st.dictionaries(LABEL_KEYS, st.sampled_from(["", "1", "2"]), max_size=5)


@given(LABELS, LABELS)
def test_forbidden_labels_are_the_changed_restricted_keys(new: dict[str, str], old: dict[str, str]) -> None:
    """Symmetric (adding and removing are alike), empty when nothing changed, and never a key outside
    kubernetes.io/k8s.io or a kubelet label."""
    got = forbidden_labels(new, old)
    assert got == forbidden_labels(old, new) == sorted(got)
    assert forbidden_labels(new, dict(new)) == []
    for key in got:
        assert new.get(key) != old.get(key) or (key in new) != (key in old)
        assert not is_kubelet_label(key)
        assert "kubernetes.io/" in key or "k8s.io/" in key


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-.:", max_size=20))
def test_a_kubelet_s_user_names_its_node_back(name: str) -> None:
    """``NodeIdentity`` undoes the kubelet's user (``pkg/auth/nodeidentifier/default.go``), and a
    node's name alone, without ``system:nodes``, is no node."""
    user = node_user(name)
    assert user.groups == ("system:nodes", "system:authenticated")
    assert node_identity(user) == (name, True)
    assert node_identity(UserInfo(user.name, ("system:authenticated",))) == ("", False)
