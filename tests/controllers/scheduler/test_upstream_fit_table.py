"""Cases of upstream's NodeResourcesFit tables, ported one by one
(``pkg/scheduler/framework/plugins/noderesources/fit_test.go`` at the stored commit 24fbb13
(``TestEnoughRequests``, ``TestNotEnoughRequests``, ``TestStorageRequests``,
``TestRestartableInitContainers``, ``TestFitScore``), ``least_allocated_test.go`` (commit 008b365,
the ``k8s.io/kube-scheduler/framework`` layout of 1.34+) and ``most_allocated_test.go`` (030880a)).

Each test names the upstream case it follows. Pods and nodes are API objects as a user writes them
(quantities: upstream's ``MilliCPU: 10`` is ``cpu: 10m``, ``Memory: 20`` is ``memory: 20``), converted
as the scheduler's informers convert them. The Filter cases run on upstream's node of allocatable
cpu 10m, memory 20, pods 32, example.com/aaa 5, ephemeral-storage 20, hugepages-2Mi 5 with one
existing pod.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.controllers.scheduler import SchedulerConfigError

from .upstream_harness import api_node, api_pod, filter_reasons, plugin_scores, world

EXT_A, EXT_B = "example.com/aaa", "example.com/bbb"
K8S_A, K8S_B = "kubernetes.io/something", "subdomain.kubernetes.io/something"
HUGE_A = "hugepages-2Mi"
FIT = "NodeResourcesFit"


def _req(cpu: int = 0, mem: int = 0, **scalars: int) -> dict[str, Any]:
    """upstream ``framework.Resource{MilliCPU, Memory, ScalarResources}`` as a container's requests;
    extended resources and hugepages also get equal limits, as the API requires."""
    requests: dict[str, Any] = {"cpu": f"{cpu}m", "memory": str(mem)}
    extra = {_NAMES[k]: str(v) for k, v in scalars.items()}
    if not extra:
        return requests
    return {"requests": {**requests, **extra}, "limits": extra}


_NAMES = {
    "ext_a": EXT_A,
    "ext_b": EXT_B,
    "k8s_a": K8S_A,
    "k8s_b": K8S_B,
    "huge_a": HUGE_A,
    "storage": "ephemeral-storage",
}


def _fit_node(**existing: int) -> Any:
    node = api_node(
        "n", {"cpu": "10m", "memory": "20", "pods": "32", EXT_A: "5", "ephemeral-storage": "20", HUGE_A: "5"}
    )
    return world([node], [api_pod("existing", _req(**existing), node="n")])


def _filter(pod: Any, **existing: int) -> Any:
    return filter_reasons(_fit_node(**existing), pod, FIT)["n"]


def _insufficient(*names: str) -> tuple[str, tuple[str, ...]]:
    return ("UNSCHEDULABLE", tuple(f"Insufficient {n}" for n in names))


# -- TestEnoughRequests ---------------------------------------------------------------------------
ENOUGH = [
    ("no resources requested always fits", api_pod("p"), dict(cpu=10, mem=20), None),
    (
        "too many resources fails",
        api_pod("p", _req(1, 1)),
        dict(cpu=10, mem=20),
        _insufficient("cpu", "memory"),
    ),
    (
        "too many resources fails due to init container cpu",
        api_pod("p", _req(1, 1), inits=[_req(3, 1)]),
        dict(cpu=8, mem=19),
        _insufficient("cpu"),
    ),
    (
        "too many resources fails due to highest init container cpu",
        api_pod("p", _req(1, 1), inits=[_req(3, 1), _req(2, 1)]),
        dict(cpu=8, mem=19),
        _insufficient("cpu"),
    ),
    (
        "too many resources fails due to init container memory",
        api_pod("p", _req(1, 1), inits=[_req(1, 3)]),
        dict(cpu=9, mem=19),
        _insufficient("memory"),
    ),
    (
        "too many resources fails due to highest init container memory",
        api_pod("p", _req(1, 1), inits=[_req(1, 3), _req(1, 2)]),
        dict(cpu=9, mem=19),
        _insufficient("memory"),
    ),
    (
        "init container fits because it's the max, not sum, of containers and init containers",
        api_pod("p", _req(1, 1), inits=[_req(1, 1)]),
        dict(cpu=9, mem=19),
        None,
    ),
    (
        "multiple init containers fit because it's the max, not sum, of containers and init containers",
        api_pod("p", _req(1, 1), inits=[_req(1, 1), _req(1, 1)]),
        dict(cpu=9, mem=19),
        None,
    ),
    ("both resources fit", api_pod("p", _req(1, 1)), dict(cpu=5, mem=5), None),
    ("one resource memory fits", api_pod("p", _req(2, 1)), dict(cpu=9, mem=5), _insufficient("cpu")),
    ("one resource cpu fits", api_pod("p", _req(1, 2)), dict(cpu=5, mem=19), _insufficient("memory")),
    ("equal edge case", api_pod("p", _req(5, 1)), dict(cpu=5, mem=19), None),
    (
        "equal edge case for init container",
        api_pod("p", _req(4, 1), inits=[_req(5, 1)]),
        dict(cpu=5, mem=19),
        None,
    ),
    ("extended resource fits", api_pod("p", _req(ext_a=1)), {}, None),
    ("extended resource fits for init container", api_pod("p", {}, inits=[_req(ext_a=1)]), {}, None),
    (
        "extended resource capacity enforced",
        api_pod("p", _req(1, 1, ext_a=10)),
        dict(ext_a=0),
        _insufficient(EXT_A),
    ),
    (
        "extended resource capacity enforced for init container",
        api_pod("p", {}, inits=[_req(1, 1, ext_a=10)]),
        dict(ext_a=0),
        _insufficient(EXT_A),
    ),
    (
        "extended resource allocatable enforced",
        api_pod("p", _req(1, 1, ext_a=1)),
        dict(ext_a=5),
        _insufficient(EXT_A),
    ),
    (
        "extended resource allocatable enforced for init container",
        api_pod("p", {}, inits=[_req(1, 1, ext_a=1)]),
        dict(ext_a=5),
        _insufficient(EXT_A),
    ),
    (
        "extended resource allocatable enforced for multiple containers",
        api_pod("p", _req(1, 1, ext_a=3), _req(1, 1, ext_a=3)),
        dict(ext_a=2),
        _insufficient(EXT_A),
    ),
    (
        "extended resource allocatable admits multiple init containers",
        api_pod("p", {}, inits=[_req(1, 1, ext_a=3), _req(1, 1, ext_a=3)]),
        dict(ext_a=2),
        None,
    ),
    (
        "extended resource allocatable enforced for multiple init containers",
        api_pod("p", {}, inits=[_req(1, 1, ext_a=6), _req(1, 1, ext_a=3)]),
        dict(ext_a=2),
        _insufficient(EXT_A),
    ),
    (
        "extended resource allocatable enforced for unknown resource",
        api_pod("p", _req(1, 1, ext_b=1)),
        {},
        _insufficient(EXT_B),
    ),
    (
        "extended resource allocatable enforced for unknown resource for init container",
        api_pod("p", {}, inits=[_req(1, 1, ext_b=1)]),
        {},
        _insufficient(EXT_B),
    ),
    (
        "kubernetes.io resource capacity enforced",
        api_pod("p", _req(1, 1, k8s_a=10)),
        {},
        _insufficient(K8S_A),
    ),
    (
        "kubernetes.io resource capacity enforced for init container",
        api_pod("p", {}, inits=[_req(1, 1, k8s_b=10)]),
        {},
        _insufficient(K8S_B),
    ),
    (
        "hugepages resource capacity enforced",
        api_pod("p", _req(1, 1, huge_a=10)),
        dict(huge_a=0),
        _insufficient(HUGE_A),
    ),
    (
        "hugepages resource capacity enforced for init container",
        api_pod("p", {}, inits=[_req(1, 1, huge_a=10)]),
        dict(huge_a=0),
        _insufficient(HUGE_A),
    ),
    (
        "hugepages resource allocatable enforced for multiple containers",
        api_pod("p", _req(1, 1, huge_a=3), _req(1, 1, huge_a=3)),
        dict(huge_a=2),
        _insufficient(HUGE_A),
    ),
    (
        "resources + pod overhead fits",
        api_pod("p", _req(1, 1), overhead={"cpu": "3m", "memory": "13"}),
        dict(cpu=5, mem=5),
        None,
    ),
    (
        "requests + overhead does not fit for memory",
        api_pod("p", _req(1, 1), overhead={"cpu": "1m", "memory": "15"}),
        dict(cpu=5, mem=5),
        _insufficient("memory"),
    ),
    (
        "skip checking extended resource request with quantity zero via resource groups",
        api_pod("p", _req(1, 1, ext_a=0)),
        dict(ext_a=6),
        None,
    ),
    (
        "skip checking resource request with quantity zero",
        api_pod("p", _req(ext_a=1)),
        dict(cpu=20, mem=30, ext_a=1),
        None,
    ),
]


@pytest.mark.parametrize(("pod", "existing", "want"), [c[1:] for c in ENOUGH], ids=[c[0] for c in ENOUGH])
def test_enough_requests(pod: Any, existing: dict[str, int], want: Any) -> None:
    assert _filter(pod, **existing) == want


def test_enough_requests_reasons_follow_upstreams_resource_order() -> None:
    """ "too many resources fails", the pod's requests written memory first: upstream ``fitsRequest``
    checks cpu, memory, ephemeral-storage, then the scalar resources, whatever the pod's order."""
    pod = api_pod("p", {"memory": "1", "cpu": "1m"})
    assert _filter(pod, cpu=10, mem=20) == _insufficient("cpu", "memory")


