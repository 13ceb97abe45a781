"""The models' wire format after the performance work in kbatch.api.base (direct pydantic-core calls,
memoised time formatting, a JSON-only time parsing path): byte for byte what a reference encoder
makes of the same object, decode(encode(x)) == x, times at the right precision, and JSON and Python
decoding agreeing on values and on the field paths of errors.

Time formats: metav1.Time prints RFC 3339 in UTC with second precision, metav1.MicroTime with six
fractional digits (k8s.io/apimachinery ``pkg/apis/meta/v1/time.go``, ``micro_time.go``).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from kbatch.api.base import format_micro_time, format_time
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Event, Pod

NAME = st.from_regex(r"[a-z]([-a-z0-9]{0,8}[a-z0-9])?", fullmatch=True)
OFFSETS = st.integers(-23 * 60 - 59, 23 * 60 + 59).map(lambda m: timezone(timedelta(minutes=m)))
INSTANTS = st.datetimes(min_value=datetime(1000, 1, 2), max_value=datetime(9999, 12, 30), timezones=OFFSETS)


def _reference_json(model: Any) -> bytes:
    """The encoding as a plain-JSON reference computes it: the model's JSON-mode dict, compact."""
    data = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


def _second_text(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@st.composite
def rfc3339(draw: st.DrawFn) -> tuple[str, datetime]:
    """An RFC 3339 spelling of a random instant, and the instant (UTC, exact)."""
    when = draw(INSTANTS)
    if draw(st.booleans()):
        when = when.replace(microsecond=0)
    base = when.replace(tzinfo=None).isoformat(timespec="seconds" if not when.microsecond else "microseconds")
    offset = when.utcoffset()
    if offset == timedelta(0) and draw(st.booleans()):
        suffix = draw(st.sampled_from(["Z", "z"]))
    else:
        minutes = int(offset.total_seconds()) // 60 if offset is not None else 0
        sign = "-" if minutes < 0 else "+"
        suffix = f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
    return base + suffix, when.astimezone(UTC)


@st.composite
def running_pods(draw: st.DrawFn) -> dict[str, Any]:
    """A Pod as the store holds it after the kubelet wrote status: several times, quantities."""
    stamp = draw(st.lists(rfc3339(), min_size=4, max_size=4))
    conditions = [
        {"type": t, "status": draw(st.sampled_from(["True", "False"])), "lastTransitionTime": stamp[i][0]}
        for i, t in enumerate(draw(st.lists(st.sampled_from(
            ["PodScheduled", "Initialized", "ContainersReady", "Ready"]), unique=True, max_size=4)))
    ]
    state = draw(st.sampled_from([
        {"running": {"startedAt": stamp[0][0]}},
        {"terminated": {"exitCode": draw(st.integers(0, 255)), "reason": "Completed",
                        "startedAt": stamp[1][0], "finishedAt": stamp[2][0]}},
        {"waiting": {"reason": "ContainerCreating"}},
    ]))
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": draw(NAME), "namespace": "default", "uid": draw(st.uuids()).hex,
                     "creationTimestamp": stamp[3][0],
                     "labels": draw(st.dictionaries(NAME, NAME, max_size=2))},
        "spec": {"containers": [{"name": "main", "image": "busybox",
                                 "command": draw(st.lists(st.text(max_size=6), max_size=2)),
                                 "resources": {"requests": {
                                     "cpu": draw(st.sampled_from(["100m", "1", "1500m", "2"])),
                                     "memory": draw(st.sampled_from(["128Mi", "1Gi", "1536Mi"]))}}}],
                 "restartPolicy": "Never", "nodeName": draw(NAME)},
        "status": {"phase": draw(st.sampled_from(["Running", "Succeeded", "Failed"])),
                   "conditions": conditions, "startTime": stamp[0][0],
                   "containerStatuses": [{"name": "main", "state": state, "ready": draw(st.booleans()),
                                          "restartCount": 0, "image": "busybox", "imageID": ""}]},
    }


