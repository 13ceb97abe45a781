"""Cases of upstream's NodeResourcesBalancedAllocation table, ported one by one
(``pkg/scheduler/framework/plugins/noderesources/balanced_allocation_test.go``, stored commit 00fdb4f,
``TestNodeResourcesBalancedAllocation``; the plugin as of ``balanced_allocation.go`` 02d7708 and
``resource_allocation.go`` with DRA extended-resource scoring, the 1.36/1.37 layout), and of the args'
defaulting and validation (``apis/config/v1/defaults.go`` ``SetDefaults_NodeResourcesBalancedAllocationArgs``,
``apis/config/validation/validation_pluginargs.go`` ``ValidateNodeResourcesBalancedAllocationArgs``).

Quantities as upstream's ``makeNode(name, milliCPU, memory, scalars)``: ``4000`` is ``cpu: 4000m``,
memory in bytes. Pods as upstream's ``PodSpec`` literals (``cpuOnly`` requests memory ``0``
explicitly). The plugin runs in the default-scheduler profile built from a KubeSchedulerConfiguration.

"include DRA resource on a node for balanced resource allocation" (with and without PreScore: kbatch's
Score needs nothing from PreScore) run with a DeviceClass mapping the resource and eight devices
published for node1, known to the profile's DynamicResources plugin (docs/dra.md, "Scoring").

Not translated: ``TestBalancedAllocationSignPod`` tests KEP-5598 sign fragments,
which kbatch computes as one pod signature (``PodInfo.signature``) rather than per plugin.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.controllers.scheduler import SchedulerConfigError
from kbatch.controllers.scheduler.framework import Code
from kbatch.controllers.scheduler.plugins.balanced_allocation import balanced_score

from .upstream_harness import api_node, api_pod, plugin_scores, schedule, world

BA = "NodeResourcesBalancedAllocation"
GPU = "nvidia.com/gpu"
DEFAULT = {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}
WITH_GPU = {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
                          {"name": GPU, "weight": 1}]}

CPU_AND_MEMORY = ({"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"})
CPU_ONLY = ({"cpu": "1000m", "memory": "0"}, {"cpu": "2000m", "memory": "0"})
CPU_AND_MEMORY_AND_GPU = (
    {"cpu": "1000m", "memory": "2000"},
    {"requests": {"cpu": "2000m", "memory": "3000", GPU: "3"}, "limits": {GPU: "3"}},
)


def _node(name: str, milli_cpu: int, memory: int, gpus: int | None = None) -> Any:
    allocatable: dict[str, Any] = {"cpu": f"{milli_cpu}m", "memory": memory, "pods": 32}
    if gpus is not None:
        allocatable[GPU] = gpus
    return api_node(name, allocatable)


def _scores(nodes: list[Any], pod: Any, bound: list[Any], args: dict[str, Any]) -> dict[str, int]:
    algo = world(nodes, bound, {"pluginConfig": [{"name": BA, "args": args}]})
    return plugin_scores(algo, pod, BA)


def _two(a: tuple[int, int], b: tuple[int, int],
         gpus: tuple[int | None, int | None] = (None, None)) -> list[Any]:
    return [_node("node1", *a, gpus[0]), _node("node2", *b, gpus[1])]


def _scheduled() -> list[Any]:
    """upstream's ``pods: {Spec: cpuOnly}, {Spec: cpuAndMemory}``: on node1 and node2."""
    return [api_pod("cpu-only", *CPU_ONLY, node="node1"),
            api_pod("cpu-and-memory", *CPU_AND_MEMORY, node="node2")]


def test_nothing_scheduled_nothing_requested_skip_in_prescore() -> None:
    algo = world(_two((4000, 10000), (4000, 10000)), (), {"pluginConfig": [{"name": BA, "args": DEFAULT}]})
    plugin = next(p for p in algo.profile.pre_score if p.name == BA)
    status = plugin.pre_score({}, api_pod("best-effort"), list(algo.snapshot))
    assert status is not None and status.code == Code.SKIP


