"""Where the kubelets have a claim prepared: the nodes whose simulated driver reports its devices.

Upstream the kubelet's DRA manager (``pkg/kubelet/cm/dra/manager.go``) calls a driver's
``NodePrepareResources`` for a pod's claims when it admits a pod bound to its node (before the
containers start; a claim that is not allocated or not reserved for the pod fails preparation and
the kubelet retries), and ``NodeUnprepareResources`` once the pod's containers are gone and no other
pod on the node uses the claim. kbatch's kubelet makes the same check
(:func:`kbatch.controllers.dra.kubelet.unprepared_reason`); so a claim is prepared on node N while a
pod bound to N that uses it is neither Succeeded nor Failed (a deleted pod is gone from the cache
once the kubelet has stopped it) and passes that check.

The pods a claim may be prepared for are its consumers: the pods in ``reservedFor`` (by uid), and the
members of a PodGroup there (KEP-5729). Nothing is listed while no reporting pool exists.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Any

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import NotFound
from kbatch.controllers.dra.kubelet import unprepared_reason
from kbatch.controllers.dra.podclaims import NOT_CREATED, claim_name
from kbatch.controllers.dra.podgroupclaims import is_group_consumer

__all__ = ["pod_claim_names", "prepared_nodes"]

_DONE = ("Succeeded", "Failed")


def _consumers(cache: Any, claim: Any) -> Iterator[Any]:
    namespace = claim.metadata.namespace
    for ref in (claim.status.reserved_for or ()) if claim.status is not None else ():
        if is_group_consumer(ref):
            for pod in cache.list(Pod, namespace):
                group = pod.spec.scheduling_group
                if group is not None and group.pod_group_name == ref.name:
                    yield pod
        elif ref.resource == "pods":
            try:
                pod = cache.get(Pod, ref.name, namespace)
            except NotFound:
                continue
            if pod.metadata.uid == ref.uid:
                yield pod


def prepared_nodes(cache: Any, claim: Any, nodes: Collection[str]) -> set[str]:
    """The nodes among ``nodes`` where a kubelet has ``claim`` prepared for a pod."""
    out: set[str] = set()
    for pod in _consumers(cache, claim):
        node = pod.spec.node_name
        if not node or node not in nodes or node in out:
            continue
        if pod.status is not None and pod.status.phase in _DONE:
            continue
        if unprepared_reason(cache, pod) == "":
            out.add(node)
    return out


def pod_claim_names(pod: Any) -> list[str]:
    """The claims a pod uses: its entries' (generated ones once recorded) and the special claim for
    extended resources."""
    status = pod.status
    recorded = {s.name: s.resource_claim_name for s in (status.resource_claim_statuses or ())} \
        if status is not None else {}
    names = []
    for entry in pod.spec.resource_claims or ():
        name = claim_name(entry.resource_claim_name, entry.resource_claim_template_name, entry.name, recorded)
        if name is not NOT_CREATED and name:
            names.append(name)
    extended = status.extended_resource_claim_status if status is not None else None
    if extended is not None and extended.resource_claim_name:
        names.append(extended.resource_claim_name)
    return names
