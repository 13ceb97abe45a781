"""``pod_qos_class`` decides a pod that cannot be Guaranteed without summing quantities; it must agree
with the full ``GetPodQOS`` computation (``_qos_from_totals``) on every spec."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.core_v1 import PodSpec
from kbatch.api.strategies.core.pod import _qos_from_totals, pod_qos_class

_QUANTITIES = st.sampled_from(["0", "0m", "100m", "1", "64Mi", "1Gi", "500n"])
_AMOUNTS = st.dictionaries(st.sampled_from(["cpu", "memory", "nvidia.com/gpu"]), _QUANTITIES, max_size=3)
_RESOURCES = st.one_of(
    st.none(), st.fixed_dictionaries({}, optional={"requests": _AMOUNTS, "limits": _AMOUNTS}))


@st.composite
def _containers(draw: st.DrawFn, prefix: str) -> list[dict[str, Any]]:
    out = []
    for i in range(draw(st.integers(0, 3))):
        c: dict[str, Any] = {"name": f"{prefix}{i}", "image": "busybox"}
        resources = draw(_RESOURCES)
        if resources is not None:
            c["resources"] = resources
        out.append(c)
    return out


@given(_containers("c"), _containers("i"))
def test_fast_path_agrees_with_totals(containers: list[dict[str, Any]], init: list[dict[str, Any]]) -> None:
    spec = PodSpec.model_validate({"containers": containers, "initContainers": init or None})
    assert pod_qos_class(spec) == _qos_from_totals(spec.all_containers())


def test_documented_classes() -> None:
    def qos(resources: dict[str, Any]) -> str:
        return pod_qos_class(PodSpec.model_validate(
            {"containers": [{"name": "c", "image": "busybox", "resources": resources}]}))

    assert qos({}) == "BestEffort"
    assert qos({"requests": {"cpu": "0"}}) == "BestEffort"
    assert qos({"requests": {"cpu": "100m"}}) == "Burstable"
    both = {"cpu": "1", "memory": "1Gi"}
    assert qos({"limits": both, "requests": both}) == "Guaranteed"
    assert qos({"limits": both}) == "Burstable"  # requests are defaulted from limits before this runs
    assert qos({"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}}) == "Burstable"


@given(_containers("c"), st.fixed_dictionaries({}, optional={"requests": _AMOUNTS, "limits": _AMOUNTS}))
def test_pod_level_resources_decide_alone(containers: list[dict[str, Any]],
                                          pod_level: dict[str, Any]) -> None:
    """PodLevelResources (on by default since 1.34; ComputePodQOS): with ``spec.resources`` set, the
    containers' resources are ignored and the pod-level ones classify as one container's would."""
    spec = PodSpec.model_validate({"containers": containers or [{"name": "c", "image": "busybox"}],
                                   "resources": pod_level})
    one = {"name": "c", "image": "busybox", "resources": pod_level}
    alone = PodSpec.model_validate({"containers": [one]})
    assert pod_qos_class(spec) == pod_qos_class(alone)


def test_pod_level_example() -> None:
    both = {"cpu": "1", "memory": "1Gi"}
    spec = PodSpec.model_validate({"containers": [{"name": "c", "image": "busybox",
                                                   "resources": {"requests": {"cpu": "100m"}}}],
                                   "resources": {"requests": both, "limits": both}})
    assert pod_qos_class(spec) == "Guaranteed"  # the container alone would make it Burstable
