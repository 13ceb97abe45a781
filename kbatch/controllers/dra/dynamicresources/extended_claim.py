"""The DynamicResources plugin's special claim for extended resources backed by DRA (KEP-5004).

Upstream ``pkg/scheduler/framework/plugins/dynamicresources/extendeddynamicresources.go``:

* **PreFilter** (``preFilterExtendedResources``): a pod whose requests name an extended resource a
  DeviceClass maps gets a claim: the one a prior attempt created (annotated
  ``resource.kubernetes.io/extended-resource-claim: "true"``, controlled by the pod), else an
  in-memory one named ``<extended-resources>`` (not a valid name, so never a real claim) with
  ``generateName: <pod>-extended-resources-``, the pod as controlling owner and the annotation.
* **Filter** (``filterExtendedResources``): a claim from a prior attempt with requests is
  "cannot schedule extended resource claim"; per node, each mapped resource the node has no
  allocatable of is provided through DRA, and a requested DRA-extended name the node neither lists
  nor a class maps is "cannot fit resource"; the node's variant of the claim gets the requests of
  :func:`kbatch.controllers.dra.extended.requests_and_mappings`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kbatch.api.errors import Conflict
from kbatch.api.meta import ObjectMeta, OwnerReference
from kbatch.api.model_copy import shallow_copy
from kbatch.api.resource_v1 import FINALIZER, DeviceClaim, ResourceClaim, ResourceClaimSpec
from kbatch.api.resource_v1.constants import EXTENDED_RESOURCE_CLAIM_ANNOTATION
from kbatch.controllers.dra.extended import (
    ContainerInfo,
    RequestMapping,
    is_dra_extended_name,
    requests_and_mappings,
)

__all__ = [
    "IN_MEMORY_NAME",
    "NodeClaim",
    "creatable",
    "delete_claim",
    "find_special_claim",
    "in_memory_claim",
    "mapped_resources",
    "node_claim",
    "status_patch",
]

IN_MEMORY_NAME = "<extended-resources>"  # upstream specialClaimInMemName
CANNOT_SCHEDULE = "cannot schedule extended resource claim"
CANNOT_FIT = "cannot fit resource"

NodeClaim = tuple[Any, list[RequestMapping]]  # the node's variant of the claim, its mappings


def mapped_resources(pod: Any, resolve: Callable[[str], Any]) -> dict[str, int]:
    """The pod's positive requests of DRA-extended names (upstream ``podScalarResources`` restricted
    to them), when at least one is mapped by a DeviceClass (``hasDeviceClassMappedExtendedResource``);
    else empty."""
    named = {n: q for n, q in pod.requests.items() if q > 0 and "/" in n and is_dra_extended_name(n)}
    return named if any(resolve(n) is not None for n in named) else {}


def find_special_claim(special: Mapping[str, Any], pod: Any) -> Any:
    """``findExtendedResourceClaim``: the annotated claim the pod controls (``special``: such claims
    by their controlling pod's uid), in the pod's namespace and naming the pod."""
    claim = special.get(pod.uid)
    if claim is None or claim.metadata.namespace != pod.namespace:
        return None
    owners = claim.metadata.owner_references or ()
    return claim if any(r.controller and r.uid == pod.uid and r.name == pod.name for r in owners) else None


def in_memory_claim(pod: Any) -> ResourceClaim:
    """The special claim before PreBind creates it (no requests yet: Filter adds them per node)."""
    return ResourceClaim(
        metadata=ObjectMeta(
            name=IN_MEMORY_NAME,
            namespace=pod.namespace,
            generate_name=f"{pod.name}-extended-resources-",
            owner_references=[OwnerReference(api_version="v1", kind="Pod", name=pod.name, uid=pod.uid,
                                             controller=True)],
            annotations={EXTENDED_RESOURCE_CLAIM_ANNOTATION: "true"},
        ),
        spec=ResourceClaimSpec(devices=DeviceClaim()),
    )


def node_claim(
    claim: Any, pod: Any, resources: Mapping[str, int], allocatable: Mapping[str, int],
    resolve: Callable[[str], Any],
) -> tuple[NodeClaim | None, str]:
    """``filterExtendedResources`` for one node: the node's variant of the claim and its mappings
    (None when DRA provides nothing here), or the reason the node does not fit."""
    if claim.spec.devices.requests:
        return None, CANNOT_SCHEDULE
    needed: dict[str, int] = {}
    for name in sorted(resources):
        backed = resolve(name) is not None
        if backed and allocatable.get(name, 0) == 0:
            needed[name] = resources[name]
        elif name not in allocatable:
            return None, CANNOT_FIT
    if not needed:  # all provided by device plugins: NodeResourcesFit checked them
        return None, ""
    if claim.status is not None and claim.status.allocation is not None:
        return None, ""  # unreachable: a prior attempt's claim has requests (upstream's comment)
    containers = tuple(ContainerInfo(*c) for c in pod.extended_containers)
    requests, mappings = requests_and_mappings(containers, needed, resolve)
    variant = shallow_copy(claim)
    variant.spec = ResourceClaimSpec(devices=DeviceClaim(requests=requests or None))
    return (variant, mappings), ""


def creatable(variant: Any) -> ResourceClaim:
    """The node's claim as PreBind sends it: no name (the server generates one from
    ``generateName``), no uid, no status (upstream clears the allocation before Create)."""
    request = shallow_copy(variant)
    request.metadata = shallow_copy(variant.metadata)
    request.metadata.name = ""
    request.metadata.uid = None
    request.status = None
    return request


def status_patch(claim_name: str, mappings: list[RequestMapping]) -> dict[str, Any]:
    """The pod status patch recording the special claim (``PodExtendedResourceClaimStatus``)."""
    return {"status": {"extendedResourceClaimStatus": {
        "requestMappings": [
            {"containerName": m.container, "resourceName": m.resource, "requestName": m.request}
            for m in mappings
        ],
        "resourceClaimName": claim_name,
    }}}


def delete_claim(client: Any, claim: Any) -> None:
    """Upstream ``deleteClaim``: drop the ``delete-protection`` finalizer (retrying on conflict with a
    fresh read), then delete the claim."""
    meta = claim.metadata
    current = claim
    for attempt in range(5):  # client-go retry.DefaultRetry
        if attempt:
            current = client.get(ResourceClaim, meta.name, meta.namespace)
        finalizers = list(current.metadata.finalizers or ())
        if FINALIZER in finalizers:
            finalizers.remove(FINALIZER)
        request = shallow_copy(current)
        request.metadata = shallow_copy(current.metadata)
        request.metadata.finalizers = finalizers or None
        try:
            client.update(request)
            break
        except Conflict:
            if attempt == 4:
                raise
    client.delete(ResourceClaim, meta.name, meta.namespace)
