"""kubectl against ``kbatch serve`` for ServiceAccounts: ``kubectl create serviceaccount`` sends
Kubernetes protobuf (k8s.io/api ``core/v1/generated.proto`` ``ServiceAccount``, in ``schema.json``),
which kube-apiserver decodes for every built-in kind (docs/serviceaccounts.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kbatch.server.protobuf import decode_object
from kbatch.server.protobuf.wire import encode_field as _field
from tests.server.test_kubectl import KUBECTL, kubectl
from tests.server.test_kubectl_rbac import _envelope


def test_a_protobuf_service_account_reads_as_its_json() -> None:
    # ServiceAccount: metadata 1, secrets 2 (ObjectReference name 3), imagePullSecrets 3
    # (LocalObjectReference name 1), automountServiceAccountToken 4
    body = (_field(1, _field(1, b"robot")) + _field(2, _field(3, b"s")) + _field(3, _field(1, b"pull"))
            + bytes([4 << 3, 0]))
    sa = decode_object(_envelope("v1", "ServiceAccount", body))
    assert sa["metadata"] == {"name": "robot"}
    assert sa["secrets"] == [{"name": "s"}] and sa["imagePullSecrets"] == [{"name": "pull"}]
    assert sa["automountServiceAccountToken"] is False


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_create_service_account(served: Any) -> None:
    kubectl(served, "create", "serviceaccount", "sa-robot")
    got = json.loads(kubectl(served, "get", "serviceaccount", "sa-robot", "-o", "json").stdout)
    assert got["metadata"]["name"] == "sa-robot" and got["metadata"]["namespace"] == "default"
    header = kubectl(served, "get", "sa", "sa-robot").stdout.splitlines()[0]
    assert header.split() == ["NAME", "SECRETS", "AGE"]