@settings(max_examples=80, deadline=None)
@given(running_pods())
def test_encoding_is_the_reference_encoding_and_round_trips(data: dict[str, Any]) -> None:
    raw = json.dumps(data).encode()
    pod = Pod.model_validate_json(raw)
    assert pod == Pod.model_validate(json.loads(raw))  # JSON and Python decoding agree
    wire = pod.to_json()
    assert wire == _reference_json(pod)
    again = Pod.from_json(wire)  # times now whole seconds: decode(encode(x)) == x from here on
    assert again == pod.clone() == Pod.from_json(again.to_json())
    assert pod.model_copy(deep=True) == pod
    assert again.to_json() == wire  # a stored object re-encodes to the same bytes
    assert pod.metadata.creation_timestamp is not None
    assert pod.metadata.creation_timestamp.tzinfo is UTC
    assert json.loads(wire)["metadata"]["creationTimestamp"] == _second_text(pod.metadata.creation_timestamp)


@settings(max_examples=150, deadline=None)
@given(rfc3339())
def test_times_decode_to_the_utc_instant_and_print_at_their_precision(case: tuple[str, datetime]) -> None:
    text, instant = case
    for decoded in (Pod.model_validate_json(json.dumps({"metadata": {"creationTimestamp": text}})),
                    Pod.model_validate({"metadata": {"creationTimestamp": text}})):
        when = decoded.metadata.creation_timestamp
        assert when == instant and when.tzinfo is UTC
        assert decoded.to_dict()["metadata"]["creationTimestamp"] == _second_text(instant)
    event = Event.model_validate_json(json.dumps({"eventTime": text, "involvedObject": {}}))
    assert event.to_dict()["eventTime"] == instant.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@given(INSTANTS)
def test_format_time_depends_only_on_the_instant(when: datetime) -> None:
    # format_time is memoised by datetime equality, which for aware values is the instant: every
    # spelling of one instant must print alike, and repeating a call must not change the answer.
    spellings = [when, when.astimezone(UTC), when.astimezone(timezone(timedelta(hours=-7)))]
    expected = _second_text(when)
    assert [format_time(w) for w in spellings] == [expected] * 3
    assert format_time(when) == expected
    assert format_micro_time(when) == when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def test_sub_second_user_times_keep_microseconds_but_print_seconds() -> None:
    meta = {"name": "j", "creationTimestamp": "2024-05-06T07:08:09.987654+02:00"}
    job = Job.model_validate({"metadata": meta, "spec": {"template": {"spec": {"containers": []}}}})
    assert job.metadata.creation_timestamp == datetime(2024, 5, 6, 5, 8, 9, 987654, tzinfo=UTC)
    assert json.loads(job.to_json())["metadata"]["creationTimestamp"] == "2024-05-06T05:08:09Z"


def test_python_input_accepts_datetimes_and_assumes_utc_for_naive_ones() -> None:
    naive = datetime(2024, 1, 2, 3, 4, 5)
    pod = Pod(metadata={"creation_timestamp": naive})  # type: ignore[arg-type]
    assert pod.metadata.creation_timestamp == naive.replace(tzinfo=UTC)
    plus_two = datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=2)))
    assert Pod(metadata={"creation_timestamp": plus_two}).to_dict()["metadata"] == {  # type: ignore[arg-type]
        "creationTimestamp": "2024-01-02T01:04:05Z"}


def _locs(err: ValidationError) -> list[tuple[Any, ...]]:
    return [e["loc"] for e in err.errors()]


@pytest.mark.parametrize("bad", ["2024-01-02T03:04:05", "yesterday", "", 5, 1.5, True, [], {},
                                 "0001-01-01T00:00:00+01:00"])
def test_bad_times_fail_at_their_path_in_json_and_python(bad: Any) -> None:
    data = {"status": {"conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": bad}]}}
    where = ("status", "conditions", 0, "lastTransitionTime")
    with pytest.raises(ValidationError) as from_json:
        Pod.model_validate_json(json.dumps(data))
    with pytest.raises(ValidationError) as from_python:
        Pod.model_validate(data)
    assert _locs(from_json.value) == _locs(from_python.value) == [where]


def test_naive_time_text_is_rejected_with_upstreams_reason() -> None:
    with pytest.raises(ValidationError, match="has no time zone"):
        Pod.model_validate_json(b'{"metadata":{"creationTimestamp":"2024-01-02T03:04:05"}}')


def test_openapi_schema_still_describes_times_as_strings() -> None:
    props = Pod.model_json_schema(by_alias=True, mode="serialization")["$defs"]["ObjectMeta"]["properties"]
    assert {"type": "string"} in props["creationTimestamp"]["anyOf"]
