"""The Node authorizer: what a kubelet (``system:node:<name>`` in ``system:nodes``) may do, narrowed to
its own node (k8s.io/kubernetes ``plugin/pkg/auth/authorizer/node/node_authorizer.go``, 1.37, with
AuthorizeNodeWithSelectors GA and KubeletServiceAccountTokenForCredentialProviders on).

It never denies: it allows, or has no opinion (with a reason) and the next authorizer (RBAC) decides.
A user that is not a node gets no opinion and no reason; a node user without a name after the prefix
gets ``unknown node for user "…"``. Then, by resource:

* ``secrets``, ``configmaps``: get, list or watch of one named object in a namespace that the graph
  links to the node (through a pod bound to it, or a volume of such a pod);
* ``persistentvolumeclaims`` (get; ``status``: update/patch), ``persistentvolumes``,
  ``resourceclaims`` (resource.k8s.io), ``volumeattachments`` (storage.k8s.io): get of one related
  object, no subresource (but a claim's status);
* ``serviceaccounts``: get of one related account, or create of the ``token`` of one related account;
* ``leases`` (coordination.k8s.io): get, create, update, patch, delete in ``kube-node-lease``, of the
  lease named after the node (create of any name: NodeRestriction checks it);
* ``csinodes`` (storage.k8s.io): the same verbs, no subresource, on the CSINode named after the node;
* ``resourceslices`` (resource.k8s.io): create (NodeRestriction checks ``spec.nodeName``); get, update,
  patch, delete of a slice the graph links to the node; list, watch, deletecollection only with the
  field selector ``nodeName=<node>``;
* ``nodes``: create, update, patch of a Node and update/patch of ``nodes/status`` (NodeRestriction
  limits them to its own); get, list, watch of its own Node by name only;
* ``pods``: get of a related pod; list and watch with ``spec.nodeName=<node>`` (or of one related pod
  by name); create and delete (mirror pods; NodeRestriction); update/patch of ``pods/status``; create
  of ``pods/eviction``;
* anything else: allowed when the static node rules (bootstrap policy ``NodeRules``) cover it.

A request for nodes or pods the switch above does not allow gets no opinion without consulting the
static rules, as upstream. The rules are given by the caller (``kbatch.families.rbac`` owns the
bootstrap policy); the graph is read only for a node's request.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kbatch.authz.node_graph import (
    CONFIGMAP,
    POD,
    PV,
    PVC,
    RESOURCE_CLAIM,
    RESOURCE_SLICE,
    SECRET,
    SERVICE_ACCOUNT,
    VOLUME_ATTACHMENT,
    NodeGraph,
)
from kbatch.authz.rbac import Decision
from kbatch.authz.rules import rules_allow
from kbatch.authz.user import Attributes, node_identity

__all__ = ["NODE_LEASE_NAMESPACE", "NodeAuthorizer"]

NODE_LEASE_NAMESPACE = "kube-node-lease"
NO = Decision(False)
YES = Decision(True)
_SELF_VERBS = ("get", "create", "update", "patch", "delete")


def _no(reason: str) -> Decision:
    return Decision(False, reason)


def _selects(attrs: Attributes, field: str, value: str) -> bool:
    """A requirement ``field=value`` in the request's field selector."""
    return any(r.field == field and r.operator == "=" and r.value == value for r in attrs.field_selector)


