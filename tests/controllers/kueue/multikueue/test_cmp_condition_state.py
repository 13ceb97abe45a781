"""``cmpConditionState`` (kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/
admissioncheck.go``), the one comparison behind MultiKueue's condition writes and event filters."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.meta import Condition
from kbatch.api.policy_helpers import cmp_condition_state

_conditions = st.builds(
    Condition, type=st.just("Active"), status=st.sampled_from(["True", "False", "Unknown"]),
    reason=st.sampled_from(["", "Active", "ClientConnectionFailed"]), message=st.sampled_from(["", "m"]),
    observed_generation=st.none() | st.integers(0, 3))




def _state(c: Condition | None) -> tuple[str, str, str] | None:
    return None if c is None else (c.status, c.reason, c.message)


@given(st.none() | _conditions, st.none() | _conditions)
def test_same_state_is_status_reason_and_message(a: Condition | None, b: Condition | None) -> None:
    assert cmp_condition_state(a, b) == (_state(a) == _state(b))
    assert cmp_condition_state(a, b) == cmp_condition_state(b, a)
