"""``NodeRestriction`` admission (k8s.io/kubernetes ``plugin/pkg/admission/noderestriction/admission.go``).

A request from a kubelet — a user in ``system:nodes`` named ``system:node:<name>``
(``pkg/auth/nodeidentifier/default.go``; :func:`~kbatch.apiserver.identities.node_identity`) — may
only touch what belongs to its node; every other user passes untouched. A node user with no name
after the prefix is refused (``could not determine node from user "system:node:"``). Then, by
resource:

* ``pods``: create only mirror pods (the ``kubernetes.io/config.mirror`` annotation) bound to
  itself, owned by exactly its own Node (controller, no ``blockOwnerDeletion``, the node's uid) and
  referencing no service account, secret, config map, cluster trust bundle or claim; delete only pods
  bound to itself; no other operation on the pod itself. ``pods/status``: only of pods bound to itself,
  without changing labels or ``status.resourceClaimStatuses``. Another pod subresource: refused.
* ``nodes``: only its own Node; on create no ``spec.configSource`` and no forbidden label, on update
  no new ``configSource``, no taint change and no forbidden label change (a label is forbidden under
  ``node-restriction.kubernetes.io/``, or under ``kubernetes.io/``/``k8s.io/`` (or a subdomain) unless
  it is a kubelet label: ``k8s.io/kubelet/pkg/apis/well_known_labels.go`` ``IsKubeletLabel``).
* ``persistentvolumeclaims``: only ``status`` updates that change nothing but ``status.capacity``,
  ``status.conditions``, ``status.allocatedResources`` and ``status.allocatedResourceStatuses``
  (RecoverVolumeExpansionFailure is GA).
* ``leases``: only in ``kube-node-lease`` and only the one named after the node.
* ``resourceslices`` (resource.k8s.io): create and delete only with ``spec.nodeName`` itself.
* ``pods/eviction``: only of a pod bound to itself (the URL's pod, else the Eviction's name; a pod
  that does not exist is the 404); ``pods/binding``: refused (not ``status`` or ``eviction``).
* ``serviceaccounts/token``: a TokenRequest bound to a pod (``boundObjectRef`` a ``v1`` ``Pod`` with a
  name and a uid) that exists with that uid and is bound to the node (:func:`token_request_refusal`,
  called by the API server's ``create_token`` and by ``kbatch serve`` before a TokenRequest is answered),
  for an audience the pod references or the authorizer chain grants
  (ServiceAccountNodeAudienceRestriction, :mod:`.node_token_audience`).

Upstream's plugin is a mutating one (``Admit``); it changes nothing, so kbatch runs it as a validating
hook that also judges deletes: a node's write that is invalid as well as forbidden gets the 422 here
where upstream answers 403 (docs/rbac.md, "Deliberate differences"). The ``csinodes``,
``certificatesigningrequests`` and ``podcertificaterequests`` rules are not modelled: kbatch serves
none of those kinds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from kbatch.api.coordination_v1 import NODE_LEASE_NAMESPACE, Lease
from kbatch.api.core_v1 import Node, PersistentVolumeClaim, Pod
from kbatch.api.errors import Forbidden, StatusDetails
from kbatch.api.meta import Resource
from kbatch.api.policy_v1 import Eviction
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.apiserver.admission_plugins import node_token_audience as audience
from kbatch.apiserver.admission_plugins.service_account import MIRROR_POD, references_secrets
from kbatch.apiserver.binding import Binding
from kbatch.apiserver.identities import NODES_GROUP, node_identity
from kbatch.apiserver.stored_rbac import stored_rbac
from kbatch.authz.user import Attributes, UserInfo

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["admit_token_request", "forbidden_labels", "install", "is_kubelet_label", "refusal",
           "token_request_refusal"]

NodeLookup = Callable[[str], Node]  # the stored Node by name; NotFound propagates
PodLookup = Callable[[str, str], Pod]  # the stored Pod by namespace and name; NotFound propagates

# k8s.io/kubelet well_known_labels.go: the labels a kubelet may set on its Node
_KUBELET_LABELS = frozenset({
    "kubernetes.io/hostname", "topology.kubernetes.io/zone", "topology.kubernetes.io/region",
    "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region",
    "beta.kubernetes.io/instance-type", "node.kubernetes.io/instance-type",
    "kubernetes.io/os", "kubernetes.io/arch", "beta.kubernetes.io/os", "beta.kubernetes.io/arch",
})
_KUBELET_LABEL_NAMESPACES = ("kubelet.kubernetes.io", "node.kubernetes.io")
_NODE_RESTRICTION_NAMESPACE = "node-restriction.kubernetes.io"  # corev1.LabelNamespaceNodeRestriction


def _label_namespace(key: str) -> str:
    prefix, slash, _ = key.partition("/")
    return prefix if slash else ""


def _within(namespace: str, domain: str) -> bool:
    return namespace == domain or namespace.endswith("." + domain)


def is_kubelet_label(key: str) -> bool:
    """``IsKubeletLabel``: a well-known node label, or one under a kubelet label namespace."""
    namespace = _label_namespace(key)
    return key in _KUBELET_LABELS or any(_within(namespace, d) for d in _KUBELET_LABEL_NAMESPACES)


def forbidden_labels(new: Mapping[str, str] | None, old: Mapping[str, str] | None) -> list[str]:
    """The label keys added, removed or changed between ``old`` and ``new`` that a node may not
    touch (``getModifiedLabels`` then ``getForbiddenLabels``), sorted as ``sets.String.List``."""
    new, old = new or {}, old or {}
    modified = {k for k in new.keys() | old.keys() if (k in new) != (k in old) or new.get(k) != old.get(k)}
    out = []
    for key in modified:
        namespace = _label_namespace(key)
        kubernetes = _within(namespace, "kubernetes.io") or _within(namespace, "k8s.io")
        if _within(namespace, _NODE_RESTRICTION_NAMESPACE) or (kubernetes and not is_kubelet_label(key)):
            out.append(key)
    return sorted(out)


def _pod_create(node: str, pod: Pod, nodes: NodeLookup) -> str | None:
    meta, spec = pod.metadata, pod.spec
    if MIRROR_POD not in (meta.annotations or {}):
        return f'pod does not have "{MIRROR_POD}" annotation, node "{node}" can only create mirror pods'
    if spec.node_name != node:
        return f'node "{node}" can only create pods with spec.nodeName set to itself'
    owners = meta.owner_references or []
    if len(owners) > 1:
        return f'node "{node}" can only create pods with a single owner reference set to itself'
    if not owners:
        return f'node "{node}" can only create pods with an owner reference set to itself'
    owner = owners[0]
    if owner.api_version != "v1" or owner.kind != "Node" or owner.name != node:
        return f'node "{node}" can only create pods with an owner reference set to itself'
    if not owner.controller:
        return f'node "{node}" can only create pods with a controller owner reference set to itself'
    if owner.block_owner_deletion:
        return f'node "{node}" must not set blockOwnerDeletion on an owner reference'
    uid = nodes(node).metadata.uid
    if owner.uid != uid:
        return f"node {node} UID mismatch: expected {owner.uid} got {uid}"
    return _pod_references(node, pod)


def _references_config_maps(pod: Pod) -> bool:
    """``podutil.VisitPodConfigmapNames`` over all containers."""
    spec = pod.spec
    for volume in spec.volumes or ():
        sources = volume.projected.sources if volume.projected else None
        if volume.config_map is not None or any(s.config_map is not None for s in sources or ()):
            return True
    for container in [*spec.all_containers(), *(spec.ephemeral_containers or ())]:
        if any(src.config_map_ref is not None for src in container.env_from or ()):
            return True
        if any(env.value_from is not None and env.value_from.config_map_key_ref is not None
               for env in container.env or ()):
            return True
    return False


def _pod_references(node: str, pod: Pod) -> str | None:
    """A node's mirror pod may reference no other API object."""
    volumes = pod.spec.volumes or ()
    if pod.spec.service_account_name:
        return f'node "{node}" can not create pods that reference a service account'
    if references_secrets(pod):
        return f'node "{node}" can not create pods that reference secrets'
    if _references_config_maps(pod):
        return f'node "{node}" can not create pods that reference configmaps'
    projected = [s for v in volumes if v.projected for s in v.projected.sources or ()]
    if any(s.cluster_trust_bundle is not None for s in projected):
        return f'node "{node}" can not create pods that reference clustertrustbundles'
    if any(v.persistent_volume_claim is not None for v in volumes):
        return f'node "{node}" can not create pods that reference persistentvolumeclaims'
    return None


