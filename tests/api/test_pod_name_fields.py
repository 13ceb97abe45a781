"""The pod spec's name checks: the memoised fast path (``_names_valid``) agrees with the general
path that builds every error (``_name_field_errors``) on valid, invalid and absent names."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.core_v1 import PodSpec
from kbatch.api.strategies.core.pod_validation import _name_field_errors, _name_fields, _names_valid

_NAME = st.one_of(
    st.none(), st.just(""), st.from_regex(r"[a-z0-9]([a-z0-9.-]{0,20}[a-z0-9])?", fullmatch=True),
    st.text(alphabet="aZ0.-_", max_size=12), st.just("a" * 64), st.just("a." * 127))
_FIELDS = ("hostname", "subdomain", "service_account_name", "node_name", "priority_class_name",
           "scheduler_name")


@given(st.tuples(*[_NAME] * len(_FIELDS)))
def test_fast_path_agrees_with_general_path(values: tuple[str | None, ...]) -> None:
    spec = PodSpec(containers=[], **dict(zip(_FIELDS, values, strict=True)))
    general = _name_field_errors(spec, "spec")
    assert _names_valid(spec) == (not general)
    assert _name_fields(spec, "spec") == general


def test_invalid_node_name_is_reported_at_its_path() -> None:
    errs = _name_fields(PodSpec(containers=[], node_name="Bad_Node"), "spec")
    assert [e.field for e in errs] == ["spec.nodeName"]
