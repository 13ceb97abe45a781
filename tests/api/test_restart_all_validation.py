"""Which containers may carry restart rules, and the ``RestartAllContainers`` action (KEP-5532, gate
RestartAllContainersOnContainerExits) next to KEP-5307's rules on init containers. Upstream
``pkg/apis/core/validation/validation.go`` (read at a 1.36 copy, AIAgentSandox/kubernetes
64149d12): ``validateContainerRestartPolicy`` (the action ``RestartAllContainers`` only with
``AllowRestartAllContainers``), ``validateInitContainerRestartPolicy`` (a regular init container may
have ``Never``/``OnFailure`` and rules; a sidecar may have rules only with ``AllowRestartAllContainers``)
and ``pkg/api/pod/util.go`` (``AllowRestartAllContainers`` is the gate, or the old pod already using the
action: ``restartAllContainersActionInUse``; ``dropContainerRestartRules`` for init containers)."""

from __future__ import annotations

import pytest
from ruamel.yaml import YAML

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Invalid
from kbatch.runtime.controlplane import ControlPlane

_POD = """
apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: default}}
spec:
  restartPolicy: Never
  initContainers:
  - name: init
    image: busybox
{init}
  containers:
  - name: main
    image: busybox
{main}
"""
_ALL = "    restartPolicyRules: [{action: RestartAllContainers, exitCodes: {operator: In, values: [42]}}]\n"
_RESTART = "    restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [3]}}]\n"
_OFF = {"RestartAllContainersOnContainerExits": False}


def _apply(init: str = "", main: str = "", gates: dict[str, bool] | None = None) -> Pod:
    cp = ControlPlane(seed=0, controllers="", feature_gates=gates or {})
    cp.apply(_POD.format(init=init, main=main))
    return cp.client.get(Pod, "p", "default")


@pytest.mark.parametrize(("init", "main"), [
    ("", "    restartPolicy: Never\n" + _ALL),  # a regular container restarts them all
    ("    restartPolicy: Always\n" + _ALL, ""),  # a sidecar may have rules now
    ("    restartPolicy: Always\n" + _RESTART, ""),
    ("    restartPolicy: Never\n" + _ALL, ""),  # a regular init container has a policy of its own
    ("    restartPolicy: OnFailure\n" + _RESTART, ""),
    ("    restartPolicy: Never\n", ""),
])
def test_accepted_where_upstream_accepts_them(init: str, main: str) -> None:
    pod = _apply(init, main)
    assert pod.spec.init_containers[0].restart_policy_rules == (
        None if "Rules" not in init else pod.spec.init_containers[0].restart_policy_rules)


@pytest.mark.parametrize(("init", "main", "gates", "error"), [
    ("", "    restartPolicy: Never\n    restartPolicyRules: [{action: Stop, exitCodes: {operator: In, "
     "values: [1]}}]\n", None,
     'spec.containers[0].restartPolicyRules[0].action: Unsupported value: "Stop": supported values: '
     '"Restart", "RestartAllContainers"'),
    ("    restartPolicy: Sometimes\n", "", None,
     'spec.initContainers[0].restartPolicy: Unsupported value: "Sometimes": supported values: '
     '"Always", "Never", "OnFailure"'),
    (_RESTART, "", None, "spec.initContainers[0].restartPolicy: Required value: must specify "
                         "restartPolicy when restart rules are used"),
    ("", "    restartPolicy: Never\n" + _ALL, _OFF,
     'spec.containers[0].restartPolicyRules[0].action: Unsupported value: "RestartAllContainers": '
     'supported values: "Restart"'),
    ("    restartPolicy: Never\n" + _ALL, "", _OFF,
     'spec.initContainers[0].restartPolicyRules[0].action: Unsupported value: "RestartAllContainers": '
     'supported values: "Restart"'),
    ("    restartPolicy: Always\n" + _RESTART, "", _OFF,
     "spec.initContainers[0].restartPolicyRules: Forbidden: restartPolicyRules are not allowed for "
     "init containers with restart policy Always"),
    ("    restartPolicy: Never\n    livenessProbe: {exec: {command: [\"true\"]}}\n", "", None,
     "spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without "
     "restartPolicy=Always"),
])
def test_refused_with_upstreams_messages(init: str, main: str, gates: dict[str, bool] | None,
                                         error: str) -> None:
    with pytest.raises(Invalid) as raised:
        _apply(init, main, gates)
    assert error in str(raised.value)


