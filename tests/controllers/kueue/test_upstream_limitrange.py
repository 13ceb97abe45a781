"""Kueue's reading of LimitRanges (kbatch ``controllers/kueue/model/limitranges.py``), translated from
kueue v0.19.2 ``pkg/util/limitrange/limitrange_test.go`` (``TestSummarize``, ``TestValidatePodSpec``;
case ids are upstream's) and ``pkg/workload/resources.go`` (``AdjustResources``' LimitRange and
limits-to-requests halves)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.core_v1 import LimitRange
from kbatch.api.errors import FieldError
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.quantity import Quantity
from kbatch.controllers.kueue.model.limitranges import ABOVE_MAX, BELOW_MIN, adjust, summarize, violations

PATH = "spec.podSets[0].template.spec"


def _lr(kind: str, name: str = "", **values: dict[str, str]) -> LimitRange:
    """``MakeLimitRange().WithType(kind).WithValue(field, resource, value)``."""
    return LimitRange.model_validate({"metadata": {"name": name or "lr", "namespace": "ns"},
                                      "spec": {"limits": [{"type": kind, **values}]}})


def _q(values: dict[str, str]) -> dict[str, Quantity]:
    return {k: Quantity.parse(v) for k, v in values.items()}


def test_summarize_empty() -> None:
    assert summarize([]) == {}


def test_summarize_pod_defaults() -> None:
    got = summarize([
        _lr("Pod", default={"cpu": "2"}, defaultRequest={"cpu": "500m", "memory": "1Gi"}),
        _lr("Pod", default={"memory": "2Gi"}, defaultRequest={"cpu": "1"}),
    ])["Pod"]
    assert (got.default, got.default_request) == (_q({"cpu": "2", "memory": "2Gi"}),
                                                  _q({"cpu": "500m", "memory": "1Gi"}))


def test_summarize_limits() -> None:
    got = summarize([
        _lr("Pod", max={"cpu": "2"}, min={"cpu": "500m", "memory": "1Gi"}, maxLimitRequestRatio={"cpu": "2"}),
        _lr("Pod", max={"memory": "2Gi"}, min={"cpu": "1"}, maxLimitRequestRatio={"cpu": "500m"}),
    ])["Pod"]
    assert got.max == _q({"cpu": "2", "memory": "2Gi"})
    assert got.min == _q({"cpu": "1", "memory": "1Gi"})
    assert got.max_limit_request_ratio == _q({"cpu": "500m"})


def _container(**requests: str) -> dict[str, Any]:
    return {"name": "c", "image": "i", "resources": {"requests": requests}}


POD = {
    "containers": [_container(cpu="1", memory="2Gi", **{"example.com/mainContainerGpu": "2"}),
                   _container(cpu="1.5", **{"example.com/gpu": "2"})],
    "initContainers": [
        _container(cpu="4", memory="2Gi"),
        _container(cpu="1.5", **{"example.com/gpu": "2", "example.com/initContainerGpu": "2"}),
    ],
    "overhead": {"cpu": "1", "memory": "1Gi", "example.com/gpu": "1"},
}


def _wl(pod: dict[str, Any]) -> Workload:
    return Workload.model_validate({"metadata": {"name": "wl", "namespace": "ns"}, "spec": {
        "queueName": "q", "podSets": [{"name": "main", "count": 1, "template": {"spec": pod}}]}})


def _err(path: str, names: list[str], message: str) -> str:
    return str(FieldError.invalid(path, names, message))


INIT1, C0 = f"{PATH}.initContainers[1]", f"{PATH}.containers[0]"
GPU_I, GPU_M = "example.com/initContainerGpu", "example.com/mainContainerGpu"

VALIDATE = {
    "empty": ([], None, []),
    "init container over": ([_lr("Container", max={GPU_I: "1"})], None, [_err(INIT1, [GPU_I], ABOVE_MAX)]),
    "init container under": ([_lr("Container", min={GPU_I: "3"})], None, [_err(INIT1, [GPU_I], BELOW_MIN)]),
    "container over": ([_lr("Container", max={GPU_M: "1"})], None, [_err(C0, [GPU_M], ABOVE_MAX)]),
    "container under": ([_lr("Container", min={GPU_M: "3"})], None, [_err(C0, [GPU_M], BELOW_MIN)]),
    "pod over": ([_lr("Pod", max={"cpu": "4"})], None, [_err(PATH, ["cpu"], ABOVE_MAX)]),
    "pod under": ([_lr("Pod", min={"cpu": "6"})], None, [_err(PATH, ["cpu"], BELOW_MIN)]),
    "multiple": ([_lr("Pod", max={"cpu": "4"}), _lr("Container", min={GPU_M: "3"}),
                  _lr("Container", max={GPU_I: "1"})], None,
                 [_err(INIT1, [GPU_I], ABOVE_MAX), _err(C0, [GPU_M], BELOW_MIN),
                  _err(PATH, ["cpu"], ABOVE_MAX)]),
    "multiple valid": ([_lr("Pod", max={"cpu": "5"}), _lr("Container", min={GPU_M: "1"}),
                        _lr("Container", max={GPU_I: "2"})], None, []),
    "container under with explicit zero": ([_lr("Container", min={GPU_M: "3"})],
                                           {"containers": [_container(**{GPU_M: "0"})]},
                                           [_err(C0, [GPU_M], BELOW_MIN)]),
    "pod under with explicit zero": ([_lr("Pod", min={"cpu": "6"})], {"containers": [_container(cpu="0")]},
                                     [_err(PATH, ["cpu"], BELOW_MIN)]),
}


@pytest.mark.parametrize("case", sorted(VALIDATE))
def test_validate_pod_spec(case: str) -> None:
    ranges, pod, want = VALIDATE[case]
    assert violations(_wl(pod or POD), summarize(ranges)) == want


def _resources(wl: Workload, index: int = 0) -> dict[str, Any]:
    return wl.to_dict()["spec"]["podSets"][0]["template"]["spec"]["containers"][index]["resources"]


def test_adjust_fills_container_defaults_then_requests_from_limits() -> None:
    """``handlePodLimitRange``: ``default`` into unset limits, ``defaultRequest`` into unset requests
    (the first range by name wins a resource); then ``handleLimitsToRequests``."""
    ranges = [_lr("Container", "a", default={"cpu": "2", "memory": "1Gi"}, defaultRequest={"cpu": "500m"}),
              _lr("Container", "b", default={"cpu": "3", "example.com/x": "4"})]
    wl = _wl({"containers": [{"name": "c", "image": "i", "resources": {"limits": {"cpu": "1"}}}]})
    got = _resources(adjust(wl, summarize(ranges)))
    assert got["limits"] == {"cpu": "1", "memory": "1Gi", "example.com/x": "4"}
    assert got["requests"] == {"cpu": "500m", "memory": "1Gi", "example.com/x": "4"}


def test_adjust_without_container_or_pod_items_returns_the_workload_itself() -> None:
    wl = _wl({"containers": [_container(cpu="1")]})
    assert adjust(wl, summarize([_lr("PersistentVolumeClaim", max={"storage": "1Gi"})])) is wl


def test_adjust_pod_level_resources_only_when_the_pod_sets_them() -> None:
    ranges = [_lr("Pod", default={"cpu": "2"}, defaultRequest={"cpu": "1"})]
    plain = adjust(_wl({"containers": [_container()]}), summarize(ranges))
    assert "resources" not in plain.to_dict()["spec"]["podSets"][0]["template"]["spec"]
    level = adjust(_wl({"containers": [_container()], "resources": {"limits": {"memory": "1Gi"}}}),
                   summarize(ranges))
    assert level.to_dict()["spec"]["podSets"][0]["template"]["spec"]["resources"] == {
        "limits": {"memory": "1Gi", "cpu": "2"}, "requests": {"cpu": "1", "memory": "1Gi"}}


_amount = st.integers(min_value=0, max_value=8).map(str)


@given(st.dictionaries(st.sampled_from(["cpu", "memory"]), _amount),
       st.dictionaries(st.sampled_from(["cpu", "memory"]), _amount),
       st.dictionaries(st.sampled_from(["cpu", "memory"]), _amount))
def test_adjust_keeps_what_the_container_sets(requests, limits, defaults) -> None:  # type: ignore[no-untyped-def]
    """Defaults only fill gaps: every request and limit the container gave is kept, and every
    resource with a limit ends with a request."""
    res: dict[str, Any] = {}
    if requests:
        res["requests"] = requests
    if limits:
        res["limits"] = limits
    wl = _wl({"containers": [{"name": "c", "image": "i", "resources": res}]})
    got = _resources(adjust(wl, summarize([_lr("Container", default=defaults, defaultRequest=defaults)])))
    for k, v in requests.items():
        assert Quantity.parse(got["requests"][k]).cmp(Quantity.parse(v)) == 0
    for k, v in limits.items():
        assert Quantity.parse(got["limits"][k]).cmp(Quantity.parse(v)) == 0
    assert set(got.get("limits") or {}) <= set(got.get("requests") or {})
