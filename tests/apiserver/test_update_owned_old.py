"""An update whose ``old`` is its own decode (nothing cached) takes old's fields without copying them;
with ``old`` held in the decode cache it copies them. Both must write and return the same."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import StatusError
from kbatch.api.registry import builtin_registry
from kbatch.apiserver import APIServer
from kbatch.apiserver.codec import decode
from kbatch.store import MemoryStore

KEY = b"/registry/pods/default/p"


def _server(held: bool) -> APIServer:
    server = APIServer(MemoryStore(), builtin_registry(), now=lambda: datetime(2026, 1, 1, tzinfo=UTC),
                       rng=random.Random(5))
    server.create(Pod.model_validate({"metadata": {"name": "p", "labels": {"a": "1"}}, "spec": {
        "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}]}}))
    if held:
        server.decoded.shared(Pod, server.store.range(KEY).kvs[0])
    return server


def _change(pod: Pod, phase: str, ip: str | None, label: str, image: str) -> None:
    assert pod.status is not None
    pod.status.phase = phase
    pod.status.pod_ip = ip
    pod.metadata.labels = {"a": label}
    pod.spec.containers[0].image = image


def _outcome(server: APIServer, status: bool, change: tuple[Any, ...]) -> tuple[Any, ...]:
    pod = server.get(Pod, "p", "default")
    _change(pod, *change)
    try:
        out = server.update_status(pod) if status else server.update(pod)
    except StatusError as err:
        return ("error", type(err), err.message)
    kv = server.store.range(KEY).kvs[0]
    out.spec.containers[0].image = "mutated by the caller"  # shares nothing with what is cached
    assert out.status is not None
    out.status.phase = "Unknown"
    held = server.decoded.held(kv)
    assert held is None or held == decode(Pod, kv)
    return ("ok", kv.value, kv.mod_revision)


@settings(max_examples=60, deadline=None)
@given(status=st.booleans(), phase=st.sampled_from(["Pending", "Running", "Failed"]),
       ip=st.sampled_from([None, "10.0.0.1"]), label=st.sampled_from(["1", "2"]),
       image=st.sampled_from(["i", "j"]))
def test_an_owned_old_writes_what_a_shared_old_writes(status: bool, phase: str, ip: str | None, label: str,
                                                      image: str) -> None:
    change = (phase, ip, label, image)
    assert _outcome(_server(False), status, change) == _outcome(_server(True), status, change)


def test_a_status_update_on_a_miss_keeps_the_cache_empty_and_writes_the_spec_once() -> None:
    server = _server(False)
    pod = server.get(Pod, "p", "default")
    assert pod.status is not None
    pod.status.phase = "Running"
    before = server.decoded.objects
    out = server.update_status(pod)
    assert server.decoded.objects == before
    kv = server.store.range(KEY).kvs[0]
    assert out == decode(Pod, kv) and out.status.phase == "Running"  # type: ignore[union-attr]
