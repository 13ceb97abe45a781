"""Keeps a :class:`~kbatch.authz.node_graph.NodeGraph` current from watch events of pods, persistent
volumes, volume attachments and resource slices (k8s.io/kubernetes
``plugin/pkg/auth/authorizer/node/graph_populator.go``).

* a pod enters the graph once it has ``spec.nodeName``, and is written again only when its node, its
  uid or its ``status.resourceClaimStatuses`` change (the references in a pod's spec are immutable);
  a deleted pod with a node leaves it;
* a persistent volume is written on every event (its claim and the secrets the kubelet reads);
* a volume attachment or a resource slice is written when its ``spec.nodeName`` changes.

Upstream compares an update's old and new object; a watch event carries only the new one, so the
populator remembers what it last wrote for each object. Pure but for the graph it writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kbatch.authz import pod_references as refs
from kbatch.authz.node_graph import (
    CONFIGMAP,
    PVC,
    RESOURCE_CLAIM,
    RESOURCE_SLICE,
    SECRET,
    SERVICE_ACCOUNT,
    VOLUME_ATTACHMENT,
    NodeGraph,
    Vertex,
)

__all__ = ["MIRROR_POD", "RESOURCES", "GraphPopulator", "pod_refs"]

Obj = Mapping[str, Any]
MIRROR_POD = "kubernetes.io/config.mirror"  # corev1.MirrorPodAnnotationKey
RESOURCES = ("pods", "persistentvolumes", "volumeattachments.storage.k8s.io",
             "resourceslices.resource.k8s.io")
"""What the populator watches, as ``resource[.group]``."""


def _meta(obj: Obj) -> Obj:
    return obj.get("metadata") or {}


def pod_refs(pod: Obj) -> list[Vertex]:
    """The vertices ``AddPod`` links to the pod: none for a mirror pod (a node must never gain access
    to other objects through a pod it created); else its service account, secrets, config maps,
    claims of its volumes and ResourceClaims."""
    meta = _meta(pod)
    if MIRROR_POD in (meta.get("annotations") or {}):
        return []
    namespace = str(meta.get("namespace") or "")
    out: list[Vertex] = []
    account = (pod.get("spec") or {}).get("serviceAccountName")
    if account:
        out.append((SERVICE_ACCOUNT, namespace, str(account)))
    for kind, names in ((SECRET, refs.secret_names(pod)), (CONFIGMAP, refs.configmap_names(pod)),
                        (PVC, refs.pvc_names(pod)), (RESOURCE_CLAIM, refs.claim_names(pod))):
        out.extend((kind, namespace, name) for name in names)
    return out


def _pod_signature(pod: Obj) -> tuple[object, ...]:
    """What makes ``updatePod`` write the pod again: node, uid, claim statuses."""
    statuses = (pod.get("status") or {}).get("resourceClaimStatuses") or ()
    claims = tuple(sorted((str(s.get("name")), str(s.get("resourceClaimName"))) for s in statuses))
    return ((pod.get("spec") or {}).get("nodeName"), _meta(pod).get("uid"), claims)


class GraphPopulator:
    """``populator.apply(resource, event_type, obj)`` for each watch event (``ADDED``, ``MODIFIED``,
    ``DELETED``) of one of :data:`RESOURCES`."""

    def __init__(self, graph: NodeGraph) -> None:
        self.graph = graph
        self._written: dict[tuple[str, str, str], object] = {}  # what was last written, per object

    def apply(self, resource: str, event_type: str, obj: Obj) -> None:
        meta = _meta(obj)
        key = (resource, str(meta.get("namespace") or ""), str(meta.get("name") or ""))
        if resource == "pods":
            self._pod(key, event_type, obj)
        elif resource == "persistentvolumes":
            self._pv(key, event_type, obj)
        else:
            vertex_type = VOLUME_ATTACHMENT if resource.startswith("volumeattachments") else RESOURCE_SLICE
            self._to_node(key, vertex_type, event_type, obj)

    def _pod(self, key: tuple[str, str, str], event_type: str, pod: Obj) -> None:
        _, namespace, name = key
        node = (pod.get("spec") or {}).get("nodeName")
        if event_type == "DELETED":
            self._written.pop(key, None)
            if node:
                self.graph.delete_pod(namespace, name)
            return
        if not node:
            return
        signature = _pod_signature(pod)
        if self._written.get(key) == signature:
            return  # node, uid and claim statuses unchanged: nothing the graph holds changed
        self._written[key] = signature
        self.graph.add_pod(namespace, name, str(node), pod_refs(pod))

    def _pv(self, key: tuple[str, str, str], event_type: str, pv: Obj) -> None:
        name = key[2]
        if event_type == "DELETED":
            self.graph.delete_pv(name)
            return
        claim = (pv.get("spec") or {}).get("claimRef")
        bound = (str(claim.get("namespace") or ""), str(claim.get("name") or "")) if claim else None
        self.graph.add_pv(name, bound, refs.pv_secret_refs(pv))

    def _to_node(self, key: tuple[str, str, str], vertex_type: str, event_type: str, obj: Obj) -> None:
        if event_type == "DELETED":
            self._written.pop(key, None)
            self.graph.delete(vertex_type, key[2])
            return
        node = str((obj.get("spec") or {}).get("nodeName") or "")
        if key in self._written and self._written[key] == node:
            return
        self._written[key] = node
        self.graph.add_to_node(vertex_type, key[2], node)
