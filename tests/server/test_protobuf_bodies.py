"""Kubernetes protobuf request bodies: kubectl's typed clients send them for built-in kinds."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.errors import BadRequest
from kbatch.server.protobuf import PROTOBUF, decode_object
from kbatch.server.protobuf.wire import encode_field as _field
from kbatch.server.protobuf.wire import encode_varint as _varint
from kbatch.server.protobuf.wire import read_varint
from tests.server.test_kubectl import KUBECTL, kubectl

# The body kubectl v1.32.4 sent for `kubectl create job j --image=busybox -- sleep 1` (its -v=8 dump).
KUBECTL_CREATE_JOB = bytes.fromhex(
    "6b387300 0a0f0a08 62617463 682f7631 12034a6f 62128201 0a110a01 6a12001a 0022002a 00320038"
    "00420012 6332610a 100a0012 001a0022 002a0032 00380042 00124d12 2a0a016a 12076275 7379626f"
    "781a0573 6c656570 1a01312a 0042006a 00720080 01008801 00900100 a201001a 054e6576 65723200"
    "42004a00 52005800 60006800 8201008a 01009a01 00c20100 1a082000 28003000 3a001a00 2200"
    .replace(" ", ""))


def _envelope(api_version: str, kind: str, raw: bytes) -> bytes:
    type_meta = _field(1, api_version.encode()) + _field(2, kind.encode())
    return b"k8s\x00" + _field(1, type_meta) + _field(2, raw)


def test_kubectl_create_job_body_reads_as_its_json() -> None:
    assert decode_object(KUBECTL_CREATE_JOB) == {
        "kind": "Job", "apiVersion": "batch/v1", "metadata": {"name": "j"},
        "spec": {"template": {"metadata": {}, "spec": {
            "containers": [{"name": "j", "image": "busybox", "command": ["sleep", "1"], "resources": {}}],
            "restartPolicy": "Never"}}},
        "status": {}}


def test_pointer_zero_values_stay_and_plain_zero_values_go() -> None:
    # JobSpec.backoffLimit (*int32, 7) = 0 and suspend (*bool, 10) = false stay; a JobStatus.active
    # (int32, 4) of 0 is omitempty in Go's JSON; a negative int32 is sign-extended to 64 bits on the wire.
    spec = _field(7, 0) + _field(10, 0) + _field(1, 2)
    status = _field(4, 0) + _field(5, 3)
    meta = _field(1, b"j") + _field(11, _field(1, b"app") + _field(2, b"x"))
    job = decode_object(_envelope("batch/v1", "Job", _field(1, meta) + _field(2, spec) + _field(3, status)))
    assert job["spec"] == {"backoffLimit": 0, "suspend": False, "parallelism": 2}
    assert job["status"] == {"succeeded": 3}
    assert job["metadata"] == {"name": "j", "labels": {"app": "x"}}
    priority = decode_object(_envelope("scheduling.k8s.io/v1", "PriorityClass",
                                       _field(1, _field(1, b"low")) + _field(2, -5)))
    assert priority["value"] == -5


def test_special_types_read_as_their_json_forms() -> None:
    quantity = _field(1, b"500m")
    resources = _field(2, _field(1, b"cpu") + _field(2, quantity))  # requests: map<string, Quantity>
    container = _field(1, b"c") + _field(2, b"busybox") + _field(8, resources)
    pod_spec = _field(2, container)
    created = _field(1, 1735689600) + _field(2, 5)
    meta = _field(1, b"p") + _field(8, created)
    pod = decode_object(_envelope("v1", "Pod", _field(1, meta) + _field(2, pod_spec)))
    assert pod["metadata"]["creationTimestamp"] == "2025-01-01T00:00:00Z"
    assert pod["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "500m"}}
    pdb_spec = _field(1, _field(1, 1) + _field(3, b"50%"))  # minAvailable: IntOrString (string)
    pdb = decode_object(_envelope("policy/v1", "PodDisruptionBudget", _field(2, pdb_spec)))
    assert pdb["spec"]["minAvailable"] == "50%"


def test_a_runtime_class_reads_as_its_json() -> None:
    """node.k8s.io/v1 RuntimeClass (generated.proto: handler 2, overhead 3 with podFixed 1, scheduling 4
    with nodeSelector 1 and tolerations 2); a client-go typed client may send it as protobuf."""
    overhead = _field(1, _field(1, b"cpu") + _field(2, _field(1, b"250m")))
    toleration = _field(1, b"sandbox") + _field(2, b"Exists")
    scheduling = _field(1, _field(1, b"sandbox") + _field(2, b"kata")) + _field(2, toleration)
    body = (_field(1, _field(1, b"kata")) + _field(2, b"kata-qemu") + _field(3, overhead)
            + _field(4, scheduling))
    assert decode_object(_envelope("node.k8s.io/v1", "RuntimeClass", body)) == {
        "kind": "RuntimeClass", "apiVersion": "node.k8s.io/v1", "metadata": {"name": "kata"},
        "handler": "kata-qemu", "overhead": {"podFixed": {"cpu": "250m"}},
        "scheduling": {"nodeSelector": {"sandbox": "kata"},
                       "tolerations": [{"key": "sandbox", "operator": "Exists"}]}}


@pytest.mark.parametrize("body", [b"", b"{}", b"k8s\x00\xff", b"k8s\x00\x0a\x05\x0a\x03",
                                  _envelope("v1", "Widget", b""),
                                  _envelope("batch/v1", "Job", b"\x0a\x05ab")])
def test_malformed_bodies_are_bad_requests(body: bytes) -> None:
    with pytest.raises(BadRequest, match="unknown format"):
        decode_object(body)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_decode_or_fail_as_bad_request(noise: bytes) -> None:
    """Whatever follows the envelope, the decoder answers a dict or a BadRequest, never a traceback."""
    for body in (b"k8s\x00" + noise, _envelope("batch/v1", "Job", noise)):
        try:
            out = decode_object(body)
        except BadRequest:
            continue
        json.dumps(out)


@given(st.integers(min_value=0, max_value=(1 << 64) - 1))
def test_varints_round_trip(value: int) -> None:
    assert read_varint(_varint(value) + b"\x01", 0) == (value, len(_varint(value)))


def test_the_app_accepts_a_protobuf_create(api: Any) -> None:
    out = api.post("/apis/batch/v1/namespaces/default/jobs", content=KUBECTL_CREATE_JOB,
                   headers={"Content-Type": PROTOBUF})
    assert out.status_code == 201, out.text
    assert out.json()["spec"]["template"]["spec"]["containers"][0]["command"] == ["sleep", "1"]


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_create_commands_work(served: Any) -> None:
    """``kubectl create job|cronjob|namespace|priorityclass|pdb`` send protobuf; all are created."""
    assert kubectl(served, "create", "job", "pb-job", "--image=busybox", "--", "sleep", "1").stdout \
        == "job.batch/pb-job created\n"
    kubectl(served, "create", "cronjob", "pb-cron", "--image=busybox", "--schedule=*/5 * * * *",
            "--", "echo", "hi")
    kubectl(served, "create", "job", "pb-manual", "--from=cronjob/pb-cron")
    kubectl(served, "create", "namespace", "pb-ns")
    kubectl(served, "create", "priorityclass", "pb-high", "--value=1000")
    kubectl(served, "create", "poddisruptionbudget", "pb-pdb", "--selector=app=x", "--min-available=1")
    kubectl(served, "create", "configmap", "pb-cm", "--from-literal=a=1", "--from-literal=b=two")
    job = json.loads(kubectl(served, "get", "job", "pb-job", "-o", "json").stdout)
    assert job["spec"]["template"]["spec"]["containers"][0]["command"] == ["sleep", "1"]
    manual = json.loads(kubectl(served, "get", "job", "pb-manual", "-o", "json").stdout)
    assert manual["metadata"]["annotations"]["cronjob.kubernetes.io/instantiate"] == "manual"
    assert manual["metadata"]["ownerReferences"][0]["kind"] == "CronJob"
    assert manual["spec"]["template"]["spec"]["containers"][0]["command"] == ["echo", "hi"]
    high = json.loads(kubectl(served, "get", "priorityclass", "pb-high", "-o", "json").stdout)
    assert high["value"] == 1000
    pdb = json.loads(kubectl(served, "get", "pdb", "pb-pdb", "-o", "json").stdout)
    assert pdb["spec"]["minAvailable"] == 1
    config_map = json.loads(kubectl(served, "get", "cm", "pb-cm", "-o", "json").stdout)
    assert config_map["data"] == {"a": "1", "b": "two"}


def test_embedded_structs_without_a_json_name_are_spread_into_their_parent() -> None:
    # core/v1 types.go: Volume embeds VolumeSource (`json:""`, protobuf field 2), Probe embeds
    # ProbeHandler (field 1): nested messages on the wire, inline fields in JSON
    host_path = _field(1, _field(1, b"/"))  # VolumeSource.hostPath{path: "/"}
    volume = _field(1, b"root") + _field(2, host_path)
    probe = _field(1, _field(1, _field(1, b"true")))  # Probe.handler.exec.command
    container = _field(1, b"c") + _field(2, b"busybox") + _field(11, probe)  # readinessProbe = 11
    spec = _field(1, volume) + _field(2, container)
    pod = _envelope("v1", "Pod", _field(2, spec))
    decoded = decode_object(pod)
    assert decoded["spec"]["volumes"] == [{"name": "root", "hostPath": {"path": "/"}}]
    assert decoded["spec"]["containers"][0]["readinessProbe"] == {"exec": {"command": ["true"]}}
