"""The trace over a bare store: canonical records, merge-patch diffs, a stable digest."""

from __future__ import annotations

import json

from kbatch.runtime.clock import VirtualClock
from kbatch.runtime.trace import Trace, merge_diff
from kbatch.store import MemoryStore


def _put(store: MemoryStore, key: str, obj: dict) -> None:
    store.put(key.encode(), json.dumps(obj).encode())


def _job(rv: str, parallelism: int, **extra: object) -> dict:
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "train", "namespace": "default", "resourceVersion": rv},
            "spec": {"parallelism": parallelism, **extra}}


def test_merge_diff_is_rfc7386() -> None:
    assert merge_diff({"a": 1, "b": {"c": 1, "d": 2}}, {"a": 1, "b": {"c": 2}, "e": [1]}) == {
        "b": {"c": 2, "d": None}, "e": [1]}
    assert merge_diff({"a": [1, 2]}, {"a": [1]}) == {"a": [1]}


def test_records_create_update_delete_with_virtual_time() -> None:
    store, clock = MemoryStore(), VirtualClock()
    trace = Trace(store, clock)
    _put(store, "/jobs/default/train", _job("1", 1))
    trace.pump()
    clock.advance(5)
    _put(store, "/jobs/default/train", _job("2", 2, suspend=True))
    store.delete_range(b"/jobs/default/train")
    trace.pump()
    lines = trace.lines()
    assert [json.loads(line)["verb"] for line in lines] == ["create", "update", "delete"]
    update = json.loads(lines[1])
    assert update["diff"] == {"spec": {"parallelism": 2, "suspend": True}}, "resourceVersion is left out"
    assert update["t"] == "2025-01-01T00:00:05.000000Z" and update["kind"] == "Job.batch"
    assert lines[0].startswith('{"diff":{"apiVersion":"batch/v1"'), "keys sorted, no spaces"
    assert json.loads(lines[2])["diff"] is None and json.loads(lines[2])["name"] == "train"


def test_digest_depends_on_content_only() -> None:
    digests = []
    for _ in range(2):
        store, clock = MemoryStore(), VirtualClock()
        trace = Trace(store, clock, keep_records=False)
        for i in range(5):
            _put(store, f"/jobs/default/j{i}", _job(str(i), i))
        trace.pump()
        digests.append(trace.digest())
    assert digests[0] == digests[1]
    store, clock = MemoryStore(), VirtualClock()
    trace = Trace(store, clock)
    _put(store, "/jobs/default/j0", _job("0", 99))
    trace.pump()
    assert trace.digest() != digests[0]


def test_disabled_trace_does_no_work_and_says_so() -> None:
    import pytest

    from kbatch.runtime.controlplane import ControlPlane

    cp = ControlPlane(seed=0, controllers="", trace=False)
    cp.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "c"}})
    cp.run_until_idle()
    assert len(cp.trace) == 0 and cp.trace.records == []
    with pytest.raises(RuntimeError, match="disabled"):
        cp.trace.digest()
    watched = ControlPlane(seed=0, controllers="")
    watched.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "c"}})
    watched.run_until_idle()
    assert len(watched.trace) >= 1
