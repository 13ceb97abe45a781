"""The scheduler's request accounting with pod-level resources (KEP-2837, beta and on by default
since 1.34): upstream ``PodRequests`` (staging/src/k8s.io/component-helpers/resource/helpers.go),
used by NodeResourcesFit (``computePodResourceRequest``), its scoring and preemption."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from kubelet.cluster import condition, get_pod, pod_yaml, sim_cluster

from kbatch.api.core_v1 import Pod
from kbatch.api.pod_resources import (
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    ContainerRequests,
    effective_requests,
    pod_requests,
)
from kbatch.api.quantity import Quantity
from kbatch.api.strategies.core import PodStrategy
from kbatch.controllers.scheduler.convert import pod_info
from kbatch.controllers.scheduler.plugins.node_resources_fit import insufficient
from kbatch.sim import NodeTemplate

from .sched_builders import GI, cluster, node, place

MI = 1024**2


def api_pod(name: str, resources: dict[str, Any] | None, *containers: dict[str, Any],
            inits: tuple = (), overhead: dict[str, str] | None = None) -> Pod:
    spec: dict[str, Any] = {"containers": [
        {"name": f"c{i}", "image": "x", **({"resources": r} if r else {})} for i, r in enumerate(containers)]}
    if inits:
        spec["initContainers"] = [{"name": f"i{i}", "image": "x", **r} for i, r in enumerate(inits)]
    if resources is not None:
        spec["resources"] = resources
    if overhead:
        spec["overhead"] = overhead
    p = Pod.from_dict({"metadata": {"name": name, "namespace": "ns", "uid": name}, "spec": spec})
    PodStrategy().default(p)
    assert PodStrategy().validate(p) == []
    return p


def test_pod_level_cpu_replaces_the_containers_total() -> None:
    """KEP-2837 "Scheduler changes": pod-level cpu 2 with containers requesting 500m each is 2 cpu."""
    p = api_pod("p", {"requests": {"cpu": "2"}}, {"requests": {"cpu": "500m"}}, {"requests": {"cpu": "500m"}})
    assert pod_info(p).requests == {"cpu": 2000}


def test_gpu_still_comes_from_containers() -> None:
    """Extended resources are not supported at pod level: they keep the container total."""
    p = api_pod("p", {"requests": {"cpu": "2", "memory": "1Gi"}},
                {"requests": {"cpu": "500m"}, "limits": {"nvidia.com/gpu": "1"}},
                {"limits": {"nvidia.com/gpu": "2"}})
    assert pod_info(p).requests == {"cpu": 2000, "memory": GI, "nvidia.com/gpu": 3}


def test_only_the_resources_set_at_pod_level_are_replaced() -> None:
    """``applyPodLevelResources`` replaces per resource: memory still comes from the containers
    (max rule with an init container)."""
    p = api_pod("p", {"requests": {"cpu": "1"}}, {"requests": {"memory": "1Gi"}},
                inits=({"resources": {"requests": {"memory": "2Gi", "cpu": "100m"}}},))
    assert pod_info(p).requests == {"cpu": 1000, "memory": 2 * GI}


def test_pod_level_limits_only_are_accounted_as_requests() -> None:
    """Defaulting (``defaultPodRequests``) gives the pod requests equal to its limits."""
    p = api_pod("p", {"limits": {"cpu": "3", "memory": "4Gi"}}, {})
    assert pod_info(p).requests == {"cpu": 3000, "memory": 4 * GI}


def test_overhead_is_added_on_top_of_pod_level_requests() -> None:
    p = api_pod("p", {"requests": {"cpu": "1"}}, {}, overhead={"cpu": "250m", "memory": "120Mi"})
    info = pod_info(p)
    assert info.requests == {"cpu": 1250, "memory": 120 * MI}
    # scoring: the missing container memory takes the 200Mi default, then overhead is added
    assert info.nonzero_requests == {"cpu": 1250, "memory": DEFAULT_MEMORY_REQUEST + 120 * MI}


def test_scoring_defaults_do_not_override_pod_level_values() -> None:
    p = api_pod("p", {"requests": {"memory": "1Gi"}}, {}, {})
    assert pod_info(p).nonzero_requests == {"cpu": 2 * DEFAULT_MILLI_CPU_REQUEST, "memory": GI}


def test_insufficient_message_uses_the_pod_level_request() -> None:
    """Two containers of 500m fit a 1-cpu node, but their pod asks 2 cpu at pod level."""
    p = pod_info(api_pod("p", {"requests": {"cpu": "2"}}, {"requests": {"cpu": "500m"}},
                         {"requests": {"cpu": "500m"}}))
    algo = cluster(node("n1", cpu=1), preemption=False)
    assert place(algo, p) is None
    assert insufficient(p, algo.snapshot.get("n1")) == ["Insufficient cpu"]  # type: ignore[arg-type]


_CPU = st.sampled_from(["100m", "500m", "1", "2", "3"])
_MEM = st.sampled_from(["256Mi", "1Gi", "2Gi"])
_CTR = st.fixed_dictionaries({}, optional={
    "requests": st.fixed_dictionaries({}, optional={"cpu": _CPU, "memory": _MEM}),
    "limits": st.fixed_dictionaries({}, optional={"nvidia.com/gpu": st.sampled_from(["1", "2"])})})
_POD_LEVEL = st.one_of(st.none(), st.fixed_dictionaries({}, optional={
    "requests": st.fixed_dictionaries({}, optional={"cpu": _CPU, "memory": _MEM}),
    "limits": st.fixed_dictionaries({}, optional={"cpu": st.sampled_from(["3", "4"]),
                                                  "memory": st.sampled_from(["4Gi", "8Gi"])})}))


def _valid_level(level: dict[str, Any] | None, containers: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Raise pod-level values to the containers' total and limits to requests, so the pod is valid
    (validation is tested elsewhere; here every generated pod must be admitted)."""
    if not level:
        return level
    totals: dict[str, Quantity] = {}
    for c in containers:
        for name, q in c.get("requests", {}).items():
            totals[name] = totals.get(name, Quantity(0)).add(Quantity(q))
    out = {f: {n: str(max(Quantity(q), totals.get(n, Quantity(0)))) for n, q in level[f].items()}
           for f in ("requests", "limits") if f in level}
    for name, q in out.get("requests", {}).items():
        limit = out.get("limits", {}).get(name)
        if limit is not None and Quantity(limit) < Quantity(q):
            out["limits"][name] = q
    return out


