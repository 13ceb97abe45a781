"""Documented allocator cases (after upstream ``structured/internal/allocatortesting/allocator_testing.go``'s
table: simple, prioritized lists, "all" mode, admin access, taints, consumable capacity, partitionable
devices, pool generations, node selection, configuration)."""

from __future__ import annotations

import pytest

from kbatch.api.core_v1 import NodeSelector
from kbatch.controllers.dra.structured import AllocatedState, AllocationError
from kbatch.controllers.dra.structured.nodes import NodeView, selector_matches

from .builders import DRIVER, allocate, exactly, gpu, make_claim, make_class, make_slice

GPU = [make_class("gpu")]


def _devices(result) -> list[tuple[str, str]]:
    return [(r.request, r.device) for r in result.devices.results or ()]


def test_simple_takes_devices_in_slice_order_and_pins_the_node() -> None:
    [result] = allocate(
        [make_claim("c", exactly("r", count=2))], [make_slice("s", [gpu("a"), gpu("b"), gpu("c")])], GPU
    )
    assert _devices(result) == [("r", "a"), ("r", "b")]
    term = result.node_selector.node_selector_terms[0]
    assert term.match_fields[0].key == "metadata.name" and term.match_fields[0].values == ["node-0"]


def test_too_few_devices_is_no_allocation_not_an_error() -> None:
    assert allocate([make_claim("c", exactly("r", count=3))], [make_slice("s", [gpu("a")])], GPU) is None


def test_used_devices_are_skipped() -> None:
    slices = [make_slice("s", [gpu("a"), gpu("b")])]
    state = AllocatedState()
    [first] = allocate([make_claim("c1", exactly("r"))], slices, GPU, allocated=state)
    state.add(first.devices.results)
    [second] = allocate([make_claim("c2", exactly("r"))], slices, GPU, allocated=state)
    assert _devices(second) == [("r", "b")]


