"""The ``resourceclaim`` controller: :mod:`.sync`'s decisions applied through the client
(kube-controller-manager's ``resource-claim-controller``).

Requests are ``pod/<name>`` and ``claim/<name>`` in the object's namespace. Pod events enqueue the pod
and the claims it names (reservations may need clean-up); claim events enqueue the claim and, for a
generated one, its pod. Writes: claims are created with ``generateName``; the pod's
``status.resourceClaimStatuses`` is written with a merge patch; claim status (``reservedFor``,
``allocation``) with an update of the status subresource, then the finalizer removal with a main
update; generated claims of finished pods are deleted.
"""

from __future__ import annotations

from typing import Any

from kbatch.api import edit
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Conflict, NotFound
from kbatch.api.meta import ObjectMeta, OwnerReference
from kbatch.api.resource_v1 import (
    FINALIZER,
    POD_CLAIM_NAME_ANNOTATION,
    ResourceClaim,
    ResourceClaimConsumerReference,
    ResourceClaimTemplate,
)
from kbatch.controllers.dra.resourceclaim.sync import (
    ClaimFacts,
    ClaimPlan,
    ConsumerFacts,
    PodClaimFacts,
    PodFacts,
    generate_name,
    plan_claim,
    plan_pod,
)
from kbatch.runtime.cache.indexer import BY_CONTROLLER_UID
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.reconcile import Request, Result

__all__ = ["ResourceClaimController", "claim_requests", "pod_requests"]

_DONE = ("Succeeded", "Failed")
_RETRY = 5.0  # a missing template: try again (upstream: rate-limited requeue)


def pod_requests(pod: Any) -> list[Request]:
    """A pod event: the pod, and the claims it uses (their reservations may change)."""
    if not pod.spec.resource_claims:
        return []
    ns = pod.metadata.namespace or ""
    out = [Request(ns, f"pod/{pod.metadata.name}")]
    names = {c.resource_claim_name for c in pod.spec.resource_claims if c.resource_claim_name}
    if pod.status is not None:
        names |= {
            s.resource_claim_name for s in pod.status.resource_claim_statuses or () if s.resource_claim_name
        }
    out += [Request(ns, f"claim/{n}") for n in sorted(names)]
    return out


def claim_requests(claim: Any) -> list[Request]:
    ns = claim.metadata.namespace or ""
    out = [Request(ns, f"claim/{claim.metadata.name}")]
    owner = claim.metadata.controller_ref()
    if owner is not None and owner.kind == "Pod":
        out.append(Request(ns, f"pod/{owner.name}"))
    return out


