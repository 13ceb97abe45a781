"""Invariants of the structured allocator, over generated slices and claims (the issue's properties):
a device goes to two claims only if it allows multiple allocations and its capacity suffices;
counters are never oversubscribed; every selector of an allocated request is true of its devices;
allocation is a deterministic function of its inputs."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.cel import DeviceInput, compile_selector
from kbatch.controllers.dra.structured import AllocatedState, DeviceID

from .builders import DRIVER, allocate, make_claim, make_class, make_slice

MODELS = ("A100", "H100")


@st.composite
def devices(draw: Any, partitioned: bool) -> list[dict[str, Any]]:
    count = draw(st.integers(1, 6))
    out = []
    for i in range(count):
        multiple = draw(st.booleans())
        device: dict[str, Any] = {
            "name": f"d{i}",
            "attributes": {"model": {"string": draw(st.sampled_from(MODELS))}, "index": {"int": i}},
            "capacity": {"memory": {"value": f"{draw(st.integers(1, 8))}Gi"}},
        }
        if multiple:
            device["allowMultipleAllocations"] = True
        if partitioned:
            device["consumesCounters"] = [
                {"counterSet": "set", "counters": {"mem": {"value": f"{draw(st.integers(1, 4))}"}}}
            ]
        out.append(device)
    return out


@st.composite
def requests(draw: Any) -> list[dict[str, Any]]:
    out = []
    for r in range(draw(st.integers(1, 3))):
        body: dict[str, Any] = {
            "deviceClassName": "gpu",
            "allocationMode": "ExactCount",
            "count": draw(st.integers(1, 2)),
        }
        model = draw(st.sampled_from((None, *MODELS)))
        if model:
            body["selectors"] = [{"cel": {"expression": f'device.attributes["{DRIVER}"].model == "{model}"'}}]
        if draw(st.booleans()):
            body["capacity"] = {"requests": {"memory": f"{draw(st.integers(1, 4))}Gi"}}
        out.append({"name": f"r{r}", "exactly": body})
    return out


@st.composite
def scenarios(draw: Any) -> tuple[list[Any], list[Any]]:
    partitioned = draw(st.booleans())
    slices = [make_slice("s0", draw(devices(partitioned)), pool="p", count=2 if partitioned else 1)]
    if partitioned:
        slices.append(
            make_slice(
                "s1",
                None,
                pool="p",
                count=2,
                sharedCounters=[
                    {"name": "set", "counters": {"mem": {"value": str(draw(st.integers(1, 6)))}}}
                ],
            )
        )
    claims = []
    for c in range(draw(st.integers(1, 4))):
        constraints = [{"matchAttribute": f"{DRIVER}/model"}] if draw(st.booleans()) else None
        claims.append(make_claim(f"c{c}", *draw(requests()), constraints=constraints))
    return slices, claims


def run(slices: list[Any], claims: list[Any]) -> list[tuple[Any, Any]]:
    """Allocate the claims one at a time, as pods would be scheduled; (claim, result) for each."""
    state = AllocatedState()
    out = []
    for claim in claims:
        results = allocate([claim], slices, [make_class("gpu")], allocated=state)
        result = results[0] if results else None
        if result is not None:
            state.add(result.devices.results or ())
        out.append((claim, result))
    return out


def _devices(slices: list[Any]) -> dict[str, Any]:
    return {d.name: d for s in slices for d in s.spec.devices or ()}


@settings(max_examples=150, deadline=None)
@given(scenarios())
def test_devices_are_shared_only_when_allowed_and_capacity_suffices(scenario: Any) -> None:
    slices, claims = scenario
    devices_by_name = _devices(slices)
    users: dict[str, list[Any]] = {}
    for _, result in run(slices, claims):
        for item in (result.devices.results or ()) if result else ():
            users.setdefault(item.device, []).append(item)
    for name, items in users.items():
        if len(items) > 1:
            device = devices_by_name[name]
            assert device.allow_multiple_allocations, name
            assert all(i.share_id for i in items)
            used = sum((i.consumed_capacity["memory"].as_fraction() for i in items), Fraction(0))
            assert used <= device.capacity["memory"].value.as_fraction()


@settings(max_examples=150, deadline=None)
@given(scenarios())
def test_counters_are_never_oversubscribed(scenario: Any) -> None:
    slices, claims = scenario
    counters = {
        c.name: c.counters["mem"].value.as_fraction() for s in slices for c in s.spec.shared_counters or ()
    }
    if not counters:
        return
    devices_by_name = _devices(slices)
    consumed: dict[str, Fraction] = {}
    holding: set[str] = set()
    for _, result in run(slices, claims):
        for item in (result.devices.results or ()) if result else ():
            if item.device in holding:
                continue  # a shared device consumes its counters once
            holding.add(item.device)
            for consumption in devices_by_name[item.device].consumes_counters or ():
                consumed[consumption.counter_set] = (
                    consumed.get(consumption.counter_set, Fraction(0))
                    + consumption.counters["mem"].value.as_fraction()
                )
    for name, used in consumed.items():
        assert used <= counters[name]


@settings(max_examples=150, deadline=None)
@given(scenarios())
def test_every_selector_of_an_allocated_request_holds_for_its_devices(scenario: Any) -> None:
    slices, claims = scenario
    devices_by_name = _devices(slices)
    for claim, result in run(slices, claims):
        if result is None:
            continue
        selectors = {r.name: r.exactly.selectors or () for r in claim.spec.devices.requests}
        for item in result.devices.results or ():
            device = devices_by_name[item.device]
            data = DeviceInput(
                DRIVER,
                device.attributes or {},
                {n: c.value for n, c in (device.capacity or {}).items()},
                bool(device.allow_multiple_allocations),
            )
            for selector in selectors[item.request]:
                assert compile_selector(selector.cel.expression).matches(data)


@settings(max_examples=100, deadline=None)
@given(scenarios())
def test_allocation_is_a_deterministic_function_of_its_inputs(scenario: Any) -> None:
    slices, claims = scenario
    first = [r.to_dict() if r else None for _, r in run(slices, claims)]
    second = [r.to_dict() if r else None for _, r in run(slices, claims)]
    assert first == second


@settings(max_examples=100, deadline=None)
@given(scenarios())
def test_match_attribute_constraints_hold(scenario: Any) -> None:
    slices, claims = scenario
    devices_by_name = _devices(slices)
    for claim, result in run(slices, claims):
        if result is None or not claim.spec.devices.constraints:
            continue
        models = {devices_by_name[i.device].attributes["model"].string for i in result.devices.results or ()}
        assert len(models) <= 1


def test_allocated_state_round_trips() -> None:
    slices = [make_slice("s0", [{"name": "d0"}, {"name": "d1"}])]
    state = AllocatedState()
    result = allocate(
        [
            make_claim(
                "c",
                {
                    "name": "r",
                    "exactly": {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 2},
                },
            )
        ],
        slices,
        [make_class("gpu")],
    )[0]
    state.add(result.devices.results)
    assert state.is_allocated(DeviceID(DRIVER, "node-0", "d0"))
    state.add(result.devices.results, -1)
    assert state == AllocatedState()
