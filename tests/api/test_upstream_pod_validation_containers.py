"""Upstream's ``TestValidateContainers`` and ``TestValidateInitContainers`` tables, through kbatch's
API server.

Source: kubernetes/kubernetes ``pkg/apis/core/validation/validation_test.go`` (the stored copy read
for this audit, commit 000f2605, has container ``restartPolicyRules``, the relaxed env-var name rule
and ``AllowSidecarResizePolicy``: 1.35+). Upstream calls ``validateContainers`` /
``validateInitContainers`` on internal objects with the pull and message policies already set; here
each case's containers go into a Pod created through ``APIServer.create``, so ``SetDefaults_*`` runs
first, and the 422's causes (field, reason) are compared with the case's expected list, with
``spec.`` in front of upstream's relative paths.

Not translated or differing because defaulting runs first (asserted as accepted below): "invalid
lifecycle, no http path." and "no http scheme." (``SetDefaults_HTTPGetAction`` fills ``/`` and
``HTTP``), "empty message termination policy" (``SetDefaults_Container`` fills ``File``). Not
translated: "privilege disabled" (kube-apiserver's ``--allow-privileged`` is a server flag; kbatch
always allows privileged containers, as a kubeadm cluster does); the ``resizePolicy`` cases (listed
in docs/apiserver.md, not modelled).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.upstream_pod import (
    DUPLICATE,
    FORBIDDEN,
    INVALID,
    NOT_FOUND,
    NOT_SUPPORTED,
    REQUIRED,
    created,
    ctr,
    fields,
    job,
    pod,
    server,
)

TCP80 = {"tcpSocket": {"port": 80}}
NEGATIVE = {"initialDelaySeconds": -1, "timeoutSeconds": -1, "periodSeconds": -1, "successThreshold": -1,
            "failureThreshold": -1, "terminationGracePeriodSeconds": -1}
C0 = "spec.containers[0]"
I0 = "spec.initContainers[0]"


def _probe_errs(at: str, *, readiness: bool = False) -> list[tuple[str, str]]:
    names = ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold",
             "terminationGracePeriodSeconds")
    errs = [(f"{at}.{n}", INVALID) for n in names]
    last = "terminationGracePeriodSeconds" if readiness else "successThreshold"
    return [*errs, (f"{at}.{last}", INVALID)]


def _and_requests(errs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The errors again at ``requests``: through the API ``SetDefaults_Pod`` copies unset requests
    from the limits before validation, so kube-apiserver reports a bad limit twice."""
    return errs + [(f.replace(".limits[", ".requests["), r) for f, r in errs]


# TestValidateContainers successCase (each container on its own, in a Pod with restartPolicy Always)
SUCCESS: dict[str, dict[str, Any]] = {
    "abc": ctr(),
    "123": ctr("123"),
    "abc-123": ctr("abc-123"),
    "life-123": ctr("life-123", lifecycle={"preStop": {"exec": {"command": ["ls", "-l"]}}}),
    "resources-test": ctr("resources-test", resources={"limits": {"cpu": "10", "memory": "10G",
                                                                  "my.org/resource": "10"}}),
    "resources-request-limit-partials": ctr("rrlp", resources={
        "requests": {"cpu": "9.5", "memory": "10G"}, "limits": {"cpu": "10", "my.org/resource": "10"}}),
    "same-host-port-different-protocol": ctr("shp", ports=[
        {"containerPort": 80, "hostPort": 80, "protocol": "TCP"},
        {"containerPort": 80, "hostPort": 80, "protocol": "UDP"}]),
    "fallback-to-logs-termination-message": ctr("fb", terminationMessagePolicy="FallbackToLogsOnError"),
    "env-from-source": ctr("efs", envFrom=[{"configMapRef": {"name": "test"}}]),
    "live-123": ctr("live-123", livenessProbe={**TCP80, "successThreshold": 1}),
    "startup-123": ctr("startup-123", startupProbe={**TCP80, "successThreshold": 1}),
    # defaulting runs first through the API: these upstream error cases are accepted (see docstring)
    "invalid lifecycle, no http path.": ctr(lifecycle={"preStop": {"httpGet": {"port": 80,
                                                                                "scheme": "HTTP"}}}),
    "invalid lifecycle, no http scheme.": ctr(lifecycle={"preStop": {"httpGet": {"path": "/", "port": 80}}}),
    "empty message termination policy": ctr(terminationMessagePolicy=""),
}


