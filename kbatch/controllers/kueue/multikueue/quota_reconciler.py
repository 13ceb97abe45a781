"""The MultiKueue ClusterQueue reconciler: manager quota automation applied (KEP 9988, gate
``MultiKueueManagerQuotaAutomation``, alpha, off; the decisions are :mod:`.quota_automation`).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/clusterqueue.go``
(``cqReconciler``; table ``clusterqueue_test.go``), wired with the gate by ``controllers.go``, the
worker watches in ``multikueuecluster.go`` (``startQueueWatchers``, ``queueEventsForCQ``,
``queueEventsForLQ``). Reconciling a manager ClusterQueue:

1. no MultiKueue check in its ``admissionChecksStrategy`` → its ``MultiKueueManagerQuotaAutomation``
   condition is removed;
2. the check's MultiKueueConfig missing → ``False``/``UnsupportedConfiguration`` "The referenced
   MultiKueueConfig was not found.";
3. otherwise :func:`.quota_automation.precondition`, the connected workers' LocalQueues and
   ClusterQueues read and :func:`.quota_automation.aggregate`\\ d, and either the condition refusing them
   or the single flavor's quotas written into the ClusterQueue's spec (only when they differ,
   semantically) and then the condition ``True``/``QuotaAutomated``.

The condition is rewritten only when its status, reason or message changes (``cmpConditionState``).
The reconciler runs for: the ClusterQueue's creation, deletion and spec changes; a manager
LocalQueue created or deleted; a MultiKueue AdmissionCheck, MultiKueueConfig (created, deleted, spec
changed) or MultiKueueCluster (created, deleted, ``Active`` changed) on the ClusterQueue's path; and a
worker's ClusterQueue created, deleted or with new ``spec.resourceGroups``, or a worker's LocalQueue
created or deleted, mapped through the worker's LocalQueues to the manager's LocalQueue of the same key
(:func:`worker_event_requeues`, :class:`WorkerQueueEvents`); all but the first after the events batch
period.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from kbatch.api import edit
from kbatch.api.errors import NotFound
from kbatch.api.go_equal import go_equal
from kbatch.api.kueue_v1beta2 import (
    AdmissionCheck,
    ClusterQueue,
    ClusterQueueStatus,
    LocalQueue,
    MultiKueueCluster,
    MultiKueueConfig,
)
from kbatch.api.kueue_v1beta2.multikueue import CLUSTER_ACTIVE, CONTROLLER_NAME, QUOTA_AUTOMATION_CONDITION
from kbatch.api.meta import Condition, Resource
from kbatch.api.policy_helpers import find_condition
from kbatch.controllers.kueue.multikueue.admissioncheck import checks_using_config
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
from kbatch.controllers.kueue.multikueue.remote import MODIFIED, ConnectionFailed, RemoteCluster, WatchEvent
from kbatch.runtime.reconcile import Request, Result

if TYPE_CHECKING:
    from kbatch.controllers.kueue.multikueue.context import MultiKueueContext

__all__ = [
    "QUEUE_KINDS",
    "QUOTA_CONTROLLER",
    "QuotaReconciler",
    "WorkerQueueEvents",
    "cluster_queues_using_check",
    "local_event_handlers",
    "worker_event_requeues",
]

QUOTA_CONTROLLER = "kueue-multikueue-clusterqueue"  # upstream: Named("multikueue_clusterqueue")
QUEUE_KINDS: tuple[type[Resource], ...] = (ClusterQueue, LocalQueue)  # watched on every worker


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
            generation = obj.metadata.generation
            self.mk.set_condition(
                obj.status, generation, QUOTA_AUTOMATION_CONDITION, state.status, state.reason, state.message
            )
        with contextlib.suppress(NotFound):
            self.mk.client.update_status(obj)


# -- the events that requeue a manager ClusterQueue --------------------------------------------------
class _Queue:
    """Requeue manager ClusterQueues after the events batch period (``AddAfter(eventsBatchPeriod)``)."""

    def __init__(self, mk: MultiKueueContext) -> None:
        self.mk = mk

    def cluster_queue(self, name: str) -> None:
        if name:
            self.mk.enqueue(QUOTA_CONTROLLER, Request("", name), self.mk.options.events_batch_period)

    def check(self, check: str) -> None:
        """``queueEventsForAC``."""
        for name in cluster_queues_using_check(self.mk.ctx.cache, check):
            self.cluster_queue(name)

    def config(self, config: str) -> None:
        """``queueEventsForMKConfig``."""
        for check in checks_using_config(self.mk.ctx.cache, config):
            self.check(check)

    def cluster(self, cluster: str) -> None:
        """``queueEventsForMKCluster``: via the configs naming the cluster (``UsingMultiKueueClusters``)."""
        for config in sorted(self.mk.ctx.cache.list(MultiKueueConfig), key=lambda c: c.metadata.name or ""):
            if cluster in ((config.spec.clusters if config.spec else None) or ()):
                self.config(config.metadata.name or "")


class _LocalQueues(_Queue):
    """``lqHandler``: a LocalQueue created or deleted (its ClusterQueue is immutable)."""

    def on_add(self, lq: LocalQueue) -> None:
        self.cluster_queue(lq.spec.cluster_queue or "" if lq.spec else "")

    def on_update(self, old: LocalQueue, new: LocalQueue) -> None:
        pass

    on_delete = on_add


class _Checks(_Queue):
    """``acHandler``: a check created, deleted or its spec changed."""

    def on_add(self, ac: AdmissionCheck) -> None:
        self.check(ac.metadata.name or "")

    def on_update(self, old: AdmissionCheck, new: AdmissionCheck) -> None:
        if old.metadata.generation != new.metadata.generation:
            self.check(new.metadata.name or "")

    on_delete = on_add


class _Configs(_Queue):
    """``cqConfigHandler``."""

    def on_add(self, config: MultiKueueConfig) -> None:
        self.config(config.metadata.name or "")

    def on_update(self, old: MultiKueueConfig, new: MultiKueueConfig) -> None:
        if old.metadata.generation != new.metadata.generation:
            self.config(new.metadata.name or "")

    on_delete = on_add


def _active(cluster: MultiKueueCluster) -> tuple[str, str, str] | None:
    c = find_condition(cluster.status.conditions if cluster.status else None, CLUSTER_ACTIVE)
    return None if c is None else (c.status, c.reason or "", c.message or "")


class _Clusters(_Queue):
    """``cqClusterHandler``: a cluster created, deleted or its ``Active`` condition changed."""

    def on_add(self, cluster: MultiKueueCluster) -> None:
        self.cluster(cluster.metadata.name or "")

    def on_update(self, old: MultiKueueCluster, new: MultiKueueCluster) -> None:
        if _active(old) != _active(new):
            self.cluster(new.metadata.name or "")

    on_delete = on_add


def local_event_handlers(mk: MultiKueueContext) -> list[tuple[type[Resource], Any]]:
    """The manager-side informer handlers of the reconciler, by kind."""
    return [
        (LocalQueue, _LocalQueues(mk)),
        (AdmissionCheck, _Checks(mk)),
        (MultiKueueConfig, _Configs(mk)),
        (MultiKueueCluster, _Clusters(mk)),
    ]


def worker_event_requeues(event: WatchEvent) -> bool:
    """Whether a worker's queue event requeues the related manager ClusterQueues
    (``startQueueWatchers``' handlers): a ClusterQueue added or deleted, or updated with its
    ``spec.resourceGroups`` changed (``equality.Semantic.DeepEqual``: quantities by value, a missing
    list equal to an empty one); a LocalQueue added or deleted, never updated (its ClusterQueue is
    immutable); any other object is not a queue's."""
    if event.type != MODIFIED:
        return isinstance(event.obj, (ClusterQueue, LocalQueue))
    old, new = event.old, event.obj
    if not isinstance(old, ClusterQueue) or not isinstance(new, ClusterQueue):
        return False
    return not go_equal(_resource_groups(old), _resource_groups(new), None)


def _resource_groups(cq: ClusterQueue) -> list[Any]:
    return list((cq.spec.resource_groups if cq.spec else None) or ())


class WorkerQueueEvents(_Queue):
    """A worker's watch events: its queues → the related manager ClusterQueues when
    :func:`worker_event_requeues` (``queueEventsForCQ``, ``queueEventsForLQ``); every other object →
    the manager's Workload of its key, as without the gate (``MultiKueueContext.remote_event``)."""

    def __init__(self, mk: MultiKueueContext, client: RemoteCluster) -> None:
        super().__init__(mk)
        self.client = client

    def __call__(self, event: WatchEvent) -> None:
        obj = event.obj
        if not isinstance(obj, (ClusterQueue, LocalQueue)):
            self.mk.remote_event(event)
        elif not worker_event_requeues(event):
            return
        elif isinstance(obj, ClusterQueue):
            try:
                lqs = self.client.list(LocalQueue, {})
            except ConnectionFailed:  # upstream logs the failed list and drops the event
                return
            for lq in lqs:
                if lq.spec is not None and lq.spec.cluster_queue == obj.metadata.name:
                    self._local_queue(lq)
        else:
            self._local_queue(obj)

    def _local_queue(self, remote: LocalQueue) -> None:
        local = self.mk.get(LocalQueue, remote.metadata.name or "", remote.metadata.namespace or "")
        if local is not None and local.spec is not None:
            self.cluster_queue(local.spec.cluster_queue or "")
