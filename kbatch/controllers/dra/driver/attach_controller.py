"""The ``dra-attach`` controller's reads and writes: which pools' devices are attached (slices annotated
:data:`kbatch.sim.devices.ATTACH_RESULT_ANNOTATION`) and which attachments fail (the other attach
annotations), what a claim or slice event queues, and the status update reporting the attachment
(:mod:`.attach` decides). It keeps nothing the stored objects do not say: after a restart it reads the
pools from the slices and each attempt's start from the claim (:mod:`.attach`), and a random failure
is drawn from its seeded stream (:mod:`kbatch.runtime.rng`) with the attempt's label.

It writes through its own client: upstream the component that attaches devices and sets binding
conditions is a controller of the driver (KEP-5007's composable DRA controller), running under the
driver's ServiceAccount with RBAC on ``resourceclaims/status``, not a kubelet; in kbatch the
ServiceAccount is ``kube-system/dra-attach-controller``, created when the controller first writes (so
a cluster without attaching drivers has none, and its bootstrap writes are unchanged).
"""

from __future__ import annotations

from kbatch.api.errors import NotFound
from kbatch.api.resource_v1 import ResourceClaim, ResourceSlice
from kbatch.apiserver.client import Client
from kbatch.apiserver.controller_accounts import ensure_controller_account
from kbatch.apiserver.identities import component_user
from kbatch.controllers.dra.driver.attach import AttachPool, Failures, attach_entries
from kbatch.controllers.dra.driver.entries import merged
from kbatch.controllers.dra.driver.queueing import claims_of_pool, results
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.reconcile import Request, Result
from kbatch.runtime.rng import derive
from kbatch.sim.devices import (
    ATTACH_DELAY_ANNOTATION,
    ATTACH_FAIL_DEVICES_ANNOTATION,
    ATTACH_FAIL_RATE_ANNOTATION,
    ATTACH_RESULT_ANNOTATION,
)

__all__ = ["ACCOUNT", "DriverAttach"]

ACCOUNT = "dra-attach-controller"
USER = f"system:serviceaccount:kube-system:{ACCOUNT}"


class DriverAttach:
    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx
        self.pools: dict[tuple[str, str], AttachPool] = {}
        self._client: Client | None = None

    def writer(self) -> Client:
        """The driver's client (its ServiceAccount made on first use, as kube-controller-manager's
        client builder makes a controller's: :mod:`kbatch.apiserver.controller_accounts`)."""
        if self._client is None:
            if self.ctx.server is not None:
                ensure_controller_account(self.ctx.server, ACCOUNT)
            self._client = self.ctx.client_as(component_user(USER))
        return self._client

    # -- what an event queues ------------------------------------------------------------------------
    def claim_request(self, claim: ResourceClaim) -> list[Request]:
        """An allocated claim with a device of an attaching pool (none while no pool attaches)."""
        if not self.pools:
            return []
        if any((r.driver, r.pool) in self.pools for r in results(claim)):
            return [Request(claim.metadata.namespace or "", claim.metadata.name or "")]
        return []

    def slice_claims(self, slice_: ResourceSlice) -> list[Request]:
        """A slice of an attaching pool (or one that was): re-read the pools and queue the claims
        allocated from it, in key order."""
        key = (slice_.spec.driver, slice_.spec.pool.name)
        attaching = ATTACH_RESULT_ANNOTATION in (slice_.metadata.annotations or {})
        if not attaching and key not in self.pools:
            return []
        self.pools = self._attaching_pools()
        return claims_of_pool(self.ctx.cache, key)

    def _attaching_pools(self) -> dict[tuple[str, str], AttachPool]:
        pools: dict[tuple[str, str], AttachPool] = {}
        for slice_ in sorted(self.ctx.cache.list(ResourceSlice), key=lambda s: s.metadata.name or ""):
            annotations = slice_.metadata.annotations or {}
            result = annotations.get(ATTACH_RESULT_ANNOTATION)
            if result is None or not slice_.spec.node_name:
                continue
            conditions = frozenset(
                name for device in slice_.spec.devices or ()
                for name in (*(device.binding_conditions or ()), *(device.binding_failure_conditions or ()))
            )
            key = (slice_.spec.driver, slice_.spec.pool.name)
            known = pools.get(key)
            if known is not None:
                conditions |= known.conditions
            pools[key] = AttachPool(slice_.spec.node_name, _delay(annotations.get(ATTACH_DELAY_ANNOTATION)),
                                    _failures(annotations), conditions)
        return pools

    # -- the write -------------------------------------------------------------------------------------
    def reconcile(self, request: Request) -> Result | None:
        try:
            claim = self.ctx.cache.get(ResourceClaim, request.name, request.namespace)
        except NotFound:
            return None
        now = self.ctx.clock.now_datetime()
        decision = attach_entries(claim, self.pools, now, self.draw)
        current = [d.to_dict() for d in (claim.status.devices or ())] if claim.status else []
        changed = False
        for key in sorted({(k[0], k[1]) for k in decision.entries}):
            mine = {k: v for k, v in decision.entries.items() if (k[0], k[1]) == key}
            devices = merged(current, mine, {key}, self.pools[key].owner())
            if devices is not None:
                current, changed = devices, True
        if changed:
            # the attachment's status update (optimistic concurrency: a conflict is retried by the queue)
            body = claim.to_dict()
            body.setdefault("status", {})["devices"] = current or None
            self.writer().update_status(ResourceClaim.model_validate(body))
        if decision.next_due is None:
            return None
        return Result(requeue_after=max((decision.next_due - now).total_seconds(), 1e-6))

    def draw(self, attempt: str) -> float:
        """The attempt's uniform draw: a stream of the controller's seeded one, named by the attempt
        (the same attempt draws the same number whatever was drawn before)."""
        return derive(self.ctx.rng, attempt).random()


def _failures(annotations: dict[str, str]) -> Failures:
    """Which attachments of a slice's pool fail (a bad rate is none)."""
    devices = frozenset(n for n in annotations.get(ATTACH_FAIL_DEVICES_ANNOTATION, "").split(",") if n)
    try:
        rate = float(annotations.get(ATTACH_FAIL_RATE_ANNOTATION, "0"))
    except ValueError:
        rate = 0.0
    return Failures(annotations.get(ATTACH_RESULT_ANNOTATION) == "Failed", devices,
                    rate if 0.0 <= rate <= 1.0 else 0.0)


def _delay(value: str | None) -> float:
    """The slices' attach delay (seconds; a missing or bad value is the default, 10 s)."""
    try:
        delay = float(value) if value is not None else 10.0
    except ValueError:
        return 10.0
    return delay if delay >= 0 else 10.0