class ResourceClaimController:
    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx

    def reconcile(self, request: Request) -> Any:
        kind, _, name = request.name.partition("/")
        if kind == "pod":
            return self._sync_pod(request.namespace, name)
        return self._sync_claim(request.namespace, name)

    # -- pods ------------------------------------------------------------------------------------
    def _sync_pod(self, namespace: str, name: str) -> Any:
        try:
            pod = self.ctx.cache.get(Pod, name, namespace)
        except NotFound:
            return None
        facts = _pod_facts(pod)
        owned = self._owned_claims(pod)
        plan = plan_pod(facts, owned)
        if not plan.create and not plan.record:
            return None
        recorded = dict(plan.record)
        for claim in plan.create:
            try:
                template = self.ctx.cache.get(ResourceClaimTemplate, claim.template_name, namespace)
            except NotFound:
                self.ctx.recorder.event(
                    pod,
                    "Warning",
                    "FailedResourceClaimCreation",
                    f"PodResourceClaim {claim.name}: resource claim template "
                    f'"{claim.template_name}": resourceclaimtemplate.resource.k8s.io '
                    f'"{claim.template_name}" not found',
                )
                continue
            created = self.ctx.client.create(_claim_from_template(pod, claim, template))
            recorded[claim.name] = created.metadata.name or ""
        if recorded:
            statuses = [
                {"name": c.name, "resourceClaimName": recorded.get(c.name) or facts.statuses[c.name]}
                for c in facts.claims
                if c.template_name and (c.name in recorded or c.name in facts.statuses)
            ]
            try:
                self.ctx.client.patch_status(
                    Pod, name, {"status": {"resourceClaimStatuses": statuses}}, namespace
                )
            except NotFound:
                return None
        if len(recorded) < len(plan.create) + len(plan.record):
            return Result(requeue_after=_RETRY)
        return None

    def _owned_claims(self, pod: Any) -> dict[str, str]:
        uid = pod.metadata.uid or ""
        out: dict[str, str] = {}
        for claim in self.ctx.cache.list(ResourceClaim, index=(BY_CONTROLLER_UID, uid)):
            if claim.metadata.deletion_timestamp is not None:
                continue
            entry = (claim.metadata.annotations or {}).get(POD_CLAIM_NAME_ANNOTATION)
            if entry and entry not in out:
                out[entry] = claim.metadata.name or ""  # (a stored object always has its name)
        return out

    # -- claims ----------------------------------------------------------------------------------
    def _sync_claim(self, namespace: str, name: str) -> Any:
        try:
            claim = self.ctx.cache.get(ResourceClaim, name, namespace)
        except NotFound:
            return None
        plan = plan_claim(self._claim_facts(claim))
        try:
            self._apply(claim, plan)
        except (NotFound, Conflict):
            return Result(requeue_after=0.0)
        return None

    def _pod(self, namespace: str, name: str) -> Pod | None:
        try:
            return self.ctx.cache.get(Pod, name, namespace)
        except NotFound:
            return None

    def _claim_facts(self, claim: Any) -> ClaimFacts:
        meta, status = claim.metadata, claim.status
        consumers = []
        for ref in (status.reserved_for or ()) if status is not None else ():
            pod = self._pod(meta.namespace or "", ref.name) if ref.resource == "pods" else None
            live = pod if pod is not None and pod.metadata.uid == ref.uid else None
            consumers.append(
                ConsumerFacts(
                    ref.resource,
                    ref.name,
                    ref.uid,
                    live is not None,
                    live is not None and _pod_done(live),
                )
            )
        owner = meta.controller_ref()
        generated = False
        if (
            owner is not None
            and owner.kind == "Pod"
            and POD_CLAIM_NAME_ANNOTATION in (meta.annotations or {})
        ):
            pod = self._pod(meta.namespace or "", owner.name)
            generated = pod is None or pod.metadata.uid != owner.uid or _pod_done(pod)
        return ClaimFacts(
            allocated=status is not None and status.allocation is not None,
            consumers=tuple(consumers),
            has_finalizer=FINALIZER in (meta.finalizers or ()),
            deleting=meta.deletion_timestamp is not None,
            generated_for_done_pod=generated,
        )

    def _apply(self, claim: Any, plan: ClaimPlan) -> None:
        client = self.ctx.client
        if plan.reserved_for is not None or plan.deallocate:
            changed = edit(claim)
            if plan.reserved_for is not None:
                changed.status.reserved_for = [
                    ResourceClaimConsumerReference(
                        resource=c.resource, name=c.name, uid=c.uid, api_group=_group(claim, c.uid)
                    )
                    for c in plan.reserved_for
                ] or None
            if plan.deallocate:
                changed.status.allocation = None
                changed.status.devices = None
            claim = client.update_status(changed)
        if plan.remove_finalizer:
            changed = edit(claim)
            changed.metadata.finalizers = [
                f for f in changed.metadata.finalizers or () if f != FINALIZER
            ] or None
            claim = client.update(changed)
        if plan.delete:
            client.delete(ResourceClaim, claim.metadata.name, claim.metadata.namespace)


def _group(claim: Any, uid: str) -> str | None:
    for ref in claim.status.reserved_for or ():
        if ref.uid == uid:
            return ref.api_group
    return None


def _phase(pod: Any) -> str:
    return (pod.status.phase if pod.status is not None else None) or "Pending"


def _pod_done(pod: Any) -> bool:
    """Upstream's ``isPodDone`` (pkg/controller/resourceclaim/controller.go): none of the pod's
    containers runs or will run — a terminal phase, or deleted before it was scheduled."""
    unscheduled_and_deleted = pod.metadata.deletion_timestamp is not None and not pod.spec.node_name
    return _phase(pod) in _DONE or unscheduled_and_deleted


def _pod_facts(pod: Any) -> PodFacts:
    statuses = (
        {s.name: s.resource_claim_name or "" for s in (pod.status.resource_claim_statuses or ())}
        if pod.status is not None
        else {}
    )
    claims = tuple(
        PodClaimFacts(c.name, c.resource_claim_name or "", c.resource_claim_template_name or "")
        for c in pod.spec.resource_claims or ()
    )
    return PodFacts(
        pod.metadata.namespace or "",
        pod.metadata.name or "",
        pod.metadata.uid or "",
        claims,
        statuses,
        _phase(pod) in _DONE,
        pod.metadata.deletion_timestamp is not None,
    )


def _claim_from_template(pod: Any, entry: PodClaimFacts, template: Any) -> ResourceClaim:
    meta = template.spec.metadata
    annotations = {**((meta.annotations or {}) if meta else {}), POD_CLAIM_NAME_ANNOTATION: entry.name}
    owner = OwnerReference(api_version="v1", kind="Pod", name=pod.metadata.name, uid=pod.metadata.uid,
                           controller=True, block_owner_deletion=True)
    metadata = ObjectMeta(generate_name=generate_name(pod.metadata.name, entry.name),
                          namespace=pod.metadata.namespace,
                          labels=dict(meta.labels) if meta and meta.labels else None,
                          annotations=annotations, owner_references=[owner])
    # The template's spec as it is (read only): the create copies its request as a body sent over the
    # wire would be, so a copy here would be made twice.
    return ResourceClaim(metadata=metadata, spec=template.spec.spec)
