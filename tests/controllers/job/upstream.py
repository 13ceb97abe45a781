"""A harness for cases translated from upstream's ``pkg/controller/job/job_controller_test.go``.

Upstream's table tests put a Job and pods in given phases into the informers and call ``syncJob``
once with a fake pod control. Here the same objects go through kbatch's API server as a user (and a
kubelet) would write them: the Job is created, then its pods — owned by it, holding the tracking
finalizer, with the phase, readiness, completion index and deletion the case describes — and only
then does the control plane run (``run_until_idle``, virtual time frozen), so the Job controller's
first sync sees them all, as upstream's sync does. :func:`outcome` reads back what the sync did:
the pods it created and deleted, the seeded pods whose finalizer it removed, and the Job's status.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kbatch.api.batch_constants import JOB_TRACKING_FINALIZER
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.runtime.controlplane import ControlPlane

INDEX = "batch.kubernetes.io/job-completion-index"
# upstream's testFinishedAt: long ago, so no back-off delays a replacement
LONG_AGO = "2000-01-01T00:00:01Z"
BACKOFF_MSG = "Job has reached the specified backoff limit"


@dataclass(frozen=True)
class P:
    """One seeded pod: ``phase`` Pending/Running/Succeeded/Failed, optional completion ``index``
    (a string, as upstream's ``indexPhase``), ``ready``, ``terminating`` (deleted, still running)."""

    phase: str
    index: str | None = None
    ready: bool = False
    terminating: bool = False
    finished_at: str | None = LONG_AGO
    exit_code: int | None = None
    conditions: tuple[dict[str, Any], ...] = ()
    finalizer: bool = True
    name: str | None = None  # upstream's uid, when the case refers to the pod
    # container statuses as (name, exit code, or None for a running container); None: one
    # container "c" terminated as the phase says, (): no statuses at all
    containers: tuple[tuple[str, int | None], ...] | None = None
    init_containers: tuple[tuple[str, int | None], ...] = ()
    restarts: int = 0  # every container status's restartCount
    annotations: tuple[tuple[str, str], ...] = ()


def counts(pending: int = 0, active: int = 0, succeeded: int = 0, failed: int = 0,
           terminating: int = 0, ready: int = 0) -> list[P]:
    """upstream's ``setPodsStatuses``: the first ``ready`` running pods are Ready."""
    return ([P("Pending")] * pending + [P("Running", ready=i < ready) for i in range(active)]
            + [P("Succeeded")] * succeeded + [P("Failed")] * failed
            + [P("Running", terminating=True)] * terminating)


def indexed(*phases: tuple[str, str]) -> list[P]:
    """upstream's ``setPodsStatusesWithIndexes``: (index, phase) pairs."""
    return [P(phase, index=ix) for ix, phase in phases]


@dataclass
class Outcome:
    job: Job
    created: list[Pod]
    deleted: list[str]
    released: list[str]  # seeded pods whose tracking finalizer was removed
    events: list[Any] = field(default_factory=list)

    @property
    def status(self) -> Any:
        return self.job.status

    def created_indexes(self) -> set[int]:
        return {int((p.metadata.annotations or {})[INDEX]) for p in self.created}

    def conditions(self) -> list[tuple[str, str, str | None, str | None]]:
        return [(c.type, c.status, c.reason, c.message) for c in self.status.conditions or ()]

    def counters(self) -> dict[str, Any]:
        s = self.status
        return {"active": s.active or 0, "ready": s.ready, "succeeded": s.succeeded or 0,
                "failed": s.failed or 0, "terminating": s.terminating}


def job_manifest(parallelism: int | None, completions: int | None, backoff_limit: int | None = 6,
                 **spec: Any) -> dict[str, Any]:
    """upstream's ``newJob``; ``None`` leaves a field unset (upstream's -1)."""
    names = spec.pop("template_containers", ["c"])
    body: dict[str, Any] = {"template": {"spec": {
        "restartPolicy": spec.pop("restart_policy", "Never"),
        "containers": [{"name": n, "image": "foo/bar"} for n in names]}}}
    for key, value in (("parallelism", parallelism), ("completions", completions),
                       ("backoffLimit", backoff_limit)):
        if value is not None:
            body[key] = value
    body.update(spec)
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "foobar"}, "spec": body}


def _container(name: str, code: int | None, finished_at: str | None, restarts: int = 0) -> dict[str, Any]:
    if code is None:
        state: dict[str, Any] = {"running": {"startedAt": LONG_AGO}}
    else:
        state = {"terminated": {"exitCode": code}}
        if finished_at is not None:
            state["terminated"]["finishedAt"] = finished_at
    return {"name": name, "image": "foo/bar", "imageID": "", "ready": code is None, "restartCount": restarts,
            "state": state}


