"""kube-apiserver's system namespaces: the API server creates kube-system, kube-public and
kube-node-lease (pkg/controlplane/controller/systemnamespaces, synced at start and every minute) and
default; the kubelet creates none of them, it only writes its Lease into kube-node-lease."""

from __future__ import annotations

from kbatch import ControlPlane
from kbatch.api.core_v1 import Namespace
from kbatch.apiserver.namespaces import BOOTSTRAP_NAMESPACES


def test_a_new_api_server_has_every_system_namespace_without_any_kubelet() -> None:
    cp = ControlPlane(seed=1, controllers=[])
    names = {ns.metadata.name for ns in cp.client.list(Namespace).items}
    assert {"default", "kube-system", "kube-public", "kube-node-lease"} <= names
    assert set(BOOTSTRAP_NAMESPACES) == {"default", "kube-system", "kube-public", "kube-node-lease"}