pods_st = st.lists(st.tuples(_POD_LEVEL, st.lists(_CTR, min_size=1, max_size=3)), min_size=1, max_size=12)


def _expected(p: Pod) -> dict[str, int]:
    """The documented formula, from the API object: containers summed (no init containers here),
    then each pod-level cpu/memory request replaces the containers' amount."""
    out: dict[str, int] = {}
    for c in p.spec.containers:
        for name, q in ((c.resources.requests or {}) if c.resources else {}).items():
            out[name] = out.get(name, 0) + (q.milli_value() if name == "cpu" else q.value())
    level = p.spec.resources.requests if p.spec.resources is not None else None
    for name, q in (level or {}).items():
        out[name] = q.milli_value() if name == "cpu" else q.value()
    return {k: v for k, v in out.items() if v}


@settings(max_examples=80, deadline=None)
@given(pods=pods_st, cpus=st.lists(st.integers(1, 8), min_size=1, max_size=4), seed=st.integers(0, 3))
def test_mixed_pods_never_overcommit_and_are_accounted_by_the_formula(pods, cpus, seed) -> None:
    algo = cluster(*(node(f"n{i}", cpu=c, mem_gi=8, gpu=2) for i, c in enumerate(cpus)), seed=seed,
                   preemption=False)
    for i, (level, containers) in enumerate(pods):
        p = api_pod(f"p{i}", _valid_level(level, containers), *containers)
        info = pod_info(p, seq=i)
        assert dict(info.requests) == _expected(p)
        place(algo, info)
    for info in algo.snapshot:
        for name, used in info.requested.items():
            assert used <= info.shape.allocatable.get(name, 0), (info, name)