@pytest.mark.parametrize("container", SUCCESS.values(), ids=SUCCESS.keys())
def test_valid_containers_are_created(container: dict[str, Any]) -> None:
    created(pod({"containers": [container]}))


def test_template_image_may_carry_whitespace() -> None:
    """successCase "def" / "ghi": images " " and " some  " pass ``validateContainers`` ("backwards
    compatibility to ensure containers in pod template spec do not check for this"); only a Pod's
    own containers are checked (``validateContainersOnlyForPod``)."""
    created(job({"containers": [ctr("def", " "), ctr("ghi", " some  ")]}))


def test_pod_image_may_not_carry_whitespace() -> None:
    """``validateContainersOnlyForPod``: a Pod's container image must be trimmed."""
    assert fields(pod({"containers": [ctr("ghi", " some  ")]})) == [(f"{C0}.image", INVALID)]


# (upstream case name, containers, expected (field, reason) list)
ERRORS: list[tuple[str, list[dict[str, Any]], list[tuple[str, str]]]] = [
    ("zero-length name", [ctr("")], [(f"{C0}.name", REQUIRED)]),
    ("zero-length-image", [ctr(image="")], [(f"{C0}.image", REQUIRED)]),
    ("name > 63 characters", [ctr("a" * 64)], [(f"{C0}.name", INVALID)]),
    ("name not a DNS label", [ctr("a.b.c")], [(f"{C0}.name", INVALID)]),
    ("name not unique", [ctr(), ctr()], [("spec.containers[1].name", DUPLICATE)]),
    ("host port not unique", [
        ctr(ports=[{"containerPort": 80, "hostPort": 80, "protocol": "TCP"}]),
        ctr("def", ports=[{"containerPort": 81, "hostPort": 80, "protocol": "TCP"}])],
     [("spec.containers[1].ports[0].hostPort", DUPLICATE)]),
    ("invalid env var name", [ctr(env=[{"name": "ev!1"}])], []),  # relaxed rule: accepted (below)
    ("unknown volume name", [ctr(volumeMounts=[{"name": "anything", "mountPath": "/foo"}])],
     [(f"{C0}.volumeMounts[0].name", NOT_FOUND)]),
    ("invalid lifecycle, no exec command.", [ctr(lifecycle={"preStop": {"exec": {}}})],
     [(f"{C0}.lifecycle.preStop.exec.command", REQUIRED)]),
    ("invalid lifecycle, no http port.",
     [ctr(lifecycle={"preStop": {"httpGet": {"path": "/", "scheme": "HTTP"}}})],
     [(f"{C0}.lifecycle.preStop.httpGet.port", INVALID)]),
    ("invalid lifecycle, no tcp socket port.", [ctr(lifecycle={"preStop": {"tcpSocket": {}}})],
     [(f"{C0}.lifecycle.preStop.tcpSocket.port", INVALID)]),
    ("invalid lifecycle, zero tcp socket port.", [ctr(lifecycle={"preStop": {"tcpSocket": {"port": 0}}})],
     [(f"{C0}.lifecycle.preStop.tcpSocket.port", INVALID)]),
    ("invalid lifecycle, no action.", [ctr(lifecycle={"preStop": {}})],
     [(f"{C0}.lifecycle.preStop", REQUIRED)]),
    ("invalid readiness probe, terminationGracePeriodSeconds set.",
     [ctr(readinessProbe={**TCP80, "terminationGracePeriodSeconds": 10})],
     [(f"{C0}.readinessProbe.terminationGracePeriodSeconds", INVALID)]),
    ("invalid liveness probe, no tcp socket port.",
     [ctr(livenessProbe={"tcpSocket": {}, "successThreshold": 1})],
     [(f"{C0}.livenessProbe.tcpSocket.port", INVALID)]),
    ("invalid liveness probe, no action.", [ctr(livenessProbe={"successThreshold": 1})],
     [(f"{C0}.livenessProbe", REQUIRED)]),
    ("invalid liveness probe, successThreshold != 1", [ctr(livenessProbe={**TCP80, "successThreshold": 2})],
     [(f"{C0}.livenessProbe.successThreshold", INVALID)]),
    ("invalid startup probe, successThreshold != 1", [ctr(startupProbe={**TCP80, "successThreshold": 2})],
     [(f"{C0}.startupProbe.successThreshold", INVALID)]),
    ("invalid liveness probe, negative numbers", [ctr(livenessProbe={**TCP80, **NEGATIVE})],
     _probe_errs(f"{C0}.livenessProbe")),
    ("invalid readiness probe, negative numbers", [ctr(readinessProbe={**TCP80, **NEGATIVE})],
     _probe_errs(f"{C0}.readinessProbe", readiness=True)),
    ("invalid startup probe, negative numbers", [ctr(startupProbe={**TCP80, **NEGATIVE})],
     _probe_errs(f"{C0}.startupProbe")),
    ("invalid message termination policy", [ctr(terminationMessagePolicy="Unknown")],
     [(f"{C0}.terminationMessagePolicy", NOT_SUPPORTED)]),
    ("invalid compute resource", [ctr(resources={"limits": {"disk": "10G"}})],
     _and_requests([(f"{C0}.resources.limits[disk]", INVALID)] * 2)),
    ("Resource CPU invalid", [ctr(resources={"limits": {"cpu": "-10", "memory": "0"}})],
     _and_requests([(f"{C0}.resources.limits[cpu]", INVALID)])),
    ("Resource Requests CPU invalid", [ctr(resources={"requests": {"cpu": "-10", "memory": "0"}})],
     [(f"{C0}.resources.requests[cpu]", INVALID)]),
    ("Resource Memory invalid", [ctr(resources={"limits": {"cpu": "0", "memory": "-10"}})],
     _and_requests([(f"{C0}.resources.limits[memory]", INVALID)])),
    ("Request limit simple invalid", [ctr(resources={"limits": {"cpu": "5", "memory": "3"},
                                                      "requests": {"cpu": "6", "memory": "3"}})],
     [(f"{C0}.resources.requests", INVALID)]),
    ("Invalid storage limit request", [ctr(resources={"limits": {"attachable-volumes-aws-ebs": "10"}})],
     _and_requests([(f"{C0}.resources.limits[attachable-volumes-aws-ebs]", INVALID)] * 2)),
    ("Memory request limit multiple invalid", [ctr(resources={"limits": {"cpu": "5", "memory": "3"},
                                                               "requests": {"cpu": "5", "memory": "4"}})],
     [(f"{C0}.resources.requests", INVALID)]),
    ("Invalid env from", [ctr(envFrom=[{"configMapRef": {"name": "$%^&*#"}}])],
     [(f"{C0}.envFrom[0].configMapRef.name", INVALID)]),
    # upstream's "Forbidden RestartPolicy: *" cases run without AllowContainerRestartPolicyRules; the
    # 1.37 API server has ContainerRestartRules on (KEP-5307), so Always/OnFailure/Never are accepted
    # (test_container_restart_policies_are_accepted) and the others are not supported values
    ("Forbidden RestartPolicy: invalid", [ctr(restartPolicy="invalid")],
     [(f"{C0}.restartPolicy", NOT_SUPPORTED)]),
    ("Forbidden RestartPolicy: empty", [ctr(restartPolicy="")], [(f"{C0}.restartPolicy", NOT_SUPPORTED)]),
]


