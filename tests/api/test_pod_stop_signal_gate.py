"""``lifecycle.stopSignal`` and the ContainerStopSignals gate (alpha, off by default): with the gate
off a create drops the field (and an empty ``lifecycle`` with it), an update keeps it when the stored
pod already uses it (``pkg/api/pod/util.go`` ``dropContainerStopSignals``)."""

from __future__ import annotations

import pytest

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Invalid
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


@pytest.mark.parametrize(("os_name", "signal", "error"), [
    ("linux", "SIGRTMAX-14", None),
    ("linux", "SIGKILL", None),
    ("windows", "SIGKILL", None),
    (None, "SIGTERM", "Forbidden: may not be set for containers with empty `spec.os.name`"),
    ("linux", "SIGFOO", 'Unsupported value: "SIGFOO": supported values: "SIGABRT", "SIGALRM", "SIGBUS"'),
    ("windows", "SIGINT", 'Unsupported value: "SIGINT": supported values: "SIGKILL", "SIGTERM"'),
])
def test_gate_on_validates_the_signal_for_the_os(os_name: str | None, signal: str, error: str | None) -> None:
    cp = ControlPlane(seed=0, controllers="", feature_gates={"ContainerStopSignals": True})
    text = _POD.format(lifecycle=f"{{stopSignal: '{signal}'}}")
    text = text.replace("  os: {name: linux}\n", f"  os: {{name: {os_name}}}\n" if os_name else "")
    if error is None:
        cp.apply(text)
        return
    with pytest.raises(Invalid) as raised:
        cp.apply(text)
    assert f"spec.containers[0].lifecycle.stopSignal: {error}" in str(raised.value)
    assert not cp.client.list(Pod, "default").items  # nothing written
