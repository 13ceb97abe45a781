"""Kueue's data model as the scheduler sees it: requests, workload info, the quota tree, queues."""

from kbatch.controllers.kueue.model.clusterqueue import ClusterQueueNode, CQSettings, settings_of
from kbatch.controllers.kueue.model.info import InfoOptions, PodSetResources, WorkloadInfo
from kbatch.controllers.kueue.model.quota import Cohort, Journal, Quota, Tree

__all__ = [
    "CQSettings",
    "ClusterQueueNode",
    "Cohort",
    "InfoOptions",
    "Journal",
    "PodSetResources",
    "Quota",
    "Tree",
    "WorkloadInfo",
    "settings_of",
]
