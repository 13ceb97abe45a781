"""Valid-case fast paths of pod and metadata validation agree with the general paths they shortcut.

``plain_spec_valid`` may only say "valid" when the general ``ValidatePodSpec`` path finds nothing, and
``validate_pod_spec`` returns exactly the general path's errors; the name validators' regex shortcut
gives the memoised checks' answer.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api import validation
from kbatch.api.core_v1 import PodSpec
from kbatch.api.strategies.core.pod_validation import _validate_pod_spec, plain_spec_valid, validate_pod_spec
from kbatch.api.validation import (
    is_dns1123_label,
    is_dns1123_subdomain,
    name_is_dns1123_label,
    name_is_dns1123_subdomain,
)

_NAME = st.one_of(st.just("main"), st.just("side"), st.just(""), st.just("Bad_Name"), st.just("a" * 64))
_QUANTITY = st.sampled_from(["100m", "1", "0", "-1", "64Mi", "2Gi", "3"])
_RESOURCE = st.sampled_from(["cpu", "memory", "ephemeral-storage", "pods", "hugepages-2Mi", "example.com/gpu",
                             "bogus"])
_RESOURCES = st.one_of(
    st.none(),
    st.fixed_dictionaries({}, optional={
        "limits": st.dictionaries(_RESOURCE, _QUANTITY, max_size=3),
        "requests": st.dictionaries(_RESOURCE, _QUANTITY, max_size=3),
        "claims": st.lists(st.fixed_dictionaries({"name": st.sampled_from(["c", "d", ""])},
                                                 optional={"request": st.sampled_from(["r", "", "Bad_"])}),
                           max_size=2),
    }))
_FIELD_REF = st.fixed_dictionaries(
    {"fieldPath": st.sampled_from([
        "metadata.name", "metadata.annotations['batch.kubernetes.io/job-completion-index']",
        "metadata.labels['bad key!']", "spec.nodeName", "status.podIP", "bogus", ""])},
    optional={"apiVersion": st.sampled_from(["v1", "", "v2"])})
_VALUE_FROM = st.one_of(
    st.fixed_dictionaries({"fieldRef": _FIELD_REF}),
    st.fixed_dictionaries({"fieldRef": _FIELD_REF, "secretKeyRef": st.just({"name": "s", "key": "k"})}),
    st.fixed_dictionaries({"configMapKeyRef": st.fixed_dictionaries({"name": st.sampled_from(["c", ""]),
                                                                     "key": st.sampled_from(["k", ""])})}),
    st.just({}))
_ENV = st.fixed_dictionaries(
    {"name": st.sampled_from(["A", "", "B=C", "JOB_COMPLETION_INDEX", "caf\u00e9", "tab\t", "sp ace"])},
    optional={"value": st.sampled_from(["", "x"]), "valueFrom": _VALUE_FROM})
_ACTIONS = st.sampled_from(["Restart", "RestartAllContainers", "x"])
_RESTART_RULE = st.fixed_dictionaries({"action": _ACTIONS}, optional={
    "exitCodes": st.fixed_dictionaries({"operator": st.sampled_from(["In", "NotIn", ""])},
                                       optional={"values": st.just([42])})})
_CONTAINER = st.fixed_dictionaries(
    {"name": _NAME, "image": st.sampled_from(["busybox", "", " busybox", "nginx:1.25"])},
    optional={
        "terminationMessagePolicy": st.sampled_from(["File", "FallbackToLogsOnError", "", "Bogus"]),
        "imagePullPolicy": st.sampled_from(["Always", "IfNotPresent", "Never", "", "Bogus"]),
        "ports": st.lists(st.fixed_dictionaries({"containerPort": st.sampled_from([80, 0, 70000]),
                                                 "protocol": st.sampled_from(["TCP", "", "XTP"])}),
                          max_size=1),
        "env": st.lists(_ENV, max_size=3),
        "restartPolicy": st.sampled_from(["Always", "Never", "OnFailure", "Bogus"]),
        "restartPolicyRules": st.lists(_RESTART_RULE, max_size=1),
        "resources": _RESOURCES,
        "resizePolicy": st.lists(st.fixed_dictionaries({
            "resourceName": st.sampled_from(["cpu", "gpu", ""]),
            "restartPolicy": st.sampled_from(["NotRequired", "RestartContainer", ""])}), max_size=2),
        "securityContext": st.fixed_dictionaries({}, optional={
            "runAsUser": st.sampled_from([0, -1]), "procMount": st.sampled_from(["Default", "Unmasked", "x"]),
            "allowPrivilegeEscalation": st.booleans(), "privileged": st.booleans(),
            "windowsOptions": st.fixed_dictionaries({}, optional={"hostProcess": st.booleans()})}),
    })
_TOLERATION = st.fixed_dictionaries({}, optional={
    "key": st.sampled_from(["node.kubernetes.io/not-ready", "", "bad key"]),
    "operator": st.sampled_from(["Exists", "Equal", "", "Bogus"]),
    "value": st.sampled_from(["", "x", "bad value!"]),
    "effect": st.sampled_from(["NoExecute", "NoSchedule", "", "Bogus"]),
    "tolerationSeconds": st.sampled_from([300, -1]),
})
_POD_CLAIMS = st.lists(st.fixed_dictionaries(
    {"name": st.sampled_from(["c", "d", "", "Bad_"])},
    optional={"resourceClaimName": st.sampled_from(["x", "Bad_"]),
              "resourceClaimTemplateName": st.just("t")}), max_size=2)
_SPEC = st.fixed_dictionaries(
    {"containers": st.lists(_CONTAINER, max_size=3)},
    optional={
        "restartPolicy": st.sampled_from(["Always", "OnFailure", "Never", "", "Bogus"]),
        "dnsPolicy": st.sampled_from(["ClusterFirst", "Default", "", "Bogus", "None"]),
        "dnsConfig": st.fixed_dictionaries({}, optional={
            "nameservers": st.lists(st.sampled_from(["1.2.3.4", "01.2.3.4", "x"]), max_size=4),
            "searches": st.lists(st.sampled_from(["a.b", ".", "A_"]), max_size=2)}),
        "hostAliases": st.lists(st.fixed_dictionaries({"ip": st.sampled_from(["10.0.0.1", "", "::FFFF"])}),
                                max_size=1),
        "readinessGates": st.lists(st.fixed_dictionaries({"conditionType": st.sampled_from(["r", "a/b/c"])}),
                                   max_size=1),
        "runtimeClassName": st.sampled_from(["runc", "", "Bad_"]),
        "os": st.fixed_dictionaries({"name": st.sampled_from(["linux", "windows", "", "plan9"])}),
        "hostUsers": st.booleans(), "hostPID": st.booleans(), "hostIPC": st.booleans(),
        "hostNetwork": st.booleans(), "shareProcessNamespace": st.booleans(),
        "securityContext": st.fixed_dictionaries({}, optional={
            "runAsUser": st.sampled_from([0, -1]), "fsGroupChangePolicy": st.sampled_from(["Always", ""]),
            "sysctls": st.lists(st.fixed_dictionaries({"name": st.sampled_from(["net.core.somaxconn", "",
                                                                                "kernel.msgmax"])}),
                                max_size=2),
            "seccompProfile": st.fixed_dictionaries(
                {"type": st.sampled_from(["RuntimeDefault", "Localhost"])}),
            "windowsOptions": st.fixed_dictionaries({}, optional={"hostProcess": st.booleans()})}),
        "preemptionPolicy": st.sampled_from(["PreemptLowerPriority", "Never", "", "Bogus"]),
        "tolerations": st.lists(_TOLERATION, max_size=3),
        "resourceClaims": _POD_CLAIMS,
        "nodeName": st.sampled_from(["node-1", "Bad_Node"]),
        "schedulerName": st.sampled_from(["default-scheduler", "Bad_Scheduler"]),
        "activeDeadlineSeconds": st.sampled_from([1, 0]),
        "nodeSelector": st.dictionaries(st.sampled_from(["zone", "bad key"]), st.just("a"), max_size=1),
        "initContainers": st.lists(_CONTAINER, max_size=1),
        "overhead": st.dictionaries(st.sampled_from(["cpu"]), _QUANTITY, max_size=1),
        "schedulingGates": st.lists(st.fixed_dictionaries({"name": st.sampled_from(["g", "bad gate!"])}),
                                    max_size=1),
    })


# fields the fast path leaves to the general one whenever they are present
_SPEC_EXTRAS = {"dnsConfig", "hostAliases", "readinessGates", "runtimeClassName", "os", "hostUsers",
                "hostPID", "hostIPC", "hostNetwork", "shareProcessNamespace", "securityContext"}


@settings(max_examples=400)
@given(_SPEC)
def test_plain_spec_valid_only_when_the_general_path_finds_nothing(document: dict[str, Any]) -> None:
    spec = PodSpec.model_validate(document)
    general = _general_only(spec)
    if plain_spec_valid(spec):
        assert general == []
    assert validate_pod_spec(spec, "spec") == general


@settings(max_examples=100)
@given(_SPEC)
def test_the_usual_defaulted_spec_takes_the_fast_path_once_its_tolerations_were_seen(
        document: dict[str, Any]) -> None:
    spec = PodSpec.model_validate({**document, "restartPolicy": "Always", "dnsPolicy": "ClusterFirst",
                                   "containers": [{"name": "main", "image": "busybox",
                                                   "terminationMessagePolicy": "File",
                                                   "imagePullPolicy": "Always",
                                                   "resources": {"requests": {"cpu": "100m"}}}]})
    general = _validate_pod_spec(spec, "spec")  # remembers valid tolerations, as every create does
    plain = all(not document.get(k) for k in ("initContainers", "overhead",
                                              "schedulingGates"))
    plain = plain and "activeDeadlineSeconds" not in document
    plain = plain and not set(document) & _SPEC_EXTRAS
    if plain and general == []:
        assert plain_spec_valid(spec)


@given(st.fixed_dictionaries({}, optional={"restartPolicy": st.sampled_from(["Never", "OnFailure", "Bogus"]),
                                           "restartPolicyRules": st.lists(_RESTART_RULE, max_size=2)}))
def test_container_restart_rules_take_the_general_path(fields: dict[str, Any]) -> None:
    """A regular container's own restart policy or rules (KEP-5307) are the general path's to check."""
    spec = PodSpec.model_validate({"restartPolicy": "Never", "dnsPolicy": "ClusterFirst", "containers": [
        {"name": "main", "image": "busybox", "terminationMessagePolicy": "File", "imagePullPolicy": "Always",
         **fields}]})
    general = _general_only(spec)
    if plain_spec_valid(spec):
        assert general == []
    assert validate_pod_spec(spec, "spec") == general


_TEXT = st.one_of(st.from_regex(r"[a-z0-9]([a-z0-9.-]{0,30}[a-z0-9])?", fullmatch=True),
                  st.text(alphabet="aZ0.-_\n", max_size=12), st.just("a" * 64), st.just("a" * 254),
                  st.just("a." * 127))


@given(_TEXT, st.booleans())
def test_name_validators_agree_with_the_memoised_checks(name: str, prefix: bool) -> None:
    masked = name[:-1] + "a" if prefix and len(name) > 1 and name.endswith("-") else name
    assert name_is_dns1123_subdomain(name, prefix) == is_dns1123_subdomain(masked)
    assert name_is_dns1123_label(name, prefix) == is_dns1123_label(masked)


_ACCESS_NAME = st.sampled_from(["kube-api-access-b2x4z", "other", "", "Bad_Name", "a" * 64])
_PROJECTED = {"defaultMode": 420, "sources": [
    {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
    {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
    {"downwardAPI": {"items": [{"path": "namespace",
                                "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}]}
_ACCESS_VOLUME = st.one_of(
    st.builds(lambda name: {"name": name, "projected": _PROJECTED}, _ACCESS_NAME),
    st.builds(lambda name, mode: {"name": name, "projected": {**_PROJECTED, "defaultMode": mode}},
              _ACCESS_NAME, st.sampled_from([420, 511, 4096, -1])),
    st.builds(lambda name: {"name": name, "projected": _PROJECTED, "emptyDir": {}}, _ACCESS_NAME),
    st.builds(lambda name: {"name": name, "emptyDir": {}}, _ACCESS_NAME))
_MOUNT = st.fixed_dictionaries(
    {"name": _ACCESS_NAME, "mountPath": st.sampled_from(["/var/run/secrets/kubernetes.io/serviceaccount",
                                                         "relative", "/data"])},
    optional={"readOnly": st.booleans(), "subPath": st.sampled_from(["x", "../up"])})


@settings(max_examples=300)
@given(st.lists(_ACCESS_VOLUME, max_size=2), st.lists(st.lists(_MOUNT, max_size=2), min_size=1, max_size=2))
def test_the_api_access_fast_path_agrees_with_the_general_path(volumes: list[dict[str, Any]],
                                                               mounts: list[list[dict[str, Any]]]) -> None:
    """The ServiceAccount plugin's volume and mounts (kbatch/api/strategies/core/api_access_volume.py)
    are recognised only when the general path finds nothing wrong with them."""
    containers = [{"name": f"c{i}", "image": "busybox", "terminationMessagePolicy": "File",
                   "imagePullPolicy": "Always", "volumeMounts": m} for i, m in enumerate(mounts)]
    spec = PodSpec.model_validate({"restartPolicy": "Always", "dnsPolicy": "ClusterFirst",
                                   "volumes": volumes, "containers": containers})
    general = _validate_pod_spec(spec, "spec")
    if plain_spec_valid(spec):
        assert general == []
    assert validate_pod_spec(spec, "spec") == general


def test_the_plugins_volume_and_mounts_take_the_fast_path() -> None:
    name = "kube-api-access-b2x4z"
    mount = {"name": name, "readOnly": True, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}
    spec = PodSpec.model_validate({
        "restartPolicy": "Always", "dnsPolicy": "ClusterFirst",
        "volumes": [{"name": name, "projected": _PROJECTED}],
        "containers": [{"name": n, "image": "busybox", "terminationMessagePolicy": "File",
                        "imagePullPolicy": "Always", "volumeMounts": m}
                       for n, m in (("main", [mount]), ("side", []))]})
    assert _validate_pod_spec(spec, "spec") == []
    assert plain_spec_valid(spec)


def test_an_indexed_job_pod_takes_the_fast_path() -> None:
    """The Job controller's pod of an Indexed Job (``JOB_COMPLETION_INDEX`` from a fieldRef, hostname,
    the ServiceAccount plugin's volume), as stored: valid, and recognised without the general path."""
    from kbatch import ControlPlane
    from kbatch.api.core_v1 import Pod
    from kbatch.testing import make_job

    cp = ControlPlane(seed=0, controllers="job")
    cp.apply(make_job("idx").indexed(2).parallelism(2).command("sleep 1").obj())
    cp.run_until_idle()
    pods = cp.client.list(Pod, "default").items
    assert len(pods) == 2
    for pod in pods:
        env = pod.spec.containers[0].env or []
        assert [e.name for e in env] == ["JOB_COMPLETION_INDEX"]
        assert _validate_pod_spec(pod.spec, "spec") == []
        assert plain_spec_valid(pod.spec)


