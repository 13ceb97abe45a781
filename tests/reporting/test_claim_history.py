"""The devices of finished pods whose claims are gone: a claim's allocated versions from the trace
(replayed merge patches), from a recorder on a control plane without a trace, or from several
versions in files; a pod takes the version reserved for it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import kbatch
from kbatch.apiserver.jsonpatch import apply_merge_patch
from kbatch.experiment import run
from kbatch.reporting import build_report, sources
from kbatch.reporting.claim_history import ClaimRecorder, claims_from_trace
from kbatch.reporting.devices import device_use
from kbatch.sim import NodeTemplate, create_nodes
from kbatch.sim.devices import DeviceTemplate
from tests.reporting.builders import custom, node, pod
from tests.reporting.test_device_classes import CLASSES, DRIVER, slice_of, using

GPU_POD = (Path(__file__).resolve().parents[2] / "examples" / "dra" / "gpu-pod.yaml").read_text()


# RFC 7386 appendix A, its examples as a table (target, patch, result): the replay's patch function
RFC7386 = [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    (["a", "b"], ["c", "d"], ["c", "d"]),
    ({"a": "b"}, ["c"], ["c"]),
    ({"a": "foo"}, None, None),
    ({"a": "foo"}, "bar", "bar"),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
]


@pytest.mark.parametrize(("target", "patch", "result"), RFC7386)
def test_merge_patch_is_rfc7386(target: Any, patch: Any, result: Any) -> None:
    assert apply_merge_patch(target, patch) == result


def _line(rev: int, verb: str, name: str, diff: Any, kind: str = "ResourceClaim.resource.k8s.io") -> str:
    record = {"diff": diff, "kind": kind, "name": name, "ns": "default", "rev": rev,
              "t": "2025-01-01T00:00:00.000000Z", "verb": verb}
    return json.dumps(record, sort_keys=True, separators=(",", ":"))


RESULT = {"request": "r", "driver": DRIVER, "pool": "node-0", "device": "gpu-1"}
ALLOCATION = {"devices": {"results": [RESULT]}}


def test_trace_replay_keeps_allocated_versions() -> None:
    created = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
               "metadata": {"name": "c", "namespace": "default", "uid": "u1"}, "spec": {}}
    reserve = {"status": {"allocation": ALLOCATION, "reservedFor": [{"resource": "pods", "name": "p",
                                                                      "uid": "uid-p"}]}}
    lines = [_line(1, "create", "c", created), _line(2, "update", "other", {"x": 1}, kind="Pod"),
             _line(3, "update", "c", reserve), _line(4, "update", "c", {"metadata": {"labels": {"a": "b"}}}),
             _line(5, "update", "c", {"status": {"reservedFor": None}}), _line(6, "delete", "c", None)]
    versions = claims_from_trace(lines)
    assert [v["status"]["reservedFor"] for v in versions] == [reserve["status"]["reservedFor"], []]
    assert versions[0]["metadata"] == {"name": "c", "namespace": "default", "uid": "u1"}
    assert claims_from_trace([*lines[:1], '{"diff":{},"kind":"","rev":2,"verb":"gap"}', *lines[2:]]) == []
    assert claims_from_trace(line.encode() + b"\n" for line in lines) == versions  # a trace file's bytes


def _dra_cluster(trace: bool) -> tuple[Any, ClaimRecorder]:
    cp = kbatch.ControlPlane(trace=trace)
    recorder = ClaimRecorder(cp)
    create_nodes(cp, 2, NodeTemplate(devices=DeviceTemplate(driver=DRIVER, count=4)))
    cp.apply(GPU_POD)  # one GPU for 30 s, from a claim template: the claim is deleted after
    cp.advance(100)
    return cp, recorder


def _devices(report: Any) -> dict[str, list[tuple[float, float]]]:
    return {u.resource: [(s.t, s.value) for s in u.used] for u in report.utilisation
            if u.resource.startswith(("devices/", "deviceclass/"))}


def test_a_deleted_claim_still_counts_for_its_pods_run() -> None:
    cp, recorder = _dra_cluster(trace=True)
    assert not [c for c in sources.from_control_plane(cp)[0] if c["kind"] == "ResourceClaim"]
    held = [(0.0, 1.0), (30.0, 0.0)]
    assert _devices(kbatch.report(cp)) == {"devices/gpu.example.com": held, "deviceclass/gpu": held}  # trace
    assert _devices(kbatch.report(cp, history=recorder.claims())) == _devices(kbatch.report(cp))
    assert _devices(kbatch.report(cp, history=[])) == {}  # the final objects alone: gone


def test_a_recorder_stands_in_for_a_disabled_trace() -> None:
    cp, recorder = _dra_cluster(trace=False)
    report = kbatch.report(cp, history=recorder.claims())
    assert _devices(report)["devices/gpu.example.com"] == [(0.0, 1.0), (30.0, 0.0)]
    assert _devices(kbatch.report(cp)) == {}


def _claim(name: str, uid: str, device: int, *reserved: str, allocated: str | None = None) -> dict[str, Any]:
    results = [{"request": "r", "driver": DRIVER, "pool": "node-0", "device": f"gpu-{device}"}]
    obj = custom("resource.k8s.io/v1", "ResourceClaim", name, 0, status={
        "allocation": {"devices": {"results": results}, "allocationTimestamp": allocated},
        "reservedFor": [{"resource": "pods", "name": p, "uid": f"uid-{p}"} for p in reserved]})
    obj["metadata"]["uid"] = uid
    return obj


def test_each_pod_takes_the_version_reserved_for_it() -> None:
    # "work" held gpu-0 for p0, was deleted, and made again (new uid) on gpu-1 for p1
    history = [_claim("work", "u1", 0, "p0"), _claim("work", "u1", 0)]
    objs = [*CLASSES, node("node-0"), slice_of("node-0", ["A100", "H100"]), _claim("work", "u2", 1, "p1"),
            using(pod("p0", 0, scheduled=0, started=0, finished=40), "work"),
            using(pod("p1", 50, scheduled=50, started=50, finished=90), "work")]
    use = device_use(objs, history).held
    assert use == {"uid-p0": {"devices/gpu.example.com": 1.0}, "uid-p1": {"devices/gpu.example.com": 1.0}}
    report = build_report(objs, history=history)
    assert _devices(report)["deviceclass/a100"] == [(0, 1), (40, 0)]
    assert _devices(report)["deviceclass/h100"] == [(0, 0), (50, 1)]  # running at the end (90 s)


def test_a_shared_claim_counts_once_across_its_versions() -> None:
    # reservedFor grows and shrinks as the sharing pods come and go: one allocation, shared by both
    history = [_claim("shared", "u", 0, *users) for users in (("a",), ("a", "b"), ("b",))]
    pods = [using(pod(n, 0, scheduled=0, started=0), "shared") for n in ("a", "b")]
    use = device_use(pods, history)
    assert use.held == {} and [s.pods for s in use.shared] == [("uid-a", "uid-b")]  # per instant


def test_an_experiment_counts_the_devices_of_finished_pods() -> None:
    claim_template = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                      "metadata": {"name": "${name}"},
                      "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                          "deviceClassName": "gpu", "count": 2}}]}}}}
    task = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "${name}"},
            "spec": {"restartPolicy": "Never", "resourceClaims": [
                {"name": "gpu", "resourceClaimTemplateName": "${name}"}], "containers": [
                {"name": "c", "image": "busybox", "command": ["sleep", "40"], "resources": {"claims": [
                    {"name": "gpu"}]}}]}}
    doc = {"apiVersion": "kbatch.dev/v1alpha1", "kind": "Experiment", "metadata": {"name": "dra"},
           "spec": {"nodes": [{"count": 1, "gpu": 4, "gpuDriver": DRIVER}], "horizon": "10m",
                    "setup": [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                               "metadata": {"name": "gpu"}, "spec": {}}],
                    "workloads": [{"name": "t", "count": 3, "arrival": {"interval": 10},
                                   "template": [claim_template, task]}]}}
    full = run(doc, jobs=1, plots=False).points[0].report
    early = run(doc, jobs=1, plots=False, stop_when_finished=True).points[0]
    used = full["cluster"]["utilisation"]["devices/gpu.example.com"]["used"]
    # 2 devices each for 40 s (the third waits for the first's), their claims deleted since
    assert used == [[0, 2], [10, 4], [50, 2], [80, 0]]
    assert full["cluster"]["utilisation"]["deviceclass/gpu"]["mean"] == pytest.approx(
        full["cluster"]["utilisation"]["devices/gpu.example.com"]["mean"])
    assert early.stopped_early and early.report["cluster"]["utilisation"] == {
        r: u | {k: [s for s in u[k] if s[0] < 80] for k in ("used", "ratio", "capacity")}
        for r, u in full["cluster"]["utilisation"].items()}


def test_a_claim_allocated_again_is_not_shared_with_its_earlier_user() -> None:
    # one claim, used by a then (deallocated, allocated again to the same device) by b: 1 device each
    history = [_claim("seq", "u", 0, "a", allocated="t1"), _claim("seq", "u", 0, allocated="t1")]
    final = _claim("seq", "u", 0, "b", allocated="t2")
    objs = [final, using(pod("a", 0, scheduled=0, started=0, finished=10), "seq"),
            using(pod("b", 0, scheduled=20, started=20), "seq")]
    assert device_use(objs, history).held == {"uid-a": {"devices/gpu.example.com": 1.0},
                                         "uid-b": {"devices/gpu.example.com": 1.0}}
    halves = {"uid-a": {"devices/gpu.example.com": 0.5}, "uid-b": {"devices/gpu.example.com": 0.5}}
    assert device_use(objs).held == halves  # the final state alone: both name it, neither is told apart
