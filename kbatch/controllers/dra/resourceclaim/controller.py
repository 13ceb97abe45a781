"""The ``resourceclaim`` controller: :mod:`.sync`'s decisions applied through the client
(kube-controller-manager's ``resource-claim-controller``).

Requests are ``pod/<name>``, ``claim/<name>`` and, with PodGroup claims on (KEP-5729,
:mod:`kbatch.controllers.dra.podgroupclaims`), ``podgroup/<name>`` in the object's namespace;
:mod:`.handlers` says which events enqueue which (upstream's ``enqueuePod``, ``enqueueResourceClaim``
and ``enqueuePodGroup``). Writes: claims are created with ``generateName``; the pod's (or PodGroup's)
``status.resourceClaimStatuses`` is written with a merge patch; claim status (``reservedFor``,
``allocation``) with an update of the status subresource, then the finalizer removal with a main
update; generated claims of finished pods are deleted.

A PodGroup's template entries get one claim each, owned by the PodGroup (its pods' matching entries
get none of their own: the group's claim is recorded in their status once it exists); a PodGroup in
``reservedFor`` stays while that PodGroup exists (upstream rows "create for PodGroup", "update Pod
status with PodGroup claim", "clear-reserved-podgroup", "add-reserved-podgroup").
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kbatch.api import edit
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Conflict, NotFound
from kbatch.api.meta import ObjectMeta, OwnerReference
from kbatch.api.resource_v1 import (
    FINALIZER,
    POD_CLAIM_NAME_ANNOTATION,
    RESERVED_FOR_MAX_SIZE,
    ResourceClaim,
    ResourceClaimConsumerReference,
    ResourceClaimTemplate,
)
from kbatch.api.scheduling_v1beta1 import PodGroup
from kbatch.controllers.dra import podgroupclaims
from kbatch.controllers.dra.podclaims import NOT_CREATED, claim_name
from kbatch.controllers.dra.resourceclaim.sync import (
    ClaimFacts,
    ClaimPlan,
    ConsumerFacts,
    PodClaimFacts,
    PodClaimUse,
    PodFacts,
    claims_to_reserve,
    generate_name,
    plan_claim,
    plan_pod,
)
from kbatch.runtime.cache.indexer import BY_CONTROLLER_UID
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.reconcile import Request, Result

__all__ = ["ResourceClaimController"]

_DONE = ("Succeeded", "Failed")
_RETRY = 5.0  # a missing template: try again (upstream: rate-limited requeue)


class ResourceClaimController:
    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx

    def reconcile(self, request: Request) -> Any:
        kind, _, name = request.name.partition("/")
        if kind == "pod":
            return self._sync_pod(request.namespace, name)
        if kind == "podgroup":
            return self._sync_pod_group(request.namespace, name)
        return self._sync_claim(request.namespace, name)

    @property
    def _groups(self) -> bool:
        return podgroupclaims.enabled(self.ctx.features)

    # -- pods ------------------------------------------------------------------------------------
    def _sync_pod(self, namespace: str, name: str) -> Any:
        try:
            pod = self.ctx.cache.get(Pod, name, namespace)
        except NotFound:
            return None
        facts = _pod_facts(pod)
        group, shared = self._group_claims(pod)
        if shared is None:
            return Result(requeue_after=_RETRY)  # upstream: the PodGroup is not found (an error)
        statuses, complete = self._generate(pod, facts, shared)
        if statuses is None:
            return None  # the pod is gone
        try:
            self._reserve(pod, facts, statuses, group, shared)
        except (NotFound, Conflict):
            return Result(requeue_after=0.0)
        return None if complete else Result(requeue_after=_RETRY)

    def _group_claims(self, pod: Any) -> tuple[Any, dict[str, str] | None]:
        """The pod's PodGroup and its entries that use the group's claims, each with the group's
        claim for it ("" for a template's claim not created yet); None when the PodGroup is missing."""
        name = podgroupclaims.group_name(pod) if self._groups and pod.spec.resource_claims else ""
        if not name:
            return None, {}
        try:
            group = self.ctx.cache.get(PodGroup, name, pod.metadata.namespace)
        except NotFound:
            return None, None
        names = podgroupclaims.shared_entries(podgroupclaims.entries(pod.spec.resource_claims),
                                              podgroupclaims.entries(group.spec.resource_claims))
        recorded = {s.name: s.resource_claim_name or "" for s in _group_statuses(group)}
        entries = {e.name: e for e in pod.spec.resource_claims if e.name in names}
        return group, {n: e.resource_claim_name or recorded.get(n, "") for n, e in entries.items()}

    def _sync_pod_group(self, namespace: str, name: str) -> Any:
        """A PodGroup's template entries: claims created and recorded as for a pod's (upstream
        ``syncPodGroup``)."""
        if not self._groups:
            return None
        try:
            group = self.ctx.cache.get(PodGroup, name, namespace)
        except NotFound:
            return None
        if group.metadata.deletion_timestamp is not None or not group.spec.resource_claims:
            return None
        facts = PodFacts(
            namespace, name, group.metadata.uid or "",
            tuple(PodClaimFacts(c.name, c.resource_claim_name or "", c.resource_claim_template_name or "")
                  for c in group.spec.resource_claims),
            {s.name: s.resource_claim_name or "" for s in _group_statuses(group)},
        )
        statuses, complete = self._generate(group, facts, {})
        return None if statuses is None or complete else Result(requeue_after=_RETRY)

    def _generate(self, owner: Any, facts: PodFacts, shared: dict[str, str],
                  ) -> tuple[dict[str, str] | None, bool]:
        """Create the template claims the pod (or PodGroup) lacks and record them in its status, with
        the group's claims its ``shared`` entries use: the recorded names (None when the owner is
        gone) and whether every claim could be created."""
        own = replace(facts, claims=tuple(c for c in facts.claims if c.name not in shared))
        plan = plan_pod(own, self._owned_claims(owner), self._present(owner, facts))
        from_group = [(n, c) for n, c in shared.items()
                      if c and facts.statuses.get(n) != c and n not in _direct(facts)]
        if not plan.create and not plan.record and not from_group:
            return dict(facts.statuses), True
        namespace, name = facts.namespace, facts.name
        recorded = dict(plan.record)
        for claim in plan.create:
            try:
                template = self.ctx.cache.get(ResourceClaimTemplate, claim.template_name, namespace)
            except NotFound:
                self.ctx.recorder.event(
                    owner,
                    "Warning",
                    "FailedResourceClaimCreation",
                    f"PodResourceClaim {claim.name}: resource claim template "
                    f'"{claim.template_name}": resourceclaimtemplate.resource.k8s.io '
                    f'"{claim.template_name}" not found',
                )
                continue
            created = self.ctx.client.create(_claim_from_template(owner, claim, template))
            recorded[claim.name] = created.metadata.name or ""
        made = len(recorded) == len(plan.create) + len(plan.record)
        recorded.update(from_group)
        if recorded:
            statuses = [
                _claim_status(c.name, recorded.get(c.name) or facts.statuses[c.name])
                for c in facts.claims
                if c.template_name and (c.name in recorded or c.name in facts.statuses)
            ]
            try:
                self.ctx.client.patch_status(
                    type(owner), name, {"status": {"resourceClaimStatuses": statuses}}, namespace
                )
            except NotFound:
                return None, True
        return {**facts.statuses, **recorded}, made

    def _reserve(self, pod: Any, facts: PodFacts, statuses: dict[str, str], group: Any,
                 shared: dict[str, str]) -> None:
        """Upstream ``syncPod``'s last step (case "add-reserved"): a pod bound without the scheduler
        is added to ``reservedFor`` of its allocated claims (:func:`claims_to_reserve`); a claim of
        its PodGroup is reserved for the PodGroup (case "add-reserved-podgroup")."""
        node = pod.spec.node_name or ""
        if not node or facts.done or facts.deleting:
            return
        consumers: dict[str, Any] = {}  # claim name -> whom it is reserved for: the pod or its group
        uses = []
        for entry in facts.claims:
            holder = group if entry.name in shared else pod
            use = self._use(holder, entry, statuses)
            if use is not None:
                consumers[use.name] = holder
                uses.append(use)
        for name in claims_to_reserve(facts, node, tuple(uses), RESERVED_FOR_MAX_SIZE):
            changed = edit(self.ctx.cache.get(ResourceClaim, name, facts.namespace))
            status = changed.status
            if status is None:  # (an allocated claim has one)
                continue
            holder = consumers.get(name, pod)
            ref = (podgroupclaims.consumer(holder) if holder is group and group is not None else
                   ResourceClaimConsumerReference(resource="pods", name=facts.name, uid=facts.uid))
            status.reserved_for = [*(status.reserved_for or ()), ref]
            self.ctx.client.update_status(changed)

    def _use(self, pod: Any, entry: PodClaimFacts, statuses: dict[str, str]) -> PodClaimUse | None:
        """What :func:`claims_to_reserve` needs of one ``spec.resourceClaims`` entry (None: the
        entry needs no claim); ``pod`` is whoever the claim is for: the pod, or its PodGroup."""
        name = claim_name(entry.claim_name, entry.template_name, entry.name, statuses)
        if name is NOT_CREATED:
            return PodClaimUse(entry.name, exists=False)
        if not name:
            return None
        try:
            claim = self.ctx.cache.get(ResourceClaim, name, pod.metadata.namespace)
        except NotFound:
            return PodClaimUse(name, exists=False)
        owner = claim.metadata.controller_ref()
        for_pod = not entry.template_name or (owner is not None and owner.uid == pod.metadata.uid)
        status = claim.status
        reserved = (status.reserved_for or ()) if status is not None else ()
        return PodClaimUse(
            name,
            for_pod=for_pod,
            allocated=status is not None and status.allocation is not None,
            reserved_for_pod=any(r.uid == pod.metadata.uid for r in reserved),
            consumers=len(reserved),
        )

    def _present(self, pod: Any, facts: PodFacts) -> frozenset[str]:
        """The generated claims the pod's (or PodGroup's) status names that exist and are
        controlled by it (upstream ``resourceclaim.IsForPod``, ``IsForPodGroup``)."""
        present = set()
        for name in facts.statuses.values():
            if not name:
                continue
            try:
                claim = self.ctx.cache.get(ResourceClaim, name, facts.namespace)
            except NotFound:
                continue
            owner = claim.metadata.controller_ref()
            if owner is not None and owner.kind == pod.kind and owner.uid == pod.metadata.uid:
                present.add(name)
        return frozenset(present)

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

    def _group_exists(self, namespace: str, name: str, uid: str) -> bool:
        try:
            return bool(self.ctx.cache.get(PodGroup, name, namespace).metadata.uid == uid)
        except NotFound:
            return False

    def _pod(self, namespace: str, name: str) -> Pod | None:
        try:
            return self.ctx.cache.get(Pod, name, namespace)
        except NotFound:
            return None

    def _claim_facts(self, claim: Any) -> ClaimFacts:
        meta, status = claim.metadata, claim.status
        consumers = []
        for ref in (status.reserved_for or ()) if status is not None else ():
            if podgroupclaims.is_group_consumer(ref):
                # with the gate off, the PodGroup is left in place (row dont-clear-reserved-podgroup-...)
                exists = not self._groups or self._group_exists(meta.namespace or "", ref.name, ref.uid)
                consumers.append(ConsumerFacts(ref.resource, ref.name, ref.uid, exists))
                continue
            pod = self._pod(meta.namespace or "", ref.name) if ref.resource == "pods" else None
            live = pod if pod is not None and pod.metadata.uid == ref.uid else None
            exists = live is not None
            consumers.append(ConsumerFacts(ref.resource, ref.name, ref.uid, exists, exists and _done(live)))
        owner = meta.controller_ref()
        generated = False
        if (
            owner is not None
            and owner.kind == "Pod"
            and POD_CLAIM_NAME_ANNOTATION in (meta.annotations or {})
        ):
            pod = self._pod(meta.namespace or "", owner.name)
            # upstream: a pod not found is left to the garbage collector
            generated = pod is not None and (pod.metadata.uid != owner.uid or _done(pod))
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


def _group_statuses(group: Any) -> list[Any]:
    return list(group.status.resource_claim_statuses or ()) if group.status is not None else []


def _direct(facts: PodFacts) -> set[str]:
    """The entries naming a claim directly (no status to record)."""
    return {c.name for c in facts.claims if c.claim_name}


def _claim_status(entry: str, claim: str) -> dict[str, str]:
    """A ``resourceClaimStatuses`` item; without ``resourceClaimName`` when no claim was needed."""
    return {"name": entry, "resourceClaimName": claim} if claim else {"name": entry}


def _done(pod: Any) -> bool:
    """Upstream ``isPodDone``: certain that no container runs or will run: a terminal phase, or
    deleted before it was scheduled."""
    return _phase(pod) in _DONE or (pod.metadata.deletion_timestamp is not None and not pod.spec.node_name)


def _phase(pod: Any) -> str:
    return (pod.status.phase if pod.status is not None else None) or "Pending"


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
    """``pod``: the Pod, or the PodGroup, the claim is generated for (its controlling owner)."""
    meta = template.spec.metadata
    annotations = {**((meta.annotations or {}) if meta else {}), POD_CLAIM_NAME_ANNOTATION: entry.name}
    info = type(pod).api_info
    api_version = f"{info.group}/{info.version}" if info.group else info.version
    owner = OwnerReference(api_version=api_version, kind=info.kind, name=pod.metadata.name,
                           uid=pod.metadata.uid, controller=True, block_owner_deletion=True)
    metadata = ObjectMeta(generate_name=generate_name(pod.metadata.name, entry.name),
                          namespace=pod.metadata.namespace,
                          labels=dict(meta.labels) if meta and meta.labels else None,
                          annotations=annotations, owner_references=[owner])
    # The template's spec as it is (read only): the create copies its request as a body sent over the
    # wire would be, so a copy here would be made twice.
    return ResourceClaim(metadata=metadata, spec=template.spec.spec)
