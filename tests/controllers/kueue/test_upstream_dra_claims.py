"""``GetResourceRequestsForResourceClaimTemplates`` and ``countDevicesPerClass``, translated from
kueue v0.19.2 ``pkg/dra/claims_test.go`` (``Test_GetResourceRequests``: upstream compares the error
types and fields only; the CEL selector cases need ResourceSlices and are not modelled, see
docs/kueue.md), plus properties of the counting."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.errors import FieldErrorType
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.resource_v1.claim import ResourceClaimSpec
from kbatch.controllers.kueue.model.dra import count_devices_per_class, requests_for_templates
from kbatch.controllers.kueue.model.info import WorkloadInfo

INV, NF = FieldErrorType.INVALID, FieldErrorType.NOT_FOUND
CLAIM0 = "spec.podSets[0].template.spec.resourceClaims[0]"
DEFAULT = {"test-deviceclass-1": "res-1"}
BOTH = {"test-deviceclass-1": "res-1", "test-deviceclass-2": "res-2"}


def _req(name: str, device_class: str, count: int | None = None, **exactly: Any) -> dict[str, Any]:
    ex: dict[str, Any] = {"deviceClassName": device_class, **exactly}
    if count is not None:
        ex["count"] = count
    return {"name": name, "exactly": ex}


def _spec(*requests: dict[str, Any], **devices: Any) -> ResourceClaimSpec:
    return ResourceClaimSpec.model_validate({"devices": {"requests": list(requests), **devices}})


TEMPLATES = {
    "claim-tmpl-1": _spec(_req("device-request", "test-deviceclass-1", 2)),
    "claim-tmpl-2": _spec(_req("device-request", "test-deviceclass-2", 1)),
    "claim-tmpl-3": _spec(_req("device-request", "test-deviceclass-1", 2)),
    "claim-tmpl-all": _spec(_req("device-request", "test-deviceclass-1", 0, allocationMode="All")),
    "claim-tmpl-constraints": _spec(
        _req("gpu-1", "test-deviceclass-1", 1),
        _req("gpu-2", "test-deviceclass-1", 1),
        constraints=[{"requests": ["gpu-1", "gpu-2"], "matchAttribute": "numa-node"}],
    ),
    "claim-tmpl-first": _spec(
        {"name": "req", "firstAvailable": [{"name": "a", "deviceClassName": "test-deviceclass-1"}]}
    ),
    "claim-tmpl-empty": _spec({"name": "req"}),
    "claim-tmpl-admin": _spec(_req("req", "test-deviceclass-1", 1, adminAccess=True)),
    "claim-tmpl-config": _spec(
        _req("req", "test-deviceclass-1", 1),
        config=[{"requests": ["req"], "opaque": {"driver": "d", "parameters": {}}}],
    ),
}


def _workload(
    claims: list[dict[str, Any]],
    containers: list[dict[str, Any]] | None = None,
    init: list[dict[str, Any]] | None = None,
) -> Workload:
    spec: dict[str, Any] = {
        "containers": containers or [{"name": "c", "image": "pause"}],
        "resourceClaims": claims,
    }
    if init:
        spec["initContainers"] = init
    return Workload.model_validate(
        {
            "metadata": {"name": "wl", "namespace": "ns1"},
            "spec": {"podSets": [{"name": "main", "count": 1, "template": {"spec": spec}}]},
        }
    )


def _c(name: str, *claims: str) -> dict[str, Any]:
    return {"name": name, "image": "pause", "resources": {"claims": [{"name": c} for c in claims]}}


BASE = [
    {"name": "req-1", "resourceClaimTemplateName": "claim-tmpl-1"},
    {"name": "req-2", "resourceClaimName": "claim-2"},
]


def _t(claim: str, template: str) -> list[dict[str, Any]]:
    return [{"name": claim, "resourceClaimTemplateName": template}]


CASES: dict[str, tuple[Workload, dict[str, str], Any]] = {
    "Single claim template with single device": (_workload(BASE), BOTH, {"main": {"res-1": 2}}),
    "Unmapped DeviceClass returns error": (
        _workload(BASE),
        {},
        [(NF, f"{CLAIM0}.resourceClaimTemplateName")],
    ),
    "Two containers each using different claim templates": (
        _workload(
            _t("req-a", "claim-tmpl-1") + _t("req-b", "claim-tmpl-2"), [_c("c1", "req-a"), _c("c2", "req-b")]
        ),
        BOTH,
        {"main": {"res-1": 2, "res-2": 1}},
    ),
    "Two containers sharing one claim template": (
        _workload(_t("req-a", "claim-tmpl-1"), [_c("c1", "req-a"), _c("c2", "req-a")]),
        DEFAULT,
        {"main": {"res-1": 2}},
    ),
    "Single template requesting two devices": (
        _workload(_t("req-x", "claim-tmpl-3"), [_c("c", "req-x")]),
        DEFAULT,
        {"main": {"res-1": 2}},
    ),
    "Init and regular container sharing one template": (
        _workload(_t("rc", "claim-tmpl-1"), [_c("main", "rc")], [_c("init", "rc")]),
        DEFAULT,
        {"main": {"res-1": 2}},
    ),
    "AllocationMode All returns error": (
        _workload(_t("req-all", "claim-tmpl-all")),
        DEFAULT,
        [(INV, f"{CLAIM0}.devices.requests[0].exactly.allocationMode")],
    ),
    "Device constraints are pass-through and counted correctly": (
        _workload(_t("req-constraints", "claim-tmpl-constraints")),
        DEFAULT,
        {"main": {"res-1": 2}},
    ),
    "FirstAvailable returns error": (
        _workload(_t("req-first", "claim-tmpl-first")),
        DEFAULT,
        [(INV, f"{CLAIM0}.devices.requests[0]")],
    ),
    "Exactly and FirstAvailable are nil returns error": (
        _workload(_t("req-empty", "claim-tmpl-empty")),
        DEFAULT,
        [(INV, f"{CLAIM0}.devices.requests[0]")],
    ),
    "AdminAccess returns error": (
        _workload(_t("req-admin", "claim-tmpl-admin")),
        DEFAULT,
        [(INV, f"{CLAIM0}.devices.requests[0].exactly.adminAccess")],
    ),
    "Device config is pass-through and counted correctly": (
        _workload(_t("req-config", "claim-tmpl-config")),
        DEFAULT,
        {"main": {"res-1": 1}},
    ),
}


def _lookup(namespace: str, name: str) -> ResourceClaimSpec | None:
    assert namespace == "ns1"
    return TEMPLATES.get(name)


@pytest.mark.parametrize("name", sorted(CASES))
def test_get_resource_requests(name: str) -> None:
    wl, mapping, want = CASES[name]
    outcome = requests_for_templates(wl, _lookup, mapping)
    if isinstance(want, dict):
        assert (outcome.requests, outcome.errors) == (want, ())
    else:
        assert [(e.type, e.field) for e in outcome.errors] == want
        assert not outcome.requests


def test_the_error_messages_name_the_template() -> None:
    outcome = requests_for_templates(_workload(_t("r", "claim-tmpl-first")), _lookup, DEFAULT)
    assert outcome.message == (
        f"{CLAIM0}.devices.requests[0]: Invalid value: null: ResourceClaimTemplate claim-tmpl-first: "
        "FirstAvailable device selection is not supported"
    )
    outcome = requests_for_templates(_workload(_t("r", "claim-tmpl-empty")), _lookup, DEFAULT)
    assert outcome.message.endswith(
        "ResourceClaimTemplate claim-tmpl-empty: Exactly must be set if FirstAvailable is nil"
    )
    missing = requests_for_templates(_workload(_t("r", "nope")), _lookup, DEFAULT)
    assert missing.retry and [e.type for e in missing.errors] == [FieldErrorType.INTERNAL]


def test_an_empty_device_class_and_the_count_default() -> None:
    """A request without a class counts nothing; ``count`` defaults to 1 (ExactCount's default)."""
    counts, err = count_devices_per_class(_spec(_req("a", ""), _req("b", "x"), _req("c", "x", 3)))
    assert (counts, err) == ({"x": 4}, None)


def test_an_unknown_allocation_mode_is_refused() -> None:
    _, err = count_devices_per_class(_spec(_req("a", "x", 1, allocationMode="Some")))
    assert err is not None and str(err) == (
        'devices.requests[0].exactly.allocationMode: Invalid value: "Some": unsupported allocation mode: Some'
    )


@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 2**70)), max_size=6))
def test_counts_are_the_sums_per_class(requests: list[tuple[str, int]]) -> None:
    """No overflow (upstream saturates at MaxInt64; Python integers do not wrap) and no loss."""
    counts, err = count_devices_per_class(
        _spec(*(_req(f"r{i}", dc, n) for i, (dc, n) in enumerate(requests)))
    )
    assert err is None
    for dc in "abc":
        assert counts.get(dc, 0) == sum(n for d, n in requests if d == dc)


@given(st.integers(1, 50), st.integers(1, 8), st.integers(1, 4000))
def test_a_pod_sets_requests_are_its_devices_times_its_pods(count: int, devices: int, cpu: int) -> None:
    """``totalRequestsFromPodSets``: the per-pod devices are added before multiplying by the count."""
    data = _workload(
        _t("r", "claim-tmpl-1"), [{"name": "c", "resources": {"requests": {"cpu": f"{cpu}m"}}}]
    ).to_dict()
    data["spec"]["podSets"][0]["count"] = count
    [ps] = WorkloadInfo.of(Workload.model_validate(data), None, {"main": {"gpus": devices}}).pod_sets
    assert ps.requests == {"cpu": cpu * count, "gpus": devices * count}
    assert ps.per_pod == {"cpu": cpu, "gpus": devices}


def test_a_resource_named_cpu_counts_whole_cores() -> None:
    [ps] = WorkloadInfo.of(_workload(BASE), None, {"main": {"cpu": 2}}).pod_sets
    assert ps.requests == {"cpu": 2000}
