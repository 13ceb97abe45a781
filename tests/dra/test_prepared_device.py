"""A device's CEL activation is built once and shared by every selector evaluated on it (the
allocator's class and request selectors): sharing must not change any answer or error, whatever
the order in which selectors read it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.cel import DeviceInput, SelectorRuntimeError, compile_selector, prepare_device
from kbatch.api.resource_v1 import ResourceSlice

DRIVER = "gpu.example.com"

EXPRESSIONS = (
    f'device.driver == "{DRIVER}"',
    f'device.attributes["{DRIVER}"].model == "A100"',
    f'device.attributes["{DRIVER}"].index > 2',
    f'device.attributes["{DRIVER}"].ecc',
    f'device.attributes["{DRIVER}"].driverVersion.isGreaterThan(semver("1.2.0"))',
    f'device.capacity["{DRIVER}"].memory.compareTo(quantity("40Gi")) >= 0',
    'device.attributes["other.example.com"].model == "A100"',  # a missing key: a runtime error
    f'"ecc" in device.attributes["{DRIVER}"] && device.allowMultipleAllocations',
)


@st.composite
def device_inputs(draw: Any) -> DeviceInput:
    attributes: dict[str, Any] = {
        "model": {"string": draw(st.sampled_from(("A100", "H100")))},
        "index": {"int": draw(st.integers(0, 7))},
        "driverVersion": {"version": draw(st.sampled_from(("1.0.0", "1.2.0", "1.10.3")))},
    }
    if draw(st.booleans()):
        attributes["ecc"] = {"bool": draw(st.booleans())}
    body = {
        "metadata": {"name": "s"},
        "spec": {
            "driver": DRIVER,
            "nodeName": "node-0",
            "pool": {"name": "node-0", "generation": 0, "resourceSliceCount": 1},
            "devices": [
                {
                    "name": "gpu-0",
                    "attributes": attributes,
                    "capacity": {"memory": {"value": f"{draw(st.integers(1, 80))}Gi"}},
                    "allowMultipleAllocations": draw(st.booleans()) or None,
                }
            ],
        },
    }
    device = ResourceSlice.model_validate(body).spec.devices[0]
    return DeviceInput(
        DRIVER,
        device.attributes or {},
        {n: c.value for n, c in (device.capacity or {}).items()},
        bool(device.allow_multiple_allocations),
    )


def _outcome(expression: str, device: Any) -> tuple[str, Any]:
    try:
        return "answer", compile_selector(expression).matches(device)
    except SelectorRuntimeError as err:
        return "error", str(err)


@settings(max_examples=120, deadline=None)
@given(device_inputs(), st.permutations(EXPRESSIONS))
def test_a_shared_prepared_device_answers_as_a_fresh_one(device: DeviceInput, order: list[str]) -> None:
    shared = prepare_device(device)
    for expression in order:
        assert _outcome(expression, shared) == _outcome(expression, prepare_device(device))
        assert _outcome(expression, shared) == _outcome(expression, device)


def test_the_answers_depend_on_the_device() -> None:
    """The comparison above is not vacuous: two devices give different answers and an error."""
    a = DeviceInput(DRIVER, {}, {}, False)
    ok = ResourceSlice.model_validate(
        {
            "metadata": {"name": "s"},
            "spec": {
                "driver": DRIVER,
                "nodeName": "n",
                "pool": {"name": "n", "generation": 0, "resourceSliceCount": 1},
                "devices": [{"name": "d", "attributes": {"model": {"string": "A100"}}}],
            },
        }
    ).spec.devices[0]
    b = prepare_device(DeviceInput(DRIVER, ok.attributes or {}, {}, False))
    assert _outcome(EXPRESSIONS[1], b) == ("answer", True)
    kind, message = _outcome(EXPRESSIONS[1], a)
    assert kind == "error" and message.startswith("no such key")
    with pytest.raises(SelectorRuntimeError):
        compile_selector(EXPRESSIONS[6]).matches(b)


@pytest.mark.parametrize(
    ("expression", "outcome"),
    [
        # k8s.io/dynamic-resource-allocation cel/compile.go newStringInterfaceMapWithDefault: looking up
        # a domain the device lacks gives an empty map, so optional chaining works on it, and a
        # plain select fails on the attribute, not on the domain
        ('device.attributes["other.example.com"].?model.orValue("") == ""', ("answer", True)),
        ('device.capacity["other.example.com"].?memory.hasValue()', ("answer", False)),
        ('device.attributes["other.example.com"].model == "A100"', ("error", "no such key: model")),
        # the default answers only lookups: membership still sees the device's own domains
        ('"other.example.com" in device.attributes', ("answer", False)),
    ],
)
def test_a_missing_domain_reads_as_an_empty_map(expression: str, outcome: tuple[str, Any]) -> None:
    device = prepare_device(DeviceInput(DRIVER, {}, {}, False))
    kind, result = _outcome(expression, device)
    if kind == "error":
        assert (kind, result.split(".")[0]) == outcome
    else:
        assert (kind, result) == outcome


def test_cel_bind_names_a_domain_once() -> None:
    # k8s.io/dynamic-resource-allocation cel/compile.go: the environment has ext.Bindings (since
    # 1.31), "useful to simplify attribute lookups because the domain only needs to be given once"
    expression = f'cel.bind(dra, device.attributes["{DRIVER}"], dra.model == "A100" && dra.index > 2)'
    a100 = prepare_device(DeviceInput(DRIVER, _attributes(model="A100", index=3), {}, False))
    h100 = prepare_device(DeviceInput(DRIVER, _attributes(model="H100", index=3), {}, False))
    assert _outcome(expression, a100) == ("answer", True)
    assert _outcome(expression, h100) == ("answer", False)


def _attributes(**values: Any) -> dict[str, Any]:
    body = {
        "metadata": {"name": "s"},
        "spec": {
            "driver": DRIVER,
            "nodeName": "n",
            "pool": {"name": "p", "resourceSliceCount": 1},
            "devices": [
                {
                    "name": "d",
                    "attributes": {
                        k: {"string": v} if isinstance(v, str) else {"int": v} for k, v in values.items()
                    },
                }
            ],
        },
    }
    return dict(ResourceSlice.model_validate(body).spec.devices[0].attributes or {})
