"""``fits`` (upstream ``CmpRequestOverCapacity``): the shortcut for a request without capacity
requests on a device nothing else consumes gives the answer of the full computation."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.resource_v1.device import DeviceCapacity
from kbatch.controllers.dra.structured.capacity import fits

_VALUES = st.sampled_from(["0", "1", "3", "80Gi", "500m", "1Ti"])
_POLICIES = st.one_of(
    st.none(),
    st.fixed_dictionaries({"default": st.sampled_from(["1", "2Gi"])}),
    st.fixed_dictionaries({"validRange": st.fixed_dictionaries({"min": st.sampled_from(["1", "4Gi"])})}),
)


@st.composite
def _capacities(draw: st.DrawFn) -> dict[str, DeviceCapacity]:
    names = draw(st.lists(st.sampled_from(["memory", "cores", "bw"]), unique=True, max_size=3))
    return {
        n: DeviceCapacity.model_validate(
            {"value": draw(_VALUES), **({"requestPolicy": p} if (p := draw(_POLICIES)) else {})}
        )
        for n in names
    }


@given(_capacities())
def test_the_shortcut_agrees_with_the_full_computation(capacities: dict[str, DeviceCapacity]) -> None:
    zero = {n: Fraction(0) for n in capacities}  # consumption recorded as zero: the full computation
    assert fits(None, capacities, None, None) == fits({}, capacities, zero or None, zero or None)


@given(_capacities())
def test_a_device_consumed_by_nothing_else_takes_a_request_without_amounts_unless_a_policy_forbids(
    capacities: dict[str, DeviceCapacity],
) -> None:
    if all(c.request_policy is None for c in capacities.values()):
        assert fits(None, capacities, None, None)
