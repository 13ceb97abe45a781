"""A wrong type assigned into a typed object (pydantic does not validate assignment) is a clean
BadRequest naming the field path, for create, update and status update, and nothing is written."""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import BadRequest
from kbatch.api.frozen import edit
from kbatch.apiserver import APIServer
from kbatch.apiserver.names import new_uid
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore


def _server() -> APIServer:
    return APIServer(MemoryStore(), builtin_registry(), now=lambda: datetime(2026, 1, 1, tzinfo=UTC),
                     rng=random.Random(1))


def _pod() -> Pod:
    return Pod.model_validate({"metadata": {"name": "p", "namespace": "default"},
                               "spec": {"containers": [{"name": "c", "image": "busybox"}]}})


def _break_image(pod: Pod) -> None:
    pod.spec.containers[0].image = 5  # type: ignore[assignment]


def _break_label(pod: Pod) -> None:
    pod.metadata.labels = {"app": 7}  # type: ignore[dict-item]


def _break_phase(pod: Pod) -> None:
    assert pod.status is not None
    pod.status.phase = ["Running"]  # type: ignore[assignment]


# Go's UnmarshalTypeError names the struct and the JSON path without indexes or map keys
GO_FIELD = {"spec.containers[0].image": "Container.spec.containers.image of type string",
            "metadata.labels.app": "ObjectMeta.metadata.labels of type string",
            "status.phase": "PodStatus.status.phase of type v1.PodPhase"}


def _assert_bad_request(err: BadRequest, path: str) -> None:
    assert err.code == 400
    assert err.details is not None and [c.field for c in err.details.causes] == [path]
    assert f"into Go struct field {GO_FIELD[path]}" in err.message


@pytest.mark.parametrize(("breaker", "path"), [(_break_image, "spec.containers[0].image"),
                                               (_break_label, "metadata.labels.app")])
def test_create_with_a_wrong_nested_type_is_a_bad_request_and_writes_nothing(breaker: Any, path: str) -> None:
    server = _server()
    revision = server.store.revision
    pod = _pod()
    breaker(pod)
    with pytest.raises(BadRequest) as info:
        server.create(pod)
    _assert_bad_request(info.value, path)
    assert server.store.revision == revision


@pytest.mark.parametrize(("status", "breaker", "path"), [
    (False, _break_image, "spec.containers[0].image"),
    (False, _break_label, "metadata.labels.app"),
    (True, _break_label, "metadata.labels.app"),
    (True, _break_phase, "status.phase"),
])
def test_update_with_a_wrong_nested_type_is_a_bad_request_and_writes_nothing(status: bool, breaker: Any,
                                                                             path: str) -> None:
    server = _server()
    stored = server.create(_pod())
    revision = server.store.revision
    pod = edit(server.get(Pod, "p", "default"))
    breaker(pod)
    with pytest.raises(BadRequest) as info:
        server.update_status(pod) if status else server.update(pod)
    _assert_bad_request(info.value, path)
    assert server.store.revision == revision
    assert server.get(Pod, "p", "default") == stored


@given(st.integers(min_value=0, max_value=2**64))
def test_new_uid_is_the_text_of_a_version_4_uuid_from_the_same_bits(seed: int) -> None:
    ours, reference = random.Random(seed), random.Random(seed)
    for _ in range(3):
        assert new_uid(ours) == str(uuid.UUID(int=reference.getrandbits(128), version=4))
