"""``maxProperties`` / ``minProperties`` in the CRD schema walker (:mod:`kbatch.api.strategies.kueue.schema`)
with apiextensions' wording: k8s.io/kube-openapi ``pkg/validation/validate/object_validator.go`` (both
checked, then the properties), ``errors/schema.go`` (``TooManyProperties``/``TooFewProperties``: the
value is the count, ``Valid`` the limit), apiextensions-apiserver ``kubeOpenAPIResultToFieldErrors``
(``field.TooMany``; the other a ``field.Invalid`` with kube-openapi's message); and the CRDs' markers:
a ResourceFlavor's ``nodeLabels`` (8), a ProvisioningRequestConfig's and a ProvisioningRequest's
``parameters`` (100), a ProvisioningRequest's ``provisioningClassDetails`` (64): with kubectl in
``tests/server/test_kubectl_crd_property_counts.py``."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.errors import FieldError
from kbatch.api.strategies.kueue.schema import Node, validate

S = Node("string")


def _messages(errors: list[FieldError]) -> list[str]:
    return [str(e) for e in errors]


def test_map_and_object_messages() -> None:
    labels = Node("map", values=S, max_properties=2, min_properties=1)
    assert _messages(validate(labels, {"a": "1", "b": "2", "c": "3"}, path="spec.nodeLabels")) == [
        "spec.nodeLabels: Too many: 3: must have at most 2 items"]
    assert _messages(validate(labels, {}, path="spec.nodeLabels")) == [
        "spec.nodeLabels: Invalid value: 0: spec.nodeLabels in body should have at least 1 properties"]
    one = Node("map", values=S, max_properties=1)
    assert _messages(validate(one, {"a": "", "b": ""}, path="p")) == [
        "p: Too many: 2: must have at most 1 item"]
    obj = Node("object", props={"a": Node("string", max_length=1), "b": S}, min_properties=2)
    assert _messages(validate(obj, {"a": "xx"}, path="spec")) == [
        "spec: Invalid value: 1: spec in body should have at least 2 properties",
        "spec.a: Too long: may not be more than 1 bytes"]


@given(st.dictionaries(st.text(max_size=3), st.text(max_size=2), max_size=12), st.integers(0, 10))
def test_too_many_exactly_when_over_the_limit(value: dict[str, str], limit: int) -> None:
    errors = validate(Node("map", values=S, max_properties=limit), value, path="m")
    assert bool(errors) == (len(value) > limit)
    if errors:
        assert errors[0].bad_value == len(value)