CASES = [
    ("nothing scheduled, resources requested, differently sized nodes",
     _two((4000, 10000), (6000, 10000)), CPU_AND_MEMORY, False, DEFAULT, {"node1": 87, "node2": 100}),
    ("resources requested, pods scheduled with resources",
     _two((10000, 20000), (10000, 20000)), CPU_AND_MEMORY, True, DEFAULT, {"node1": 82, "node2": 95}),
    ("resources requested, pods scheduled with resources, differently sized nodes",
     _two((10000, 20000), (10000, 50000)), CPU_AND_MEMORY, True, DEFAULT, {"node1": 82, "node2": 80}),
    ("requested resources at node capacity",
     _two((6000, 10000), (6000, 10000)), CPU_ONLY, True, DEFAULT, {"node1": 50, "node2": 75}),
    ("node without the scalar resource should skip the scalar resource",
     _two((3500, 40000), (3500, 40000), (8, None)), CPU_AND_MEMORY, False, WITH_GPU,
     {"node1": 63, "node2": 63}),
]


@pytest.mark.parametrize(("nodes", "pod", "scheduled", "args", "want"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_node_resources_balanced_allocation(
    nodes: list[Any], pod: tuple[dict[str, Any], ...], scheduled: bool, args: dict[str, Any],
    want: dict[str, int],
) -> None:
    assert _scores(nodes, api_pod("p", *pod), _scheduled() if scheduled else [], args) == want


def test_include_scalar_resource_on_a_node_for_balanced_resource_allocation() -> None:
    # upstream: cpuAndMemory on node2, cpuAndMemoryAndGPU on node1; the pod requests memory 0 and 1 GPU
    bound = [api_pod("cpu-and-memory", *CPU_AND_MEMORY, node="node2"),
             api_pod("cpu-memory-gpu", *CPU_AND_MEMORY_AND_GPU, node="node1")]
    pod = api_pod("p", {"requests": {"memory": "0", GPU: "1"}, "limits": {GPU: "1"}})
    nodes = _two((3500, 40000), (3500, 40000), (8, 8))
    assert _scores(nodes, pod, bound, WITH_GPU) == {"node1": 70, "node2": 65}


def test_resources_requested_pods_scheduled_with_resources_if_prescore_not_called() -> None:
    algo = world(_two((10000, 20000), (10000, 20000)), _scheduled(),
                 {"pluginConfig": [{"name": BA, "args": DEFAULT}]})
    plugin = next(p for p in algo.profile.score if p.name == BA)
    pod = api_pod("p", *CPU_AND_MEMORY)
    assert {n.name: plugin.score({}, pod, n) for n in algo.snapshot} == {"node1": 82, "node2": 95}


def test_a_best_effort_pod_scores_zero_without_prescore() -> None:
    """upstream Score's fallback when PreScore did not run: a best-effort pod scores 0 on every node."""
    algo = world(_two((4000, 10000), (6000, 10000)))
    plugin = next(p for p in algo.profile.score if p.name == BA)
    assert [plugin.score({}, api_pod("p"), n) for n in algo.snapshot] == [0, 0]


def test_scores_real_requests_not_the_non_zero_defaults() -> None:
    """``useRequested``: a bound pod requesting nothing adds nothing (NodeResourcesFit would count
    100m / 200Mi for it), so both nodes score the same."""
    bound = [api_pod("empty", node="node1")]
    assert _scores(_two((4000, 10000), (4000, 10000)), api_pod("p", *CPU_AND_MEMORY), bound, {}) == {
        "node1": 87, "node2": 87}


# -- the default profile ---------------------------------------------------------------------------
def test_the_default_profile_scores_with_weight_one_and_default_resources() -> None:
    algo = world(_two((4000, 10000), (6000, 10000)))
    plugin = next(p for p in algo.profile.score if p.name == BA)
    assert (plugin.weight, plugin.resources) == (1, ("cpu", "memory"))


def test_balance_breaks_a_tie_of_the_other_scores() -> None:
    """Two nodes with the same LeastAllocated score: node2's cpu and memory fill evenly, node1's do
    not; upstream's default profile picks node2 (Fit: 50+50 / 75+25 both 50)."""
    nodes = [_node("node1", 4000, 4000), _node("node2", 4000, 4000)]
    bound = [api_pod("mem-heavy", {"cpu": "0", "memory": "2000"}, node="node1"),
             api_pod("even", {"cpu": "1000m", "memory": "1000"}, node="node2")]
    pod = api_pod("p", {"cpu": "1000m", "memory": "1000"})
    for seed in range(8):
        assert schedule(world(nodes, bound, seed=seed), pod).node == "node2"


# -- args (SetDefaults_/ValidateNodeResourcesBalancedAllocationArgs) --------------------------------
def test_a_weight_of_zero_defaults_to_one() -> None:
    algo = world(_two((4000, 10000), (6000, 10000)), (),
                 {"pluginConfig": [{"name": BA, "args": {"resources": [{"name": "cpu", "weight": 0}]}}]})
    assert next(p for p in algo.profile.score if p.name == BA).resources == ("cpu",)


@pytest.mark.parametrize(("args", "message"), [
    ({"resources": [{"name": "cpu", "weight": 2}]}, "resources[0].weight: Invalid value: 2: must be 1"),
    ({"resources": [{"name": "cpu", "weight": 1}, {"name": "cpu", "weight": 1}]},
     'resources[1].name: Duplicate value: "cpu"'),
    ({"resources": [{"weight": 1}]}, "resources[0].name: Required value"),
    ({"resource": []}, 'unknown field "pluginConfig[NodeResourcesBalancedAllocation].args.resource"'),
])
def test_invalid_args_are_refused(args: dict[str, Any], message: str) -> None:
    with pytest.raises(SchedulerConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        world([_node("node1", 1000, 1000)], (), {"pluginConfig": [{"name": BA, "args": args}]})


def test_the_plugin_can_be_disabled_in_a_profile() -> None:
    algo = world([_node("node1", 1000, 1000)], (), {"plugins": {"multiPoint": {"disabled": [{"name": BA}]}}})
    assert BA not in [p.name for p in algo.profile.score] + [p.name for p in algo.profile.pre_score]


# -- the formula -----------------------------------------------------------------------------------
@given(st.lists(st.floats(0, 1), min_size=0, max_size=6))
def test_balanced_score_is_in_range_and_perfect_when_fractions_are_equal(fractions: list[float]) -> None:
    """In 0..100; equal fractions are perfectly balanced: 100 for up to two, and at least 99 for more
    (upstream's float mean of equal values may differ from them in the last bit, and the score is
    truncated)."""
    score = balanced_score(fractions)
    assert 0 <= score <= 100
    if len(set(fractions)) <= 1:
        assert score == 100 if len(fractions) <= 2 else score >= 99


def test_more_than_two_fractions_use_the_population_standard_deviation() -> None:
    # upstream's comment for "include scalar resource ...": node1 fractions 3000/3500, 5000/40000, 4/8
    assert balanced_score([3000 / 3500, 5000 / 40000, 4 / 8]) == 70


DRA_EXTENDED = "example.com/dra-gpu"
WITH_DRA = {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
                          {"name": DRA_EXTENDED, "weight": 1}]}


@pytest.mark.parametrize("pre_score", [True, False], ids=["with PreScore", "if PreScore not called"])
def test_include_dra_resource_on_a_node_for_balanced_resource_allocation(pre_score: bool) -> None:
    """node1: cpu 3000/3500, memory 0/40000, DRA 1/8 (no device allocated, the pod asks one):
    62; node2 publishes no device, so the resource is not scored there: 63."""
    from kbatch.api.resource_v1 import DeviceClass, ResourceSlice

    config = {"pluginConfig": [{"name": BA, "args": WITH_DRA}]}
    algo = world(_two((3500, 40000), (3500, 40000)), _scheduled(), config)
    dra = next(p for p in algo.profile.filter if p.name == "DynamicResources")
    dra.observe("DeviceClass", None, DeviceClass.model_validate(
        {"metadata": {"name": "dra-gpu"}, "spec": {"extendedResourceName": DRA_EXTENDED}}))
    dra.observe("ResourceSlice", None, ResourceSlice.model_validate({
        "metadata": {"name": "node1-test-driver"},
        "spec": {"driver": "test-driver", "pool": {"name": "node1", "resourceSliceCount": 1},
                 "nodeName": "node1", "devices": [{"name": f"device-{i}"} for i in range(1, 9)]}}))
    pod = api_pod("p", {"requests": {DRA_EXTENDED: "1"}, "limits": {DRA_EXTENDED: "1"}})
    if pre_score:
        assert plugin_scores(algo, pod, BA, normalize=False) == {"node1": 62, "node2": 63}
    else:
        plugin = next(p for p in algo.profile.score if p.name == BA)
        assert {n.name: plugin.score({}, pod, n) for n in algo.snapshot} == {"node1": 62, "node2": 63}
