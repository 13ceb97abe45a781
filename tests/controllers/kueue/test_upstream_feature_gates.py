"""Upstream's feature-gate dependency table, through a Kueue Configuration's ``featureGates``.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/config/validation_test.go``
``TestLoadAndValidateFeatureGates`` (case names are upstream's; its ``featureGateMap`` is the
Configuration's ``featureGates``, given here with ``ControlPlane(kueue_config=...)``). Errors compare
as upstream's (``featureGates`` and the detail, in order). Not translated: "cannot specify both
feature gates" (kbatch's ``--feature-gates`` serves every family, so a Kueue gate set the same way
in both places is accepted; different values are refused, ``tests/cli/test_kueue_cli.py``).
"""

from __future__ import annotations

import pytest

from kbatch import ControlPlane
from kbatch.api.errors import Invalid

TAS_OFF = {
    "TopologyAwareScheduling": False,
    "TASHandleOverlappingFlavors": False,
    "TASFailedNodeReplacement": False,
    "TASFailedNodeReplacementFailFast": False,
    "TASReplaceNodeOnPodTermination": False,
    "TASReplaceNodeOnNodeTaints": False,
    "TASMultiLayerTopology": False,
    "TASRecomputeAssignmentWithinSchedulingCycle": False,
}


def _req(gate: str, dep: str) -> str:
    return f'featureGates: Invalid value: "{gate}": {gate} requires {dep} to be enabled'


PROFILE = "featureGates: Invalid value: 1: cannot use a TAS profile with TAS disabled"

