"""Builders for the concurrent-admission tests: upstream's ``utiltestingapi`` wrappers as dicts.

The wrappers used by kubernetes-sigs/kueue v0.19.2 ``pkg/controller/concurrentadmission/
controller_test.go`` (``MakeWorkload(...).AllowedFlavors(...).PreemptionGates(caGate())
.ControllerReference(...).SimpleReserveQuota(...).AdmittedAt(...)``), and a comparable digest of a
Workload (what upstream's ``cmp.Diff`` looks at, less resourceVersion, UID and times of conditions).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.concurrent_admission import variants as V
from kbatch.controllers.kueue.preemption_gates import CONCURRENT_ADMISSION_GATE as CA_GATE

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)  # upstream's fakeNow
MINUTE = timedelta(minutes=1)
PARENT = "wl-12345"


def cond(kind: str, status: str, reason: str, message: str, at: datetime = NOW) -> dict[str, Any]:
    return {
        "type": kind,
        "status": status,
        "reason": reason,
        "message": message,
        "lastTransitionTime": at.isoformat(),
    }


def blocked(at: datetime = NOW) -> dict[str, Any]:
    """``blockedOnPreemptionCondition``."""
    return cond(
        "BlockedOnPreemptionGates",
        "True",
        "PreemptionGated",
        "Workload requires preemption, but it's gated",
        at,
    )


def evaluated(at: datetime = NOW) -> dict[str, Any]:
    """``evaluatedForAdmissionCondition``."""
    return cond("QuotaReserved", "False", "Pending", "Workload does not fit", at)


def reserved(cq: str, flavor: str) -> list[dict[str, Any]]:
    """``SimpleReserveQuota``'s condition (its admission is :func:`admission`)."""
    return [cond("QuotaReserved", "True", "QuotaReserved", f"Quota reserved in ClusterQueue {cq}")]


def admitted() -> dict[str, Any]:
    return cond("Admitted", "True", "Admitted", "The workload is admitted")


def admission(cq: str, flavor: str) -> dict[str, Any]:
    return {
        "clusterQueue": cq,
        "podSetAssignments": [
            {"name": "main", "flavors": {"cpu": flavor}, "count": 1, "resourceUsage": {"cpu": "1"}}
        ],
    }


def wl(
    name: str,
    flavor: str | None = None,
    *,
    queue: str = "lq",
    parent: bool = False,
    active: bool | None = None,
    gates: list[str] | None = None,
    gate: tuple[str, datetime] | None = None,
    conds: list[dict[str, Any]] | None = None,
    reserve: tuple[str, str] | None = None,
    is_admitted: bool = False,
    uid: str = "",
) -> Workload:
    """A Workload: a parent (``parent=True``), or a Variant of :data:`PARENT` on ``flavor`` (with
    the concurrent-admission gate unless ``gates`` says otherwise)."""
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if uid:
        meta["uid"] = uid
    spec: dict[str, Any] = {
        "queueName": queue,
        "podSets": [
            {
                "name": "main",
                "count": 1,
                "template": {
                    "spec": {
                        "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]
                    }
                },
            }
        ],
    }
    if parent:
        meta["labels"] = {V.PARENT_LABEL: "true"}
    if flavor is not None:
        meta["annotations"] = {V.ALLOWED_FLAVORS_ANNOTATION: flavor}
        meta["ownerReferences"] = [
            {
                "apiVersion": V.WORKLOAD_API_VERSION,
                "kind": "Workload",
                "name": PARENT,
                "uid": "",
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ]
        gates = [CA_GATE] if gates is None else gates
    if gates:
        spec["preemptionGates"] = [{"name": g} for g in gates]
    if active is not None:
        spec["active"] = active
    status: dict[str, Any] = {}
    conditions = list(conds or ())
    if reserve is not None:
        status["admission"] = admission(*reserve)
        conditions = reserved(*reserve) + conditions
    if is_admitted:
        conditions.insert(1 if reserve else 0, admitted())
    if conditions:
        status["conditions"] = conditions
    if gate is not None:
        status["preemptionGates"] = [
            {"name": CA_GATE, "position": gate[0], "lastTransitionTime": gate[1].isoformat()}
        ]
    body = {"apiVersion": V.WORKLOAD_API_VERSION, "kind": "Workload", "metadata": meta, "spec": spec}
    if status:
        body["status"] = status
    return Workload.model_validate(body)


def digest(w: Workload) -> tuple[Any, ...]:
    """What the rows compare: name, labels, the allowed flavor, the owner, spec gates and active,
    conditions (without their times), gate states (with theirs), the admission's flavors."""
    st = w.status
    conds = sorted((c.type, c.status, c.reason, c.message) for c in (st.conditions if st else None) or ())
    states = sorted(
        (s.name, s.position, s.last_transition_time) for s in (st.preemption_gates if st else None) or ()
    )
    adm = st.admission if st else None
    flavors = None
    if adm is not None:
        per_pod_set = tuple(tuple(sorted((p.flavors or {}).items())) for p in adm.pod_set_assignments or ())
        flavors = (adm.cluster_queue, per_pod_set)
    return (
        w.metadata.name,
        tuple(sorted((w.metadata.labels or {}).items())),
        V.variant_flavor(w),
        V.parent_name(w),
        tuple(g.name for g in (w.spec.preemption_gates if w.spec else None) or ()),
        w.spec.active is not False if w.spec else True,
        tuple(conds),
        tuple(states),
        flavors,
    )
