"""The ``kube-public/cluster-info`` ConfigMap kubeadm writes (its ``bootstrap-token`` phase).

kubeadm publishes, in the world-readable ``kube-public`` namespace, a ConfigMap ``cluster-info``
whose ``kubeconfig`` key holds a kubeconfig with the cluster alone (the API server's address and CA,
no user; kubernetes/kubernetes ``cmd/kubeadm/app/phases/bootstraptoken/clusterinfo``). kbatch's
bootstrap writes it with ``kbatch serve``'s default address, and ``kbatch serve`` points it at its own
URL when it starts (:func:`publish_cluster_info`). kbatch serves plain HTTP, so there is no
``certificate-authority-data``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from kbatch.api import edit
from kbatch.api.errors import AlreadyExists, BadRequest, NotFound

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["CLUSTER_INFO", "DEFAULT_SERVER", "KUBE_PUBLIC", "cluster_info_kubeconfig",
           "publish_cluster_info"]

KUBE_PUBLIC = "kube-public"  # metav1.NamespacePublic
CLUSTER_INFO = "cluster-info"  # bootstrapapi.ConfigMapClusterInfo
DEFAULT_SERVER = "http://127.0.0.1:6443"  # kbatch serve's default address


def cluster_info_kubeconfig(server: str) -> str:
    """The kubeconfig text, with the keys clientcmd writes for a cluster-only config (JSON is YAML)."""
    doc: dict[str, Any] = {"apiVersion": "v1", "kind": "Config",
                           "clusters": [{"name": "", "cluster": {"server": server}}],
           "contexts": None, "current-context": "", "preferences": {}, "users": None}
    return json.dumps(doc, indent=2) + "\n"


def publish_cluster_info(server: APIServer, address: str = DEFAULT_SERVER) -> None:
    """Create ``kube-public/cluster-info`` pointing at ``address``, or point the existing one there (no
    write when it already does). Nothing happens when ConfigMaps are not served."""
    try:
        model = server.registry.for_gvk("v1", "ConfigMap").model
    except BadRequest:
        return
    text = cluster_info_kubeconfig(address)
    try:
        current: Any = server.get(model, CLUSTER_INFO, KUBE_PUBLIC)  # a ConfigMap (looked up by name)
    except NotFound:
        try:
            meta = {"name": CLUSTER_INFO, "namespace": KUBE_PUBLIC}
            server.create(model.model_validate({"metadata": meta, "data": {"kubeconfig": text}}))
        except AlreadyExists:  # another API server on one etcd was first
            pass
        return
    if (current.data or {}).get("kubeconfig") == text:
        return
    changed = edit(current)
    changed.data = {**(current.data or {}), "kubeconfig": text}
    server.update(changed)
