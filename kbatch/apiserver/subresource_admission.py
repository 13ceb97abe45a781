"""Admission of the two pod subresources a client creates: ``pods/binding`` (a Binding) and
``pods/eviction`` (an Eviction).

kube-apiserver runs its admission chain on these creates as on any other (k8s.io/apiserver
``pkg/endpoints/handlers/create.go``; ``pkg/registry/core/pod/storage/storage.go`` ``BindingREST`` and
``eviction.go`` ``EvictionREST`` call the validating chain before they act): the request's resource is
``pods``, its subresource ``binding`` or ``eviction``, its object the Binding or the Eviction, its name
the URL's pod. The plugins that act on them are NodeRestriction (a node may evict only its own pods and
may not bind) and the admission policies that match the subresource; the PodDisruptionBudget check is
the eviction storage's own (:mod:`kbatch.apiserver.eviction`), not admission. Only the validating
hooks run (NodeRestriction is one here; no built-in mutating plugin changes these objects).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbatch.api.base import ApiInfo
from kbatch.api.core_v1 import Pod
from kbatch.api.meta import Resource
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.apiserver.requester import requester

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["admit_pod_subresource", "request_info"]

# the object the create of each pod subresource carries
_POD_SUBRESOURCE_KINDS = {"binding": "Binding", "eviction": "Eviction"}


def request_info(request: AdmissionRequest) -> ApiInfo:
    """The resource ``request`` is on (``admission.Attributes.GetResource``): ``pods`` for a Binding
    or an Eviction on its pod subresource, else the object's own kind."""
    info = type(request.obj).api_info
    if _POD_SUBRESOURCE_KINDS.get(request.subresource) == info.kind:
        return Pod.api_info
    return info


def admit_pod_subresource(server: APIServer, obj: Resource, subresource: str, namespace: str | None,
                          name: str, *, dry_run: bool = False) -> None:
    """Run the validating hooks on the create of ``pods/<name>/<subresource>`` with ``obj``, as the
    request's user; the object the hooks see is in the request's namespace and named after its pod."""
    meta = obj.metadata
    if (namespace and meta.namespace != namespace) or meta.name != name:
        placed = meta.model_copy(update={"namespace": namespace or meta.namespace, "name": name})
        obj = obj.model_copy(update={"metadata": placed})
    server.admission.validate(AdmissionRequest("CREATE", obj, None, subresource, dry_run, user=requester()))
