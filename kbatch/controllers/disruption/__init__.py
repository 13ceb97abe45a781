"""The ``disruption`` controller (kube-controller-manager's ``disruption-controller``): PodDisruptionBudget
status, and the cleanup of stale ``DisruptionTarget`` pod conditions. docs/pdb.md.

Two reconcilers share one catalog entry: ``disruption`` (requests are PDBs: PDB events enqueue the
PDB, pod events the first PDB that selects the pod) and ``disruption-stale-pods`` (requests are pods
carrying ``DisruptionTarget=True`` while not terminating; reset after 2 minutes).
"""

from __future__ import annotations

from typing import Any

from kbatch.controllers.disruption.controller import DisruptionController, StalePodDisruption, render_selector
from kbatch.controllers.disruption.decisions import (
    DELETION_TIMEOUT,
    STALE_POD_DISRUPTION_TIMEOUT,
    SyncError,
    build_disrupted_pod_map,
    count_healthy,
    disruptions_allowed,
    expected_pod_count,
    scaled_value,
    stale_disruption_wait,
)
from kbatch.runtime.context import ControllerContext

__all__ = [
    "DELETION_TIMEOUT",
    "STALE_POD_DISRUPTION_TIMEOUT",
    "DisruptionController",
    "StalePodDisruption",
    "SyncError",
    "build_disrupted_pod_map",
    "count_healthy",
    "disruptions_allowed",
    "expected_pod_count",
    "render_selector",
    "scaled_value",
    "setup",
    "stale_disruption_wait",
]


def setup(ctx: ControllerContext) -> DisruptionController:
    """Catalog factory for ``disruption``."""
    from kbatch.api.core_v1 import Pod
    from kbatch.api.policy_v1 import PodDisruptionBudget
    from kbatch.runtime.handler import new_object_only
    from kbatch.runtime.mappers import itself
    from kbatch.runtime.predicate import predicate_func

    registry = ctx.registry
    controller = DisruptionController(ctx, registry)
    (ctx.build()
        .describe("keeps PodDisruptionBudget status current (policy/v1)")
        .for_(PodDisruptionBudget)
        # upstream's updatePod reads only the new pod (disruption.go, client-go handler)
        .watches(Pod, new_object_only(controller.pdbs_for_pod))
        .complete(controller))
    stale = StalePodDisruption(ctx)
    (ctx.build(f"{ctx.name}-stale-pods")
        .describe("resets stale DisruptionTarget pod conditions")
        .watches(Pod, itself, predicate_func(_has_disruption_target))
        .complete(stale))
    return controller


def _has_disruption_target(pod: Any) -> bool:
    return any(c.type == "DisruptionTarget" and c.status == "True"
               for c in (pod.status.conditions if pod.status else None) or ())