def _claim_statuses(pod: Pod) -> list[tuple[str, str | None]]:
    statuses = pod.status.resource_claim_statuses if pod.status else None
    return [(s.name, s.resource_claim_name) for s in statuses or ()]


def _unexpected_pod_subresource(sub: str) -> str:
    return f"unexpected pod subresource \"{sub}\", only 'status' and 'eviction' are allowed"


def _pod(node: str, request: AdmissionRequest, nodes: NodeLookup) -> str | None:
    op, sub = request.operation, request.subresource
    pod, old = request.obj, request.old
    assert isinstance(pod, Pod)
    if sub == "status":
        if op != "UPDATE" or not isinstance(old, Pod):
            return f'unexpected operation "{op}"'
        if old.spec.node_name != node:
            return f'node "{node}" can only update pod status for pods with spec.nodeName set to itself'
        if (pod.metadata.labels or {}) != (old.metadata.labels or {}):
            return f'node "{node}" cannot update labels through pod status'
        if _claim_statuses(pod) != _claim_statuses(old):
            return f'node "{node}" cannot update resource claim statues'
        return None
    if sub:
        return _unexpected_pod_subresource(sub)
    if op == "CREATE":
        return _pod_create(node, pod, nodes)
    if op == "DELETE":
        if pod.spec.node_name != node:
            return f'node "{node}" can only delete pods with spec.nodeName set to itself'
        return None
    return f'unexpected operation "{op}", node "{node}" can only create and delete mirror pods'