def _general_only(spec: PodSpec) -> list[Any]:
    """The general path's errors with no fast path inside it either (``validate_resource_requirements``
    shortcuts through ``resource_requirements_plain`` too): the reference the fast path must agree with."""
    with mock.patch.object(validation, "resource_requirements_plain", lambda *_: False):
        return _validate_pod_spec(spec, "spec")


_GROUP = st.one_of(st.none(), st.fixed_dictionaries(
    {}, optional={"podGroupName": st.sampled_from(["g", "", "Bad_Group", "a." * 127])}))
_NODE_SELECTOR = st.dictionaries(st.sampled_from(["zone", "bad key", "cloud.example.com/flavor"]),
                                 st.sampled_from(["a", "", "bad value!"]), max_size=2)


@settings(max_examples=400)
@given(_RESOURCES, _POD_CLAIMS, _NODE_SELECTOR, st.lists(_ENV, max_size=3), _GROUP)
def test_the_fast_path_decides_claims_resources_selectors_and_env_of_a_valid_pod(
        resources: Any, claims: list[dict[str, Any]], selector: dict[str, str],
        env: list[dict[str, Any]], group: dict[str, Any] | None) -> None:
    """On an otherwise valid spec: the fast path says "valid" only when the general path finds
    nothing, and it does say so for the shapes it covers (claims without a request, any resource
    names, node selectors, env literals and fieldRefs, scheduling groups): a DRA pod, a GPU pod, a
    Kueue-admitted pod, an Indexed Job pod and a gang member."""
    container: dict[str, Any] = {"name": "main", "image": "busybox", "terminationMessagePolicy": "File",
                                 "imagePullPolicy": "Always", "env": env}
    if resources is not None:
        container["resources"] = resources
    spec = PodSpec.model_validate({"restartPolicy": "Always", "dnsPolicy": "ClusterFirst",
                                   "resourceClaims": claims, "nodeSelector": selector,
                                   "containers": [container], "schedulingGroup": group})
    general = _general_only(spec)
    plain = plain_spec_valid(spec)
    if plain:
        assert general == []
    covered = all(set(e.get("valueFrom") or {}) <= {"fieldRef"} for e in env) and not any(
        c.get("request") for c in (resources or {}).get("claims", ()))
    if covered and general == []:
        assert plain
    assert validate_pod_spec(spec, "spec") == general
