"""kubectl against ``kbatch serve`` for the RBAC kinds: ``kubectl create role|clusterrole|rolebinding|
clusterrolebinding`` send Kubernetes protobuf (the rbac.authorization.k8s.io/v1 messages of k8s.io/api
``rbac/v1/generated.proto`` in ``schema.json``); ``get -o wide`` prints the printers.go columns; the
aggregation controller fills an aggregated role; ``describe`` reads the objects back."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kbatch.server.protobuf import decode_object
from kbatch.server.protobuf.wire import encode_field as _field
from tests.server.test_kubectl import KUBECTL, kubectl


def _envelope(api_version: str, kind: str, raw: bytes) -> bytes:
    type_meta = _field(1, api_version.encode()) + _field(2, kind.encode())
    return b"k8s\x00" + _field(1, type_meta) + _field(2, raw)


def test_a_protobuf_role_and_binding_read_as_their_json() -> None:
    # PolicyRule: verbs 1, apiGroups 2, resources 3, resourceNames 4, nonResourceURLs 5; Role: rules 2
    rule = _field(1, b"get") + _field(2, b"") + _field(3, b"pods")
    role = decode_object(_envelope("rbac.authorization.k8s.io/v1", "Role",
                                   _field(1, _field(1, b"r")) + _field(2, rule)))
    assert role["rules"] == [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]
    # RoleBinding: subjects 2 (kind 1, apiGroup 2, name 3, namespace 4),
    # roleRef 3 (apiGroup 1, kind 2, name 3)
    subject = _field(1, b"User") + _field(2, b"rbac.authorization.k8s.io") + _field(3, b"jane")
    ref = _field(1, b"rbac.authorization.k8s.io") + _field(2, b"Role") + _field(3, b"r")
    binding = decode_object(_envelope("rbac.authorization.k8s.io/v1", "RoleBinding",
                                      _field(1, _field(1, b"b")) + _field(2, subject) + _field(3, ref)))
    assert binding["subjects"] == [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "jane"}]
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"}


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_create_get_describe_rbac(served: Any) -> None:
    kubectl(served, "create", "role", "rb-reader", "--verb=get,list", "--resource=pods,jobs.batch")
    kubectl(served, "create", "clusterrole", "rb-agg", "--aggregation-rule=rb.example.com/agg=true")
    kubectl(served, "create", "clusterrole", "rb-part", "--verb=list", "--resource=cronjobs.batch")
    kubectl(served, "label", "clusterrole", "rb-part", "rb.example.com/agg=true")
    kubectl(served, "create", "rolebinding", "rb-read", "--role=rb-reader", "--user=jane",
            "--serviceaccount=default:robot", "--group=ops")
    kubectl(served, "create", "clusterrolebinding", "rb-agg", "--clusterrole=rb-agg", "--user=jane")
    wide = kubectl(served, "get", "rolebinding", "rb-read", "-o", "wide").stdout.splitlines()
    assert wide[0].split() == ["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"]
    cells = wide[1].split()
    assert cells[:2] == ["rb-read", "Role/rb-reader"] and cells[3:] == ["jane", "ops", "default/robot"]
    header = kubectl(served, "get", "role", "rb-reader").stdout.splitlines()[0]
    assert header.split() == ["NAME", "CREATED", "AT"]
    agg = json.loads(kubectl(served, "get", "clusterrole", "rb-agg", "-o", "json").stdout)
    assert agg["rules"] == [{"apiGroups": ["batch"], "resources": ["cronjobs"], "verbs": ["list"]}]
    page = kubectl(served, "describe", "clusterrolebinding", "rb-agg").stdout
    assert "  Kind:  ClusterRole\n  Name:  rb-agg\n" in page


_RECONCILE = """apiVersion: v1
kind: List
items:
- apiVersion: rbac.authorization.k8s.io/v1
  kind: ClusterRole
  metadata: {name: rec-reader}
  rules:
  - {apiGroups: [""], resources: [pods], verbs: [get, list]}
- apiVersion: rbac.authorization.k8s.io/v1
  kind: Role
  metadata: {name: rec-jobs, namespace: default}
  rules:
  - {apiGroups: [batch], resources: [jobs], verbs: [get]}
- apiVersion: rbac.authorization.k8s.io/v1
  kind: RoleBinding
  metadata: {name: rec-jobs, namespace: default}
  roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: %s}
  subjects:
  - {kind: User, apiGroup: rbac.authorization.k8s.io, name: jane}
"""


def _rules(served: Any, name: str) -> list[dict[str, Any]]:
    return json.loads(kubectl(served, "get", "clusterrole", name, "-o", "json").stdout)["rules"]


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_auth_reconcile(served: Any) -> None:
    """``kubectl auth reconcile`` (k8s.io/kubectl ``pkg/cmd/auth/reconcile.go``, upstream's
    ``pkg/registry/rbac/reconciliation`` run client-side with GET, create, update and, for a binding
    whose roleRef changed, a delete with a uid precondition): creates, then finds nothing to do, adds
    without removing, removes with ``--remove-extra-permissions``, recreates a re-pointed binding; and
    ``kbatch serve``'s own bootstrap roles are there to reconcile against."""
    first = kubectl(served, "auth", "reconcile", "-f", "-", input_=_RECONCILE % "rec-jobs")
    assert "reconciliation required create" in first.stderr
    assert "reconciliation required" not in kubectl(served, "auth", "reconcile", "-f", "-",
                                                    input_=_RECONCILE % "rec-jobs").stderr
    extra = {"apiGroups": ["example.com"], "resources": ["widgets"], "verbs": ["get"]}
    kubectl(served, "patch", "clusterrole", "rec-reader", "--type=json",
            "-p", json.dumps([{"op": "add", "path": "/rules/-", "value": extra}]))
    kubectl(served, "auth", "reconcile", "-f", "-", input_=_RECONCILE % "rec-jobs")
    assert extra in _rules(served, "rec-reader")  # the union: nothing removed
    removed = kubectl(served, "auth", "reconcile", "-f", "-", "--remove-extra-permissions",
                      input_=_RECONCILE % "rec-jobs")
    assert "extra rules removed" in removed.stderr
    pods = {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}
    assert _rules(served, "rec-reader") == [pods]
    kubectl(served, "create", "role", "rec-other", "--verb=list", "--resource=pods", "-n", "default")
    old = json.loads(kubectl(served, "get", "rolebinding", "rec-jobs", "-o", "json").stdout)
    kubectl(served, "auth", "reconcile", "-f", "-", input_=_RECONCILE % "rec-other")
    new = json.loads(kubectl(served, "get", "rolebinding", "rec-jobs", "-o", "json").stdout)
    assert new["roleRef"]["name"] == "rec-other" and new["metadata"]["uid"] != old["metadata"]["uid"]
    can = kubectl(served, "auth", "can-i", "list", "pods", "--as=jane", "-n", "default")
    assert can.stdout.strip() == "yes"
    job_role = _rules(served, "system:controller:job-controller")
    assert {"apiGroups": ["batch"], "resources": ["jobs/status"], "verbs": ["update"]} in job_role
