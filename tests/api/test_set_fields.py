"""``set_fields`` (several fields assigned at once, as defaulting does) leaves exactly the state that
assigning each field in turn (``KubeModel.__setattr__``) leaves: values, fields set, and encoding."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.base import set_fields
from kbatch.api.core_v1 import Container, PodSpec
from kbatch.api.model_copy import copy_model

_SPEC_VALUES = st.fixed_dictionaries({}, optional={
    "dns_policy": st.sampled_from(["ClusterFirst", "Default", None]),
    "restart_policy": st.sampled_from(["Always", "Never", None]),
    "termination_grace_period_seconds": st.one_of(st.none(), st.integers(0, 60)),
    "scheduler_name": st.one_of(st.none(), st.text("abc-", max_size=5)),
    "enable_service_links": st.one_of(st.none(), st.booleans()),
})
_BASES = st.sampled_from([
    PodSpec(containers=[Container(name="c", image="busybox")]),
    PodSpec(containers=[], restart_policy="Never", scheduler_name="mine"),
])


def _assigned(obj: Any, values: dict[str, Any]) -> Any:
    for name, value in values.items():
        setattr(obj, name, value)
    return obj


@given(_BASES, _SPEC_VALUES)
def test_set_fields_equals_assigning_each_field(base: PodSpec, values: dict[str, Any]) -> None:
    expected = _assigned(copy_model(base), values)
    actual = copy_model(base)
    set_fields(actual, dict(values))
    assert actual.__dict__ == expected.__dict__
    assert actual.model_fields_set == expected.model_fields_set
    assert actual.to_json() == expected.to_json()


def test_set_fields_on_a_shared_fields_set_leaves_the_shared_one_alone() -> None:
    decoded = PodSpec.model_validate_json(b'{"containers":[]}')
    other = PodSpec.model_validate_json(b'{"containers":[]}')
    set_fields(decoded, {"restart_policy": "Never"})
    assert "restart_policy" in decoded.model_fields_set
    assert "restart_policy" not in other.model_fields_set
