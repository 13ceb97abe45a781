"""Upstream's ``TestValidatePodSpec`` table, through kbatch's API server.

Source: kubernetes/kubernetes ``pkg/apis/core/validation/validation_test.go`` (stored copy at commit
000f2605, 1.35+). Upstream calls ``ValidatePodSpec`` with ``ResourceIsPod`` and checks only that
each failure case fails; here each case is a Pod created through ``APIServer.create`` (defaulting
first) and the test names the field and reason kube-apiserver reports.

Differing through the API: "with hostNetwork hostPort unspecified" is accepted
(``SetDefaults_PodSpec`` sets an unset host port to the container port when ``hostNetwork`` is on).
Not translated: "populate HostIPC" / "populate HostPID" (accepted, nothing to check), and the
securityContext, hostAliases and runtimeClassName cases that kbatch does not validate (listed in
docs/apiserver.md, "Deliberate differences").
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.errors import Forbidden
from kbatch.api.scheduling_v1 import PriorityClass
from tests.api.upstream_pod import (
    INVALID,
    NOT_SUPPORTED,
    REQUIRED,
    created,
    ctr,
    fields,
    pod,
    server,
)

MAX_INT32 = 2**31 - 1
AFFINITY = {"nodeAffinity": {
    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{
        "matchExpressions": [{"key": "key2", "operator": "In", "values": ["value1", "value2"]}],
        "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["host1"]}]}]},
    "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10, "preference": {
        "matchExpressions": [{"key": "foo", "operator": "In", "values": ["bar"]}]}}]}}

SUCCESS: dict[str, dict[str, Any]] = {
    "populate basic fields, leave defaults for most": {},
    "populate all fields": {"initContainers": [ctr("ictr")], "volumes": [{"name": "vol", "emptyDir": {}}],
                            "nodeSelector": {"key": "value"}, "nodeName": "foobar",
                            "activeDeadlineSeconds": MAX_INT32, "serviceAccountName": "acct"},
    "populate HostNetwork": {"hostNetwork": True, "containers": [ctr("ctr", ports=[
        {"hostPort": 8080, "containerPort": 8080, "protocol": "TCP"}])]},
    "with hostNetwork hostPort unspecified (defaulted)": {
        "hostNetwork": True, "containers": [ctr("ctr", ports=[{"containerPort": 2600, "protocol": "TCP"}])]},
    "populate HostIPC": {"hostIPC": True},
    "populate HostPID": {"hostPID": True},
    "populate Affinity": {"affinity": AFFINITY},
    "populate ShareProcessNamespace": {"shareProcessNamespace": True},
    "populate Overhead": {"overhead": {}},
}


@pytest.mark.parametrize("spec", SUCCESS.values(), ids=SUCCESS.keys())
def test_valid_pod_specs_are_created(spec: dict[str, Any]) -> None:
    created(pod(spec))


# (upstream failure case, spec, first (field, reason) kube-apiserver reports)
ERRORS: list[tuple[str, dict[str, Any], tuple[str, str]]] = [
    ("bad volume", {"volumes": [{}]}, ("spec.volumes[0].name", REQUIRED)),
    ("no containers", {"containers": []}, ("spec.containers", REQUIRED)),
    ("bad container", {"containers": [{}]}, ("spec.containers[0].name", REQUIRED)),
    ("bad init container", {"initContainers": [{}]}, ("spec.initContainers[0].name", REQUIRED)),
    ("bad DNS policy", {"dnsPolicy": "invalid"}, ("spec.dnsPolicy", NOT_SUPPORTED)),
    ("bad service account name", {"serviceAccountName": "invalidName"}, ("spec.serviceAccountName", INVALID)),
    ("bad restart policy", {"restartPolicy": "UnknowPolicy"}, ("spec.restartPolicy", NOT_SUPPORTED)),
    ("with hostNetwork hostPort not equal to containerPort", {"hostNetwork": True, "containers": [
        ctr("ctr", ports=[{"hostPort": 8080, "containerPort": 2600, "protocol": "TCP"}])]},
     ("spec.containers[0].ports[0].hostPort", INVALID)),
    ("bad-active-deadline-seconds", {"activeDeadlineSeconds": 0}, ("spec.activeDeadlineSeconds", INVALID)),
    ("active-deadline-seconds-too-large", {"activeDeadlineSeconds": MAX_INT32 + 1},
     ("spec.activeDeadlineSeconds", INVALID)),
    ("bad nodeName", {"nodeName": "node name"}, ("spec.nodeName", INVALID)),
]


@pytest.mark.parametrize(("spec", "expected"), [(s, e) for _, s, e in ERRORS], ids=[n for n, _, _ in ERRORS])
def test_invalid_pod_specs_are_rejected(spec: dict[str, Any], expected: tuple[str, str]) -> None:
    assert fields(pod(spec))[0] == expected


def test_priority_class_name_is_admitted_before_validation() -> None:
    """"populate PriorityClassName" needs the class to exist through the API; "bad
    PriorityClassName" ("InvalidName") is refused by the Priority admission plugin (mutating
    admission runs before validation), a 403 rather than the 422 ``ValidatePodSpec`` would give."""
    created(pod({"priorityClassName": "valid-name"}),
            PriorityClass.model_validate({"metadata": {"name": "valid-name"}, "value": 10}))
    with pytest.raises(Forbidden, match="no PriorityClass with name InvalidName was found"):
        server().create(pod({"priorityClassName": "InvalidName"}))


def test_active_deadline_message_names_max_int32() -> None:
    """``ValidatePodSpec`` bounds activeDeadlineSeconds by math.MaxInt32 (InclusiveRangeError)."""
    from tests.api.upstream_pod import causes

    (_, _, message), *_ = causes(pod({"activeDeadlineSeconds": MAX_INT32 + 1}))
    assert message == f"Invalid value: {MAX_INT32 + 1}: must be between 1 and {MAX_INT32}, inclusive"


def test_any_scheduler_name_is_accepted() -> None:
    """``ValidatePodSpec`` (pkg/apis/core/validation/validation.go) checks serviceAccountName,
    nodeName, hostname, subdomain and priorityClassName as names, never ``schedulerName``: a pod
    naming a scheduler that is not a DNS subdomain is created (and waits for that scheduler)."""
    created(pod({"schedulerName": "My_Scheduler"}))