@pytest.mark.parametrize("args", [{"ignoredResources": [EXT_B]}, {"ignoredResourceGroups": ["example.com"]}])
def test_ignored_resources_are_refused_as_not_modelled(args: dict[str, Any]) -> None:
    """ "skip checking ignored extended resource" and "... via resource groups": kbatch does not model
    ignoredResources / ignoredResourceGroups (docs/simulation.md) and refuses them in the configuration."""
    with pytest.raises(SchedulerConfigError, match="not modelled"):
        world([], config={"pluginConfig": [{"name": FIT, "args": args}]})


# -- TestNotEnoughRequests (allocatable pods 1, one pod already there) ------------------------------
NOT_ENOUGH = [
    (
        "even without specified resources, predicate fails when there's no space for additional pod",
        api_pod("p"),
        dict(cpu=10, mem=20),
    ),
    (
        "even if both resources fit, predicate fails when there's no space for additional pod",
        api_pod("p", _req(1, 1)),
        dict(cpu=5, mem=5),
    ),
    (
        "even for equal edge case, predicate fails when there's no space for additional pod",
        api_pod("p", _req(5, 1)),
        dict(cpu=5, mem=19),
    ),
    (
        "even for equal edge case, predicate fails when there's no space for additional pod"
        " due to init container",
        api_pod("p", _req(5, 1), inits=[_req(5, 1)]),
        dict(cpu=5, mem=19),
    ),
]