def _node(node: str, request: AdmissionRequest) -> str | None:
    obj, old = request.obj, request.old
    assert isinstance(obj, Node)
    if obj.metadata.name != node:
        return f'node "{node}" is not allowed to modify node "{obj.metadata.name}"'
    if request.operation == "CREATE":
        if obj.spec is not None and obj.spec.config_source is not None:
            return f'node "{node}" is not allowed to create pods with a non-nil configSource'
        labels = forbidden_labels(obj.metadata.labels, None)
        if labels:
            return f'node "{node}" is not allowed to set the following labels: {", ".join(labels)}'
    elif request.operation == "UPDATE" and isinstance(old, Node):
        source = obj.spec.config_source if obj.spec else None
        if source is not None and source != (old.spec.config_source if old.spec else None):
            return f'node "{node}" is not allowed to update configSource to a new non-nil configSource'
        if _taints(obj) != _taints(old):
            return f'node "{node}" is not allowed to modify taints'
        labels = forbidden_labels(obj.metadata.labels, old.metadata.labels)
        if labels:
            return f"is not allowed to modify labels: {', '.join(labels)}"
    return None


def _taints(node: Node) -> list[Any]:
    taints = node.spec.taints if node.spec else None
    return [t.to_dict() for t in taints or ()]


_PVC_STATUS_FREE = ("capacity", "conditions", "allocatedResources", "allocatedResourceStatuses")


def _pvc(node: str, request: AdmissionRequest) -> str | None:
    if request.subresource != "status":
        return "may only update PVC status"
    if request.operation != "UPDATE" or request.old is None:
        return f'unexpected operation "{request.operation}"'
    new, old = (_pvc_without_free(o) for o in (request.obj, request.old))
    if new != old:
        changed = sorted({*_diff_paths(old, new)})
        return (f'node "{node}" is not allowed to update fields other than status.quantity and '
                f"status.conditions: {', '.join(changed)}")
    return None


def _pvc_without_free(obj: Resource) -> dict[str, Any]:
    """The claim as upstream compares it: without resourceVersion, managedFields and what a node
    may change."""
    wire = obj.to_dict()
    meta = wire.get("metadata", {})
    meta.pop("resourceVersion", None)
    meta.pop("managedFields", None)
    status = wire.get("status", {})
    for field in _PVC_STATUS_FREE:
        status.pop(field, None)
    return wire


def _diff_paths(old: Any, new: Any, path: str = "") -> list[str]:
    """Where two wire values differ, as dotted paths (upstream prints ``cmp.Diff``)."""
    if isinstance(old, dict) and isinstance(new, dict):
        return [p for k in sorted(old.keys() | new.keys())
                for p in _diff_paths(old.get(k), new.get(k), f"{path}.{k}" if path else k)]
    return [] if old == new else [path]


def _lease(node: str, request: AdmissionRequest) -> str | None:
    if request.obj.metadata.namespace != NODE_LEASE_NAMESPACE:
        return f'can only access leases in the "{NODE_LEASE_NAMESPACE}" system namespace'
    if request.obj.metadata.name != node:
        return "can only access node lease with the same name as the requesting node"
    return None


def _resource_slice(node: str, request: AdmissionRequest) -> str | None:
    op = request.operation
    if op not in ("CREATE", "DELETE"):
        return None  # upstream's Node authorizer judges the rest
    slice_node = getattr(getattr(request.obj, "spec", None), "node_name", None)
    if slice_node != node:
        verb = "create" if op == "CREATE" else "delete"
        return f"can only {verb} ResourceSlice with the same NodeName as the requesting node"
    return None


def _eviction(node: str, request: AdmissionRequest, pods: PodLookup) -> str | None:
    """``admitPodEviction``: the pod (the URL's name, which kbatch's server puts in the Eviction it
    admits) must be bound to the node."""
    if request.operation != "CREATE":
        return f"unexpected operation {request.operation}"
    meta = request.obj.metadata
    if not meta.name:
        return "could not determine pod from request data"
    if pods(meta.namespace or "", meta.name).spec.node_name != node:
        return f"node {node} can only evict pods with spec.nodeName set to itself"
    return None


