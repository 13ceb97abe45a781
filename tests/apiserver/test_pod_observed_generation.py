"""Pod generation and observedGeneration in the API server (KEP-5067 Pod Generation; feature gate
PodObservedGenerationTracking, beta and on by default since 1.34, GA in 1.35).

Upstream ``pkg/registry/core/pod/strategy.go``: a created pod has ``metadata.generation`` 1
(``PrepareForCreate``, whatever the client sent), a spec update bumps it (``updatePodGeneration``),
metadata and status writes do not; a graceful deletion bumps it too (``rest.BeforeDelete``). A
``pods/status`` write that clears ``status.observedGeneration`` or a condition's
``observedGeneration`` keeps the stored value (``preserveOldObservedGeneration``, conditions matched
by type, the n-th of a type with the n-th stored one); any other value is taken as written, lower
ones included (the KEP: "regressions back to decreasing values" are permitted)."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.apiserver import APIServer
from kbatch.families import builtin, builtin_registry
from kbatch.store import MemoryStore

KEY = b"/registry/pods/default/p"
TYPES = ("Ready", "PodScheduled", "ConfigIssue")


def _server(held: bool = False, generation: int | None = None) -> APIServer:
    # the generation rules are under test: updates below rebuild the spec as the test wrote it, so
    # the ServiceAccount plugin's additions (account name, API volume) are left out
    server = APIServer(MemoryStore(), builtin_registry(), now=lambda: datetime(2026, 1, 1, tzinfo=UTC),
                       rng=random.Random(5),
                       admission_plugins=builtin().admission_plugins(disable="ServiceAccount"))
    meta: dict[str, Any] = {"name": "p"}
    if generation is not None:
        meta["generation"] = generation
    server.create(Pod.model_validate({
        "metadata": meta, "spec": {"containers": [{"name": "c", "image": "i"}],
                                   "terminationGracePeriodSeconds": 30}}))
    if held:
        server.decoded.shared(Pod, server.store.range(KEY).kvs[0])
    return server


def _stored(server: APIServer) -> Pod:
    return server.get(Pod, "p", "default")


def _set_status(server: APIServer, status: dict[str, Any]) -> None:
    pod = _stored(server)
    server.update_status(Pod.model_validate({**pod.to_dict(), "status": {**pod.status.to_dict(), **status}}))


def _conditions(pod: Pod) -> list[tuple[str, int | None]]:
    return [(c.type, c.observed_generation) for c in pod.status.conditions or ()]  # type: ignore[union-attr]


def test_a_created_pod_has_generation_1_whatever_the_client_sent() -> None:
    assert _stored(_server()).metadata.generation == 1
    assert _stored(_server(generation=7)).metadata.generation == 1


def test_only_a_spec_update_bumps_the_generation() -> None:
    server = _server()
    server.patch(Pod, "p", {"metadata": {"labels": {"a": "b"}}}, "default")
    _set_status(server, {"phase": "Running"})
    assert _stored(server).metadata.generation == 1
    server.patch(Pod, "p", {"spec": {"containers": [{"name": "c", "image": "i2"}]}}, "default")
    assert _stored(server).metadata.generation == 2
    server.patch(Pod, "p", {"spec": {"activeDeadlineSeconds": 60}}, "default")
    assert _stored(server).metadata.generation == 3


def test_binding_keeps_and_a_graceful_deletion_bumps_the_generation() -> None:
    server = _server()
    server.client().bind("p", "default", "n")  # type: ignore[attr-defined]
    assert _stored(server).metadata.generation == 1  # binding bypasses the strategy (storage.go)
    server.delete(Pod, "p", "default")
    stored = _stored(server)
    assert stored.metadata.deletion_timestamp is not None and stored.metadata.generation == 2


def test_clearing_observed_generation_keeps_the_stored_value() -> None:
    server = _server()
    _set_status(server, {"observedGeneration": 3, "conditions": [
        {"type": "Ready", "status": "True", "observedGeneration": 3}]})
    server.patch(Pod, "p", {"status": {"observedGeneration": None, "conditions": [
        {"type": "Ready", "observedGeneration": None}]}}, "default", patch_type="strategic", status=True)
    stored = _stored(server)
    assert stored.status.observed_generation == 3 and _conditions(stored) == [("Ready", 3)]  # type: ignore[union-attr]
    server.patch(Pod, "p", {"status": {"observedGeneration": 0}}, "default", status=True)
    assert _stored(server).status.observed_generation == 3  # type: ignore[union-attr]


def test_a_lower_observed_generation_is_taken_as_written() -> None:
    server = _server()
    _set_status(server, {"observedGeneration": 3})
    server.patch(Pod, "p", {"status": {"observedGeneration": 2}}, "default", status=True)
    assert _stored(server).status.observed_generation == 2  # type: ignore[union-attr]


def test_repeated_condition_types_match_in_order() -> None:
    server = _server()
    _set_status(server, {"conditions": [
        {"type": "X", "status": "True", "observedGeneration": 1},
        {"type": "Ready", "status": "True", "observedGeneration": 4},
        {"type": "X", "status": "False", "observedGeneration": 2}]})
    _set_status(server, {"conditions": [
        {"type": "X", "status": "True"}, {"type": "X", "status": "True"}, {"type": "X", "status": "True"},
        {"type": "Ready", "status": "False"}, {"type": "New", "status": "True"}]})
    assert _conditions(_stored(server)) == [("X", 1), ("X", 2), ("X", None), ("Ready", 4), ("New", None)]


def test_a_preserved_condition_value_does_not_touch_the_held_object() -> None:
    server = _server(held=True)
    _set_status(server, {"conditions": [{"type": "Ready", "status": "True", "observedGeneration": 4}]})
    server.decoded.shared(Pod, server.store.range(KEY).kvs[0])
    held = server.decoded.shared(Pod, server.store.range(KEY).kvs[0])
    written = server.patch(Pod, "p", {"status": {"conditions": [
        {"type": "Ready", "observedGeneration": None, "reason": "R"}]}}, "default",
        patch_type="strategic", status=True)
    assert _conditions(written) == [("Ready", 4)]
    assert _conditions(held) == [("Ready", 4)] and held.status.conditions[0].reason is None  # type: ignore
    assert _conditions(_stored(server)) == [("Ready", 4)]


GEN = st.one_of(st.none(), st.integers(0, 6))


@settings(max_examples=60, deadline=None)
@given(held=st.booleans(), via=st.sampled_from(["update", "merge", "strategic"]),
       stored_gen=GEN, written_gen=GEN,
       stored=st.lists(st.tuples(st.sampled_from(TYPES), GEN), max_size=4),
       written=st.lists(st.tuples(st.sampled_from(TYPES), GEN), max_size=4))
def test_a_status_write_keeps_only_what_it_clears(held: bool, via: str, stored_gen: int | None,
                                                   written_gen: int | None,
                                                   stored: list[tuple[str, int | None]],
                                                   written: list[tuple[str, int | None]]) -> None:
    server = _server(held)

    def conds(items: list[tuple[str, int | None]]) -> list[dict[str, Any]]:
        return [{"type": t, "status": "True", **({"observedGeneration": g} if g is not None else {})}
                for t, g in items]

    _set_status(server, {"observedGeneration": stored_gen, "conditions": conds(stored) or None})
    before = _stored(server)
    status = {"observedGeneration": written_gen, "conditions": conds(written) or None}
    if via == "update":
        _set_status(server, status)
    elif via == "merge":
        server.patch(Pod, "p", {"status": status}, "default", patch_type="merge", status=True)
    else:  # a list with a merge key: replace it whole so the written items are exactly these
        server.patch(Pod, "p", {"status": {**status, "$patch": "replace"}}, "default",
                     patch_type="strategic", status=True)
    after = _stored(server)
    kept = before.status.observed_generation  # type: ignore[union-attr]
    assert after.status.observed_generation == (written_gen or kept or written_gen)  # type: ignore[union-attr]
    queues: dict[str, list[int | None]] = {}
    for t, g in _conditions(before):
        queues.setdefault(t, []).append(g)
    expected = []
    for t, g in written:
        queue = queues.get(t) or []
        prior = queue.pop(0) if queue else None
        expected.append((t, g or prior or g))
    assert _conditions(after) == expected