@pytest.mark.parametrize(("pod", "existing"), [c[1:] for c in NOT_ENOUGH], ids=[c[0] for c in NOT_ENOUGH])
def test_not_enough_requests(pod: Any, existing: dict[str, int]) -> None:
    node = api_node("n", {"cpu": "10m", "memory": "20", "pods": "1"})
    algo = world([node], [api_pod("existing", _req(**existing), node="n")])
    assert filter_reasons(algo, pod, FIT)["n"] == ("UNSCHEDULABLE", ("Too many pods",))


# -- TestStorageRequests ----------------------------------------------------------------------------
STORAGE = [
    ("empty storage requested, and pod fits", api_pod("p", _req(1, 1)), dict(cpu=2, mem=10), None),
    (
        "storage ephemeral local storage request exceeds allocatable",
        api_pod("p", {"ephemeral-storage": "25"}),
        dict(cpu=2, mem=2),
        _insufficient("ephemeral-storage"),
    ),
    (
        "ephemeral local storage is sufficient",
        api_pod("p", {"ephemeral-storage": "5"}),
        dict(cpu=2, mem=2, storage=10),
        None,
    ),
    ("pod fits", api_pod("p", {"ephemeral-storage": "10"}), dict(cpu=2, mem=2), None),
]


@pytest.mark.parametrize(("pod", "existing", "want"), [c[1:] for c in STORAGE], ids=[c[0] for c in STORAGE])
def test_storage_requests(pod: Any, existing: dict[str, int], want: Any) -> None:
    node = api_node(
        "n", {"cpu": "10m", "memory": "20", "pods": "32", EXT_A: "5", "ephemeral-storage": "20", HUGE_A: "5"}
    )
    storage = existing.pop("storage", 0)
    reqs: dict[str, Any] = {"cpu": f"{existing['cpu']}m", "memory": str(existing["mem"])}
    if storage:
        reqs["ephemeral-storage"] = str(storage)
    algo = world([node], [api_pod("existing", reqs, node="n")])
    assert filter_reasons(algo, pod, FIT)["n"] == want