CASES = [
    ("no feature gates is null", {}, []),
    ("cannot set TAS profile with TAS disabled", {**TAS_OFF, "TASProfileMixed": True}, [PROFILE]),
    (
        "TASReplaceNodeDueToNotReadyOverFixedTime requires TASFailedNodeReplacement",
        {
            "TASReplaceNodeDueToNotReadyOverFixedTime": True,
            "TopologyAwareScheduling": True,
            "TASFailedNodeReplacement": False,
            "TASFailedNodeReplacementFailFast": False,
            "TASReplaceNodeOnPodTermination": False,
        },
        [_req("TASReplaceNodeDueToNotReadyOverFixedTime", "TASFailedNodeReplacement")],
    ),
    (
        "ElasticJobsViaWorkloadSlicesWithTAS requires ElasticJobsViaWorkloadSlices",
        {"ElasticJobsViaWorkloadSlicesWithTAS": True, "ElasticJobsViaWorkloadSlices": False},
        [_req("ElasticJobsViaWorkloadSlicesWithTAS", "ElasticJobsViaWorkloadSlices")],
    ),
    (
        "ElasticJobsViaWorkloadSlicesWithTAS requires TopologyAwareScheduling",
        {**TAS_OFF, "TASProfileMixed": False, "ElasticJobsViaWorkloadSlicesWithTAS": True},
        [_req("ElasticJobsViaWorkloadSlicesWithTAS", "TopologyAwareScheduling")],
    ),
    (
        "ElasticJobsViaWorkloadSlicesWithTAS valid when all dependencies enabled",
        {
            "ElasticJobsViaWorkloadSlicesWithTAS": True,
            "ElasticJobsViaWorkloadSlices": True,
            "TopologyAwareScheduling": True,
        },
        [],
    ),
    (
        "TASHandleOverlappingFlavors requires TopologyAwareScheduling",
        {**TAS_OFF, "TASProfileMixed": False, "TASHandleOverlappingFlavors": True},
        [_req("TASHandleOverlappingFlavors", "TopologyAwareScheduling")],
    ),
    (
        "TASHandleOverlappingFlavors valid when all dependencies enabled",
        {"TopologyAwareScheduling": True, "TASHandleOverlappingFlavors": True},
        [],
    ),
    (
        "TASRespectNodeAffinityPreferred requires TopologyAwareScheduling",
        {**TAS_OFF, "TASProfileMixed": False, "TASRespectNodeAffinityPreferred": True},
        [_req("TASRespectNodeAffinityPreferred", "TopologyAwareScheduling")],
    ),
    (
        "multiple FG validation errors at once",
        {
            **TAS_OFF,
            "TASProfileMixed": True,
            "TASHandleOverlappingFlavors": True,
            "ElasticJobsViaWorkloadSlicesWithTAS": True,
            "ElasticJobsViaWorkloadSlices": False,
        },
        [
            PROFILE,
            _req("TASHandleOverlappingFlavors", "TopologyAwareScheduling"),
            _req("ElasticJobsViaWorkloadSlicesWithTAS", "ElasticJobsViaWorkloadSlices"),
            _req("ElasticJobsViaWorkloadSlicesWithTAS", "TopologyAwareScheduling"),
        ],
    ),
    (
        "KueueDRAIntegrationExtendedResource requires KueueDRAIntegration",
        {
            "KueueDRAIntegration": False,
            "KueueDRAIntegrationExtendedResource": True,
            "KueueDRAIntegrationPartitionableDevices": False,
        },
        [_req("KueueDRAIntegrationExtendedResource", "KueueDRAIntegration")],
    ),
    (
        "KueueDRAIntegrationPartitionableDevices requires KueueDRAIntegration",
        {
            "KueueDRAIntegration": False,
            "KueueDRAIntegrationExtendedResource": False,
            "KueueDRAIntegrationPartitionableDevices": True,
        },
        [_req("KueueDRAIntegrationPartitionableDevices", "KueueDRAIntegration")],
    ),
    (
        "KueueDRAIntegrationConsumableCapacity requires KueueDRAIntegration",
        {
            "KueueDRAIntegration": False,
            "KueueDRAIntegrationExtendedResource": False,
            "KueueDRAIntegrationPartitionableDevices": False,
            "KueueDRAIntegrationConsumableCapacity": True,
        },
        [_req("KueueDRAIntegrationConsumableCapacity", "KueueDRAIntegration")],
    ),
    (
        "UnadmittedWorkloadsExplicitStatus requires UnadmittedWorkloadsObservability",
        {"UnadmittedWorkloadsExplicitStatus": True, "UnadmittedWorkloadsObservability": False},
        [_req("UnadmittedWorkloadsExplicitStatus", "UnadmittedWorkloadsObservability")],
    ),
    (
        "TASFailedNodeReplacementFailFast requires TASFailedNodeReplacement",
        {
            "TASFailedNodeReplacement": False,
            "TASFailedNodeReplacementFailFast": True,
            "TASReplaceNodeOnPodTermination": False,
        },
        [_req("TASFailedNodeReplacementFailFast", "TASFailedNodeReplacement")],
    ),
    (
        "TASReplaceNodeOnPodTermination requires TASFailedNodeReplacement",
        {
            "TASFailedNodeReplacement": False,
            "TASFailedNodeReplacementFailFast": False,
            "TASReplaceNodeOnPodTermination": True,
        },
        [_req("TASReplaceNodeOnPodTermination", "TASFailedNodeReplacement")],
    ),
    (
        "TASFailedNodeReplacementFailFast requires both TopologyAwareScheduling and TASFailedNodeReplacement",
        {**TAS_OFF, "TASProfileMixed": False, "TASFailedNodeReplacementFailFast": True},
        [
            _req("TASFailedNodeReplacementFailFast", "TopologyAwareScheduling"),
            _req("TASFailedNodeReplacementFailFast", "TASFailedNodeReplacement"),
        ],
    ),
    (
        "all TAS sub-features valid when TopologyAwareScheduling and TASFailedNodeReplacement enabled",
        {
            "TopologyAwareScheduling": True,
            "TASFailedNodeReplacement": True,
            "TASFailedNodeReplacementFailFast": True,
            "TASReplaceNodeOnPodTermination": True,
            "TASBalancedPlacement": True,
            "TASRespectNodeAffinityPreferred": True,
        },
        [],
    ),
]


@pytest.mark.parametrize(("gates", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_load_and_validate_feature_gates(gates: dict[str, bool], want: list[str]) -> None:
    config = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", "featureGates": gates}
    if not want:
        ControlPlane(controllers="kueue", kueue_config=config)
        return
    with pytest.raises(Invalid) as err:
        ControlPlane(controllers="kueue", kueue_config=config)
    text = str(err.value)
    body = text.split("is invalid: ", 1)[1]
    assert body == (want[0] if len(want) == 1 else "[" + ", ".join(want) + "]"), text
