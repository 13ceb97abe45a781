"""The PodTemplate a ProvisioningRequest references for one (merged) pod set. Pure but for the
flavor lookup passed in.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/provisioning/controller.go``
``createPodTemplate``: the pod set's template, labelled ``kueue.x-k8s.io/managed=true``, controlled by
the Workload (ownership moves to the request once it exists: ``syncProvisionRequestsPodTemplates``),
with the assignment's flavors merged in (``podset.FromAssignment``: their node labels as node
selector, their tolerations; flavors in resource-name order) and limits standing in for missing
requests (``workload.UseLimitsAsMissingRequestsInPod``).
"""

from __future__ import annotations

from collections.abc import Callable

from kbatch.api.core_v1 import PodTemplate, Toleration
from kbatch.api.jobframework import PodSetInfo, merge_info
from kbatch.api.kueue_v1beta2 import PodSet, PodSetAssignment, ResourceFlavor, Workload
from kbatch.api.meta import ObjectMeta, OwnerReference

__all__ = ["MANAGED_LABEL", "owner_ref", "pod_template"]

MANAGED_LABEL = ("kueue.x-k8s.io/managed", "true")  # ManagedByKueueLabelKey/Value


def owner_ref(api_version: str, kind: str, meta: ObjectMeta) -> OwnerReference:
    """``SetControllerReference``'s reference."""
    return OwnerReference(
        api_version=api_version,
        kind=kind,
        name=meta.name or "",
        uid=meta.uid or "",
        controller=True,
        block_owner_deletion=True,
    )


def _info(psa: PodSetAssignment, ps: PodSet, flavor: Callable[[str], ResourceFlavor | None]) -> PodSetInfo:
    selector: dict[str, str] = {}
    tolerations: list[Toleration] = []
    seen: set[str] = set()
    for resource in sorted(psa.flavors or {}):
        name = (psa.flavors or {})[resource]
        if name in seen:
            continue
        seen.add(name)
        rf = flavor(name)
        spec = rf.spec if rf is not None else None
        selector.update((spec.node_labels if spec else None) or {})
        tolerations += (spec.tolerations if spec else None) or ()
    count = psa.count if psa.count is not None else ps.count or 0
    return PodSetInfo(psa.name or "", count, selector, tuple(tolerations))


def pod_template(
    wl: Workload, name: str, ps: PodSet, psa: PodSetAssignment, flavor: Callable[[str], ResourceFlavor | None]
) -> PodTemplate:
    """The template to create (``PodSetInfoError`` when the flavors conflict with the template)."""
    template = ps.template.model_copy(deep=True) if ps.template is not None else None
    pt = PodTemplate(
        metadata=ObjectMeta(
            name=name,
            namespace=wl.metadata.namespace,
            labels=dict([MANAGED_LABEL]),
            owner_references=[owner_ref(wl.api_version, wl.kind, wl.metadata)],
        ),
        template=template,
    )
    if template is None:
        return pt
    merge_info(template, _info(psa, ps, flavor))
    for c in (*(template.spec.init_containers or ()), *template.spec.containers):
        res = c.resources
        if res is not None and res.limits:
            res.requests = {**res.limits, **(res.requests or {})}
    return pt