# -- TestRestartableInitContainers (SidecarContainers is GA: the "enabled" cases) --------------------
@pytest.mark.parametrize(
    "sidecar",
    [False, True],
    ids=[
        "allow pod without restartable init containers if sidecar containers is enabled",
        "allow pod with restartable init containers if sidecar containers is enabled",
    ],
)
def test_restartable_init_containers(sidecar: bool) -> None:
    node = api_node("n", {"cpu": "0", "memory": "0", "pods": "1"})
    inits = {"initContainers": [{"name": "restartable-init", "image": "x", "restartPolicy": "Always"}]}
    pod = api_pod("p", **(inits if sidecar else {}))
    assert filter_reasons(world([node]), pod, FIT) == {"n": None}


# -- TestFitScore, TestLeastAllocatedScoringStrategy, TestMostAllocatedScoringStrategy -------------
def _scores(
    strategy: str,
    pod: Any,
    nodes: list[Any],
    pods: list[Any] = (),  # type: ignore[assignment]
    resources: list[dict[str, Any]] | None = None,
) -> dict[str, int]:
    scoring: dict[str, Any] = {"type": strategy}
    if resources is not None:
        scoring["resources"] = resources
    config = {"pluginConfig": [{"name": FIT, "args": {"scoringStrategy": scoring}}]}
    return plugin_scores(world(nodes, pods, config), pod, FIT)


def _cap(name: str, cpu: str, mem: str, **extra: str) -> Any:
    return api_node(
        name, {"cpu": cpu, "memory": mem, "pods": "110", **{_NAMES.get(k, k): v for k, v in extra.items()}}
    )


def _on(node: str, cpu: str, mem: str, name: str = "") -> Any:
    return api_pod(name or f"e-{node}-{cpu}-{mem}-{id(object())}", {"cpu": cpu, "memory": mem}, node=node)


def test_fit_score_most_allocated() -> None:
    # TestFitScore "test case for ScoringStrategy MostAllocated" (and "... if PreScore is not called")
    nodes = [_cap("node1", "4000", "10000"), _cap("node2", "6000", "10000")]
    pods = [_on("node1", "2000", "4000"), _on("node2", "1000", "2000")]
    pod = api_pod("p", {"cpu": "1000", "memory": "2000"})
    assert _scores("MostAllocated", pod, nodes, pods) == {"node1": 67, "node2": 36}


def test_fit_score_least_allocated() -> None:
    # TestFitScore "test case for ScoringStrategy LeastAllocated" (and "... if PreScore is not called")
    nodes = [_cap("node1", "4000", "10000"), _cap("node2", "6000", "10000")]
    pods = [_on("node1", "2000", "4000"), _on("node2", "1000", "2000")]
    pod = api_pod("p", {"cpu": "1000", "memory": "2000"})
    assert _scores("LeastAllocated", pod, nodes, pods) == {"node1": 32, "node2": 63}


