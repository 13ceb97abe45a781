"""Kueue feature gates that need others: the checks Kueue's manager makes before it starts.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/config/validation.go`` ``LoadAndValidateFeatureGates``
(after the gates are set from the flag or the Configuration's ``featureGates``): a TAS profile
needs ``TopologyAwareScheduling``; each TAS sub-feature needs ``TopologyAwareScheduling`` (and the
node-replacement ones ``TASFailedNodeReplacement``); ``ElasticJobsViaWorkloadSlicesWithTAS`` needs
both elastic jobs and TAS; the DRA sub-features need ``KueueDRAIntegration``;
``UnadmittedWorkloadsExplicitStatus`` needs ``UnadmittedWorkloadsObservability``. Each missing
dependency is one ``featureGates`` error, in upstream's order. Most of these features are not
modelled by kbatch, but a gate combination Kueue refuses to start with is refused here too.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.errors import FieldError

__all__ = ["gate_dependency_errors"]

PATH = "featureGates"
TAS = "TopologyAwareScheduling"
REPLACEMENT = "TASFailedNodeReplacement"
DRA = "KueueDRAIntegration"

# (gate, its dependencies), in validateFeatureGateDependency's call order
_DEPENDENCIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (REPLACEMENT, (TAS,)),
    ("TASFailedNodeReplacementFailFast", (TAS, REPLACEMENT)),
    ("TASReplaceNodeOnPodTermination", (TAS, REPLACEMENT)),
    ("TASReplaceNodeDueToNotReadyOverFixedTime", (TAS, REPLACEMENT)),
    ("TASBalancedPlacement", (TAS,)),
    ("TASReplaceNodeOnNodeTaints", (TAS,)),
    ("TASMultiLayerTopology", (TAS,)),
    ("TASRespectNodeAffinityPreferred", (TAS,)),
    ("TASRecomputeAssignmentWithinSchedulingCycle", (TAS,)),
    ("UnadmittedWorkloadsExplicitStatus", ("UnadmittedWorkloadsObservability",)),
)
_DRA_PARTS = (
    "KueueDRAIntegrationExtendedResource",
    "KueueDRAIntegrationPartitionableDevices",
    "KueueDRAIntegrationConsumableCapacity",
)


def _requires(gate: str, dependency: str) -> FieldError:
    return FieldError.invalid(PATH, gate, f"{gate} requires {dependency} to be enabled")


def gate_dependency_errors(gates: Any) -> list[FieldError]:
    """The errors for ``gates`` (anything with ``enabled(name)``), in upstream's order."""

    def on(name: str) -> bool:
        return name in gates and bool(gates.enabled(name))

    errs = []
    profiles = sum(1 for name in ("TASProfileMixed",) if on(name))
    if not on(TAS) and profiles > 0:
        errs.append(FieldError.invalid(PATH, profiles, "cannot use a TAS profile with TAS disabled"))
    if not on(TAS) and on("TASHandleOverlappingFlavors"):
        errs.append(_requires("TASHandleOverlappingFlavors", TAS))
    for gate, dependencies in _DEPENDENCIES:
        if on(gate):
            errs += [_requires(gate, dep) for dep in dependencies if not on(dep)]
    elastic_tas = "ElasticJobsViaWorkloadSlicesWithTAS"
    if on(elastic_tas):
        for dep in ("ElasticJobsViaWorkloadSlices", TAS):
            if not on(dep):
                errs.append(_requires(elastic_tas, dep))
    errs += [_requires(part, DRA) for part in _DRA_PARTS if on(part) and not on(DRA)]
    return errs
