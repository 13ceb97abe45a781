"""The ClusterQueue webhook's rules for ``spec.concurrentAdmissionPolicy``.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/webhooks/clusterqueue_webhook.go``
(``validateConcurrentAdmissionPolicy``, and ``ValidateClusterQueueUpdate``'s
``ValidateImmutableField``). The shape rules apply only with the ``ConcurrentAdmission`` gate on
(alpha, off by default); the policy is immutable on every update, gate or not. It refuses what
upstream's webhook refuses; the policy acts in
:mod:`kbatch.controllers.kueue.concurrent_admission` (docs/kueue.md, "Concurrent admission").
"""

from __future__ import annotations

from typing import Any

from kbatch.api.errors import FieldError
from kbatch.api.kueue_v1beta2 import ClusterQueue

__all__ = ["concurrent_admission_errors", "concurrent_admission_update_errors"]

MAX_FLAVORS = 16
PATH = "spec.concurrentAdmissionPolicy"
CONSTRAINTS = f"{PATH}.migration.constraints"


def _flavor_names(cq: ClusterQueue) -> list[str]:
    assert cq.spec is not None
    return [f.name or "" for rg in cq.spec.resource_groups or () for f in rg.flavors or ()]


def _migration_errors(cq: ClusterQueue, migration: Any) -> list[FieldError]:
    if migration is None or migration.constraints is None:
        return []
    mode = migration.mode or ""
    if mode not in ("", "TryPreferredFlavors"):
        detail = f'may only be set when migration.mode is "TryPreferredFlavors" (got "{mode}")'
        return [FieldError.forbidden(CONSTRAINTS, detail)]
    last = migration.constraints.last_acceptable_flavor_name
    flavors = _flavor_names(cq)
    if last is None or last in flavors:
        return []
    # upstream prints the set's unsorted list with %v; kbatch sorts it (deterministic)
    listed = "[" + " ".join(sorted(set(flavors))) + "]"
    return [
        FieldError.invalid(
            f"{CONSTRAINTS}.lastAcceptableFlavorName",
            last,
            f"must be one of the flavors defined in the ClusterQueue: {listed}",
        )
    ]


def concurrent_admission_errors(cq: ClusterQueue, gates: Any) -> list[FieldError]:
    """``validateConcurrentAdmissionPolicy``: nothing unless the gate is on and a policy is set."""
    spec = cq.spec
    if spec is None or spec.concurrent_admission_policy is None:
        return []
    if gates is None or not gates.enabled("ConcurrentAdmission"):
        return []
    groups = spec.resource_groups or []
    errs = []
    if len(groups) != 1:
        errs.append(
            FieldError.invalid(
                "spec.resourceGroups",
                len(groups),
                "must have exactly one ResourceGroup when ConcurrentAdmissionPolicy is defined",
            )
        )
    elif len(groups[0].flavors or ()) > MAX_FLAVORS:
        errs.append(
            FieldError.invalid(
                "spec.resourceGroups[0].flavors",
                len(groups[0].flavors or ()),
                "cannot have more than 16 resource flavors in the ResourceGroup when "
                "ConcurrentAdmissionPolicy is defined",
            )
        )
    errs += _migration_errors(cq, spec.concurrent_admission_policy.migration)
    if spec.queueing_strategy == "StrictFIFO":
        errs.append(
            FieldError.invalid(
                "spec.queueingStrategy",
                "StrictFIFO",
                "StrictFIFO queueing strategy cannot be used when ConcurrentAdmissionPolicy is defined",
            )
        )
    return errs


def concurrent_admission_update_errors(cq: ClusterQueue, old: ClusterQueue) -> list[FieldError]:
    """``ValidateImmutableField(new.Spec.ConcurrentAdmissionPolicy, old...)``, on every update."""
    new_policy = cq.spec.concurrent_admission_policy if cq.spec else None
    old_policy = old.spec.concurrent_admission_policy if old.spec else None
    if new_policy == old_policy:
        return []
    value = new_policy.to_dict() if new_policy is not None else None
    return [FieldError.invalid(PATH, value, "field is immutable")]
