"""Requeueing inadmissible workloads (``cache/queue`` ``workqueueRequeuer``).

Upstream: kubernetes-sigs/kueue ``pkg/cache/queue/inadmissible_workloads.go`` (v0.19.2): a
notification for a ClusterQueue (or, under a Cohort, the root Cohort) is delivered after the batch
period (1 s; 10 s with ``SchedulerLongRequeueInterval``) and moves the inadmissible workloads of the
ClusterQueue — or of every ClusterQueue in the Cohort tree — back to their heaps, then wakes the
scheduler. Keys are ClusterQueue names or ``cohort:<root>``.
"""

from __future__ import annotations

from kbatch.controllers.kueue.manager import KueueManager
from kbatch.controllers.kueue.model.quota import has_cycle
from kbatch.runtime.reconcile import Request, Result

__all__ = ["InadmissibleRequeuer"]


class InadmissibleRequeuer:
    def __init__(self, mgr: KueueManager) -> None:
        self.mgr = mgr

    def reconcile(self, request: Request) -> Result | None:
        mgr = self.mgr
        name = request.name
        mgr.queues.requeue_requests.discard(name)
        if name.startswith("cohort:"):
            node = mgr.cache.cohorts.get(name[len("cohort:") :])
            if node is None or has_cycle(node):
                return None
            names = [cq.name for cq in node.subtree_cluster_queues()]
        else:
            names = [name]
        if mgr.queues.queue_inadmissible(names, mgr.namespace_labels):
            mgr.kick()
        for cq in names:
            mgr.enqueue("kueue-clusterqueue", Request("", cq))
        return None
