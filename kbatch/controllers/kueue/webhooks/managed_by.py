"""``ApplyDefaultForManagedBy``: a job queued to a MultiKueue ClusterQueue is managed by MultiKueue.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobframework/defaults.go``
(``ApplyDefaultForManagedBy``) and the integrations' ``CanDefaultManagedBy`` (batch/v1 Job:
``job_controller.go``; JobSet: ``jobset_controller.go``): with the ``MultiKueue`` gate on, a job whose
``spec.managedBy`` is unset (or names the kind's own controller) and whose queue label names a
LocalQueue of a ClusterQueue with a ``kueue.x-k8s.io/multikueue`` check gets
``spec.managedBy: kueue.x-k8s.io/multikueue``, so that the job's controller on the manager leaves it
alone while MultiKueue runs it on a worker: the integrations with a MultiKueue adapter
(:data:`MULTIKUEUE_KINDS`).
"""

from __future__ import annotations

from typing import Any

from kbatch.api.errors import NotFound
from kbatch.api.kueue_v1beta2 import AdmissionCheck, ClusterQueue, LocalQueue
from kbatch.api.kueue_v1beta2.constants import QUEUE_LABEL
from kbatch.api.kueue_v1beta2.multikueue import CONTROLLER_NAME

__all__ = ["MULTIKUEUE_KINDS", "OWN_CONTROLLERS", "default_managed_by"]

MULTIKUEUE_KINDS = frozenset({"batch/job", "jobset.x-k8s.io/jobset"})

# the kinds' own controllers (batchv1.JobControllerName, jobset's JobSetControllerName)
OWN_CONTROLLERS = frozenset({"kubernetes.io/job-controller", "jobset.sigs.k8s.io/jobset-controller"})


def _get(server: Any, kind: type, name: str, namespace: str | None = None) -> Any:
    try:
        return server.get(kind, name, namespace)
    except NotFound:
        return None


def _multikueue_queue(server: Any, namespace: str, queue: str) -> bool:
    lq = _get(server, LocalQueue, queue, namespace)
    cq_name = lq.spec.cluster_queue if lq is not None and lq.spec else None
    cq = _get(server, ClusterQueue, cq_name) if cq_name else None
    strategy = cq.spec.admission_checks_strategy if cq is not None and cq.spec else None
    for rule in (strategy.admission_checks if strategy else None) or ():
        ac = _get(server, AdmissionCheck, rule.name) if rule.name else None
        if ac is not None and ac.spec is not None and ac.spec.controller_name == CONTROLLER_NAME:
            return True
    return False


def default_managed_by(server: Any, job: Any, obj: Any) -> None:
    """Set ``spec.managedBy`` to MultiKueue's controller when the job's queue leads to a MultiKueue
    check (``job`` is the integration's adapter over ``obj``)."""
    if not hasattr(job, "set_managed_by"):
        return
    current = job.managed_by()
    if current is not None and current not in OWN_CONTROLLERS:
        return
    queue = (obj.metadata.labels or {}).get(QUEUE_LABEL)
    if queue and _multikueue_queue(server, obj.metadata.namespace or "", queue):
        job.set_managed_by(CONTROLLER_NAME)