@pytest.mark.parametrize(("containers", "expected"), [(c, e) for _, c, e in ERRORS if e],
                         ids=[n for n, _, e in ERRORS if e])
def test_invalid_containers_are_rejected(containers: list[dict[str, Any]],
                                         expected: list[tuple[str, str]]) -> None:
    assert fields(pod({"containers": containers})) == expected


@pytest.mark.parametrize("policy", ["Always", "OnFailure", "Never"])
def test_container_restart_policies_are_accepted(policy: str) -> None:
    """Upstream's "Forbidden RestartPolicy" cases with ContainerRestartRules on, as at 1.37."""
    created(pod({"containers": [ctr(restartPolicy=policy)]}))


def test_relaxed_env_var_names_are_accepted() -> None:
    """"invalid env var name" ("ev!1") fails only the strict rule; RelaxedEnvironmentVariableValidation
    is GA (always on since 1.34), under which any printable ASCII but '=' is allowed."""
    created(pod({"containers": [ctr(env=[{"name": "ev!1"}])]}))


SIDECAR_PROBES = {"livenessProbe": {**TCP80, "successThreshold": 1}, "readinessProbe": TCP80,
                  "startupProbe": {**TCP80, "successThreshold": 1}}
APP = ctr("app", "nginx")

# TestValidateInitContainers: the regular container is "app"; the pod's restartPolicy is Never
INIT_SUCCESS: dict[str, dict[str, Any]] = {
    "container-1-same-host-port-different-protocol": ctr("c1", ports=[
        {"containerPort": 80, "hostPort": 80, "protocol": "TCP"},
        {"containerPort": 80, "hostPort": 80, "protocol": "UDP"}]),
    "container-3-restart-always-with-lifecycle-hook-and-probes": ctr(
        "c3", restartPolicy="Always", lifecycle={"postStart": {"exec": {"command": ["echo", "post start"]}},
                                                 "preStop": {"exec": {"command": ["echo", "pre stop"]}}},
        **SIDECAR_PROBES),
}


