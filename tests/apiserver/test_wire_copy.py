"""The fast path of checked_clone (kbatch.apiserver.wire_copy) against the round trip it shortcuts.

Whatever a caller put into a typed object, ``checked_clone`` must accept exactly what the wire round
trip ``validate_json(to_json(obj))`` accepts, fail the same way otherwise, and produce the same
object: equal values of the same types, the same fields sets, the same encoding.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticSerializationError
from ruamel.yaml import YAML

from kbatch.api.batch_v1 import CronJob, Job
from kbatch.api.core_v1 import Container, Event, HTTPGetAction, Node, Pod, Toleration
from kbatch.api.errors import BadRequest
from kbatch.api.meta import ObjectMeta, Resource
from kbatch.api.quantity import Quantity
from kbatch.apiserver.codec import checked_clone
from kbatch.apiserver.wire_copy import NotCanonical, wire_copy

MANIFESTS = Path(__file__).parents[1] / "api" / "manifests"
MODELS: dict[str, type[Resource]] = {"Pod": Pod, "Job": Job, "Node": Node, "Event": Event, "CronJob": CronJob}


# the valid manifests of the kinds above (the same files tests/api/test_model_copy.py copies)
DOCS = [doc for path in sorted(MANIFESTS.rglob("*.yaml")) if not path.name.startswith("invalid")
        for doc in YAML(typ="safe").load_all(path.read_text()) if doc and doc.get("kind") in MODELS]


def test_there_are_manifests() -> None:
    assert {doc["kind"] for doc in DOCS} >= {"Pod", "Job"}


def _round_trip(value: BaseModel) -> BaseModel:
    data = value.__pydantic_serializer__.to_json(value, by_alias=True, exclude_none=True, warnings=False)
    return type(value).__pydantic_validator__.validate_json(data)  # type: ignore[no-any-return]


def _shape(value: Any) -> Any:
    """Everything observable about a value: types, fields sets, order, time zones, quantity text."""
    if isinstance(value, BaseModel):
        return (type(value), frozenset(value.model_fields_set), value.__pydantic_extra__,
                tuple((k, _shape(v)) for k, v in value.__dict__.items()))
    if isinstance(value, list):
        return ("list", tuple(_shape(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((type(k), k, _shape(v)) for k, v in value.items()))
    if isinstance(value, datetime):
        return (type(value), value, value.tzinfo, value.fold)
    if isinstance(value, Quantity):
        return (Quantity, str(value))
    return (type(value), value)


def _mutables(value: Any, out: set[int]) -> None:
    if isinstance(value, BaseModel):
        out.update((id(value), id(value.__dict__), id(value.__pydantic_fields_set__)))
        for v in value.__dict__.values():
            _mutables(v, out)
    elif isinstance(value, list | dict):
        out.add(id(value))
        for v in value.values() if isinstance(value, dict) else value:
            _mutables(v, out)


def _slots(value: Any, out: list[tuple[BaseModel, str]]) -> None:
    """Every (model, field name) reachable from ``value``."""
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            out.append((value, name))
            _slots(value.__dict__[name], out)
    elif isinstance(value, list):
        for v in value:
            _slots(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            _slots(v, out)


SAMPLE_TIME = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**65), 2**65), st.floats(allow_nan=True),
    st.sampled_from(["", "x", "8080", " 5 ", "http", "é", "\ud800", "Always", "100m", "1.5Gi",
                     "2026-01-01T00:00:00Z"]),
    st.sampled_from([SAMPLE_TIME, SAMPLE_TIME.replace(microsecond=7), SAMPLE_TIME.replace(tzinfo=None),
                     SAMPLE_TIME.astimezone(timezone(timedelta(hours=2))), SAMPLE_TIME.replace(fold=1)]),
    st.sampled_from([Quantity.parse("100m"), Quantity.parse("0.1"), Quantity.parse("1Gi")]),
    st.lists(st.sampled_from(["a", 1, None, "\ud800"]), max_size=3),
    st.dictionaries(st.sampled_from(["a", "b"]), st.sampled_from(["v", 2, None]), max_size=2),
    st.sampled_from([{1: "a"}, {"a": {"b": [1, 2.5, True]}}, [{"x": 1}]]),
    st.builds(lambda: Toleration(key="k", operator="Exists")),
    st.builds(lambda: Container(name="c", image="i")),
    st.builds(lambda: ObjectMeta(name="m")),
    st.builds(lambda: HTTPGetAction(port="http")),
)


def _same_type(current: Any) -> st.SearchStrategy[Any]:
    """A value of the type already there (what a careful caller assigns)."""
    if isinstance(current, bool):
        return st.booleans()
    if isinstance(current, int):
        return st.integers(-(2**40), 2**40)
    if isinstance(current, str):
        return st.text(max_size=5)
    if isinstance(current, datetime):
        return st.datetimes(timezones=st.just(UTC)).map(lambda t: t.replace(microsecond=0))
    if isinstance(current, list):
        return st.just(list(current))
    if isinstance(current, dict):
        return st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=2) if all(
            isinstance(v, str) for v in current.values()) else st.just(dict(current))
    return st.just(current)


def _outcome(fn: Any, value: BaseModel) -> tuple[str, Any]:
    try:
        return "ok", fn(value)
    except (ValidationError, BadRequest) as err:
        return "invalid", type(err)
    except PydanticSerializationError:
        return "unencodable", None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=st.sampled_from(DOCS), data=st.data())
def test_the_fast_path_gives_what_the_round_trip_gives(doc: dict[str, Any], data: st.DataObject) -> None:
    obj = MODELS[doc["kind"]].model_validate(doc)
    for _ in range(data.draw(st.integers(0, 3))):
        slots: list[tuple[BaseModel, str]] = []
        _slots(obj, slots)
        model, name = data.draw(st.sampled_from(slots))
        current = model.__dict__[name]
        setattr(model, name, data.draw(VALUES if data.draw(st.booleans()) else _same_type(current)))
    expected = _outcome(_round_trip, obj)
    try:
        fast = wire_copy(obj)
    except NotCanonical:
        fast = None
    event(f"fast path: {fast is not None}, round trip: {expected[0]}")
    if fast is not None:  # the fast path vouched for the object: it is exactly the round trip's
        assert expected[0] == "ok"
        assert _shape(fast) == _shape(expected[1])
        assert fast.to_json() == expected[1].to_json()
        mine: set[int] = set()
        theirs: set[int] = set()
        _mutables(fast, mine)
        _mutables(obj, theirs)
        assert not mine & theirs
    # and checked_clone as a whole behaves as the round trip alone did
    got = _outcome(checked_clone, obj)
    if expected[0] == "ok":
        assert got[0] == "ok" and _shape(got[1]) == _shape(expected[1])
    elif expected[0] == "invalid":  # a BadRequest (unknown fields: its StrictDecodingError subclass)
        assert got[0] == "invalid" and issubclass(got[1], BadRequest)
    else:
        assert got[0] == "unencodable"


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: f"{d['kind']}/{d['metadata'].get('name')}")
def test_valid_manifests_take_the_fast_path(doc: dict[str, Any]) -> None:
    obj = MODELS[doc["kind"]].model_validate(doc)
    assert _shape(wire_copy(obj)) == _shape(_round_trip(obj))


@pytest.mark.parametrize(("value", "fast"), [
    (SAMPLE_TIME, SAMPLE_TIME),
    (SAMPLE_TIME.replace(microsecond=5), SAMPLE_TIME),  # the wire keeps whole seconds: the copy too
    (SAMPLE_TIME.replace(tzinfo=None), None),  # naive: the round trip reads it as local time
    (SAMPLE_TIME.astimezone(timezone(timedelta(hours=1))), None),  # decodes to UTC
])
def test_times_are_copied_at_wire_precision_and_only_in_utc(value: datetime, fast: datetime | None) -> None:
    meta = ObjectMeta(name="m")
    meta.creation_timestamp = value
    if fast is value:
        assert wire_copy(meta).creation_timestamp is value
    elif fast is not None:
        copied = wire_copy(meta).creation_timestamp
        assert copied == fast and copied.tzinfo is UTC and meta.creation_timestamp is value
    else:
        with pytest.raises(NotCanonical):
            wire_copy(meta)
    assert checked_clone(meta).creation_timestamp == _round_trip(meta).creation_timestamp  # type: ignore[attr-defined]


def test_a_time_in_a_list_is_vouched_for_only_at_whole_seconds() -> None:
    """Items of a list (or map) of times are checked, not replaced: a fraction takes the round trip."""
    from kbatch.api.base import Time
    from kbatch.apiserver.wire_copy import _inline, _list_copier, _rule

    copy = _list_copier(_inline(_rule(Time, [])))
    assert copy([SAMPLE_TIME]) == [SAMPLE_TIME]
    with pytest.raises(NotCanonical):
        copy([SAMPLE_TIME.replace(microsecond=1)])


@pytest.mark.parametrize(("port", "decoded"), [(80, 80), ("http", "http"), ("8080", 8080)])
def test_int_or_string_digits_decode_as_an_int(port: Any, decoded: Any) -> None:
    action = HTTPGetAction(port=80)
    action.port = port
    assert checked_clone(action).port == decoded


def test_none_in_a_field_that_is_not_optional_is_the_round_trips_business() -> None:
    container = Container(name="c", image="i")
    container.name = None  # type: ignore[assignment]
    with pytest.raises(NotCanonical):
        wire_copy(container)
    assert checked_clone(container).name == "" == Container.model_fields["name"].default  # omitted: default
    pod = Pod.model_validate({"metadata": {"name": "p"},
                              "spec": {"containers": [{"name": "c", "image": "i"}]}})
    pod.spec.containers[0].name = 5  # type: ignore[assignment]
    with pytest.raises(BadRequest):
        checked_clone(pod)


def test_the_fields_set_is_the_decodes() -> None:
    meta = ObjectMeta(name="m", namespace=None, labels={})
    assert "namespace" in meta.model_fields_set
    assert wire_copy(meta).model_fields_set == {"name", "labels"} == _round_trip(meta).model_fields_set
