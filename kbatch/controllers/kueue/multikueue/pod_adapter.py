"""MultiKueue's adapter for plain Pods and pod groups: the pods are copied to the worker, their
status copied back.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/pod/pod_multikueue_adapter.go``
(``multiKueueAdapter``; table ``pod_multikueue_adapter_test.go``):

* ``sync_job``: the local pod (the Workload's owner; for a group, every local member, found by the
  group name) without a remote pod of its name → one is created on the worker: the local pod's
  name, namespace, labels and annotations and its whole spec (the ``kueue.x-k8s.io/admission``
  gate included: the worker's Kueue ungates it once the copy of the Workload is admitted there),
  labelled with the origin and annotated with the prebuilt Workload's name (a label with
  ``WorkloadIdentifierAnnotations`` off); with a remote pod → the local pod's
  status becomes the remote's, except that a gated local pod keeps its own ``PodScheduled``
  condition (``SchedulingGated``) while the remote one is not scheduled; a terminating local pod is
  left alone. Never deferred. A group is therefore dispatched whole: every member is created on the
  one worker that admitted the group's Workload.
* ``delete_remote``: the remote pod of the key; when it belongs to a group, the remote pod of each
  local member's name instead (``DeleteRemoteObject``);
* ``is_managed``: always (a Pod has no ``managedBy``; ``IsJobManagedByKueue`` answers true);
* ``workload_key``: the prebuilt Workload a remote pod names.
"""

from __future__ import annotations

import contextlib
from typing import Any

from kbatch.api.core_v1 import Pod, PodCondition
from kbatch.api.errors import NotFound
from kbatch.api.meta import Resource
from kbatch.api.model_copy import copy_model
from kbatch.controllers.kueue.multikueue.adapters import (
    clone_meta,
    local_object,
    prebuilt_key,
    set_multikueue_meta,
)
from kbatch.controllers.kueue.multikueue.remote import RemoteCluster
from kbatch.controllers.kueue.podintegration import pods as P
from kbatch.controllers.kueue.podintegration.group import BY_GROUP

__all__ = ["PodAdapter", "synced_status"]


def _condition(pod: Pod, kind: str) -> PodCondition | None:
    for c in (pod.status.conditions if pod.status else None) or ():
        if c.type == kind:
            return c
    return None


def synced_status(local: Pod, remote: Pod) -> Any:
    """The status the local pod takes from the remote one (``syncLocalPodWithRemote``): the remote's,
    with the local ``PodScheduled`` kept while the local pod is gated and the remote one is not
    scheduled yet (so the manager's autoscaler does not see an unschedulable pod)."""
    status = copy_model(remote.status) if remote.status is not None else None
    local_scheduled = _condition(local, "PodScheduled")
    remote_scheduled = _condition(remote, "PodScheduled")
    scheduled = remote_scheduled is not None and remote_scheduled.status == "True"
    if P.is_gated(local) and local_scheduled is not None and not scheduled and status is not None:
        conditions = list(status.conditions or ())
        for i, c in enumerate(conditions):
            if c.type == "PodScheduled":
                conditions[i] = local_scheduled
                break
        else:
            conditions.append(local_scheduled)
        status.conditions = conditions
    return status


class PodAdapter:
    """v1 Pod (``pod_multikueue_adapter.go``)."""

    model = Pod
    gvk = "v1, Kind=Pod"

    def __init__(self, client: Any, cache: Any, identifier_annotations: bool) -> None:
        self.client, self.cache, self.identifier_annotations = client, cache, identifier_annotations

    def _group(self, pod: Pod) -> str:
        return P.group_name(pod, self.identifier_annotations)

    def _local_members(self, namespace: str, group: str) -> list[Pod]:
        """``listLocalPods``: the group's local pods, by name (the order of the writes)."""
        pods = self.cache.list(Pod, index=(BY_GROUP, f"{namespace}/{group}"))
        return sorted(pods, key=lambda p: p.metadata.name or "")

    def sync_job(
        self, local: Any, remote: RemoteCluster, namespace: str, name: str, workload: str, origin: str
    ) -> bool:
        pod: Pod = local_object(local, Pod, namespace, name)
        group = self._group(pod)
        members = self._local_members(namespace, group) if group else [pod]
        for member in members:
            self._sync_one(member, remote, workload, origin)
        return False

    def _sync_one(self, pod: Pod, remote: RemoteCluster, workload: str, origin: str) -> None:
        remote_pod = remote.get(Pod, pod.metadata.name or "", pod.metadata.namespace)
        if remote_pod is not None:
            if pod.metadata.deletion_timestamp is not None:
                return
            status = synced_status(pod, remote_pod)
            if status != pod.status:
                obj = copy_model(pod)
                obj.status = status
                self.client.update_status(obj)
            return
        copy = Pod(metadata=clone_meta(pod.metadata), spec=copy_model(pod.spec))
        set_multikueue_meta(copy.metadata, workload, origin, self.identifier_annotations)
        remote.create(copy)

    def delete_remote(self, remote: RemoteCluster, namespace: str, name: str) -> None:
        pod = remote.get(Pod, name, namespace)
        if pod is None:
            return
        group = self._group(pod)
        names = [p.metadata.name or "" for p in self._local_members(namespace, group)] if group else [name]
        for member in names:
            with contextlib.suppress(NotFound):
                remote.delete(Pod, member, namespace)

    def is_managed(self, get: Any, namespace: str, name: str) -> tuple[bool, str]:
        return True, ""

    def workload_key(self, obj: Resource) -> tuple[str, str] | None:
        return prebuilt_key(obj, self.identifier_annotations) if isinstance(obj, Pod) else None