@pytest.mark.parametrize("container", INIT_SUCCESS.values(), ids=INIT_SUCCESS.keys())
def test_valid_init_containers_are_created(container: dict[str, Any]) -> None:
    created(pod({"restartPolicy": "Never", "containers": [APP], "initContainers": [container]}))


def test_init_containers_may_share_host_ports() -> None:
    """Init containers run one by one: host ports are checked per init container only (success case
    "container-1/2-same-host-port-different-protocol" use the same ports)."""
    ports = [{"containerPort": 80, "hostPort": 80, "protocol": "TCP"}]
    created(pod({"restartPolicy": "Never", "containers": [APP],
                 "initContainers": [ctr("c1", ports=ports), ctr("c2", ports=ports)]}))


LONG_PROBE = {**TCP80, **NEGATIVE}
INIT_ERRORS: list[tuple[str, list[dict[str, Any]], list[tuple[str, str]]]] = [
    ("empty name", [ctr("")], [(f"{I0}.name", REQUIRED)]),
    ("name collision with regular container", [ctr("app")], [(f"{I0}.name", DUPLICATE)]),
    ("invalid termination message policy", [ctr("init", terminationMessagePolicy="Unknown")],
     [(f"{I0}.terminationMessagePolicy", NOT_SUPPORTED)]),
    ("duplicate names", [ctr("init"), ctr("init")], [("spec.initContainers[1].name", DUPLICATE)]),
    ("duplicate ports", [ctr(ports=[{"containerPort": 8080, "hostPort": 8080, "protocol": "TCP"}] * 2)],
     [(f"{I0}.ports[1].hostPort", DUPLICATE)]),
    ("uses disallowed field: Lifecycle", [ctr("debug", lifecycle={"preStop": {"exec": {"command": ["ls"]}}})],
     [(f"{I0}.lifecycle", FORBIDDEN)]),
    ("uses disallowed field: LivenessProbe", [ctr("debug", livenessProbe={**TCP80, "successThreshold": 1})],
     [(f"{I0}.livenessProbe", FORBIDDEN)]),
    ("uses disallowed field: ReadinessProbe", [ctr("debug", readinessProbe=TCP80)],
     [(f"{I0}.readinessProbe", FORBIDDEN)]),
    ("Container uses disallowed field: StartupProbe",
     [ctr("debug", startupProbe={**TCP80, "successThreshold": 1})],
     [(f"{I0}.startupProbe", FORBIDDEN)]),
    ("Disallowed field with other errors should only return a single Forbidden",
     [ctr("debug", startupProbe=LONG_PROBE)], [(f"{I0}.startupProbe", FORBIDDEN)]),
    # upstream's "Not supported RestartPolicy: OnFailure/Never" cases run with zero options
    # (AllowContainerRestartPolicyRules off); with ContainerRestartRules on, as at 1.37, an init
    # container's own Never/OnFailure is valid (KEP-5307; test_init_container_own_policies_are_valid)
    ("Not supported RestartPolicy: invalid", [ctr("init", restartPolicy="invalid")],
     [(f"{I0}.restartPolicy", NOT_SUPPORTED)]),
    ("Not supported RestartPolicy: empty", [ctr("init", restartPolicy="")],
     [(f"{I0}.restartPolicy", NOT_SUPPORTED)]),
]


