"""NodeRestriction on the subresources kbatch now admits (k8s.io/kubernetes
``plugin/pkg/admission/noderestriction/admission.go`` ``admitPodEviction``, ``admitServiceAccount`` and
the pod subresource switch; ``admission_test.go``'s eviction and TokenRequest rows): a node evicts only
pods bound to it, never binds, and asks tokens only bound to a pod on it. In process, the scheduler's
bindings and a user's evictions pass admission as before; the decisions are pure
(:func:`refusal`, :func:`token_request_refusal`)."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.core_v1 import Node, Pod
from kbatch.api.errors import Forbidden, NotFound
from kbatch.api.policy_v1 import Eviction
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.apiserver.admission_plugins.node_restriction import refusal, token_request_refusal
from kbatch.apiserver.binding import Binding
from kbatch.apiserver.identities import node_user
from kbatch.apiserver.requester import acting_as

MYNODE = node_user("mynode")


def _pods(namespace: str, name: str) -> Pod:
    if name == "gone":
        raise NotFound.of("pods", name)
    node = "mynode" if name.startswith("mine") else "othernode"
    return Pod.model_validate(
        {
            "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}"},
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "i"}]},
        }
    )


def _nodes(name: str) -> Node:
    return Node.model_validate({"metadata": {"name": name}})


def _eviction(name: str) -> Eviction:
    return Eviction.model_validate({"metadata": {"name": name, "namespace": "ns"}})


def _ask(obj: Any, sub: str, op: str = "CREATE") -> str | None:
    return refusal(AdmissionRequest(op, obj, None, sub, user=MYNODE), _nodes, _pods)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "pod", "want"),
    [
        ("allow evict of a pod bound to the node", "mine", None),
        (
            "forbid evict of a pod bound to another node",
            "theirs",
            "node mynode can only evict pods with spec.nodeName set to itself",
        ),
        ("forbid evict without a pod name", "", "could not determine pod from request data"),
    ],
)
def test_evictions(name: str, pod: str, want: str | None) -> None:
    assert _ask(_eviction(pod), "eviction") == want


def test_evicting_a_missing_pod_is_its_not_found() -> None:
    with pytest.raises(NotFound):
        _ask(_eviction("gone"), "eviction")


def test_a_node_may_not_bind() -> None:
    binding = Binding.model_validate(
        {"metadata": {"name": "mine", "namespace": "ns"}, "target": {"kind": "Node", "name": "mynode"}}
    )
    assert (
        _ask(binding, "binding")
        == "unexpected pod subresource \"binding\", only 'status' and 'eviction' are allowed"
    )


def _token(**ref: Any) -> dict[str, Any]:
    return {"spec": {"audiences": ["api"], "boundObjectRef": ref or None}}


@pytest.mark.parametrize(
    ("name", "body", "want"),
    [
        (
            "allowed token bound to a pod on the node",
            _token(apiVersion="v1", kind="Pod", name="mine", uid="uid-mine"),
            None,
        ),
        ("forbid a token with no binding", _token(), "node requested token not bound to a pod"),
        (
            "forbid a token bound to a secret",
            _token(apiVersion="v1", kind="Secret", name="mine", uid="uid-mine"),
            "node requested token not bound to a pod",
        ),
        (
            "forbid a pod binding without a uid",
            _token(apiVersion="v1", kind="Pod", name="mine"),
            "node requested token with a pod binding without a uid",
        ),
        (
            "forbid a stale uid",
            _token(apiVersion="v1", kind="Pod", name="mine", uid="old"),
            "the UID in the bound object reference (old) does not match the UID in record. "
            "The object might have been deleted and then recreated",
        ),
        (
            "forbid a pod on another node",
            _token(apiVersion="v1", kind="Pod", name="theirs", uid="uid-theirs"),
            "node requested token bound to a pod scheduled on a different node",
        ),
    ],
)
def test_token_requests(name: str, body: dict[str, Any], want: str | None) -> None:
    assert token_request_refusal("mynode", body, "ns", _pods) == want


def _cluster() -> ControlPlane:
    cp = ControlPlane(seed=0, controllers="")
    for node in ("mynode", "othernode"):
        cp.apply(f"apiVersion: v1\nkind: Node\nmetadata: {{name: {node}}}\n")
    for name, node in (("mine", "mynode"), ("theirs", "othernode"), ("unbound", None)):
        spec = f"nodeName: {node}, " if node else ""
        cp.apply(
            f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\n"
            f"spec: {{{spec}containers: [{{name: c, image: i}}]}}\n"
        )
    return cp


def test_the_eviction_and_binding_paths_run_admission() -> None:
    cp = _cluster()
    client = cp.server.client()
    with acting_as(MYNODE):
        with pytest.raises(Forbidden) as refused:
            client.evict("theirs", "default")
        assert str(refused.value) == (
            'pods "theirs" is forbidden: node mynode can only evict pods with spec.nodeName set to itself'
        )
        with pytest.raises(Forbidden):
            client.bind("unbound", "default", "mynode")
        client.evict("mine", "default")
    client.bind("unbound", "default", "othernode")  # anyone else: as before
    assert cp.client.get(Pod, "unbound", "default").spec.node_name == "othernode"
