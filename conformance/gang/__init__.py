"""The ``gang`` conformance family: Kubernetes' own gang scheduling, scheduling.k8s.io/v1beta1
Workload and PodGroup (KEP-4671, 1.37): validation, the deletion-protection finalizer, and the
workload scheduling cycle end to end (a gang is held until ``minCount`` pods exist, binds whole, is
never partly bound, and its PodGroup records ``PodGroupInitiallyScheduled``).

Checks skip on a target that does not serve the kinds (the ``GenericWorkload`` gate off, as upstream's
default); the scheduling checks need a scheduler and kubelet (``runs_pods``); the Job integration
(KEP-5547) needs the alpha gate ``WorkloadWithJob`` on (``needs_workload_with_job``: the target
declares ``feature-gate:WorkloadWithJob``; in-process the suite turns the gate on for that check).
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.requirements import Requirement, register
from conformance.target import Obj, feature_gate

__all__ = ["WORKLOAD_WITH_JOB", "group_pod", "require_kind"]

WORKLOAD_WITH_JOB = feature_gate("WorkloadWithJob")

register(
    "needs_workload_with_job",
    Requirement(
        needs=frozenset({WORKLOAD_WITH_JOB}),
        reason="needs the WorkloadWithJob feature gate (alpha, off by default upstream); this target "
               "does not declare it on",
        doc="Jobs get a Workload and PodGroup (KEP-5547); skipped on targets without "
            "feature-gate:WorkloadWithJob",
    ),
)


def require_kind(target: Any, kind: str) -> None:
    """Skip the check unless the target serves ``kind`` (``Kind.group`` form allowed)."""
    try:
        target.list(kind)
    except Exception as err:  # kbatch's BadRequest in-process, LookupError over HTTP
        pytest.skip(f"the target does not serve {kind}: {err}")


def group_pod(name: str, seconds: int, *, cpu: str = "10m", group: str = "", xgroup: str = "",
              priority_class: str = "") -> Obj:
    """A busybox pod sleeping ``seconds`` that joins a scheduling.k8s.io PodGroup (``group``) or a
    scheduler-plugins one (``xgroup``); ``cpu`` beyond any node's keeps it from fitting anywhere."""
    meta: dict[str, Any] = {"name": name}
    spec: dict[str, Any] = {
        "restartPolicy": "Never", "terminationGracePeriodSeconds": 1,
        "containers": [{"name": "c", "image": "busybox:1.36", "command": ["sh", "-c", f"sleep {seconds}"],
                        "resources": {"requests": {"cpu": cpu}}}]}
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    if priority_class:
        spec["priorityClassName"] = priority_class
    if xgroup:
        meta["labels"] = {"scheduling.x-k8s.io/pod-group": xgroup}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
