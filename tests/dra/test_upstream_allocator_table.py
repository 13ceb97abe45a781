"""Cases of upstream's shared allocator table, ported one by one
(``staging/src/k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting/allocator_testing.go``,
kubernetes v1.37.0-alpha.2, ``TestAllocator``). Each test names the upstream case it follows; the
names of drivers, pools, devices and requests are upstream's, the objects are built with kbatch's
helpers. Allocation is deterministic in kbatch, so where upstream's result depends on its map order
(pools), the case uses pools whose (driver, pool) order is the order upstream's expectation lists.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.controllers.dra.structured import AllocatedState, AllocationError, Allocator, DeviceID

from .builders import allocate, exactly, make_claim, make_class, make_slice

DRIVER_A, DRIVER_B = "driver-a", "driver-b"
NODE1, NODE2 = "node-1", "node-2"
LABELS = {"region": "region-1"}
CLASSES = [
    make_class("class-a", f'device.driver == "{DRIVER_A}"'),
    make_class("class-b", f'device.driver == "{DRIVER_B}"'),
]


def dev(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, **fields}


def devices(count: int) -> list[dict[str, Any]]:
    return [dev(f"device-{i}") for i in range(count)]


def slc(
    name: str, pool: str, driver: str, items: list[dict[str, Any]], node: str | None = NODE1, **kw: Any
) -> Any:
    return make_slice(name, items, node=node, pool=pool, driver=driver, **kw)


def sub(name: str, cls: str, count: int = 1, **extra: Any) -> dict[str, Any]:
    mode = extra.pop("allocationMode", "ExactCount")
    body = {"name": name, "deviceClassName": cls, "allocationMode": mode, **extra}
    if mode == "ExactCount":
        body["count"] = count
    return body


def first_available(name: str, *subs: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "firstAvailable": list(subs)}


def run(claims: list[Any], slices: list[Any], allocated: list[DeviceID] = (), **kw: Any) -> Any:
    state = AllocatedState(devices=dict.fromkeys(allocated, 1))
    return allocate(
        claims, slices, kw.pop("classes", CLASSES), node=NODE1, labels=LABELS, allocated=state, **kw
    )


def picked(results: Any) -> list[list[tuple[Any, ...]]] | None:
    if results is None:
        return None
    return [
        [(r.request, r.pool, r.device, bool(r.admin_access)) for r in result.devices.results or ()]
        for result in results
    ]


# -- "all" mode and admin access --------------------------------------------------------------------
def test_all_devices_some_allocated_admin_access() -> None:
    # "all-devices-some-allocated-admin-access"
    claim = make_claim("claim-0", exactly("req-0", "class-a", allocationMode="All", adminAccess=True))
    slices = [slc("slice-1", "pool-1", DRIVER_A, [dev("device-1"), dev("device-2")])]
    got = run([claim], slices, [DeviceID(DRIVER_A, "pool-1", "device-1")])
    assert picked(got) == [[("req-0", "pool-1", "device-1", True), ("req-0", "pool-1", "device-2", True)]]


def test_all_devices_some_allocating_admin_access() -> None:
    # "all-devices-some-allocating-admin-access": admin access may not take a device twice in one claim
    claim = make_claim(
        "claim-0",
        exactly("req-0", "class-a", adminAccess=True),
        exactly("req-1", "class-a", allocationMode="All", adminAccess=True),
    )
    slices = [slc("slice-1", "pool-1", DRIVER_A, [dev("device-1"), dev("device-2")])]
    assert run([claim], slices) is None


def test_separate_claims_share_device_admin_access() -> None:
    # "separate-claims-share-device-admin-access" and
    # "admin-access-claims-device-allocating-for-non-admin-access"
    slices = [slc("slice-1", "pool-1", DRIVER_A, [dev("device-1"), dev("device-2")])]
    admin0 = make_claim("claim-0", exactly("req-0", "class-a", adminAccess=True))
    admin1 = make_claim("claim-1", exactly("req-0", "class-a", adminAccess=True))
    assert picked(run([admin0, admin1], slices)) == [
        [("req-0", "pool-1", "device-1", True)],
        [("req-0", "pool-1", "device-1", True)],
    ]
    plain = make_claim("claim-0", exactly("req-0", "class-a"))
    assert picked(run([plain, admin1], slices)) == [
        [("req-0", "pool-1", "device-1", False)],
        [("req-0", "pool-1", "device-1", True)],
    ]


def test_all_devices_some_allocated_prioritized_list() -> None:
    # "all-devices-some-allocated-prioritized-list": "all" of class-a cannot be had, the next
    # subrequest is taken
    claim = make_claim(
        "claim-0",
        first_available(
            "req-0", sub("subReq-0", "class-a", allocationMode="All"), sub("subReq-1", "class-b")
        ),
    )
    slices = [
        slc("slice-1", "pool-1", DRIVER_A, [dev("device-1"), dev("device-2")]),
        slc("slice-2", "pool-2", DRIVER_B, [dev("device-1")]),
    ]
    got = run([claim], slices, [DeviceID(DRIVER_A, "pool-1", "device-1")])
    assert picked(got) == [[("req-0/subReq-1", "pool-2", "device-1", False)]]


def test_all_devices_of_the_incomplete_pool_is_an_error() -> None:
    # "all-devices-of-the-incomplete-pool"
    claim = make_claim("claim-0", exactly("req-0", "class-a", allocationMode="All"))
    slices = [slc("slice-1", "pool-1", DRIVER_A, [dev("device-1")], count=2)]
    with pytest.raises(
        AllocationError,
        match="asks for all devices, but resource pool driver-a/pool-1 is currently being updated",
    ):
        run([claim], slices)


# -- constraints ---------------------------------------------------------------------------------
def _attributes(numa: int, version: str = "1.0.0") -> dict[str, Any]:
    return {
        "driverVersion": {"version": version},
        "numa": {"int": numa},
        "stringAttribute": {"string": "stringAttributeValue"},
        "boolAttribute": {"bool": True},
    }


def test_with_constraint_on_every_attribute_type() -> None:
    # "with-constraint"
    constraints = [
        {"matchAttribute": f"{DRIVER_A}/{name}"}
        for name in ("numa", "driverVersion", "stringAttribute", "boolAttribute")
    ]
    claim = make_claim(
        "claim-0", exactly("req-0", "class-a"), exactly("req-1", "class-a"), constraints=constraints
    )
    slices = [
        slc(
            "slice-1",
            "pool-1",
            DRIVER_A,
            [dev("device-1", attributes=_attributes(1)), dev("device-2", attributes=_attributes(1))],
        )
    ]
    assert picked(run([claim], slices)) == [
        [("req-0", "pool-1", "device-1", False), ("req-1", "pool-1", "device-2", False)]
    ]


def test_with_constraint_non_existent_attribute_or_different_values() -> None:
    # "with-constraint-non-existent-attribute", "with-constraint-not-matching-int-attribute",
    # "with-constraint-not-matching-version-attribute"
    missing = make_claim(
        "claim-0", exactly("req-0", "class-a"), constraints=[{"matchAttribute": f"{DRIVER_A}/nonExistent"}]
    )
    assert run([missing], [slc("slice-1", "pool-1", DRIVER_A, [dev("device-1")])]) is None
    numa = make_claim(
        "claim-0", exactly("req-0", "class-a", 2), constraints=[{"matchAttribute": f"{DRIVER_A}/numa"}]
    )
    slices = [
        slc(
            "slice-1",
            "pool-1",
            DRIVER_A,
            [dev("device-1", attributes=_attributes(1)), dev("device-2", attributes=_attributes(2))],
        )
    ]
    assert run([numa], slices) is None
    version = make_claim(
        "claim-0",
        exactly("req-0", "class-a", 2),
        constraints=[{"matchAttribute": f"{DRIVER_A}/driverVersion"}],
    )
    slices = [
        slc(
            "slice-1",
            "pool-1",
            DRIVER_A,
            [dev("device-1", attributes=_attributes(1)), dev("device-2", attributes=_attributes(1, "1.0.1"))],
        )
    ]
    assert run([version], slices) is None


def test_with_constraint_not_matching_int_attribute_all_devices_is_an_error() -> None:
    # "with-constraint-not-matching-int-attribute-all-devices"
    claim = make_claim(
        "claim-0",
        exactly("req-0", "class-a", allocationMode="All"),
        constraints=[{"matchAttribute": f"{DRIVER_A}/numa"}],
    )
    slices = [
        slc(
            "slice-1",
            "pool-1",
            DRIVER_A,
            [dev("device-1", attributes=_attributes(1)), dev("device-2", attributes=_attributes(2))],
        )
    ]
    with pytest.raises(
        AllocationError,
        match="claim default/claim-0, request req-0: cannot add device driver-a/pool-1/device-2 "
        "because a claim constraint would not be satisfied",
    ):
        run([claim], slices)


# -- errors --------------------------------------------------------------------------------------
def test_too_many_devices_total_is_an_error() -> None:
    # "too-many-devices-single-request", "too-many-devices-total"; "many-devices-okay"
    claim = make_claim("claim-0", exactly("req-0", "class-a", 32), exactly("req-1", "class-a"))
    with pytest.raises(AllocationError, match="exceeds the claim limit"):
        run([claim], [slc("slice-1", "pool-1", DRIVER_A, devices(33))])
    okay = make_claim("claim-0", exactly("req-0", "class-a", 32))
    assert len(run([okay], [slc("slice-1", "pool-1", DRIVER_A, devices(32))])[0].devices.results) == 32


def test_errors_name_a_subrequest_by_its_own_name() -> None:
    # upstream validateDeviceRequest and allocateDevice name a subrequest as
    # deviceSubRequestAccessor.name() does: its own name, without the parent request's
    claim = make_claim("claim-0", first_available("req-0", sub("subReq-0", "class-x")))
    with pytest.raises(
        AllocationError,
        match=r"claim default/claim-0, request subReq-0: could not retrieve device class class-x",
    ):
        run([claim], [slc("slice-1", "pool-1", DRIVER_A, devices(1))])
    every = make_claim("claim-0", first_available("req-0", sub("subReq-0", "class-a", allocationMode="All")))
    with pytest.raises(
        AllocationError,
        match=r"claim default/claim-0, request subReq-0: asks for all devices, but resource pool "
        r"driver-a/pool-1 is currently being updated",
    ):
        run([every], [slc("slice-1", "pool-1", DRIVER_A, devices(1), count=2)])


# -- prioritized lists ---------------------------------------------------------------------------
def test_prioritized_list_first_unavailable_and_non_available() -> None:
    # "prioritized-list-first-unavailable", "prioritized-list-non-available"
    slices = [slc("slice-1", "pool-1", DRIVER_A, [dev("device-1")])]
    claim = make_claim(
        "claim-0", first_available("req-0", sub("subReq-0", "class-b"), sub("subReq-1", "class-a"))
    )
    assert picked(run([claim], slices)) == [[("req-0/subReq-1", "pool-1", "device-1", False)]]
    slices.append(slc("slice-2", "pool-2", DRIVER_B, [dev("device-1")]))
    none = make_claim(
        "claim-0", first_available("req-0", sub("subReq-0", "class-b", 2), sub("subReq-1", "class-a", 2))
    )
    assert run([none], slices) is None


def test_prioritized_list_too_many_in_first_subrequest() -> None:
    # "prioritized-list-too-many-in-first-subrequest"
    claim = make_claim(
        "claim-0", first_available("req-0", sub("subReq-0", "class-b", 500), sub("subReq-1", "class-a"))
    )
    got = run([claim], [slc("slice-1", "pool-1", DRIVER_A, [dev("device-1")])])
    assert picked(got) == [[("req-0/subReq-1", "pool-1", "device-1", False)]]


def _steps(monkeypatch: pytest.MonkeyPatch, claims: list[Any], slices: list[Any]) -> tuple[Any, int]:
    """The results and the number of search steps (upstream NumAllocateOneInvocations)."""
    seen: list[Any] = []
    original = Allocator.allocate

    def spy(self: Allocator) -> Any:
        seen.append(self)
        return original(self)

    monkeypatch.setattr(Allocator, "allocate", spy)
    results = run(claims, slices)
    return results, seen[0].steps


def test_prioritized_list_max_allocation_limit_request(monkeypatch: pytest.MonkeyPatch) -> None:
    # "prioritized-list-max-allocation-limit-request": 75 allocateOne invocations upstream
    claim = make_claim(
        "claim-0",
        first_available("req-0", sub("subReq-0", "class-a", 32), sub("subReq-1", "class-a", 16)),
        first_available("req-1", sub("subReq-0", "class-a", 32), sub("subReq-1", "class-a", 16)),
    )
    results, steps = _steps(monkeypatch, [claim], [slc("slice-1", "pool-1", DRIVER_A, devices(64))])
    want = [("req-0/subReq-1", "pool-1", f"device-{i}", False) for i in range(16)]
    want += [("req-1/subReq-1", "pool-1", f"device-{i}", False) for i in range(16, 32)]
    assert picked(results) == [want]
    assert steps == 75


def test_prioritized_list_max_allocation_allocation_mode_all(monkeypatch: pytest.MonkeyPatch) -> None:
    # "prioritized-list-max-allocation-allocation-mode-all": 42 allocateOne invocations upstream
    claim = make_claim(
        "claim-0",
        first_available(
            "req-0", sub("subReq-0", "class-a", allocationMode="All"), sub("subReq-1", "class-a", 2)
        ),
        exactly("req-1", "class-b", 2),
    )
    slices = [
        slc("slice-1", "pool-1", DRIVER_A, devices(31)),
        slc("slice-2", "pool-2", DRIVER_B, devices(2)),
    ]
    results, steps = _steps(monkeypatch, [claim], slices)
    assert picked(results) == [
        [
            ("req-0/subReq-1", "pool-1", "device-0", False),
            ("req-0/subReq-1", "pool-1", "device-1", False),
            ("req-1", "pool-2", "device-0", False),
            ("req-1", "pool-2", "device-1", False),
        ]
    ]
    assert steps == 42


# -- taints --------------------------------------------------------------------------------------
NO_SCHEDULE = {"key": "taint-key", "value": "taint-value", "effect": "NoSchedule"}


def test_tainted_admin_access_is_not_allocated() -> None:
    # "tainted-admin-access": admin access does not bypass taints
    claim = make_claim("claim-0", exactly("req-0", "class-a", adminAccess=True))
    slices = [slc("slice-1", "pool-1", DRIVER_A, [dev("device-1", taints=[NO_SCHEDULE])])]
    assert run([claim], slices) is None


def test_tainted_all_devices_single_is_no_allocation_not_an_error() -> None:
    # "tainted-all-devices-single"
    claim = make_claim("claim-0", exactly("req-0", "class-a", allocationMode="All"))
    slices = [slc("slice-1", "pool-1", DRIVER_A, [dev("device-1", taints=[NO_SCHEDULE])])]
    assert run([claim], slices) is None


def test_tainted_prioritized_list_tolerated() -> None:
    # "tainted-two-devices-prioritized-list-tolerated": a subrequest's tolerations apply and are
    # copied into its results
    toleration = {"key": "taint-key", "operator": "Exists", "effect": "NoSchedule"}
    claim = make_claim(
        "claim-0",
        first_available(
            "req-0", sub("subReq-0", "class-b"), sub("subReq-1", "class-a", tolerations=[toleration])
        ),
    )
    slices = [slc("slice-1", "pool-1", DRIVER_A, [dev("device-1", taints=[NO_SCHEDULE])])]
    [result] = run([claim], slices)
    [item] = result.devices.results
    assert (item.request, item.device, item.tolerations[0].key) == ("req-0/subReq-1", "device-1", "taint-key")


# -- binding conditions and node restriction -----------------------------------------------------
def test_binding_conditions_with_and_without() -> None:
    # "binding-conditions-with-and-without"
    bound = dev("device-2", bindingConditions=["IsPrepare"], bindingFailureConditions=["BindingFailed"])
    claim = make_claim("claim-0", exactly("req-0", "class-a"), exactly("req-1", "class-a"))
    [result] = run([claim], [slc("slice-1", "pool-1", DRIVER_A, [dev("device-1"), bound])])
    first, second = result.devices.results
    assert (first.binding_conditions, first.binding_failure_conditions) in ((None, None), ([], []))
    assert (second.binding_conditions, second.binding_failure_conditions) == (
        ["IsPrepare"],
        ["BindingFailed"],
    )


def test_node_restriction_binds_to_node() -> None:
    # "node-restriction": a network-attached device with bindsToNode pins the node
    earth = {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": "region", "operator": "In", "values": ["region-1"]}]}
        ]
    }
    claim = make_claim("claim-0", exactly("req-0", "class-a"))
    slices = [
        slc(
            "slice-1",
            "pool-1",
            DRIVER_A,
            [dev("device-1", bindsToNode=True, bindingConditions=["c"], bindingFailureConditions=["f"])],
            node=None,
            nodeSelector=earth,
        )
    ]
    [result] = run([claim], slices)
    [term] = result.node_selector.node_selector_terms
    assert (term.match_fields[0].key, term.match_fields[0].values) == ("metadata.name", [NODE1])


def test_network_attached_device_keeps_the_slice_selector() -> None:
    # "network-attached-device", "unsuccessful-allocation-network-attached-device"
    region = {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": "region", "operator": "In", "values": ["region-1"]}]}
        ]
    }
    claim = make_claim("claim-0", exactly("req-0", "class-a"))
    slices = [slc("slice-1", "pool-1", DRIVER_A, [dev("device-1")], node=None, nodeSelector=region)]
    [result] = run([claim], slices)
    assert result.node_selector.model_dump(by_alias=True, exclude_none=True) == region
    other = {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": "region", "operator": "In", "values": ["region-2"]}]}
        ]
    }
    slices = [slc("slice-1", "pool-1", DRIVER_A, [dev("device-1")], node=None, nodeSelector=other)]
    assert run([claim], slices) is None


# -- pools ---------------------------------------------------------------------------------------
def test_allocation_mode_all_with_multi_host_resource_pool() -> None:
    # "allocation-mode-all-with-multi-host-resource-pool": "all" means the devices for this node
    claim = make_claim("claim-0", exactly("req-0", "class-a", allocationMode="All"))
    slices = [
        slc("slice-1", "pool-1", DRIVER_A, [dev("device-1")], count=2),
        slc("slice-2", "pool-1", DRIVER_A, [dev("device-2")], node=NODE2, count=2),
    ]
    assert picked(run([claim], slices)) == [[("req-0", "pool-1", "device-1", False)]]


def test_multi_host_resource_pool_with_stale_slice_for_current_node() -> None:
    # "multi-host-resource-pool-with-stale-slice-for-current-node"
    claim = make_claim("claim-0", exactly("req-0", "class-a"))
    slices = [
        slc("slice-1", "pool-1", DRIVER_A, [dev("device-1")], generation=1, count=2),
        slc("slice-2", "pool-1", DRIVER_A, [dev("device-2")], node=NODE2, generation=2, count=2),
    ]
    assert run([claim], slices) is None


def test_invalid_pool_is_ok_if_devices_can_be_allocated_from_other() -> None:
    # "invalid-pool-is-ok-if-devices-can-be-allocated-from-other"; with no other pool it is an error
    # ("invalid-pool-is-error-if-no-other-device-can-be-allocated")
    claim = make_claim("claim-0", exactly("req-0", "class-a"))
    invalid = [
        slc("slice-1", "pool-1", DRIVER_A, [dev("device-1")], count=2),
        slc("slice-2", "pool-1", DRIVER_A, [dev("device-1")], count=2),
    ]
    good = slc("slice-3", "pool-2", DRIVER_A, [dev("device-2")])
    assert picked(run([claim], [*invalid, good])) == [[("req-0", "pool-2", "device-2", False)]]
    with pytest.raises(AllocationError, match="invalid resource pools were encountered"):
        run([claim], invalid)


def test_no_allocation_from_incomplete_pools() -> None:
    # "no-allocation-from-incomplete-pools"
    claim = make_claim("claim-0", exactly("req-0", "class-a"))
    assert run([claim], [slc("slice-1", "pool-1", DRIVER_A, [dev("device-1")], count=2)]) is None


# -- combinations --------------------------------------------------------------------------------
def test_check_combinations_with_backtracking() -> None:
    # "check-combinations-within-single-request-single-pool-single-slice": a matchAttribute
    # constraint needing the 2nd and 3rd device is found by trying combinations in order
    def numa(name: str, value: int) -> dict[str, Any]:
        return dev(name, attributes={"numa": {"int": value}})

    claim = make_claim(
        "claim-0", exactly("req-0", "class-a", 2), constraints=[{"matchAttribute": f"{DRIVER_A}/numa"}]
    )
    slices = [
        slc("slice-1", "pool-1", DRIVER_A, [numa("device-1", 1), numa("device-2", 2), numa("device-3", 2)])
    ]
    assert picked(run([claim], slices)) == [
        [("req-0", "pool-1", "device-2", False), ("req-0", "pool-1", "device-3", False)]
    ]


# -- consumable capacity -------------------------------------------------------------------------
def _shared(
    name: str, value: str | None = None, policy: dict[str, Any] | None = None, **fields: Any
) -> dict[str, Any]:
    """A device that allows multiple allocations; ``capacity-0`` of ``value`` (with ``policy``)."""
    capacity = (
        {"capacity-0": {"value": value, **({"requestPolicy": policy} if policy else {})}} if value else None
    )
    return dev(name, allowMultipleAllocations=True, capacity=capacity, **fields)


RANGE = {
    "default": "2",
    "validRange": {"min": "2", "step": "2", "max": "4"},
}  # withCapacityRequestPolicyRange


def _wants(amount: str) -> dict[str, Any]:
    return {"requests": {"capacity-0": amount}}


def _consumed(results: Any) -> list[list[tuple[str, str, str | None]]]:
    return [
        [
            (r.request, r.device, str(r.consumed_capacity["capacity-0"]) if r.consumed_capacity else None)
            for r in result.devices.results or ()
        ]
        for result in results
    ]


def test_consumable_capacity_all_mode_allocating_insufficient() -> None:
    # "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-insufficient": the
    # capacity is checked again when an "all" device is allocated (upstream allocateDevice), so what
    # an earlier request of the claim consumes counts
    claim = make_claim(
        "claim-0",
        exactly("req-0", "class-a", capacity=_wants("1")),
        exactly("req-1", "class-a", allocationMode="All", capacity=_wants("1")),
    )
    slices = [slc("slice-1", "pool-1", DRIVER_A, [_shared("device-1", "1"), _shared("device-2", "1")])]
    assert run([claim], slices) is None


def test_consumable_capacity_all_mode_allocating_sufficient() -> None:
    # "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-sufficient"
    claim = make_claim(
        "claim-0",
        exactly("req-0", "class-a", capacity=_wants("1")),
        exactly("req-1", "class-a", allocationMode="All", capacity=_wants("1")),
    )
    slices = [slc("slice-1", "pool-1", DRIVER_A, [_shared("device-1", "2"), _shared("device-2", "1")])]
    assert _consumed(run([claim], slices)) == [
        [("req-0", "device-1", "1"), ("req-1", "device-1", "1"), ("req-1", "device-2", "1")]
    ]


def test_consumable_capacity_sharing_and_policies() -> None:
    # "...-without-capacity-without-capacity-request": shared, nothing consumed;
    # "...-without-policy-without-capacity-request-block": a request without amounts takes it all;
    # "...-with-policy-without-capacity-request": the policy's default;
    # "...-with-range-policy-step": 3 rounds up to 4; "...-with-request-over-max-sharing-policy"
    two = [
        make_claim("claim-0", exactly("req-0", "class-a")),
        make_claim("claim-1", exactly("req-0", "class-a")),
    ]
    assert _consumed(run(two, [slc("slice-1", "pool-1", DRIVER_A, [_shared("device-1")])])) == [
        [("req-0", "device-1", None)],
        [("req-0", "device-1", None)],
    ]
    assert run(two, [slc("slice-1", "pool-1", DRIVER_A, [_shared("device-1", "2")])]) is None
    assert _consumed(run(two, [slc("slice-1", "pool-1", DRIVER_A, [_shared("device-1", "4", RANGE)])])) == [
        [("req-0", "device-1", "2")],
        [("req-0", "device-1", "2")],
    ]
    three = make_claim("claim-0", exactly("req-0", "class-a", capacity=_wants("3")))
    assert _consumed(
        run([three], [slc("slice-1", "pool-1", DRIVER_A, [_shared("device-1", "4", RANGE)])])
    ) == [[("req-0", "device-1", "4")]]
    six = make_claim("claim-0", exactly("req-0", "class-a", capacity=_wants("6")))
    assert run([six], [slc("slice-1", "pool-1", DRIVER_A, [_shared("device-1", "10", RANGE)])]) is None


def test_consumable_capacity_with_multi_allocatable_device_backtrack() -> None:
    # "consumable-capacity-with-multi-allocatable-device-backtrack"
    def shared(name: str, value: str, attribute: str) -> dict[str, Any]:
        return _shared(name, value, RANGE, attributes={"stringAttribute": {"string": attribute}})

    claim0 = make_claim(
        "claim-0",
        exactly("req-0", "class-a", capacity=_wants("2")),
        exactly("req-1", "class-a", capacity=_wants("2")),
        constraints=[{"matchAttribute": f"{DRIVER_A}/stringAttribute"}],
    )
    claim1 = make_claim("claim-1", exactly("req-0", "class-a", capacity=_wants("2")))
    slices = [
        slc(
            "slice-1",
            "pool-1",
            DRIVER_A,
            [shared("device-2", "2", "value-1"), shared("device-1", "4", "value-2")],
        )
    ]
    assert _consumed(run([claim0, claim1], slices)) == [
        [("req-0", "device-1", "2"), ("req-1", "device-1", "2")],
        [("req-0", "device-2", "2")],
    ]


# -- pools updated across nodes ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("case", "layout", "want"),
    [
        # (node, generation, device) per slice, every slice of a pool of 2
        ("multi-host-resource-pool-complete-update-from-node-1-to-node-2",
         [(NODE1, 1, "device-1"), (NODE1, 1, "device-2"), (NODE2, 2, "device-1"), (NODE2, 2, "device-2")],
         "device-1"),
        ("multi-host-resource-pool-complete-update-from-node-2-to-node-1",
         [(NODE2, 1, "device-1"), (NODE2, 1, "device-2"), (NODE1, 2, "device-1"), (NODE1, 2, "device-2")],
         "device-1"),
        ("multi-host-resource-pool-incomplete-update-from-node-1-to-node-2",
         [(NODE1, 1, "device-1"), (NODE1, 1, "device-2"), (NODE2, 2, "device-1")],
         "device-1"),
        ("multi-host-resource-pool-incomplete-update-from-node-2-to-node-1",
         [(NODE2, 1, "device-1"), (NODE2, 1, "device-2"), (NODE1, 2, "device-1")],
         None),
        ("different-resourceslices-in-pool-can-target-different-nodes",
         [(NODE2, 0, "device-1"), (NODE1, 0, "device-2")],
         "device-2"),
    ],
)  # fmt: skip
def test_multi_host_pool_updates(case: str, layout: list[tuple[str, int, str]], want: str | None) -> None:
    claim = make_claim("claim-0", exactly("req-0", "class-a"))
    slices = [
        slc(f"slice-{i}", "pool-1", DRIVER_A, [dev(device)], node=node, generation=gen, count=2)
        for i, (node, gen, device) in enumerate(layout)
    ]
    got = run([claim], slices)
    assert (got and got[0].devices.results[0].device) == want, case


# -- partitionable devices -----------------------------------------------------------------------
def _consumes(name: str, memory: str, counter_set: str = "counter-set-1", **fields: Any) -> dict[str, Any]:
    consumption = [{"counterSet": counter_set, "counters": {"memory": {"value": memory}}}]
    return dev(name, consumesCounters=consumption, **fields)


def _counters(
    name: str, memory: str | None, node: str = NODE1, set_name: str = "counter-set-1", **kw: Any
) -> Any:
    counters = {"memory": {"value": memory}} if memory else {}
    shared = [{"name": set_name, "counters": counters}]
    return make_slice(name, None, node=None, pool="pool-1", driver=DRIVER_A, sharedCounters=shared, **kw)


def test_partitionable_devices_on_different_nodes_consume_same_counter_set() -> None:
    # "partitionable-devices-devices-on-different-nodes-consume-same-counter-set": a device of
    # another node that is allocated consumes the shared counters
    def memory_at_least(amount: str) -> dict[str, Any]:
        expression = f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("{amount}")) >= 0'
        return {"selectors": [{"cel": {"expression": expression}}]}

    def sized(name: str, memory: str) -> dict[str, Any]:
        return _consumes(name, memory, capacity={"memory": {"value": memory}})

    claim = make_claim(
        "claim-0",
        first_available("req-0", sub("subReq-0", "class-a", **memory_at_least("6Gi")),
                        sub("subReq-1", "class-a", **memory_at_least("2Gi"))),
    )  # fmt: skip
    slices = [
        _counters("slice-1", "8Gi", count=3),
        slc("slice-2", "pool-1", DRIVER_A, [sized("device-1", "6Gi"), sized("device-2", "2Gi")], count=3),
        slc("slice-3", "pool-1", DRIVER_A, [sized("device-3", "6Gi")], node=NODE2, count=3),
    ]
    got = run([claim], slices, [DeviceID(DRIVER_A, "pool-1", "device-3")])
    assert picked(got) == [[("req-0/subReq-1", "pool-1", "device-2", False)]]


@pytest.mark.parametrize(
    "case",
    [
        "partitionable-devices-same-counter-set-name-in-different-resource-slices",
        "partitionable-devices-device-counter-consumption-references-unknown-counter-set",
        "partitionable-devices-device-counter-consumption-references-unknown-counter-in-counter-set",
        "partitionable-devices-validation-error-on-non-targeting-slice",
    ],
)
def test_partitionable_devices_invalid_pools(case: str) -> None:
    claim = make_claim("claim-0", exactly("req-0", "class-a"))
    if case == "partitionable-devices-same-counter-set-name-in-different-resource-slices":
        slices = [
            slc("slice-1", "pool-1", DRIVER_A, [dev("device-1")], count=4),
            _counters("slice-2", None, count=4),
            slc("slice-3", "pool-1", DRIVER_A, [dev("device-2")], count=4),
            _counters("slice-4", None, count=4),
        ]
    elif case == "partitionable-devices-device-counter-consumption-references-unknown-counter-set":
        slices = [
            slc("slice-1", "pool-1", DRIVER_A, [_consumes("device-1", "1", "counter-set-2")], count=2),
            _counters("slice-2", None, count=2),
        ]
    elif case == "partitionable-devices-device-counter-consumption-references-unknown-counter-in-counter-set":
        other = {"name": "counter-set-1", "counters": {"other-memory": {"value": "8Gi"}}}
        slices = [
            slc("slice-1", "pool-1", DRIVER_A, [_consumes("device-1", "8Gi")], count=2),
            make_slice(
                "slice-2", None, node=None, pool="pool-1", driver=DRIVER_A, count=2, sharedCounters=[other]
            ),
        ]
    else:
        slices = [
            _counters("slice-1", "8Gi", count=3),
            slc("slice-2", "pool-1", DRIVER_A, [_consumes("device-1", "6Gi")], count=3),
            slc(
                "slice-3",
                "pool-1",
                DRIVER_A,
                [_consumes("device-3", "6Gi", "counter-set-2")],
                node=NODE2,
                count=3,
            ),
        ]
    with pytest.raises(AllocationError, match="invalid resource pools were encountered"):
        run([claim], slices)


# -- distinct constraints ------------------------------------------------------------------------
def test_with_distinct_constraints_with_subrequests() -> None:
    # "with-distinct-constraints-with-subrequests": the constraint covers req-0 and req-1 only
    def prefers_true(name: str) -> dict[str, Any]:
        expression = f'device.attributes["{DRIVER_A}"].boolAttribute'
        return first_available(
            name,
            sub("subReq-0", "class-a", selectors=[{"cel": {"expression": expression}}]),
            sub("subReq-1", "class-a"),
        )

    claim = make_claim(
        "claim-0",
        prefers_true("req-0"),
        prefers_true("req-1"),
        prefers_true("req-2"),
        constraints=[{"distinctAttribute": f"{DRIVER_A}/boolAttribute", "requests": ["req-0", "req-1"]}],
    )
    slices = [
        slc(
            "slice-1",
            "pool-1",
            DRIVER_A,
            [
                _shared("device-1", attributes={"boolAttribute": {"bool": True}}),
                _shared("device-2", attributes={"boolAttribute": {"bool": False}}),
            ],
        )
    ]
    assert picked(run([claim], slices)) == [
        [
            ("req-0/subReq-0", "pool-1", "device-1", False),
            ("req-1/subReq-1", "pool-1", "device-2", False),
            ("req-2/subReq-0", "pool-1", "device-1", False),
        ]
    ]


# -- devices that allow multiple allocations and consume counters --------------------------------
def _shared_partition(name: str, memory: str, **fields: Any) -> dict[str, Any]:
    """A multi-allocatable device whose capacity comes from the counters it consumes ("fromCounters")."""
    return _consumes(
        name, memory, allowMultipleAllocations=True, capacity={"memory": {"value": memory}}, **fields
    )


def test_allow_multiple_allocations_with_partitionable_device() -> None:
    # "allow-multiple-allocations-with-partitionable-device": a shared device's counters are
    # consumed once; its capacity is whole for a request without amounts, so req-1 goes elsewhere
    def memory_at_least(amount: str) -> dict[str, Any]:
        expression = f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("{amount}")) >= 0'
        return {"selectors": [{"cel": {"expression": expression}}]}

    multi = [
        make_class("class-a", f'device.driver == "{DRIVER_A}" && device.allowMultipleAllocations == true')
    ]
    claim = make_claim(
        "claim-0",
        exactly("req-0", "class-a"),
        first_available(
            "req-1",
            sub("subReq-0", "class-a", **memory_at_least("6Gi")),
            sub("subReq-1", "class-a", **memory_at_least("4Gi")),
        ),
    )
    slices = [
        slc(
            "slice-1",
            "pool-1",
            DRIVER_A,
            [
                _shared_partition("device-1", "4Gi"),
                _shared_partition("device-2", "6Gi"),
                _shared_partition("device-3", "4Gi"),
            ],
            count=2,
        ),
        _counters("slice-2", "8Gi", count=2),
    ]
    assert _consumed_memory(run([claim], slices, classes=multi)) == [
        [("req-0", "device-1", "4Gi"), ("req-1/subReq-1", "device-3", "4Gi")]
    ]


def test_allow_multiple_allocations_with_shared_device_counter_cross_cycle() -> None:
    # "allow-multiple-allocations-with-shared-device-counter-cross-cycle": a share of device-1
    # allocated earlier holds the counters, so device-2 cannot be had
    from fractions import Fraction

    multi = [
        make_class("class-a", f'device.driver == "{DRIVER_A}" && device.allowMultipleAllocations == true')
    ]
    mode_b = {"selectors": [{"cel": {"expression": f'device.attributes["{DRIVER_A}"].mode == "b"'}}]}
    claim = make_claim(
        "claim-0", exactly("req-0", "class-a", capacity={"requests": {"capacity-0": "1"}}, **mode_b)
    )

    def device(name: str, mode: str) -> dict[str, Any]:
        consumption = [{"counterSet": "counter-set-1", "counters": {"capacity-0": {"value": "1"}}}]
        return dev(
            name,
            allowMultipleAllocations=True,
            consumesCounters=consumption,
            capacity={"capacity-0": {"value": "1"}},
            attributes={"mode": {"string": mode}},
        )

    shared = [{"name": "counter-set-1", "counters": {"capacity-0": {"value": "1"}}}]
    slices = [
        slc("slice-1", "pool-1", DRIVER_A, [device("device-1", "a"), device("device-2", "b")], count=2),
        make_slice(
            "slice-2", None, node=None, pool="pool-1", driver=DRIVER_A, count=2, sharedCounters=shared
        ),
    ]
    device1 = DeviceID(DRIVER_A, "pool-1", "device-1")
    state = AllocatedState(shares={(device1, "share-1"): 1}, capacity={device1: {"capacity-0": Fraction(1)}})
    assert allocate([claim], slices, multi, node=NODE1, labels=LABELS, allocated=state) is None


def _consumed_memory(results: Any) -> list[list[tuple[str, str, str | None]]]:
    return [
        [
            (r.request, r.device, str(r.consumed_capacity["memory"]) if r.consumed_capacity else None)
            for r in result.devices.results
        ]
        for result in results
    ]


def test_partitionable_devices_per_device_node_selection() -> None:
    # "partitionable-devices-per-device-node-selection-nodename" and "...-node-selector": a device
    # of a perDeviceNodeSelection slice is for the nodes it names; the allocation's node selector is
    # the device's
    def memory_at_least(amount: str) -> dict[str, Any]:
        expression = f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("{amount}")) >= 0'
        return {"selectors": [{"cel": {"expression": expression}}]}

    def sized(name: str, memory: str, **selection: Any) -> dict[str, Any]:
        return _consumes(name, memory, capacity={"memory": {"value": memory}}, **selection)

    shared = [{"name": "counter-set-1", "counters": {"memory": {"value": "18Gi"}}}]
    counters = make_slice(
        "slice-2", None, node=None, pool="pool-1", driver=DRIVER_A, count=2, perDeviceNodeSelection=True,
        sharedCounters=shared,
    )  # fmt: skip
    claim = make_claim(
        "claim-0",
        first_available(
            "req-0",
            sub("subReq-0", "class-a", **memory_at_least("6Gi")),
            sub("subReq-1", "class-a", **memory_at_least("4Gi")),
        ),
    )
    devices_ = [sized("device-1", "4Gi", nodeName=NODE1), sized("device-2", "6Gi", nodeName=NODE2)]
    slices = [
        slc("slice-1", "pool-1", DRIVER_A, devices_, node=None, count=2, perDeviceNodeSelection=True),
        counters,
    ]
    [result] = run([claim], slices)
    assert picked([result]) == [[("req-0/subReq-1", "pool-1", "device-1", False)]]
    assert result.node_selector.node_selector_terms[0].match_fields[0].values == [NODE1]

    region = {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": "region", "operator": "In", "values": ["region-1"]}]}
        ]
    }
    devices_ = [sized("device-1", "4Gi", nodeSelector=region)]
    slices = [
        slc("slice-1", "pool-1", DRIVER_A, devices_, node=None, count=2, perDeviceNodeSelection=True),
        counters,
    ]
    [result] = run([make_claim("claim-0", exactly("req-0", "class-a"))], slices)
    assert result.node_selector.model_dump(by_alias=True, exclude_none=True) == region
