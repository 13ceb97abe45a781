"""The MultiKueue ClusterQueue reconciler: manager quota automation applied (KEP 9988, gate
``MultiKueueManagerQuotaAutomation``, alpha, off; the decisions are :mod:`.quota_automation`).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/clusterqueue.go``
(``cqReconciler``; table ``clusterqueue_test.go``), wired with the gate by ``controllers.go``.
Reconciling a manager ClusterQueue:

1. no MultiKueue check in its ``admissionChecksStrategy`` → its ``MultiKueueManagerQuotaAutomation``
   condition is removed;
2. the check's MultiKueueConfig missing → ``False``/``UnsupportedConfiguration`` "The referenced
   MultiKueueConfig was not found.";
3. otherwise :func:`.quota_automation.precondition`, the connected workers' LocalQueues and
   ClusterQueues read and :func:`.quota_automation.aggregate`\\ d, and either the condition refusing them
   or the single flavor's quotas written into the ClusterQueue's spec (only when they differ,
   semantically) and then the condition ``True``/``QuotaAutomated``.

The condition is rewritten only when its status, reason or message changes (``cmpConditionState``).
The events that requeue a ClusterQueue are :mod:`.quota_events`.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from kbatch.api import edit
from kbatch.api.errors import NotFound
from kbatch.api.kueue_v1beta2 import (
    AdmissionCheck,
    ClusterQueue,
    ClusterQueueStatus,
    LocalQueue,
    MultiKueueConfig,
)
from kbatch.api.kueue_v1beta2.multikueue import CONTROLLER_NAME, QUOTA_AUTOMATION_CONDITION
from kbatch.api.meta import Condition
from kbatch.api.policy_helpers import find_condition
from kbatch.controllers.kueue.multikueue.configs import BadConfig, ConfigNotFound, config_from_ref
from kbatch.controllers.kueue.multikueue.quota_automation import (
    AUTOMATED,
    CONFIG_NOT_FOUND,
    AutomationState,
    WorkerQueues,
    aggregate,
    automated_quotas,
    precondition,
    same_state,
)
from kbatch.runtime.reconcile import Request, Result

if TYPE_CHECKING:
    from kbatch.controllers.kueue.multikueue.context import MultiKueueContext

__all__ = ["QUOTA_CONTROLLER", "QuotaReconciler", "cluster_queues_using_check"]

QUOTA_CONTROLLER = "kueue-multikueue-clusterqueue"  # upstream: Named("multikueue_clusterqueue")


def _checks_of(cq: ClusterQueue) -> set[str]:
    strategy = cq.spec.admission_checks_strategy if cq.spec else None
    return {r.name or "" for r in (strategy.admission_checks if strategy else None) or ()}


def cluster_queues_using_check(cache: Any, check: str) -> list[str]:
    """``ClusterQueueAdmissionChecksKey``: the ClusterQueues whose strategy names the check."""
    return sorted(cq.metadata.name or "" for cq in cache.list(ClusterQueue) if check in _checks_of(cq))


def _condition(cq: ClusterQueue) -> Condition | None:
    return find_condition(cq.status.conditions if cq.status else None, QUOTA_AUTOMATION_CONDITION)


class QuotaReconciler:
    """``cqReconciler.Reconcile`` (see the module docstring)."""

    def __init__(self, mk: MultiKueueContext) -> None:
        self.mk = mk

    def reconcile(self, request: Request) -> Result | None:
        cq = self.mk.get(ClusterQueue, request.name)
        if cq is None:
            return None
        check = self._multikueue_check(cq)
        if check is None:
            self._set_condition(cq, None)
            return None
        try:
            config = config_from_ref(check, self.mk.get)
        except ConfigNotFound:
            self._set_condition(cq, CONFIG_NOT_FOUND)
            return None
        except BadConfig:  # upstream retries the error; the check's own events requeue this instead
            return None
        stop = precondition(cq, config)
        if stop is not None:
            self._set_condition(cq, stop)
            return None
        result = automated_quotas(cq, aggregate(self._manager_queues(cq), self._workers(config)))
        if isinstance(result, AutomationState):
            self._set_condition(cq, result)
            return None
        assert cq.spec is not None and cq.spec.resource_groups  # precondition held
        flavor = (cq.spec.resource_groups[0].flavors or [])[0]
        if list(flavor.resources or ()) != result:  # Quantity equality is semantic
            obj = edit(cq)
            obj.spec.resource_groups[0].flavors[0].resources = result  # type: ignore[union-attr,index]
            cq = self.mk.client.update(obj)
        self._set_condition(cq, AUTOMATED)
        return None

    def _multikueue_check(self, cq: ClusterQueue) -> AdmissionCheck | None:
        """``getMultiKueueAdmissionCheck``: the first MultiKueue check (by name) the strategy names."""
        names = _checks_of(cq)
        checks = sorted(self.mk.ctx.cache.list(AdmissionCheck), key=lambda ac: ac.metadata.name or "")
        return next(
            (
                ac
                for ac in checks
                if ac.spec is not None
                and ac.spec.controller_name == CONTROLLER_NAME
                and ac.metadata.name in names
            ),
            None,
        )

    def _manager_queues(self, cq: ClusterQueue) -> list[tuple[str, str]]:
        """The keys of the manager's LocalQueues pointing to ``cq`` (``QueueClusterQueueKey``)."""
        return [
            (lq.metadata.namespace or "", lq.metadata.name or "")
            for lq in self.mk.ctx.cache.list(LocalQueue)
            if lq.spec is not None and lq.spec.cluster_queue == cq.metadata.name
        ]

    def _workers(self, config: MultiKueueConfig) -> list[WorkerQueues]:
        """The queues of the config's connected workers; a worker without a client or disconnected is
        left out. A failing read raises: the request is retried, as upstream returns the error."""
        assert self.mk.clusters is not None
        out = []
        for name in (config.spec.clusters if config.spec else None) or ():
            state = self.mk.clusters.connected(name)  # None unless connected with a client
            if state is None:
                continue
            client = state.client
            assert client is not None
            out.append(WorkerQueues(tuple(client.list(LocalQueue, {})), tuple(client.list(ClusterQueue, {}))))
        return out

    def _set_condition(self, cq: ClusterQueue, state: AutomationState | None) -> None:
        """``updateQuotaAutomationCondition`` (``None``: ``removeQuotaAutomationCondition``); a
        conflicting write raises and is retried."""
        old = _condition(cq)
        if same_state(old, state):
            return
        obj = edit(cq)
        obj.status = obj.status or ClusterQueueStatus()
        if state is None:
            obj.status.conditions = [
                c for c in obj.status.conditions or () if c.type != QUOTA_AUTOMATION_CONDITION
            ]
        else:
            self.mk.set_condition(obj.status, state.condition(obj.metadata.generation))
        with contextlib.suppress(NotFound):
            self.mk.client.update_status(obj)
