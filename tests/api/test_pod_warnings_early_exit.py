"""The early exit of :func:`pod_spec_warnings` (the usual pod only gets the fractional-bytes check)
answers what the full scan (upstream's ``warningsForPodSpecAndMeta``, every check) answers."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.core_v1 import PodSpec
from kbatch.api.strategies.core import pod_warnings

QUANTITIES = st.sampled_from(["16Mi", "4m", "1.5", "100m", "1Gi", "0"])
RESOURCES = st.fixed_dictionaries({}, optional={
    "requests": st.dictionaries(st.sampled_from(["cpu", "memory", "ephemeral-storage"]), QUANTITIES),
    "limits": st.dictionaries(st.sampled_from(["cpu", "memory", "ephemeral-storage"]), QUANTITIES)})
ENV = st.lists(st.fixed_dictionaries({"name": st.sampled_from(["A", "B"]),
                                      "value": st.sampled_from(["x", "$(A)", ""])}), max_size=3)
PORTS = st.lists(st.fixed_dictionaries({"containerPort": st.sampled_from([80, 81]),
                                        "protocol": st.just("TCP")},
                                       optional={"name": st.sampled_from(["http", "web"])}), max_size=2)
CONTAINER = st.fixed_dictionaries({"name": st.sampled_from(["a", "b"])},
                                  optional={"resources": RESOURCES, "env": ENV, "ports": PORTS})
SPEC = st.fixed_dictionaries({"containers": st.lists(CONTAINER, min_size=1, max_size=2)}, optional={
    "initContainers": st.lists(CONTAINER, max_size=1),
    "nodeSelector": st.dictionaries(st.sampled_from(["beta.kubernetes.io/os", "zone"]), st.just("x")),
    "terminationGracePeriodSeconds": st.sampled_from([-1, 0, 30]),
    "overhead": st.dictionaries(st.sampled_from(["memory", "cpu"]), QUANTITIES),
})
ANNOTATIONS = st.none() | st.dictionaries(
    st.sampled_from(["app", "scheduler.alpha.kubernetes.io/critical-pod",
                     "container.seccomp.security.alpha.kubernetes.io/a"]), st.just("x"))


@given(SPEC, ANNOTATIONS, st.sampled_from([None, "spec.template"]))
def test_the_early_exit_agrees_with_the_full_scan(spec: dict[str, Any], annotations: dict[str, str] | None,
                                                  path: str | None) -> None:
    model = PodSpec.model_validate(spec)
    pre = f"{path}." if path else ""
    full = pod_warnings._all_warnings(model, annotations or {}, pre, path is not None)
    assert pod_warnings.pod_spec_warnings(model, annotations, path) == full
