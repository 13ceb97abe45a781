"""How a field error renders its bad value: ``field.Error.ErrorBody`` of k8s.io/apimachinery 0.37
(``pkg/util/validation/field/errors.go``): numbers and booleans bare, strings as ``%q``, anything
else as ``json.Marshal`` writes it (compact, map keys sorted, ``<``/``>``/``&`` escaped, a nil map
or slice ``null``). Kueue's ``scheduler_test.go`` expects ``Invalid value: ["cpu"]`` that way."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.errors import FieldError
from kbatch.api.meta import LabelSelector, ObjectMeta
from kbatch.api.validation import validate_object_meta_update


@pytest.mark.parametrize(("value", "rendered"), [
    (["cpu", "memory"], '["cpu","memory"]'),
    ([2, 1], "[2,1]"),
    ({"rules": [{"succeededCount": 1}]}, '{"rules":[{"succeededCount":1}]}'),
    ({"b": 1, "a": 2}, '{"a":2,"b":1}'),
    ({}, "{}"),
    (None, "null"),
    ({"k": "<a&b>"}, '{"k":"\\u003ca\\u0026b\\u003e"}'),
    (["é"], '["é"]'),
    (7, "7"),
    (True, "true"),
    ("x", '"x"'),
])
def test_bad_values_render_as_apimachinery_renders_them(value: object, rendered: str) -> None:
    assert str(FieldError.invalid("spec.f", value, "no")) == f"spec.f: Invalid value: {rendered}: no"


def test_an_api_object_renders_as_its_wire_form() -> None:
    selector = LabelSelector.model_validate({"matchLabels": {"a": "b"}})
    rendered = str(FieldError.invalid("spec.selector", selector))
    assert rendered == 'spec.selector: Invalid value: {"matchLabels":{"a":"b"}}'


@given(st.recursive(st.integers() | st.text(alphabet="ab<>&", max_size=3),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text("ab", max_size=2), inner, max_size=3), max_leaves=8))
def test_a_rendered_value_reads_back_as_the_value(value: object) -> None:
    text = str(FieldError.invalid("f", value))
    assert json.loads(text.removeprefix("f: Invalid value: ")) == value


T = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)


@pytest.mark.parametrize(("new", "rendered"), [
    (T, '"2026-01-02T03:04:05Z"'),
    (None, "null"),
])
def test_an_immutable_timestamp_renders_as_metav1_time_marshals(new: datetime | None, rendered: str) -> None:
    """``ValidateObjectMetaAccessorUpdate`` passes the ``*metav1.Time`` itself to
    ``ValidateImmutableField``; ``ErrorBody`` has no case for it, so ``json.Marshal`` writes it as
    ``Time.MarshalJSON`` does (RFC 3339, whole seconds, UTC) and a nil pointer as ``null``
    (k8s.io/apimachinery 0.37 ``pkg/api/validation/objectmeta.go``, ``pkg/apis/meta/v1/time.go``)."""
    old = ObjectMeta(name="a", resource_version="1", deletion_timestamp=T if new is None else None)
    new_meta = old.model_copy(update={"deletion_timestamp": new})
    assert [str(e) for e in validate_object_meta_update(new_meta, old)] == [
        f"metadata.deletionTimestamp: Invalid value: {rendered}: field is immutable"]


def test_a_time_inside_a_json_value_renders_as_its_wire_form() -> None:
    assert str(FieldError.invalid("f", {"at": T})) == 'f: Invalid value: {"at":"2026-01-02T03:04:05Z"}'


def test_supported_values_are_quoted_as_strconv_quote_does() -> None:
    """``field.NotSupported`` (apimachinery 0.37) quotes each supported value with
    ``strconv.Quote``: printable non-ASCII stays as it is, a control byte is escaped by name."""
    err = FieldError.not_supported("spec.mode", "x", ["é", "a\x07"])
    assert str(err) == 'spec.mode: Unsupported value: "x": supported values: "é", "a\\a"'
