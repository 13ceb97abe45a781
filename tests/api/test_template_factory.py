"""``template_factory``: fresh copies of a flat template are what ``copy_model`` gives, share nothing
with the template or each other, and templates holding something mutable are refused."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.core_v1 import PodSecurityContext, PodStatus
from kbatch.api.core_v1.common import Toleration
from kbatch.api.model_copy import copy_model, template_factory

_TOLERATIONS = st.builds(
    Toleration,
    key=st.one_of(st.none(), st.text(max_size=8)),
    operator=st.one_of(st.none(), st.sampled_from(["Exists", "Equal"])),
    value=st.one_of(st.none(), st.text(max_size=8)),
    effect=st.one_of(st.none(), st.sampled_from(["NoExecute", "NoSchedule"])),
    toleration_seconds=st.one_of(st.none(), st.integers(-10, 10**6)),
)
_STATUSES = st.builds(PodStatus, phase=st.sampled_from(["Pending", "Running"]),
                      qos_class=st.one_of(st.none(), st.sampled_from(["BestEffort", "Burstable"])),
                      message=st.one_of(st.none(), st.text(max_size=8)))
_CONTEXTS = st.builds(PodSecurityContext, run_as_user=st.one_of(st.none(), st.integers(0, 1000)),
                      run_as_non_root=st.one_of(st.none(), st.booleans()))


@given(st.one_of(_TOLERATIONS, _STATUSES, _CONTEXTS))
def test_fresh_copies_are_copy_model_copies(template: Toleration | PodStatus | PodSecurityContext) -> None:
    fresh = template_factory(template)
    a, b = fresh(), fresh()
    expected = copy_model(template)
    assert a == expected and a.__dict__ == expected.__dict__
    assert a.model_fields_set == template.model_fields_set
    assert a.to_json() == template.to_json()
    assert a.__dict__ is not b.__dict__ and a.__pydantic_fields_set__ is not b.__pydantic_fields_set__
    b.__dict__.clear()
    a.__pydantic_fields_set__.add("x")
    assert fresh() == expected and "x" not in template.model_fields_set


def test_a_template_with_a_mutable_value_is_refused() -> None:
    with pytest.raises(TypeError):
        template_factory(PodStatus(phase="Pending", conditions=[]))
