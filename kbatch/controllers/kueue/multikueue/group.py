"""A manager Workload and its copies on the workers: the reads the workload reconciler decides on.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/workload.go``
(``wlGroup``, ``readGroup``, ``remoteClientsForAC``, ``bestMatchByCondition``, ``RemoveRemoteObjects``,
``cloneForCreate``, ``isRemoteSpecOutOfSync``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from kbatch.api import edit
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.kueue_v1beta2.constants import JOB_UID_LABEL, RESOURCE_IN_USE_FINALIZER
from kbatch.api.kueue_v1beta2.multikueue import ORIGIN_LABEL
from kbatch.api.meta import Condition
from kbatch.controllers.kueue.multikueue.adapters import MultiKueueAdapter, clone_meta, delete_if_owned
from kbatch.controllers.kueue.multikueue.remote import RemoteCluster
from kbatch.controllers.kueue.preemption_gates import MULTIKUEUE_GATE, with_gate

__all__ = ["Group", "best_match", "clone_for_create", "for_each", "spec_out_of_sync"]


@dataclass
class Group:
    local: Workload
    check: str
    adapter: MultiKueueAdapter
    owner: str  # the local job's name
    origin: str
    remotes: dict[str, Workload | None] = field(default_factory=dict)  # by connected cluster, config order
    clients: dict[str, RemoteCluster] = field(default_factory=dict)
    unavailable: list[str] = field(default_factory=list)

    @property
    def namespace(self) -> str:
        return self.local.metadata.namespace or ""

    def remove_remote(self, cluster: str) -> None:
        """``RemoveRemoteObjects``: the remote job first (GC may have taken the Workload already),
        then the remote Workload without its finalizer."""
        client = self.clients[cluster]
        delete_if_owned(self.adapter, client, self.namespace, self.owner, self.origin)
        remote = self.remotes.get(cluster)
        if remote is None:
            return
        if RESOURCE_IN_USE_FINALIZER in (remote.metadata.finalizers or ()):
            obj = edit(remote)
            obj.metadata.finalizers = [
                f for f in obj.metadata.finalizers or () if f != RESOURCE_IN_USE_FINALIZER
            ] or None
            client.update(obj)
        client.delete(Workload, remote.metadata.name or "", remote.metadata.namespace)
        self.remotes[cluster] = None


def for_each(clusters: list[str], act: Callable[[str], None]) -> None:
    """``act`` on every cluster even when one fails, then the first failure raised (upstream collects
    the errors of a loop over the workers and returns ``errors.Join`` of them, so one unreachable
    worker does not keep the others from being cleaned up or dispatched to)."""
    failures: list[Exception] = []
    for cluster in clusters:
        try:
            act(cluster)
        except Exception as err:
            failures.append(err)
    if failures:
        raise failures[0]


def _true(wl: Workload, kind: str) -> Condition | None:
    for c in (wl.status.conditions if wl.status else None) or ():
        if c.type == kind and c.status == "True":
            return c
    return None


def best_match(remotes: dict[str, Workload | None], kind: str) -> tuple[Condition | None, str]:
    """``bestMatchByCondition``: the remote whose condition ``kind`` is true since the earliest time
    (ties: the first cluster in name order, so the choice does not depend on dict order)."""
    best: Condition | None = None
    best_cluster = ""
    for cluster in sorted(remotes):
        wl = remotes[cluster]
        cond = _true(wl, kind) if wl is not None else None
        if cond is None:
            continue
        if best is None or (
            cond.last_transition_time is not None
            and best.last_transition_time is not None
            and cond.last_transition_time < best.last_transition_time
        ):
            best, best_cluster = cond, cluster
    return best, best_cluster


def spec_out_of_sync(local: Workload, remote: Workload) -> bool:
    """``isRemoteSpecOutOfSync``: the specs differ, preemption gates aside."""
    a = local.spec.model_copy(update={"preemption_gates": None}) if local.spec else None
    b = remote.spec.model_copy(update={"preemption_gates": None}) if remote.spec else None
    return a != b


def clone_for_create(local: Workload, origin: str, preemption_gated: bool = False) -> Workload:
    """``cloneForCreate``: name, namespace, labels (without ``kueue.x-k8s.io/job-uid``, with the
    origin) and annotations, and the spec; no owner, no status. ``preemption_gated``
    (``MultiKueueOrchestratedPreemption``, a nominated worker's copy): the manager's own preemption
    gates stay behind and the copy carries only the closed ``kueue.x-k8s.io/multikueue`` gate."""
    meta = clone_meta(local.metadata)
    labels = {k: v for k, v in (meta.labels or {}).items() if k != JOB_UID_LABEL}
    labels[ORIGIN_LABEL] = origin
    meta.labels = labels
    spec = edit(local).spec
    if preemption_gated and spec is not None:
        spec.preemption_gates = with_gate(None, MULTIKUEUE_GATE)
    return Workload(metadata=meta, spec=spec)
