"""The exclusive-placement pod controller (``jobset-pod``; upstream ``pkg/controllers/pod_controller.go``).

It reconciles the scheduled, not deleted leader pods (completion index 0) of exclusive-placement Jobs
and checks that every follower pod of the same Job (same ``job-key`` label, same controller) has a
node selector for the leader's topology domain (the label of the leader's node). Upstream's check
returns an error for a follower that does not (no node selector, a missing key, another domain, or a
node without the topology label), so the reconcile is retried with back-off; the deletion of such
followers that follows in upstream's code is never reached in v0.12.0 (``validatePodPlacements``
returns ``false`` only together with an error), so kbatch does not delete either (docs/jobset.md).
"""

from __future__ import annotations

from typing import Any

from kbatch.api import jobset_constants as c
from kbatch.api.core_v1 import Node, Pod
from kbatch.api.errors import NotFound
from kbatch.controllers.jobset.pod_webhook import is_leader
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.reconcile import Request

__all__ = ["BY_EXCLUSIVE_JOB_KEY", "PlacementError", "PlacementReconciler", "exclusive_job_key",
           "watched_leader"]

BY_EXCLUSIVE_JOB_KEY = "jobset-exclusive-job-key"  # upstream's podJobKey index


class PlacementError(Exception):
    """A follower not placed in its leader's domain (or a leader the check cannot read)."""


def exclusive_job_key(pod: Any) -> tuple[str, ...]:
    """Index function: the ``job-key`` of a pod using exclusive placement."""
    meta = pod.metadata
    if c.EXCLUSIVE_KEY not in (meta.annotations or {}):
        return ()
    key = (meta.labels or {}).get(c.JOB_KEY)
    return (key,) if key is not None else ()


def watched_leader(pod: Any) -> bool:
    """The event filter: a scheduled, not deleted exclusive-placement leader pod."""
    return (is_leader(pod) and bool(pod.spec.node_name) and pod.metadata.deletion_timestamp is None
            and c.EXCLUSIVE_KEY in (pod.metadata.annotations or {}))


class PlacementReconciler:
    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx

    def _leader_topology(self, leader: Pod, key: str) -> str:
        try:
            node = self.ctx.cache.get(Node, leader.spec.node_name or "")
        except NotFound:
            return ""  # upstream ignores a missing node here (and the followers then differ)
        value = (node.metadata.labels or {}).get(key)
        if value is None:
            raise PlacementError(f"node does not have topology label: {key}")
        return value

    def reconcile(self, request: Request) -> None:
        try:
            leader = self.ctx.cache.get(Pod, request.name, request.namespace)
        except NotFound:
            return
        job_key = (leader.metadata.labels or {}).get(c.JOB_KEY)
        if job_key is None:
            raise PlacementError(f'job key label not found on leader pod: "{leader.name}"')
        owner = leader.metadata.controller_ref()
        if owner is None:
            raise PlacementError(f'leader pod "{leader.name}" has no controller owner')
        topology_key = (leader.metadata.annotations or {})[c.EXCLUSIVE_KEY]
        topology = self._leader_topology(leader, topology_key)
        for pod in self.ctx.cache.list(Pod, request.namespace, index=(BY_EXCLUSIVE_JOB_KEY, job_key)):
            ref = pod.metadata.controller_ref()
            if ref is None or ref.uid != owner.uid or is_leader(pod):
                continue
            selector = pod.spec.node_selector
            if selector is None:
                raise PlacementError(f"pod {pod.name} nodeSelector is nil")
            if topology_key not in selector:
                raise PlacementError(f"pod {pod.name} nodeSelector is missing key: {topology_key}")
            if selector[topology_key] != topology:
                raise PlacementError(f'follower topology "{selector[topology_key]}" != leader topology '
                                     f'"{topology}"')