_NAMES = st.sampled_from(["cpu", "memory", "hugepages-2Mi", "nvidia.com/gpu", "ephemeral-storage"])
_AMOUNTS = st.dictionaries(_NAMES, st.integers(0, 5000), max_size=4)


@settings(max_examples=300, deadline=None)
@given(containers=st.lists(_AMOUNTS, min_size=1, max_size=3),
       inits=st.lists(st.tuples(_AMOUNTS, st.booleans()), max_size=3),
       level=st.one_of(st.none(), _AMOUNTS), overhead=st.one_of(st.none(), _AMOUNTS))
def test_pod_requests_is_the_documented_formula(containers, inits, level, overhead) -> None:
    """``PodRequests``: max(sum(containers, sidecars), max_i(init_i + earlier sidecars)) per resource;
    a pod-level cpu/memory/hugepages value replaces it; overhead is added. With neither pod-level
    requests nor overhead it is the containers' amount (the shortcut ``pod_info`` takes)."""
    names = {n for m in [*containers, *(i for i, _ in inits), level or {}, overhead or {}] for n in m}
    expected: dict[str, int] = {}
    for name in names:
        total = sum(c.get(name, 0) for c in containers) + sum(i.get(name, 0) for i, side in inits if side)
        sidecars, peak = 0, 0
        for amounts, side in inits:
            running = sidecars + amounts.get(name, 0)
            sidecars = running if side else sidecars
            peak = max(peak, running)
        value = max(total, peak)
        if level and name in level and name in ("cpu", "memory", "hugepages-2Mi"):
            value = level[name]
        expected[name] = value + (overhead or {}).get(name, 0)
    init_reqs = [ContainerRequests(a, side) for a, side in inits]
    got = pod_requests(containers, init_reqs, level, overhead)
    assert got == {k: v for k, v in expected.items() if v}
    if not level and not overhead:
        assert got == effective_requests(containers, init_reqs)


def test_scoring_defaults_fill_only_missing_container_requests() -> None:
    """``NonMissingContainerRequests``: a request set explicitly, even to zero, is not replaced by
    the 100m / 200Mi scoring defaults; a missing one is."""
    explicit_zero = pod_info(api_pod("z", None, {"requests": {"cpu": "0", "memory": "1Gi"}}))
    assert explicit_zero.nonzero_requests == {"memory": GI}
    missing = pod_info(api_pod("m", None, {"requests": {"memory": "1Gi"}}))
    assert missing.nonzero_requests == {"cpu": DEFAULT_MILLI_CPU_REQUEST, "memory": GI}


def test_on_a_control_plane_pod_level_cpu_is_what_does_not_fit() -> None:
    """End to end: a 500m container under a pod-level request of 2 cpu does not fit a 1-cpu node,
    with the upstream message; a GPU the container limits is still counted."""
    cp = sim_cluster(1, NodeTemplate(cpu="1", gpus=1))
    level = "\n  resources: {requests: {cpu: \"2\"}}"
    cp.apply(pod_yaml("pl", "sleep 5", cpu="500m", gpu=2, extra_spec=level))
    cond = condition(get_pod(cp, "pl"), "PodScheduled")
    assert (cond.status, cond.reason) == ("False", "Unschedulable")
    assert cond.message.startswith(
        "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient nvidia.com/gpu.")


def test_preemption_frees_the_pod_level_amount() -> None:
    """A low-priority pod holding 1 cpu at pod level (its container asks 100m) fills the node, so a
    900m pod must preempt it rather than fit beside it (100m + 900m would fit)."""
    cp = sim_cluster(1, NodeTemplate(cpu="1"))
    cp.apply("{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 100}")
    cp.apply(pod_yaml("low", "sleep 1000", cpu="100m", priority=0, grace=5,
                      extra_spec="\n  resources: {requests: {cpu: \"1\"}}"))
    cp.apply(pod_yaml("high", "sleep 10", cpu="900m", extra_spec="\n  priorityClassName: high"))
    assert condition(get_pod(cp, "low"), "DisruptionTarget").reason == "PreemptionByScheduler"
    cp.advance(20)
    assert get_pod(cp, "high").spec.node_name == "node-0"
