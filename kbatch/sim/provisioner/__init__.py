"""A simulated cluster-autoscaler that answers ProvisioningRequests (autoscaling.x-k8s.io/v1).

The real answer comes from kubernetes/autoscaler's cluster-autoscaler, a component apart from the
control plane; kbatch has no node groups, so this controller answers from the capacity the cluster
has (:mod:`.capacity`) with the autoscaler's conditions, reasons and timings (:mod:`.answer`). It is
in the default controller set and costs nothing while no ProvisioningRequest exists: it reconciles
ProvisioningRequest events only, and looks again at an unprovisioned request every autoscaler loop
(10 s) and at a provisioned one when its booking lapses. docs/simulation.md, "ProvisioningRequests".
"""

from __future__ import annotations

import contextlib

from kbatch.api import edit
from kbatch.api.autoscaling_x_v1 import CONSUME_ANNOTATION, ProvisioningRequest, ProvisioningRequestStatus
from kbatch.api.core_v1 import Node, Pod, PodTemplate
from kbatch.api.errors import Conflict, NotFound
from kbatch.api.policy_helpers import set_status_condition
from kbatch.runtime.cache.indexer import BY_NODE_NAME
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.reconcile import Request, Result
from kbatch.sim.provisioner.answer import answer, needs_capacity_check
from kbatch.sim.provisioner.capacity import PodShape, all_fit, free_nodes, shape_of

__all__ = ["Provisioner", "setup"]


class Provisioner:
    """Reconciles one ProvisioningRequest: check capacity if it is unanswered, write the answer."""

    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx

    def reconcile(self, request: Request) -> Result | None:
        cache = self.ctx.cache
        with contextlib.suppress(NotFound):
            pr = cache.get(ProvisioningRequest, request.name, request.namespace)
            now = self.ctx.clock.now_datetime()
            found = self._capacity_found(pr) if needs_capacity_check(pr) else None
            decision = answer(pr, now, found, self._consumed(pr))
            if decision.conditions:
                self._write(pr, decision.conditions, now)
            return Result(requeue_after=decision.requeue_after) if decision.requeue_after else None
        return None

    def _shapes(self, pr: ProvisioningRequest) -> list[PodShape] | None:
        """Every pod the request stands for; None when a template is missing (not answerable yet)."""
        out: list[PodShape] = []
        for ps in (pr.spec.pod_sets if pr.spec else None) or ():
            name = ps.pod_template_ref.name if ps.pod_template_ref else ""
            try:
                template = self.ctx.cache.get(PodTemplate, name or "", pr.metadata.namespace)
            except NotFound:
                return None
            spec = template.template.spec if template.template else None
            if spec is None:
                return None
            out += [shape_of(spec)] * (ps.count or 0)
        return out

    def _capacity_found(self, pr: ProvisioningRequest) -> bool:
        shapes = self._shapes(pr)
        if shapes is None:
            return False
        cache = self.ctx.cache
        nodes = cache.list(Node)
        pods_on = {
            n.metadata.name or "": cache.list(Pod, index=(BY_NODE_NAME, n.metadata.name or "")) for n in nodes
        }
        return all_fit(free_nodes(nodes, pods_on), shapes)

    def _consumed(self, pr: ProvisioningRequest) -> bool:
        """Whether as many bound pods carry the consume annotation naming it as it asked for."""
        want = sum(ps.count or 0 for ps in (pr.spec.pod_sets if pr.spec else None) or ())
        bound = 0
        for pod in self.ctx.cache.list(Pod, pr.metadata.namespace):
            annotations = pod.metadata.annotations or {}
            if annotations.get(CONSUME_ANNOTATION) == pr.metadata.name and pod.spec and pod.spec.node_name:
                bound += 1
        return want > 0 and bound >= want

    def _write(self, pr: ProvisioningRequest, conditions: tuple, now) -> None:  # type: ignore[type-arg,no-untyped-def]
        obj = edit(pr)
        status = obj.status or ProvisioningRequestStatus()
        current = list(status.conditions or ())
        for cond in conditions:
            current = set_status_condition(current, cond, now)
        status.conditions = current
        obj.status = status
        with contextlib.suppress(Conflict, NotFound):  # a newer event brings it back
            self.ctx.client.update_status(obj)


def setup(ctx: ControllerContext) -> Provisioner:
    provisioner = Provisioner(ctx)
    ctx.build().describe("answers ProvisioningRequests from the cluster's free capacity").for_(
        ProvisioningRequest
    ).complete(provisioner)
    return provisioner
