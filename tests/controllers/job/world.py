"""A tiny in-memory world for the pure Job core: applies a SyncPlan to PodInfo values.

It plays the API server (generateName, uids, immediate removal of a deleted pod once it has no
finalizer) and lets tests finish pods. No store, no runtime: only ``sync_job``/``complete_sync``.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from kbatch.controllers.job import (
    BackoffRecord,
    ContainerInfo,
    Event,
    JobInfo,
    PodConditionInfo,
    PodInfo,
    SyncConfig,
    complete_sync,
    sync_job,
)

T0 = datetime(2025, 1, 1, tzinfo=UTC)


class World:
    def __init__(self, job: JobInfo, config: SyncConfig | None = None) -> None:
        self.job = job
        self.config = config
        self.pods: dict[str, PodInfo] = {}
        self.now = T0
        self.backoff: BackoffRecord | None = None
        self.events: list[Event] = []
        self.created: list[dict] = []
        self.requeue_after: float | None = None
        self._seq = 0

    # --- time and sync -----------------------------------------------------------------------
    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)

    def sync(self) -> None:
        plan = sync_job(self.job, list(self.pods.values()), self.now, self.backoff, self.config)
        self.events += plan.events
        self.requeue_after = plan.requeue_after
        for create in plan.creates:
            self._create(create.pod)
        for delete in plan.deletes:
            self._delete(delete.uid, remove_finalizer=delete.remove_finalizer)
            self.events.append(Event("Normal", "SuccessfulDelete", f"Deleted pod: {delete.name}"))
        if plan.status is None:
            for pod in plan.finalizers_to_remove:
                self._release(pod.uid)
            return
        if plan.backoff is not None:
            self.backoff = plan.backoff
        self.job = replace(self.job, status=plan.status)
        removed = set()
        for pod in plan.finalizers_to_remove:
            self._release(pod.uid)
            removed.add(pod.uid)
        status, events = complete_sync(plan, removed, self.now, self.job)
        self.events += events
        self.job = replace(self.job, status=status)

    def run(self, rounds: int = 3) -> None:
        for _ in range(rounds):
            self.sync()

    # --- api-server-ish effects -----------------------------------------------------------------
    def _create(self, pod: dict) -> None:
        self._seq += 1
        meta = pod["metadata"]
        name = f"{meta['generateName']}{self._seq:05d}"
        info = PodInfo(name=name, uid=f"uid-{self._seq}", namespace=meta["namespace"],
                       labels=dict(meta.get("labels", {})), annotations=dict(meta.get("annotations", {})),
                       creation_timestamp=self.now)
        self.pods[info.uid] = info
        self.created.append(pod)
        self.events.append(Event("Normal", "SuccessfulCreate", f"Created pod: {name}"))

    def _delete(self, uid: str, remove_finalizer: bool = False) -> None:
        pod = self.pods.get(uid)
        if pod is None:
            return
        pod = replace(pod, deletion_timestamp=pod.deletion_timestamp or self.now,
                      has_finalizer=pod.has_finalizer and not remove_finalizer)
        self._put(pod)

    def _release(self, uid: str) -> None:
        pod = self.pods.get(uid)
        if pod is not None:
            self._put(replace(pod, has_finalizer=False))

    def _put(self, pod: PodInfo) -> None:
        # A deleted pod disappears once it has no finalizer and is not running on a node.
        gone = pod.deletion_timestamp is not None and not pod.has_finalizer
        if gone and (pod.terminal or not pod.node_name):
            self.pods.pop(pod.uid, None)
        else:
            self.pods[pod.uid] = pod

    # --- test drivers ----------------------------------------------------------------------------
    def active(self) -> list[PodInfo]:
        return sorted((p for p in self.pods.values() if not p.terminal and p.deletion_timestamp is None),
                      key=lambda p: p.name)

    def run_pod(self, pod: PodInfo, ready: bool = True) -> PodInfo:
        cond = (PodConditionInfo("Ready", "True" if ready else "False", self.now),)
        new = replace(pod, phase="Running", node_name="node-1", conditions=cond,
                      containers=(ContainerInfo("main"),))
        self._put(new)
        return new

    def succeed(self, pod: PodInfo) -> None:
        self._put(replace(pod, phase="Succeeded", containers=(ContainerInfo("main", 0, 0, self.now),)))

    def fail(self, pod: PodInfo, exit_code: int = 1, conditions: tuple[PodConditionInfo, ...] = (),
             container: str = "main") -> None:
        conds = (*conditions, PodConditionInfo("Ready", "False", self.now))
        self._put(replace(pod, phase="Failed", conditions=conds,
                          containers=(ContainerInfo(container, 0, exit_code, self.now),)))

    def delete(self, pod: PodInfo) -> None:
        self._delete(pod.uid)

    def finish_terminating(self) -> None:
        """The kubelet's part: a terminating running pod ends (Failed) and goes away if released."""
        for pod in list(self.pods.values()):
            if pod.deletion_timestamp is not None and not pod.terminal:
                self._put(replace(pod, phase="Failed", node_name=pod.node_name,
                                  containers=(ContainerInfo("main", 0, 137, self.now),)))

    def reasons(self) -> list[str]:
        return [e.reason for e in self.events]

    def cond(self, type_: str):
        return self.job.status.condition(type_)
