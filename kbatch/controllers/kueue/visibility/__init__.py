"""Kueue's on-demand visibility API (``VisibilityOnDemand``): the pending workloads of a ClusterQueue
or a LocalQueue, with their positions, in the order the queue manager would pop them.

Upstream: kubernetes-sigs/kueue ``pkg/visibility/storage`` and ``apis/visibility/v1beta2`` (v0.19.2).
:mod:`.order` is the queue's snapshot (``ClusterQueue.Snapshot``), :mod:`.summary` the answer
(``PendingWorkloadsSummary``); ``kbatch serve`` routes the requests to them
(:mod:`kbatch.server.kueue_visibility`), declared by the kueue family (``families/kueue/visibility.py``).
"""

from kbatch.controllers.kueue.visibility.order import pending_snapshot
from kbatch.controllers.kueue.visibility.summary import (
    PendingOptions,
    cluster_queue_summary,
    local_queue_summary,
    pending_options,
)

__all__ = ["PendingOptions", "cluster_queue_summary", "local_queue_summary", "pending_options",
           "pending_snapshot"]