def test_first_available_tries_subrequests_in_order() -> None:
    claim = make_claim(
        "c",
        {
            "name": "r",
            "firstAvailable": [
                {
                    "name": "h100",
                    "deviceClassName": "gpu",
                    "allocationMode": "ExactCount",
                    "count": 1,
                    "selectors": [{"cel": {"expression": f'device.attributes["{DRIVER}"].model == "H100"'}}],
                },
                {"name": "any", "deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 2},
            ],
        },
    )
    [result] = allocate([claim], [make_slice("s", [gpu("a", model="A100"), gpu("b", model="A100")])], GPU)
    assert _devices(result) == [("r/any", "a"), ("r/any", "b")]


def test_all_mode_takes_every_matching_device_and_refuses_incomplete_pools() -> None:
    slices = [make_slice("s", [gpu("a"), gpu("b")])]
    [result] = allocate([make_claim("c", exactly("r", allocationMode="All"))], slices, GPU)
    assert _devices(result) == [("r", "a"), ("r", "b")]
    incomplete = [make_slice("s", [gpu("a")], count=2)]
    with pytest.raises(
        AllocationError,
        match=r"asks for all devices, but resource pool gpu\.example\.com/node-0 is currently being updated",
    ):
        allocate([make_claim("c", exactly("r", allocationMode="All"))], incomplete, GPU)


def test_missing_class_and_claim_limit_are_errors() -> None:
    with pytest.raises(AllocationError, match="could not retrieve device class nope"):
        allocate([make_claim("c", exactly("r", "nope"))], [make_slice("s", [gpu("a")])], GPU)
    with pytest.raises(AllocationError, match="number of requested devices 33 exceeds the claim limit of 32"):
        allocate([make_claim("c", exactly("r", count=33))], [make_slice("s", [gpu("a")])], GPU)


def test_admin_access_may_use_allocated_devices() -> None:
    slices = [make_slice("s", [gpu("a")])]
    state = AllocatedState()
    [first] = allocate([make_claim("c1", exactly("r"))], slices, GPU, allocated=state)
    state.add(first.devices.results)
    assert allocate([make_claim("c2", exactly("r"))], slices, GPU, allocated=state) is None
    [admin] = allocate([make_claim("c3", exactly("r", adminAccess=True))], slices, GPU, allocated=state)
    assert admin.devices.results[0].admin_access is True


def test_untolerated_no_schedule_taints_block_and_tolerations_admit() -> None:
    tainted = {"name": "a", "taints": [{"key": "broken", "effect": "NoSchedule"}]}
    slices = [make_slice("s", [tainted, gpu("b")])]
    [result] = allocate([make_claim("c", exactly("r"))], slices, GPU)
    assert _devices(result) == [("r", "b")]
    tolerant = exactly("r", count=2, tolerations=[{"key": "broken", "operator": "Exists"}])
    [result] = allocate([make_claim("c", tolerant)], slices, GPU)
    assert _devices(result) == [("r", "a"), ("r", "b")]
    assert result.devices.results[0].tolerations[0].key == "broken"
    none_effect = [make_slice("s", [{"name": "a", "taints": [{"key": "x", "effect": "None"}]}])]
    assert allocate([make_claim("c", exactly("r"))], none_effect, GPU) is not None


def test_consumable_capacity_shares_a_device_with_share_ids_and_rounds_to_the_policy() -> None:
    device = {
        "name": "a",
        "allowMultipleAllocations": True,
        "capacity": {
            "memory": {
                "value": "10Gi",
                "requestPolicy": {"default": "2Gi", "validRange": {"min": "2Gi", "step": "2Gi"}},
            }
        },
    }
    slices = [make_slice("s", [device])]
    state = AllocatedState()
    [one] = allocate(
        [make_claim("c1", exactly("r", capacity={"requests": {"memory": "3Gi"}}))],
        slices,
        GPU,
        allocated=state,
    )
    item = one.devices.results[0]
    assert str(item.consumed_capacity["memory"]) == "4Gi" and item.share_id
    state.add(one.devices.results)
    [two] = allocate([make_claim("c2", exactly("r"))], slices, GPU, allocated=state)
    assert str(two.devices.results[0].consumed_capacity["memory"]) == "2Gi"
    state.add(two.devices.results)
    assert (
        allocate(
            [make_claim("c3", exactly("r", capacity={"requests": {"memory": "5Gi"}}))],
            slices,
            GPU,
            allocated=state,
        )
        is None
    )


def test_partitions_share_counters() -> None:
    def part(name: str, mem: str) -> dict:
        return {
            "name": name,
            "consumesCounters": [{"counterSet": "gpu-0", "counters": {"memory": {"value": mem}}}],
        }

    slices = [
        make_slice(
            "devices", [part("whole", "8Gi"), part("half-0", "4Gi"), part("half-1", "4Gi")], pool="p", count=2
        ),
        make_slice(
            "counters",
            None,
            pool="p",
            count=2,
            sharedCounters=[{"name": "gpu-0", "counters": {"memory": {"value": "8Gi"}}}],
        ),
    ]
    state = AllocatedState()
    half = exactly("r")
    [first] = allocate([make_claim("c1", exactly("r"))], slices, GPU, allocated=state)
    assert _devices(first) == [("r", "whole")]
    state.add(first.devices.results)
    assert allocate([make_claim("c2", half)], slices, GPU, allocated=state) is None  # counters used up
    [halves] = allocate([make_claim("c3", exactly("r", count=2))], slices, GPU)
    assert _devices(halves) == [("r", "half-0"), ("r", "half-1")]  # "whole" alone fits, not with a half


def test_newest_generation_wins_and_duplicates_invalidate() -> None:
    old = make_slice("old", [gpu("a")], pool="p", generation=1)
    new = make_slice("new", [gpu("b")], pool="p", generation=2)
    [result] = allocate([make_claim("c", exactly("r"))], [old, new], GPU)
    assert _devices(result) == [("r", "b")]
    dup = [make_slice("x", [gpu("a")], pool="p", count=2), make_slice("y", [gpu("a")], pool="p", count=2)]
    with pytest.raises(AllocationError, match="invalid resource pools were encountered"):
        allocate([make_claim("c", exactly("r"))], dup, GPU)


def test_node_selection_all_nodes_and_selectors() -> None:
    everywhere = make_slice("s", [gpu("a")], node=None, allNodes=True)
    [result] = allocate([make_claim("c", exactly("r"))], [everywhere], GPU, node="elsewhere")
    assert result.node_selector is None
    zone = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}
    zonal = make_slice("z", [gpu("a")], node=None, nodeSelector=zone)
    assert allocate([make_claim("c", exactly("r"))], [zonal], GPU, labels={"zone": "b"}) is None
    [result] = allocate([make_claim("c", exactly("r"))], [zonal], GPU, labels={"zone": "a"})
    assert result.node_selector.node_selector_terms[0].match_expressions[0].key == "zone"