class Case:
    """A control plane with only the Job controller, the Job and its seeded pods."""

    def __init__(self, manifest: dict[str, Any], pods: list[P] = (), *, status: dict[str, Any] | None = None,
                 deleting: bool = False, controllers: str = "job",
                 uncounted: dict[str, list[str]] | None = None) -> None:
        self.cp = ControlPlane(seed=0, controllers=controllers)
        if deleting:
            manifest = {**manifest, "metadata": {**manifest["metadata"], "finalizers": ["test/hold"]}}
        self.job = self.cp.client.create(Job.model_validate({**manifest, "metadata": {
            **manifest["metadata"], "namespace": "default"}}))
        if status:
            self.job = self.cp.client.patch_status(Job, "foobar", {"status": status}, "default")
        self.restart_policy = manifest["spec"]["template"]["spec"]["restartPolicy"]
        self.seeded: list[str] = []
        self.pre_deleted: set[str] = set()
        self.uids: dict[str, str] = {}
        for i, pod in enumerate(pods):
            self.seeded.append(self._seed(i, pod))
        if uncounted:  # upstream's status.uncountedTerminatedPods, by the pods' names
            self.job = self.cp.client.patch_status(Job, "foobar", {"status": {"uncountedTerminatedPods": {
                key: [self.uids.get(n, n) for n in names] for key, names in uncounted.items()}}},
                "default")
        self.writes: list[Any] = []
        update_status = self.cp.controller_client("job").update_status

        def record(obj: Any, *args: Any, **kwargs: Any) -> Any:
            written = update_status(obj, *args, **kwargs)
            if type(obj).__name__ == "Job":
                self.writes.append(written.status)
            return written

        self.cp.controller_client("job").update_status = record  # type: ignore[method-assign]
        if deleting:
            self.cp.client.delete(Job, "foobar", "default")

    def _seed(self, i: int, spec: P) -> str:
        meta = self.job.spec.template.metadata
        name = spec.name or f"pod-{i:03d}"
        annotations = {INDEX: spec.index} if spec.index is not None else {}
        annotations.update(spec.annotations)
        running = spec.phase == "Running"
        names = [n for n, _ in spec.containers] if spec.containers else ["c"]
        pod_spec: dict[str, Any] = {"restartPolicy": self.restart_policy,
                                    "containers": [{"name": n, "image": "foo/bar"} for n in names]}
        if spec.init_containers:
            pod_spec["initContainers"] = [{"name": n, "image": "foo/bar"} for n, _ in spec.init_containers]
        if running or spec.terminating:
            pod_spec["nodeName"] = "node-1"
        if spec.index is not None:
            pod_spec["hostname"] = f"foobar-{spec.index}"
        owner = {"apiVersion": "batch/v1", "kind": "Job", "name": "foobar", "uid": self.job.metadata.uid,
                 "controller": True, "blockOwnerDeletion": True}
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": name, "namespace": "default", "labels": dict(meta.labels or {}),
            "annotations": annotations, "ownerReferences": [owner],
            "finalizers": [JOB_TRACKING_FINALIZER] if spec.finalizer else []}, "spec": pod_spec}
        self.uids[name] = self.cp.client.create(Pod.model_validate(body)).metadata.uid
        self.cp.client.patch_status(Pod, name, {"status": self._status(spec)}, "default")
        if spec.terminating:
            self.cp.client.delete(Pod, name, "default")
            self.pre_deleted.add(name)
        return name

    @staticmethod
    def _status(spec: P) -> dict[str, Any]:
        status: dict[str, Any] = {"phase": spec.phase}
        conditions = list(spec.conditions)
        if spec.phase == "Running":
            conditions.append({"type": "Ready", "status": "True" if spec.ready else "False"})
        if conditions:
            status["conditions"] = conditions
        containers = spec.containers
        if containers is None and spec.phase in ("Succeeded", "Failed"):
            code = spec.exit_code if spec.exit_code is not None else (0 if spec.phase == "Succeeded" else 1)
            containers = (("c", code),)
        if containers:
            status["containerStatuses"] = [_container(n, code, spec.finished_at, spec.restarts)
                                           for n, code in containers]
        if spec.init_containers:
            status["initContainerStatuses"] = [_container(n, code, spec.finished_at)
                                               for n, code in spec.init_containers]
        return status

    def names(self, uids: Any) -> list[str]:
        """Seeded pods' names for uids (upstream's uids are the pods' names here)."""
        back = {uid: name for name, uid in self.uids.items()}
        return sorted(back.get(uid, uid) for uid in uids or ())

    def run(self) -> Outcome:
        self.cp.run_until_idle()
        return self.outcome()

    def outcome(self) -> Outcome:
        from kbatch.api.core_v1 import Event

        pods = {p.metadata.name: p for p in self.cp.client.list(Pod, "default").items}
        created = [p for name, p in sorted(pods.items()) if name not in self.seeded]
        deleted: list[str] = []
        released: list[str] = []
        for name in self.seeded:
            pod = pods.get(name)
            if pod is None or JOB_TRACKING_FINALIZER not in (pod.metadata.finalizers or ()):
                released.append(name)
            gone_or_deleting = pod is None or pod.metadata.deletion_timestamp is not None
            if gone_or_deleting and name not in self.pre_deleted:
                deleted.append(name)
        events = list(self.cp.client.list(Event, "default").items)
        return Outcome(self.cp.client.get(Job, "foobar", "default"), created, sorted(deleted),
                       sorted(released), events)
