"""``lifecycle.stopSignal`` and the ContainerStopSignals gate (alpha, off by default): with the gate
off a create drops the field (and an empty ``lifecycle`` with it), an update keeps it when the stored
pod already uses it (``pkg/api/pod/util.go`` ``dropContainerStopSignals``)."""

from __future__ import annotations

import pytest

from kbatch.api.core_v1 import Pod
from kbatch.api.features import FeatureGates, FeatureSpec, Stage
from kbatch.api.gates import drop_disabled_pod_fields
from kbatch.runtime.controlplane import ControlPlane

_POD = """
apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: default}}
spec:
  os: {{name: linux}}
  containers:
  - name: main
    image: busybox
    lifecycle: {lifecycle}
"""


@pytest.mark.parametrize(("gate", "lifecycle", "kept"), [
    (False, "{stopSignal: SIGUSR1}", None),  # the lifecycle goes with its only field
    (False, "{stopSignal: SIGUSR1, preStop: {sleep: {seconds: 1}}}", "preStop"),
    (True, "{stopSignal: SIGUSR1}", "SIGUSR1"),
])
def test_create_drops_stop_signal_while_the_gate_is_off(gate: bool, lifecycle: str, kept: str | None) -> None:
    cp = ControlPlane(seed=0, controllers="", feature_gates={"ContainerStopSignals": gate})
    cp.apply(_POD.format(lifecycle=lifecycle))
    got = cp.client.get(Pod, "p", "default").spec.containers[0].lifecycle
    if kept is None:
        assert got is None
    elif kept == "preStop":
        assert got is not None and got.stop_signal is None and got.pre_stop is not None
    else:
        assert got is not None and got.stop_signal == kept


def test_update_keeps_a_stop_signal_already_in_use() -> None:
    cp = ControlPlane(seed=0, controllers="", feature_gates={"ContainerStopSignals": True})
    cp.apply(_POD.format(lifecycle="{stopSignal: SIGUSR1}"))
    old = cp.client.get(Pod, "p", "default").spec
    off = FeatureGates([FeatureSpec("ContainerStopSignals", False, Stage.ALPHA)])
    for previous, kept in ((old, "SIGUSR1"), (None, None)):
        new = old.model_copy(deep=True)
        drop_disabled_pod_fields(new, previous, off)
        lifecycle = new.containers[0].lifecycle
        assert (lifecycle.stop_signal if lifecycle is not None else None) == kept