def test_with_container_restart_rules_off_an_init_container_loses_its_policy_but_a_sidecar_keeps_it() -> None:
    pod = _apply("    restartPolicy: Never\n" + _RESTART, "", {"ContainerRestartRules": False})
    init = pod.spec.init_containers[0]
    assert init.restart_policy is None and init.restart_policy_rules is None
    sidecar = _apply("    restartPolicy: Always\n" + _ALL, "", {"ContainerRestartRules": False})
    assert sidecar.spec.init_containers[0].restart_policy == "Always"
    assert sidecar.spec.init_containers[0].restart_policy_rules is None


def test_an_update_keeps_an_action_the_stored_pod_already_uses_while_the_gate_is_off() -> None:
    from kbatch.api.features import FeatureGates, FeatureSpec, Stage
    from kbatch.api.strategies.core import PodStrategy

    stored = _apply("", "    restartPolicy: Never\n" + _ALL)
    off = PodStrategy().for_gates(FeatureGates([
        FeatureSpec("ContainerRestartRules", True, Stage.BETA),
        FeatureSpec("RestartAllContainersOnContainerExits", False, Stage.BETA)]))
    new = stored.clone()
    new.metadata.labels = {"touched": "yes"}
    assert off.validate_update(new, stored) == []
    assert any("RestartAllContainers" in str(e) for e in off.validate(new))


_JOB = """
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: default}
spec:
  template:
    spec:
      restartPolicy: Never
      initContainers: [{name: side, image: busybox, restartPolicy: Always,
                        restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [1]}}]}]
      containers:
      - name: main
        image: busybox
        restartPolicy: Never
        restartPolicyRules: [{action: RestartAllContainers, exitCodes: {operator: In, values: [42]}}]
"""


def test_a_job_template_is_refused_as_a_pod_while_the_gate_is_off() -> None:
    cp = ControlPlane(seed=0, controllers="", feature_gates=_OFF)
    with pytest.raises(Invalid) as raised:
        cp.apply(_JOB)
    assert str(raised.value).count("spec.template.spec.") == 2
    assert ('spec.template.spec.containers[0].restartPolicyRules[0].action: Unsupported value: '
            '"RestartAllContainers": supported values: "Restart"') in str(raised.value)
    assert ("spec.template.spec.initContainers[0].restartPolicyRules: Forbidden: restartPolicyRules are "
            "not allowed for init containers with restart policy Always") in str(raised.value)
    ControlPlane(seed=0, controllers="").apply(_JOB)  # the gate on: accepted


def test_a_cronjob_template_is_refused_as_a_pod_while_the_gate_is_off() -> None:
    """The CronJob strategy asks ``GetValidationOptionsFromPodTemplate`` for its job template too."""
    job = YAML(typ="safe").load(_JOB)
    cronjob = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c", "namespace": "default"},
               "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": job["spec"]}}}
    with pytest.raises(Invalid) as raised:
        ControlPlane(seed=0, controllers="", feature_gates=_OFF).apply(cronjob)
    assert ('spec.jobTemplate.spec.template.spec.containers[0].restartPolicyRules[0].action: Unsupported '
            'value: "RestartAllContainers"') in str(raised.value)
    ControlPlane(seed=0, controllers="").apply(cronjob)  # the gate on: accepted


def _status_pod(main: dict[str, object], init: dict[str, object], ended: int) -> tuple[Pod, Pod]:
    spec = {"restartPolicy": "Never", "initContainers": [{"name": "init", "image": "x", **init}],
            "containers": [{"name": "main", "image": "x", **main}]}
    done = {"state": {"terminated": {"exitCode": ended}}}
    old = Pod.from_dict({"metadata": {"name": "p", "namespace": "default"}, "spec": spec, "status": {
        "phase": "Running", "initContainerStatuses": [{"name": "init", **done}],
        "containerStatuses": [{"name": "main", **done}]}})
    new = old.clone()
    running = {"state": {"running": {}}}
    new.status = Pod.from_dict({"status": {
        "phase": "Running", "initContainerStatuses": [{"name": "init", **running}],
        "containerStatuses": [{"name": "main", **running}]}}).status
    return new, old


def test_every_container_of_a_pod_that_may_restart_them_all_may_leave_terminated() -> None:
    """``ValidateContainerStateTransition``: ``AllContainersCouldRestart`` lifts the check for all of
    them; an init container its own policy restarts may leave too (``ContainerShouldRestart``)."""
    from kbatch.api.strategies.core import PodStrategy

    rules = {"restartPolicy": "Never", "restartPolicyRules": [
        {"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [42]}}]}
    assert PodStrategy().validate_status_update(*_status_pod(rules, {}, 0)) == []
    own = _status_pod({}, {"restartPolicy": "OnFailure"}, 3)
    errs = [str(e) for e in PodStrategy().validate_status_update(*own)]
    assert errs == ["status.containerStatuses[0].state: Forbidden: may not be transitioned to "
                    "non-terminated state"]
