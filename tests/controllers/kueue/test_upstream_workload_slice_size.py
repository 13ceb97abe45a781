"""The Workload webhook's check of a pod set's own slice fields (``TASValidateWorkloadSliceSize``,
beta, on), translated from kubernetes-sigs/kueue v0.19.2 ``pkg/webhooks/workload_webhook_test.go``
(``TestValidateWorkload``: "should reject non-positive podSetSliceSize …", "… podSetSliceSize without
podSetSliceRequiredTopology …", "… non-positive podsetSliceRequiredTopologyConstraints size …",
"should accept non-positive podSetSliceSize when TASValidateWorkloadSliceSize is disabled").
Nothing is written when refused. A layer of size 0 is refused by the CRD's schema
(``+kubebuilder:validation:Minimum=1``) before the webhook sees it, as on a real API server
(upstream's unit test calls the webhook directly)."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.errors import Forbidden, Invalid
from kbatch.api.kueue_v1beta2 import Workload

from .helpers import workload

TR = "spec.podSets[0].topologyRequest"
LEVEL = "podSetSliceRequiredTopology"


@pytest.mark.parametrize(
    ("request_", "gate", "want"),
    [
        (
            {"podSetSliceRequiredTopology": "kubernetes.io/hostname", "podSetSliceSize": 0},
            True,
            f"{TR}.podSetSliceSize: Invalid value: 0: must be greater than 0",
        ),
        (
            {"podSetSliceSize": 1},
            True,
            f"{TR}.podSetSliceSize: Forbidden: may not be set when {LEVEL} is not specified",
        ),
        (
            {"podsetSliceRequiredTopologyConstraints": [{"topology": "kubernetes.io/hostname", "size": 0}]},
            True,
            f"{TR}.podsetSliceRequiredTopologyConstraints[0].size: Invalid value: 0: ",
        ),
        (
            {"podSetSliceRequiredTopology": "kubernetes.io/hostname"},
            True,
            f"{TR}.podSetSliceSize: Required value: must be set when {LEVEL} is specified",
        ),
        ({"podSetSliceRequiredTopology": "kubernetes.io/hostname", "podSetSliceSize": 0}, False, None),
        ({"podSetSliceRequiredTopology": "kubernetes.io/hostname", "podSetSliceSize": 2}, True, None),
    ],
    ids=[
        "non-positive-size",
        "size-without-level",
        "non-positive-layer",
        "level-without-size",
        "gate-off",
        "valid",
    ],
)
def test_workload_slice_fields(request_: dict[str, Any], gate: bool, want: str | None) -> None:
    cp = ControlPlane(controllers="kueue", feature_gates={"TASValidateWorkloadSliceSize": gate})
    doc = workload("wl", "lq")
    doc["spec"]["podSets"][0]["topologyRequest"] = request_
    if want is None:
        cp.apply([doc])
        assert len(cp.client.list(Workload).items) == 1
        return
    with pytest.raises((Forbidden, Invalid)) as err:
        cp.apply([doc])
    assert want in str(err.value)
    assert cp.client.list(Workload).items == []