@dataclass(frozen=True, slots=True)
class NodeAuthorizer:
    """``NodeAuthorizer``: ``graph`` is called for the current graph when a node's request needs it;
    ``rules`` are the static node rules (``bootstrappolicy.NodeRules``)."""

    graph: Callable[[], NodeGraph]
    rules: Sequence[Mapping[str, Any]]

    def authorize(self, attrs: Attributes) -> Decision:
        node, is_node = node_identity(attrs.user)
        if not is_node:
            return NO
        if not node:
            return _no(f'unknown node for user "{attrs.user.name}"')
        if attrs.resource_request:
            decide = _BY_RESOURCE.get((attrs.api_group, attrs.resource))
            if decide is not None:
                return decide(self, node, attrs)
        return YES if rules_allow(attrs, self.rules) else NO

    # -- relationship checks ---------------------------------------------------------------------

    def _related(self, node: str, vertex_type: str, attrs: Attributes) -> Decision:
        """``authorize``: a named object the graph links to the node."""
        if not attrs.name:
            return _no("No Object name found")
        return self._path(node, vertex_type, attrs)

    def _path(self, node: str, vertex_type: str, attrs: Attributes) -> Decision:
        if self.graph().has_path(node, (vertex_type, attrs.namespace, attrs.name)):
            return YES
        return _no(f"no relationship found between node '{node}' and this object")

    def _get(self, node: str, vertex_type: str, attrs: Attributes) -> Decision:
        """``authorizeGet``."""
        if attrs.verb != "get":
            return _no("can only get individual resources of this type")
        if attrs.subresource:
            return _no("cannot get subresource")
        return self._related(node, vertex_type, attrs)

    def _read(self, node: str, vertex_type: str, attrs: Attributes) -> Decision:
        """``authorizeReadNamespacedObject``."""
        if attrs.verb not in ("get", "list", "watch"):
            return _no("can only read resources of this type")
        if attrs.subresource:
            return _no("cannot read subresource")
        if not attrs.namespace:
            return _no("can only read namespaced object of this type")
        return self._related(node, vertex_type, attrs)

    # -- per resource ----------------------------------------------------------------------------

    def _pvc(self, node: str, attrs: Attributes) -> Decision:
        if attrs.subresource == "status":  # authorizeStatusUpdate
            if attrs.verb not in ("update", "patch"):
                return _no("can only get/update/patch this type")
            return self._related(node, PVC, attrs)
        return self._get(node, PVC, attrs)

    def _service_account(self, node: str, attrs: Attributes) -> Decision:
        """``authorizeServiceAccount``: get of a related account (KEP-4412), else ``authorizeCreateToken``."""
        if attrs.verb == "get" and not attrs.subresource:
            return self._read(node, SERVICE_ACCOUNT, attrs)
        if attrs.verb != "create" or not attrs.name:
            return _no("can only create tokens for individual service accounts")
        if attrs.subresource != "token":
            return _no("can only create token subresource of serviceaccount")
        return self._path(node, SERVICE_ACCOUNT, attrs)

    def _lease(self, node: str, attrs: Attributes) -> Decision:
        if attrs.verb not in _SELF_VERBS:
            return _no("can only get, create, update, patch, or delete a node lease")
        if attrs.namespace != NODE_LEASE_NAMESPACE:
            return _no(f'can only access leases in the "{NODE_LEASE_NAMESPACE}" system namespace')
        if attrs.verb != "create" and attrs.name != node:
            return _no("can only access node lease with the same name as the requesting node")
        return YES

    def _csinode(self, node: str, attrs: Attributes) -> Decision:
        if attrs.verb not in _SELF_VERBS:
            return _no("can only get, create, update, patch, or delete a CSINode")
        if attrs.subresource:
            return _no("cannot authorize CSINode subresources")
        if attrs.verb != "create" and attrs.name != node:
            return _no("can only access CSINode with the same name as the requesting node")
        return YES

    def _slice(self, node: str, attrs: Attributes) -> Decision:
        if attrs.subresource:
            return _no("cannot authorize ResourceSlice subresources")
        if attrs.verb == "create":
            return YES  # NodeRestriction checks spec.nodeName
        if attrs.verb in ("get", "update", "patch", "delete"):
            return self._related(node, RESOURCE_SLICE, attrs)
        if attrs.verb in ("watch", "list", "deletecollection"):
            if _selects(attrs, "nodeName", node):
                return YES
            return _no("can only list/watch/deletecollection resourceslices with nodeName field selector")
        return _no("only the following verbs are allowed for a ResourceSlice: get, watch, list, create, "
                   "update, patch, delete, deletecollection")

    def _node(self, node: str, attrs: Attributes) -> Decision:
        verb = attrs.verb
        if not attrs.subresource and verb in ("create", "update", "patch"):
            return YES  # NodeRestriction limits a node to its own Node
        if not attrs.subresource and verb in ("get", "list", "watch"):
            if attrs.name == node:
                return YES
            if not attrs.name:
                return _no(f"node '{node}' cannot read all nodes, only its own Node object")
            return _no(f"node '{node}' cannot read '{attrs.name}', only its own Node object")
        if attrs.subresource == "status" and verb in ("update", "patch"):
            return YES
        return NO

    def _pod(self, node: str, attrs: Attributes) -> Decision:
        verb, sub = attrs.verb, attrs.subresource
        if not sub:
            if verb == "get":
                return self._get(node, POD, attrs)
            if verb in ("list", "watch"):
                if _selects(attrs, "spec.nodeName", node):
                    return YES
                if attrs.name:
                    return self._related(node, POD, attrs)
                return _no("can only list/watch pods with spec.nodeName field selector")
            if verb in ("create", "delete"):
                return YES  # mirror pods; NodeRestriction checks them
        if (sub == "status" and verb in ("update", "patch")) or (sub == "eviction" and verb == "create"):
            return YES  # NodeRestriction limits both to pods bound to the node
        return NO


_Rule = Callable[[NodeAuthorizer, str, Attributes], Decision]
_BY_RESOURCE: dict[tuple[str, str], _Rule] = {
    ("", "secrets"): lambda authz, node, attrs: authz._read(node, SECRET, attrs),
    ("", "configmaps"): lambda authz, node, attrs: authz._read(node, CONFIGMAP, attrs),
    ("", "persistentvolumeclaims"): NodeAuthorizer._pvc,
    ("", "persistentvolumes"): lambda authz, node, attrs: authz._get(node, PV, attrs),
    ("resource.k8s.io", "resourceclaims"): lambda authz, node, attrs: authz._get(node, RESOURCE_CLAIM, attrs),
    ("storage.k8s.io", "volumeattachments"):
        lambda authz, node, attrs: authz._get(node, VOLUME_ATTACHMENT, attrs),
    ("", "serviceaccounts"): NodeAuthorizer._service_account,
    ("coordination.k8s.io", "leases"): NodeAuthorizer._lease,
    ("storage.k8s.io", "csinodes"): NodeAuthorizer._csinode,
    ("resource.k8s.io", "resourceslices"): NodeAuthorizer._slice,
    ("", "nodes"): NodeAuthorizer._node,
    ("", "pods"): NodeAuthorizer._pod,
}
