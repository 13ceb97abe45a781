"""A plain Pod as a Kueue job (the ``pod`` integration, one pod: one Workload).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/pod/pod_controller.go`` (the
non-group branches of ``Pod``):

* skipped unless labelled ``kueue.x-k8s.io/managed: "true"`` (the webhook sets it) — ``Skip``;
* one pod set ``main`` of 1 pod whose template is the pod's spec (``constructPodSet``);
* suspended while gated by ``kueue.x-k8s.io/admission`` or terminated (``podSuspended``);
* run: the admission's labels, annotations, node selector and tolerations merged into the pod and
  the gate removed (``Run``/``prepare``); restoring is impossible (a pod's spec cannot go back), so
  stopping ends the pod: condition ``TerminationTarget`` (reason the stop reason, e.g.
  ``WorkloadEvictedDueToPreempted``, message the event's) and delete (``Stop``);
* finished when Succeeded or Failed (message the pod's ``status.message``); never "active" for the
  reconciler (``IsActive`` counts group members only), so an evicted pod's quota is released at once;
* ready when its ``Ready`` condition is true; finalizing removes the ``kueue.x-k8s.io/managed``
  finalizer (``Finalize``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kbatch.api.core_v1 import Pod, PodCondition, PodStatus
from kbatch.api.errors import Conflict, NotFound
from kbatch.api.jobframework import PodSet, PodSetInfo, PodSetInfoError, merge_info
from kbatch.api.model_copy import copy_model
from kbatch.controllers.kueue.podintegration import pods as P

__all__ = ["TERMINATION_TARGET", "SinglePod", "remove_finalizer", "terminate"]

TERMINATION_TARGET = "TerminationTarget"  # pod.ConditionTypeTerminationTarget
_RETRY_STEPS = 5  # k8s.io/client-go/util/retry.DefaultRetry.Steps


def remove_finalizer(client: Any, pod: Pod) -> bool:
    """``removePodFinalizers``: whether the finalizer was there (and is now gone). With
    ``RemoveFinalizersWithStrictPatch`` (beta, on since v0.17) upstream patches with the
    resourceVersion and ``WithRetryOnConflict``: a stale copy (a pod just stopped) is read again
    and retried, up to ``retry.DefaultRetry``'s 5 steps, instead of failing the reconcile."""
    for _ in range(_RETRY_STEPS - 1):
        try:
            return _remove_finalizer_once(client, pod)
        except Conflict:
            try:
                pod = client.get(Pod, pod.metadata.name or "", pod.metadata.namespace)
            except NotFound:
                return False
    return _remove_finalizer_once(client, pod)


def _remove_finalizer_once(client: Any, pod: Pod) -> bool:
    if P.POD_FINALIZER not in (pod.metadata.finalizers or ()):
        return False
    pod = copy_model(pod)
    pod.metadata.finalizers = [f for f in pod.metadata.finalizers or () if f != P.POD_FINALIZER] or None
    try:
        client.update(pod)
    except NotFound:
        return False
    return True


def terminate(client: Any, pod: Pod, reason: str, message: str, now: datetime) -> bool:
    """The end of a pod Kueue stops: ``TerminationTarget`` condition, then delete. Whether it was
    stopped now (not already deleting, not finished or gated unless its Workload is deleted)."""
    if pod.metadata.deletion_timestamp is not None:
        return False
    if reason != "WorkloadDeleted" and P.suspended(pod):
        return False
    pod = copy_model(pod)
    status = pod.status or PodStatus()
    conditions = [c for c in status.conditions or () if c.type != TERMINATION_TARGET]
    conditions.append(
        PodCondition(
            type=TERMINATION_TARGET, status="True", reason=reason, message=message, last_transition_time=now
        )
    )
    status.conditions = conditions
    pod.status = status
    try:
        client.update_status(pod)
        client.delete(Pod, pod.metadata.name or "", pod.metadata.namespace)
    except NotFound:
        return False
    return True


@dataclass(slots=True)
class SinglePod:
    pod: Pod

    @property
    def object(self) -> Pod:
        return self.pod

    # --- the jobframework capabilities ------------------------------------------------------------
    def skip(self) -> bool:
        return not P.is_managed(self.pod)

    def is_suspended(self) -> bool:
        return P.suspended(self.pod)

    def suspend(self) -> None:
        """Never called: pods are stopped by :meth:`stop_for`."""

    def run_with_pod_sets_info(self, infos: list[PodSetInfo]) -> None:
        if len(infos) != 1:
            raise PodSetInfoError(f"invalid podset infos: expecting 1 pod set got {len(infos)}")
        if not P.is_gated(self.pod):
            return
        merge_info(self.pod, infos[0])  # type: ignore[arg-type]  # a Pod has a template's metadata and spec
        P.ungate(self.pod, infos[0].scheduling_gates)

    def restore_pod_sets_info(self, infos: list[PodSetInfo]) -> bool:
        return False

    def stop_for(self, client: Any, reason: str, message: str, now: datetime) -> list[Any]:
        return [self.pod] if terminate(client, self.pod, reason, message, now) else []

    def finalize(self, client: Any) -> None:
        remove_finalizer(client, self.pod)

    def finished(self) -> tuple[str, bool, bool]:
        if not P.is_terminated(self.pod):
            return "", True, False
        message = (self.pod.status.message or "") if self.pod.status else ""
        return message, P.phase(self.pod) == "Succeeded", True

    def pod_sets(self) -> list[PodSet]:
        return [P.pod_set("main", 1, self.pod)]

    def is_active(self) -> bool:
        return False

    def pods_ready(self) -> bool:
        return P.is_ready(self.pod)

    def priority_class(self) -> str:
        return self.pod.spec.priority_class_name or ""
