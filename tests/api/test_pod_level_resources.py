"""Pod-level resources (KEP-2837, PodLevelResources, beta and on by default since 1.34): defaulting
(pkg/apis/core/v1/defaults.go ``defaultPodRequests`` / ``defaultHugePagePodLimits``) and validation
(pkg/apis/core/validation ``validatePodResources`` / ``validatePodResourceConsistency``)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.api.quantity import Quantity
from kbatch.api.strategies.core import PodStrategy
from kbatch.api.strategies.core.pod_defaults import aggregate_container_resources


def pod(resources: dict[str, Any] | None, *containers: dict[str, Any], inits: tuple = ()) -> Pod:
    spec: dict[str, Any] = {"containers": [
        {"name": f"c{i}", "image": "x", **({"resources": r} if r is not None else {})}
        for i, r in enumerate(containers)]}
    if inits:
        spec["initContainers"] = [{"name": f"i{i}", "image": "x", **r} for i, r in enumerate(inits)]
    if resources is not None:
        spec["resources"] = resources
    return Pod.from_dict({"metadata": {"name": "p", "namespace": "ns"}, "spec": spec})


def defaulted(p: Pod) -> Pod:
    PodStrategy().default(p)
    return p


def pod_resources(p: Pod) -> dict[str, Any]:
    return defaulted(p).to_dict()["spec"]["resources"]


def errors(p: Pod) -> list[str]:
    return [str(e) for e in PodStrategy().validate(defaulted(p))]


def test_pod_requests_default_to_pod_limits_when_no_container_requests() -> None:
    """KEP-2837 defaulting rule: no container requests a resource -> the pod-level request is the
    pod-level limit."""
    got = pod_resources(pod({"limits": {"cpu": "2", "memory": "2Gi"}}, {}, {}))
    assert got == {"limits": {"cpu": "2", "memory": "2Gi"}, "requests": {"cpu": "2", "memory": "2Gi"}}


def test_pod_requests_default_to_the_containers_total_when_they_request() -> None:
    got = pod_resources(pod({"limits": {"cpu": "2", "memory": "2Gi"}},
                            {"requests": {"cpu": "500m"}}, {"requests": {"cpu": "250m"}}))
    assert got["requests"] == {"cpu": "750m", "memory": "2Gi"}


def test_no_pod_level_defaulting_without_pod_level_limits() -> None:
    """``defaultPodRequests`` acts only when pod-level limits are set."""
    got = pod_resources(pod({"requests": {"cpu": "2"}}, {"requests": {"memory": "1Gi"}}))
    assert got == {"requests": {"cpu": "2"}}


def test_hugepage_pod_limit_defaults_to_the_containers_total() -> None:
    got = pod_resources(pod({"requests": {"cpu": "1"}},
                            {"limits": {"hugepages-2Mi": "4Mi", "cpu": "500m"}},
                            {"limits": {"hugepages-2Mi": "2Mi", "memory": "1Gi"}}))
    assert got["limits"] == {"hugepages-2Mi": "6Mi"}


def test_pod_level_requests_below_the_containers_total_are_invalid() -> None:
    half = {"requests": {"cpu": "600m"}}
    errs = errors(pod({"requests": {"cpu": "1"}}, half, half))
    assert errs == ['spec.resources.requests[cpu]: Invalid value: "1": must be greater than or equal to '
                    'aggregate container requests of 1200m']


def test_container_limit_above_the_pod_limit_is_invalid() -> None:
    errs = errors(pod({"limits": {"memory": "1Gi"}}, {"limits": {"memory": "2Gi"}}))
    assert 'spec.resources.containers[0][memory].limits: Invalid value: "2Gi": must be less than or equal ' \
           'to pod limits of 1Gi' in errs


def test_only_cpu_memory_and_hugepages_are_supported_at_pod_level() -> None:
    gpu = {"nvidia.com/gpu": "1"}
    errs = errors(pod({"requests": {"cpu": "1", **gpu}, "limits": gpu}, {}))
    assert errs == [
        'spec.resources.limits[nvidia.com/gpu]: Unsupported value: "nvidia.com/gpu": supported values: '
        '"cpu", "hugepages-", "memory"',
        'spec.resources.requests[nvidia.com/gpu]: Unsupported value: "nvidia.com/gpu": supported values: '
        '"cpu", "hugepages-", "memory"',
    ]


def test_pod_level_request_above_pod_level_limit_is_invalid() -> None:
    errs = errors(pod({"requests": {"cpu": "3"}, "limits": {"cpu": "2"}}, {}))
    assert errs == ['spec.resources.requests: Invalid value: "3": must be less than or equal to '
                    'cpu limit of 2']


def test_extended_resources_stay_with_containers() -> None:
    """kubernetes#132449: a container request for a resource the pod level does not support (a GPU,
    ephemeral-storage) is not compared with the pod level."""
    p = pod({"requests": {"cpu": "300m"}},
            {"requests": {"ephemeral-storage": "10Mi"}, "limits": {"nvidia.com/gpu": "1"}})
    assert errors(p) == []


def test_pod_level_claims_are_forbidden() -> None:
    errs = errors(pod({"requests": {"cpu": "1"}, "claims": [{"name": "gpu"}]}, {}))
    assert "spec.resources.claims: Forbidden: claims cannot be set for Resources at pod-level" in errs


_Q = st.sampled_from(["100m", "250m", "500m", "1", "2"])
_CTR = st.one_of(st.none(), st.fixed_dictionaries({}, optional={"requests": st.fixed_dictionaries(
    {"cpu": _Q})}))


@settings(max_examples=100, deadline=None)
@given(pod_cpu=_Q, containers=st.lists(_CTR, min_size=1, max_size=3),
       inits=st.lists(st.tuples(_Q, st.booleans()), max_size=2))
def test_consistency_error_exactly_when_pod_request_below_the_containers_total(pod_cpu, containers,
                                                                             inits) -> None:
    always = {"restartPolicy": "Always"}
    init_specs = tuple({"resources": {"requests": {"cpu": q}}, **(always if side else {})}
                       for q, side in inits)
    p = pod({"requests": {"cpu": pod_cpu}}, *containers, inits=init_specs)
    total = aggregate_container_resources(defaulted(p).spec, "requests").get("cpu", Quantity(0))
    # documented formula: sum(containers, sidecars) vs max over init i of (its request + earlier sidecars)
    regular = sum(Quantity(c["requests"]["cpu"]).milli_value() for c in containers if c)
    sidecars, peak = 0, 0
    for q, side in inits:
        running = sidecars + Quantity(q).milli_value()
        sidecars = running if side else sidecars
        peak = max(peak, running)
    assert total.milli_value() == max(regular + sidecars, peak)
    errs = errors(p)
    assert bool(errs) == (total.cmp(Quantity(pod_cpu)) > 0), errs