@pytest.mark.parametrize("policy", ["OnFailure", "Never"])
def test_init_container_own_policies_are_valid(policy: str) -> None:
    init = ctr("init", restartPolicy=policy)
    created(pod({"restartPolicy": "Never", "containers": [APP], "initContainers": [init]}))


@pytest.mark.parametrize(("containers", "expected"), [(c, e) for _, c, e in INIT_ERRORS],
                         ids=[n for n, _, _ in INIT_ERRORS])
def test_invalid_init_containers_are_rejected(containers: list[dict[str, Any]],
                                              expected: list[tuple[str, str]]) -> None:
    spec = {"restartPolicy": "Never", "containers": [APP], "initContainers": containers}
    assert fields(pod(spec)) == expected


# validateConfigMapKeySelector / validateSecretKeySelector (validation.go): the referenced name is
# checked as a DNS subdomain even when empty (no Required), the key as a ConfigMap key
E0 = f"{C0}.env[0].valueFrom"
KEY_REFS: list[tuple[str, dict[str, Any], list[tuple[str, str]]]] = [
    ("configMapKeyRef without a name", {"configMapKeyRef": {"key": "k"}},
     [(f"{E0}.configMapKeyRef.name", INVALID)]),
    ("secretKeyRef with a bad name", {"secretKeyRef": {"name": "Bad_Name", "key": "k"}},
     [(f"{E0}.secretKeyRef.name", INVALID)]),
    ("configMapKeyRef without a key", {"configMapKeyRef": {"name": "cm"}},
     [(f"{E0}.configMapKeyRef.key", REQUIRED)]),
    ("secretKeyRef with a bad key", {"secretKeyRef": {"name": "s", "key": "a/b"}},
     [(f"{E0}.secretKeyRef.key", INVALID)]),
    ("configMapKeyRef key '..'", {"configMapKeyRef": {"name": "cm", "key": ".."}},
     [(f"{E0}.configMapKeyRef.key", INVALID)]),
]


@pytest.mark.parametrize(("source", "expected"), [(s, e) for _, s, e in KEY_REFS],
                         ids=[n for n, _, _ in KEY_REFS])
def test_env_key_refs(source: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    assert fields(pod({"containers": [ctr(env=[{"name": "E", "valueFrom": source}])]})) == expected


def test_probe_zeros_are_defaulted_before_validation() -> None:
    """``SetDefaults_Probe`` (pkg/apis/core/v1/defaults.go): the probe's int32 fields are not
    pointers, so an explicit 0 is "unset" and takes the default; a liveness probe written with
    ``successThreshold: 0`` is stored with 1 and accepted, as kube-apiserver does."""
    probe = {"exec": {"command": ["true"]}, "timeoutSeconds": 0, "periodSeconds": 0,
             "successThreshold": 0, "failureThreshold": 0}
    stored = server().create(pod({"containers": [ctr(livenessProbe=probe)]}))
    got = stored.spec.containers[0].liveness_probe
    assert got is not None
    values = (got.timeout_seconds, got.period_seconds, got.success_threshold, got.failure_threshold)
    assert values == (1, 10, 1, 3)
