"""Container restart rules on regular containers (KEP-5307, gate ContainerRestartRules: alpha 1.34,
beta and on by default since 1.35). Validation as upstream ``pkg/apis/core/validation/validation.go``
``validateContainerRestartPolicy``; with the gate off a create drops the fields and an update keeps
them when the stored pod already uses them (``pkg/api/pod/util.go`` ``dropDisabledPodFields``)."""

from __future__ import annotations

import pytest

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Invalid
from kbatch.api.features import FeatureGates, FeatureSpec, Stage
from kbatch.api.gates import drop_disabled_pod_fields
from kbatch.api.strategies.core import PodStrategy
from kbatch.runtime.controlplane import ControlPlane

_POD = """
apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: default}}
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: busybox
{extra}
"""
_RULE = "    restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [42]}}]\n"


def test_gates_are_declared_as_at_1_37() -> None:
    gates = ControlPlane(seed=0, controllers="").features
    assert gates.enabled("ContainerRestartRules")
    assert gates.enabled("RestartAllContainersOnContainerExits")


@pytest.mark.parametrize("extra", [
    "    restartPolicy: Never\n" + _RULE,
    "    restartPolicy: Always\n",
    "    restartPolicy: OnFailure\n",
    "    restartPolicy: Never\n    restartPolicyRules:\n"
    "    - {action: Restart, exitCodes: {operator: NotIn, values: [0, 1]}}\n",
])
def test_valid_container_restart_policies_are_stored(extra: str) -> None:
    cp = ControlPlane(seed=0, controllers="")
    cp.apply(_POD.format(extra=extra))
    c = cp.client.get(Pod, "p", "default").spec.containers[0]
    assert c.restart_policy is not None


_RULES_20 = "    restartPolicy: Never\n    restartPolicyRules:\n" + \
    "    - {action: Restart, exitCodes: {operator: In, values: [1]}}\n" * 21


@pytest.mark.parametrize(("extra", "error"), [
    ("    restartPolicy: Sometimes\n",
     'spec.containers[0].restartPolicy: Unsupported value: "Sometimes": supported values: '
     '"Always", "Never", "OnFailure"'),
    (_RULE, "spec.containers[0].restartPolicy: Required value: must specify restartPolicy when "
            "restart rules are used"),
    ("    restartPolicy: Never\n"
     "    restartPolicyRules: [{action: Stop, exitCodes: {operator: In, values: [1]}}]\n",
     'spec.containers[0].restartPolicyRules[0].action: Unsupported value: "Stop": '
     'supported values: "Restart"'),
    ("    restartPolicy: Never\n    restartPolicyRules: [{action: Restart, exitCodes: {values: [1]}}]\n",
     'spec.containers[0].restartPolicyRules[0].exitCodes.operator: Unsupported value: "": supported '
     'values: "In", "NotIn"'),
    ("    restartPolicy: Never\n    restartPolicyRules: [{action: Restart}]\n",
     "spec.containers[0].restartPolicyRules[0].exitCodes: Required value: must be specified"),
    (_RULES_20, "spec.containers[0].restartPolicyRules: Too many: 21: must have at most 20 items"),
    ("    restartPolicy: Never\n    restartPolicyRules: [{action: Restart, exitCodes: {operator: In, "
     f"values: {list(range(256))}}}}}]\n",
     "spec.containers[0].restartPolicyRules[0].exitCodes.values: Too many: 256: must have at most 255 items"),
])
def test_invalid_container_restart_policies_are_refused(extra: str, error: str) -> None:
    cp = ControlPlane(seed=0, controllers="")
    with pytest.raises(Invalid) as raised:
        cp.apply(_POD.format(extra=extra))
    assert error in str(raised.value)
    assert not cp.client.list(Pod, "default").items


def test_create_drops_the_fields_while_the_gate_is_off() -> None:
    cp = ControlPlane(seed=0, controllers="", feature_gates={"ContainerRestartRules": False})
    cp.apply(_POD.format(extra="    restartPolicy: Never\n" + _RULE))
    c = cp.client.get(Pod, "p", "default").spec.containers[0]
    assert c.restart_policy is None and c.restart_policy_rules is None


def test_update_keeps_rules_already_in_use_and_sidecars_keep_their_policy() -> None:
    cp = ControlPlane(seed=0, controllers="")
    cp.apply(_POD.format(extra="    restartPolicy: Never\n" + _RULE).replace(
        "  containers:\n", "  initContainers: [{name: side, image: busybox, restartPolicy: Always}]\n"
                           "  containers:\n"))
    old = cp.client.get(Pod, "p", "default").spec
    off = FeatureGates([FeatureSpec("ContainerRestartRules", False, Stage.BETA)])
    for previous, kept in ((old, "Never"), (None, None)):
        new = old.model_copy(deep=True)
        drop_disabled_pod_fields(new, previous, off)
        assert new.containers[0].restart_policy == kept
        assert (new.containers[0].restart_policy_rules is not None) == (kept is not None)
        sidecar = (new.init_containers or [])[0]
        assert sidecar.restart_policy == "Always"  # a sidecar's policy is not a restart rule


@pytest.mark.parametrize(("exit_code", "allowed"), [(42, True), (1, False)])
def test_a_container_its_rules_restart_may_leave_the_terminated_state(exit_code: int, allowed: bool) -> None:
    """``ValidateContainerStateTransition`` skips a container its own policy restarts after that exit."""
    spec = {"restartPolicy": "Never", "containers": [{
        "name": "c", "image": "x", "restartPolicy": "Never",
        "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}]}]}
    ended = {"name": "c", "state": {"terminated": {"exitCode": exit_code}}}
    old = Pod.from_dict({"metadata": {"name": "p", "namespace": "default"}, "spec": spec,
                         "status": {"phase": "Running", "containerStatuses": [ended]}})
    new = old.clone()
    new.status = Pod.from_dict({"status": {"phase": "Running", "containerStatuses": [
        {"name": "c", "state": {"running": {}}}]}}).status
    errs = [str(e) for e in PodStrategy().validate_status_update(new, old)]
    assert errs == ([] if allowed else [
        "status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state"])