def test_match_attribute_across_requests() -> None:
    slices = [make_slice("s", [gpu("a", model="A100"), gpu("b", model="H100"), gpu("c", model="H100")])]
    claim = make_claim("c", exactly("x"), exactly("y"), constraints=[{"matchAttribute": f"{DRIVER}/model"}])
    [result] = allocate([claim], slices, GPU)
    assert _devices(result) == [("x", "b"), ("y", "c")]


def test_config_from_class_then_claim() -> None:
    opaque = {"opaque": {"driver": DRIVER, "parameters": {"a": 1}}}
    cls = [make_class("gpu", config=[opaque])]
    claim = make_claim("c", exactly("x"), exactly("y"), config=[{"requests": ["y"], **opaque}])
    [result] = allocate([claim], [make_slice("s", [gpu("a"), gpu("b")])], cls)
    config = result.devices.config
    assert [(c.source, c.requests) for c in config] == [("FromClass", None), ("FromClaim", ["y"])]


def test_selector_runtime_errors_stop_allocation() -> None:
    # the missing domain reads as an empty map (cel/compile.go newStringInterfaceMapWithDefault): the
    # error is about the attribute
    with pytest.raises(
        AllocationError,
        match=r"claim default/c: selector #0 on device gpu.example.com/node-0/a: "
        r"CEL runtime error: no such key: x",
    ):
        allocate(
            [make_claim("c", exactly("r", "gpu", 1, 'device.attributes["nope"].x == 1'))],
            [make_slice("s", [gpu("a")])],
            GPU,
        )


def _first_available(name: str, *subs: tuple[str, str]) -> dict:
    return {
        "name": name,
        "firstAvailable": [
            {"name": sub, "deviceClassName": cls, "allocationMode": "ExactCount", "count": 1}
            for sub, cls in subs
        ],
    }


def test_a_claim_config_for_two_requests_is_listed_once() -> None:
    # upstream allocator_testing.go "with-claim-config-for-two-requests": a config naming two of three
    # requests appears once in the allocation, with the requests it names.
    opaque = {"opaque": {"driver": DRIVER, "parameters": {"a": 1}}}
    claim = make_claim(
        "c", exactly("r0"), exactly("r1"), exactly("r2"), config=[{"requests": ["r0", "r1"], **opaque}]
    )
    [result] = allocate([claim], [make_slice("s", [gpu("a"), gpu("b"), gpu("c")])], GPU)
    assert [(c.source, c.requests) for c in result.devices.config] == [("FromClaim", ["r0", "r1"])]


def test_a_claim_config_scoped_to_subrequests_keeps_its_requests() -> None:
    # upstream allocator_testing.go "claim-config-scoped-to-subrequests-of-one-request": naming both
    # subrequests of r0 is not "every request" of a claim that also has r1, so the names stay; and
    # "claim-config-covering-all-requests-is-cleared": the selected subrequest plus r1 is, so they go.
    opaque = {"opaque": {"driver": DRIVER, "parameters": {"a": 1}}}
    classes = [make_class("gpu"), make_class("other", 'device.driver == "other.example.com"')]
    slices = [make_slice("s", [gpu("a"), gpu("b")])]
    scoped = make_claim(
        "c",
        _first_available("r0", ("s0", "gpu"), ("s1", "other")),
        exactly("r1"),
        config=[{"requests": ["r0/s0", "r0/s1"], **opaque}],
    )
    [result] = allocate([scoped], slices, classes)
    assert _devices(result) == [("r0/s0", "a"), ("r1", "b")]
    assert [(c.source, c.requests) for c in result.devices.config] == [("FromClaim", ["r0/s0", "r0/s1"])]
    covering = make_claim(
        "c",
        _first_available("r0", ("s0", "gpu"), ("s1", "other")),
        exactly("r1"),
        config=[{"requests": ["r0/s0", "r1"], **opaque}],
    )
    [result] = allocate([covering], slices, classes)
    assert [(c.source, c.requests) for c in result.devices.config] == [("FromClaim", None)]


@pytest.mark.parametrize(("label", "bound", "matches"), [
    ("5", "+3", True), ("1_0", "3", False), ("50", "1_0", False), ("99999999999999999999", "3", False),
])
def test_a_slice_node_selector_gt_reads_both_sides_with_go_parse_int(label: str, bound: str,
                                                                     matches: bool) -> None:
    """``labels.Requirement`` of nodeaffinity: ``strconv.ParseInt(v, 10, 64)`` on the label and the bound."""
    selector = NodeSelector.model_validate({"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "rank", "operator": "Gt", "values": [bound]}]}]})
    assert selector_matches(selector, NodeView("n1", {"rank": label})) is matches
