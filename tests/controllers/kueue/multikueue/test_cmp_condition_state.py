"""``cmpConditionState`` (kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/
admissioncheck.go``), the one comparison behind MultiKueue's condition writes and event filters."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.meta import Condition
from kbatch.api.policy_helpers import cmp_condition_state

_conditions = st.builds(
    Condition, type=st.just("Active"), status=st.sampled_from(["True", "False", "Unknown"]),
    reason=st.sampled_from(["", "Active", "ClientConnectionFailed"]), message=st.sampled_from(["", "m"]),
    observed_generation=st.none() | st.integers(0, 3))
_STATE_FIELDS = st.sampled_from(["status", "reason", "message"])


@given(_conditions, st.none() | st.integers(0, 9), st.datetimes(timezones=st.just(UTC)))
def test_times_and_generation_do_not_count(c: Condition, generation: int | None, when: datetime) -> None:
    other = c.model_copy(update={"observed_generation": generation, "last_transition_time": when})
    assert cmp_condition_state(c, other)
    assert cmp_condition_state(other, c)


@given(_conditions, _STATE_FIELDS)
def test_a_changed_status_reason_or_message_is_another_state(c: Condition, name: str) -> None:
    other = c.model_copy(update={name: getattr(c, name) + "-changed"})
    assert not cmp_condition_state(c, other)
    assert not cmp_condition_state(other, c)


@given(_conditions)
def test_absent_equals_only_absent(c: Condition) -> None:
    assert cmp_condition_state(None, None)
    assert not cmp_condition_state(c, None)
    assert not cmp_condition_state(None, c)