EXT = "abc.com/xyz"
EXT_SET = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": EXT, "weight": 1}]
TWO_CONTAINERS = ({"cpu": "1000", "memory": "2000"}, {"cpu": "2000", "memory": "3000"})
ALLOCATED = [
    # (case, pod requests, nodes (cpu, mem, extras), existing pods (node, cpu, mem), resources, least, most)
    (
        "nothing scheduled, nothing requested",
        (),
        [("4000", "10000"), ("4000", "10000")],
        [],
        None,
        (100, 100),
        (0, 0),
    ),
    (
        "nothing scheduled, resources requested, differently sized nodes",
        TWO_CONTAINERS,
        [("4000", "10000"), ("6000", "10000")],
        [],
        None,
        (37, 50),
        (62, 50),
    ),
    (
        "no resources requested, pods scheduled",
        (),
        [("4000", "10000"), ("4000", "10000")],
        [("node1", None), ("node1", None), ("node2", None), ("node2", None)],
        None,
        (100, 100),
        None,
    ),
    (
        "no resources requested, pods scheduled with resources",
        (),
        [("10000", "20000"), ("10000", "20000")],
        [
            ("node1", ("3000", "0")),
            ("node1", ("3000", "0")),
            ("node2", ("3000", "0")),
            ("node2", ("3000", "5000")),
        ],
        None,
        (70, 57),
        (30, 42),
    ),
    (
        "resources requested, pods scheduled with resources",
        TWO_CONTAINERS,
        [("10000", "20000"), ("10000", "20000")],
        [("node1", ("3000", "0")), ("node2", ("3000", "5000"))],
        None,
        (57, 45),
        (42, 55),
    ),
    (
        "resources requested, pods scheduled with resources, differently sized nodes",
        TWO_CONTAINERS,
        [("10000", "20000"), ("10000", "50000")],
        [("node1", ("3000", "0")), ("node2", ("3000", "5000"))],
        None,
        (57, 60),
        None,
    ),
    (
        "requested resources exceed node capacity",
        ({"cpu": "3000", "memory": "0"},),
        [("4000", "10000"), ("4000", "10000")],
        [("node1", ("3000", "0")), ("node2", ("3000", "5000"))],
        None,
        (50, 25),
        None,
    ),
    (
        "resources requested equal node capacity",
        ({"cpu": "2000", "memory": "4000"}, {"cpu": "3000", "memory": "5000"}),
        [("5000", "10000"), ("10000", "9000")],
        [],
        None,
        None,
        (95, 75),
    ),
    (
        "nothing scheduled, resources requested with different weight on CPU and memory,"
        " differently sized nodes",
        TWO_CONTAINERS,
        [("4000", "10000"), ("6000", "10000")],
        [],
        [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}],
        (41, 50),
        (58, 50),
    ),
    (
        "bypass extended resource if the pod does not request",
        TWO_CONTAINERS,
        [("6000", "10000"), ("6000", "10000", "4")],
        [],
        EXT_SET,
        (50, 50),
        (50, 50),
    ),
    (
        "honor extended resource if the pod requests",
        ({"cpu": "3000", "memory": "5000", EXT: "2"},),
        [("6000", "10000", "4"), ("6000", "10000", "10")],
        [],
        EXT_SET,
        (50, 60),
        (50, 40),
    ),
    (
        "if the node doesn't have a resource",
        ({"cpu": "3000", "memory": "4000"},),
        [("6000", "10000"), ("6000", "10000", "4")],
        [],
        [{"name": EXT, "weight": 2}, {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
        (55, 55),
        (45, 45),
    ),
]


# upstream's ``st.MakePod().Obj()`` has no containers, so it requests nothing, not even the scoring
# defaults (100m / 200Mi for a container's *missing* cpu / memory request); a pod needs a container,
# and one that requests cpu 0 and memory 0 explicitly is what requests nothing
NO_CONTAINERS = {"cpu": "0", "memory": "0"}


def _allocated_world(case: tuple[Any, ...]) -> tuple[Any, list[Any], list[Any]]:
    _, requests, shapes, existing, _, _, _ = case
    nodes = [
        _cap(f"node{i + 1}", s[0], s[1], **({EXT: s[2]} if len(s) > 2 else {})) for i, s in enumerate(shapes)
    ]
    pods = [
        api_pod(f"e{i}", {"cpu": r[0], "memory": r[1]} if r else NO_CONTAINERS, node=n)
        for i, (n, r) in enumerate(existing)
    ]
    containers = [_extended(r) for r in requests] or [NO_CONTAINERS]
    return api_pod("p", *containers), nodes, pods


def _extended(req: dict[str, str]) -> dict[str, Any]:
    if EXT not in req:
        return req
    return {"requests": req, "limits": {EXT: req[EXT]}}


@pytest.mark.parametrize("case", [c for c in ALLOCATED if c[5] is not None], ids=lambda c: c[0])
def test_least_allocated_scoring_strategy(case: tuple[Any, ...]) -> None:
    pod, nodes, pods = _allocated_world(case)
    assert _scores("LeastAllocated", pod, nodes, pods, case[4]) == {"node1": case[5][0], "node2": case[5][1]}


@pytest.mark.parametrize("case", [c for c in ALLOCATED if c[6] is not None], ids=lambda c: c[0])
def test_most_allocated_scoring_strategy(case: tuple[Any, ...]) -> None:
    pod, nodes, pods = _allocated_world(case)
    assert _scores("MostAllocated", pod, nodes, pods, case[4]) == {"node1": case[6][0], "node2": case[6][1]}


def test_most_allocated_nonzero_request_for_resource() -> None:
    """most_allocated_test.go "no resources requested, pods scheduled, nonzero request for resource":
    containers that request nothing count as 100m cpu and 200Mi memory."""
    nodes = [_cap("node1", "250m", "1000Mi"), _cap("node2", "250m", "1000Mi")]
    pods = [api_pod("e1", node="node1"), api_pod("e2", node="node1")]
    assert _scores("MostAllocated", api_pod("p"), nodes, pods) == {"node1": 80, "node2": 30}


def test_zero_node_resources_pods_scheduled_with_resources() -> None:
    # least_allocated_test.go "zero node resources, pods scheduled with resources": no capacity, score 0
    nodes = [api_node("node1", {}), api_node("node2", {})]
    pods = [_on("node1", "3000", "0"), _on("node2", "3000", "5000")]
    assert _scores("LeastAllocated", api_pod("p", NO_CONTAINERS), nodes, pods) == {"node1": 0, "node2": 0}


@pytest.mark.parametrize(
    ("strategy", "resources", "index", "name"),
    [
        ("LeastAllocated", [{"name": "memory", "weight": -1}, {"name": "cpu", "weight": 1}], 0, "memory"),
        ("LeastAllocated", [{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 0}], 1, "cpu"),
        ("LeastAllocated", [{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 101}], 1, "cpu"),
        ("MostAllocated", [{"name": "memory", "weight": -1}, {"name": "cpu", "weight": 1}], 0, "memory"),
        ("MostAllocated", [{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 0}], 1, "cpu"),
        ("MostAllocated", [{"name": "memory", "weight": 101}], 0, "memory"),
    ],
    ids=[
        "least: resource with negative weight",
        "least: resource with zero weight",
        "least: resource weight larger than MaxNodeScore",
        "most: resource with negative weight",
        "most: resource with zero weight",
        "most: resource weight larger than MaxNodeScore",
    ],
)
def test_resource_weight_out_of_range_is_invalid(
    strategy: str, resources: list[Any], index: int, name: str
) -> None:
    """upstream ``validateResources`` (apis/config/validation/validation_pluginargs.go): field
    ``scoringStrategy.resources[i].weight``, "resource weight of <name> not in valid range (0, 100]"."""
    weight = resources[index]["weight"]
    with pytest.raises(SchedulerConfigError) as err:
        _scores(strategy, api_pod("p"), [_cap("node1", "4000", "10000")], resources=resources)
    assert str(err.value) == (
        f"scoringStrategy.resources[{index}].weight: Invalid value: {weight}: "
        f"resource weight of {name} not in valid range (0, 100]"
    )
