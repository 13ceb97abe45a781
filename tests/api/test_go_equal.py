"""``go_equal``: kube-apiserver's ``Semantic.DeepEqual`` over kbatch's models (k8s.io/apimachinery
``third_party/forked/golang/reflect/deep_equal.go``: nil and empty slices and maps are equal; Go's
by-value fields cannot be unset, so an unset one equals its zero; a nil pointer is not an empty one)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.core_v1 import Container
from kbatch.api.go_equal import go_equal
from kbatch.api.wire_zeros import tree_of

SPEC = tree_of("v1", "Pod").fields["spec"]  # type: ignore[union-attr]
CONTAINER = SPEC.fields["containers"].each


def _container(**fields: Any) -> Container:
    return Container.model_validate({"name": "c", "image": "busybox", **fields})


def test_explicit_empties_equal_unset_fields() -> None:
    bare = _container()
    assert go_equal(bare, _container(resources={}, ports=[], env=[]), CONTAINER)
    assert go_equal(bare, _container(resources={"limits": {}}), CONTAINER)


def test_a_nil_pointer_is_not_an_empty_struct() -> None:
    assert not go_equal(_container(), _container(securityContext={}), CONTAINER)


def test_real_differences_stay() -> None:
    assert not go_equal(_container(), _container(resources={"limits": {"cpu": "1"}}), CONTAINER)
    assert not go_equal(_container(ports=[]), _container(ports=[{"containerPort": 80}]), CONTAINER)
    assert not go_equal(_container(), _container(command=["sh"]), CONTAINER)


_FIELDS = st.fixed_dictionaries({}, optional={
    "resources": st.sampled_from([{}, {"limits": {}}, {"requests": {"cpu": "1"}}]),
    "ports": st.sampled_from([[], [{"containerPort": 80}]]),
    "env": st.sampled_from([[], [{"name": "A", "value": "1"}]]),
    "securityContext": st.sampled_from([{}, {"privileged": True}]),
    "command": st.sampled_from([[], ["sh"]]),
})


@given(_FIELDS, _FIELDS)
def test_go_equal_is_symmetric_and_reflexive(a: dict[str, Any], b: dict[str, Any]) -> None:
    x, y = _container(**a), _container(**b)
    assert go_equal(x, x, CONTAINER) and go_equal(y, y, CONTAINER)
    assert go_equal(x, y, CONTAINER) == go_equal(y, x, CONTAINER)


@given(_FIELDS)
def test_equal_to_its_served_and_stripped_copy(fields: dict[str, Any]) -> None:
    """What a client sends back (empty lists and structs gone) is the same Go value."""
    kept = {k: v for k, v in fields.items() if v not in ([], {}) or k == "securityContext"}
    if kept.get("resources") == {"limits": {}}:
        kept.pop("resources")
    assert go_equal(_container(**fields), _container(**kept), CONTAINER)
