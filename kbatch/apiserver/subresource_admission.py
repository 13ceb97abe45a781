"""Admission of the two pod subresources a client creates: ``pods/binding`` (a Binding) and
``pods/eviction`` (an Eviction).

kube-apiserver runs its admission chain on these creates as on any other (k8s.io/apiserver
``pkg/endpoints/handlers/create.go``; ``pkg/registry/core/pod/storage/storage.go`` ``BindingREST`` and
``eviction.go`` ``EvictionREST`` call the validating chain before they act): the request's resource is
``pods``, its subresource ``binding`` or ``eviction``, its object the Binding or the Eviction, its name
the URL's pod. The plugins that act on them are NodeRestriction (a node may evict only its own pods and
may not bind) and the admission policies that match the subresource; the PodDisruptionBudget check is
the eviction storage's own (:mod:`kbatch.apiserver.eviction`), not admission.

The mutating chain runs first, as the create handler's ``mutatingAdmission.Admit``: the hooks added for
the Binding or Eviction model itself, which are the MutatingAdmissionPolicy plugin's (no built-in
mutating plugin acts on these objects; kbatch's managed-fields tracker, a hook for every kind, is left
out: the object is never stored). What a policy changes is what the binding or the eviction acts on (a
Binding's annotations go onto the pod; an Eviction's ``deleteOptions`` are the delete's). Then the
validating hooks judge the mutated object.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from kbatch.api.base import ApiInfo
from kbatch.api.core_v1 import Pod
from kbatch.api.meta import Resource
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.apiserver.requester import requester

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["admit_pod_subresource", "request_info"]

R = TypeVar("R", bound=Resource)

# the object the create of each pod subresource carries
_POD_SUBRESOURCE_KINDS = {"binding": "Binding", "eviction": "Eviction"}


def request_info(request: AdmissionRequest) -> ApiInfo:
    """The resource ``request`` is on (``admission.Attributes.GetResource``): ``pods`` for a Binding
    or an Eviction on its pod subresource, else the object's own kind."""
    info = type(request.obj).api_info
    if _POD_SUBRESOURCE_KINDS.get(request.subresource) == info.kind:
        return Pod.api_info
    return info


def admit_pod_subresource(server: APIServer, obj: R, subresource: str, namespace: str | None,
                          name: str, *, dry_run: bool = False) -> R:
    """Run the mutating, then the validating hooks on the create of ``pods/<name>/<subresource>`` with
    ``obj``, as the request's user, and answer the object as admitted (a copy: ``obj`` is not changed).
    The hooks see it in the request's namespace and named after its pod; the answer keeps the name and
    namespace ``obj`` had, which the subresource's storage checks against the URL's itself."""
    meta = obj.metadata
    placed = (namespace and meta.namespace != namespace) or meta.name != name
    admitted = obj.model_copy(update={"metadata": meta.model_copy(
        update={"namespace": namespace or meta.namespace, "name": name})}) if placed else obj.model_copy()
    request = AdmissionRequest("CREATE", admitted, None, subresource, dry_run, user=requester())
    server.admission.mutate(request, kind_only=True)
    server.admission.validate(request)
    if not placed:
        return admitted
    kept = admitted.metadata.model_copy(update={"namespace": meta.namespace, "name": meta.name})
    return admitted.model_copy(update={"metadata": kept})