def refusal(request: AdmissionRequest, nodes: NodeLookup, pods: PodLookup | None = None) -> str | None:
    """Why NodeRestriction refuses ``request`` (``None``: admitted). Pure but for ``nodes`` and
    ``pods`` (the stored Node and Pod by name; ``NotFound`` propagates)."""
    node, is_node = node_identity(request.user)
    if not is_node:
        return None
    if not node:
        return f'could not determine node from user "{request.user.name}"'
    obj = request.obj
    if isinstance(obj, Eviction):
        assert pods is not None
        return _eviction(node, request, pods)
    if isinstance(obj, Binding):
        return _unexpected_pod_subresource(request.subresource)
    if isinstance(obj, Pod):
        return _pod(node, request, nodes)
    if isinstance(obj, Node):
        return _node(node, request)
    if isinstance(obj, PersistentVolumeClaim):
        return _pvc(node, request)
    if isinstance(obj, Lease):
        return _lease(node, request)
    if type(obj).api_info.group_resource == "resourceslices.resource.k8s.io":
        return _resource_slice(node, request)
    return None


def _named_forbidden(resource: str, name: str, why: str) -> Forbidden:
    group_resource, _, group = resource.partition(".")
    details = StatusDetails(name=name, group=group or None, kind=group_resource)
    return Forbidden(f'{resource} "{name}" is forbidden: {why}', details=details)


def _forbidden(request: AdmissionRequest, why: str) -> Forbidden:
    """``admission.NewForbidden``: the request's resource (``pods`` for an eviction or a binding)
    and the object's name (else its generateName, else ``Unknown``)."""
    meta, resource = request.obj.metadata, type(request.obj).api_info.group_resource
    if isinstance(request.obj, (Eviction, Binding)):
        resource = "pods"
    return _named_forbidden(resource, meta.name or meta.generate_name or "Unknown", why)


def token_request_refusal(node: str, body: Mapping[str, Any], namespace: str, pods: PodLookup) -> str | None:
    """``admitServiceAccount`` for a ``serviceaccounts/token`` create by node ``node``: the token must
    be bound to a pod, by uid, that is bound to the node."""
    ref = (body.get("spec") or {}).get("boundObjectRef") or {}
    if ref.get("apiVersion") != "v1" or ref.get("kind") != "Pod" or not ref.get("name"):
        return "node requested token not bound to a pod"
    if not ref.get("uid"):
        return "node requested token with a pod binding without a uid"
    pod = pods(namespace, str(ref["name"]))
    if ref["uid"] != pod.metadata.uid:
        return (f"the UID in the bound object reference ({ref['uid']}) does not match the UID in record. "
                "The object might have been deleted and then recreated")
    if pod.spec.node_name != node:
        return "node requested token bound to a pod scheduled on a different node"
    return None


def admit_token_request(server: APIServer, user: UserInfo, namespace: str, account: str,
                        body: Mapping[str, Any]) -> None:
    """NodeRestriction on ``POST serviceaccounts/<account>/token`` (when the plugin is enabled): a
    ``Forbidden`` for a node's request it refuses."""
    node, is_node = node_identity(user)
    if not is_node or "NodeRestriction" not in server.admission_plugins:
        return
    why = (f'could not determine node from user "{user.name}"' if not node
           else token_request_refusal(node, body, namespace, _pods(server)))
    if why is None and server.features.enabled(audience.GATE):
        why = _audience_refusal(server, user, namespace, account, body)
    if why is not None:
        raise _named_forbidden("serviceaccounts", account, why)


def _audience_refusal(server: APIServer, user: UserInfo, namespace: str, account: str,
                      body: Mapping[str, Any]) -> str | None:
    """``validateNodeServiceAccountAudience`` once the pod binding passed; the authorizer is asked for
    ``request-serviceaccounts-token-audience`` on the audience, named after the service account."""
    pod = server.get(Pod, str(body["spec"]["boundObjectRef"]["name"]), namespace)

    def authorized(wanted: str) -> bool:
        attrs = Attributes(user, audience.AUDIENCE_VERB, namespace=namespace, api_version="v1",
                           resource=wanted, name=account)
        return server.authorizer.authorize(attrs, stored_rbac(server)).allowed

    return audience.audience_refusal(body, pod, user.name, audience.server_lookups(server), authorized)


def _pods(server: APIServer) -> PodLookup:
    def pods(namespace: str, name: str) -> Pod:
        return server.get(Pod, name, namespace)

    return pods


def install(server: APIServer) -> None:
    def nodes(name: str) -> Node:
        return server.get(Node, name)

    pods = _pods(server)

    def admit(request: AdmissionRequest) -> None:
        if NODES_GROUP not in request.user.groups:  # the common case: not a kubelet
            return
        why = refusal(request, nodes, pods)
        if why is not None:
            raise _forbidden(request, why)

    server.admission.add_validating(None, admit, deletes=True)
