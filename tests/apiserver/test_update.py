"""Update and status update: optimistic concurrency, generation, status split, no-op, immutables."""

from __future__ import annotations

import random

import pytest

from kbatch.api.errors import Conflict, Invalid, NotFound
from kbatch.api.frozen import edit
from kbatch.api.strategy import DefaultStrategy
from kbatch.apiserver import APIServer
from kbatch.store import MemoryStore
from tests.apiserver.conftest import FakeClock
from tests.apiserver.kinds import Gadget, Widget, WidgetStatus, make_registry


def make(server: APIServer, name: str = "w", **spec: object) -> Widget:
    return server.create(Widget.model_validate({"metadata": {"name": name, "namespace": "default"},
                                                "spec": {"size": 1, **spec}}))


def test_stale_resource_version_is_conflict(server: APIServer) -> None:
    first = edit(make(server))
    fresh = first.clone()
    fresh.spec.size = 2  # type: ignore[union-attr]
    server.update(fresh)
    first.spec.size = 3  # type: ignore[union-attr]
    with pytest.raises(Conflict) as err:
        server.update(first)
    assert err.value.message == ('Operation cannot be fulfilled on widgets "w": the object has been '
                                 'modified; please apply your changes to the latest version and try again')
    assert server.get(Widget, "w").spec.size == 2  # type: ignore[union-attr]


def test_update_without_resource_version_is_last_write_wins(server: APIServer) -> None:
    obj = edit(make(server))
    server.update(obj.model_copy(update={"spec": obj.spec.model_copy(update={"size": 5})}))  # type: ignore[union-attr]
    blind = obj.clone()
    blind.metadata.resource_version = None
    blind.spec.size = 9  # type: ignore[union-attr]
    out = server.update(blind)
    assert out.spec.size == 9 and out.metadata.generation == 3  # type: ignore[union-attr]


def test_generation_bumps_on_spec_change_only(server: APIServer) -> None:
    obj = edit(make(server))
    obj.metadata.labels = {"a": "b"}
    obj = edit(server.update(obj))
    assert obj.metadata.generation == 1
    obj.spec.size = 4  # type: ignore[union-attr]
    obj = edit(server.update(obj))
    assert obj.metadata.generation == 2
    obj.metadata.generation = 100
    assert server.update(obj).metadata.generation == 2


def test_status_is_ignored_on_main_writes_and_main_fields_on_status_writes(server: APIServer) -> None:
    obj = edit(make(server))
    obj.status = WidgetStatus(phase="Hacked")
    obj.spec.size = 2  # type: ignore[union-attr]
    obj = edit(server.update(obj))
    assert obj.status is None and obj.spec.size == 2  # type: ignore[union-attr]
    obj.status = WidgetStatus(phase="Running")
    obj.spec.size = 7  # type: ignore[union-attr]
    obj.metadata.labels = {"x": "y"}
    out = server.update_status(obj)
    assert out.status.phase == "Running"  # type: ignore[union-attr]
    assert out.spec.size == 2 and out.metadata.generation == 2  # type: ignore[union-attr]


def test_noop_update_does_not_bump_resource_version(server: APIServer) -> None:
    obj = edit(make(server))
    rev = server.store.revision
    out = server.update(obj)
    assert out.metadata.resource_version == obj.metadata.resource_version
    assert server.store.revision == rev


def test_identity_is_immutable_and_creation_timestamp_is_kept(server: APIServer) -> None:
    obj = edit(make(server))
    created = obj.metadata.creation_timestamp
    changed = obj.clone()
    changed.metadata.uid = "other"
    with pytest.raises(Invalid, match=r"metadata\.uid: Invalid value: \"other\": field is immutable"):
        server.update(changed)
    later = obj.clone()
    later.metadata.creation_timestamp = None
    later.metadata.uid = None
    later.metadata.labels = {"k": "v"}
    out = server.update(later)
    assert out.metadata.creation_timestamp == created and out.metadata.uid == obj.metadata.uid


def test_strategy_immutable_fields(server: APIServer) -> None:
    obj = edit(make(server))
    obj.spec.color = "green"  # type: ignore[union-attr]
    with pytest.raises(Invalid, match=r"spec\.color: Invalid value: \"green\": field is immutable"):
        server.update(obj)


def test_update_of_missing_object_is_not_found(server: APIServer) -> None:
    with pytest.raises(NotFound, match='widgets "nope" not found'):
        server.update(Widget.model_validate({"metadata": {"name": "nope", "namespace": "default"}}))


def test_dry_run_update_writes_nothing(server: APIServer) -> None:
    obj = edit(make(server))
    obj.spec.size = 3  # type: ignore[union-attr]
    rev = server.store.revision
    assert server.update(obj, dry_run=True).spec.size == 3  # type: ignore[union-attr]
    assert server.store.revision == rev and server.get(Widget, "w").spec.size == 1  # type: ignore[union-attr]


def test_removing_last_finalizer_of_terminating_object_deletes_it(server: APIServer) -> None:
    obj = server.create(Widget.model_validate({"metadata": {"name": "f", "namespace": "default",
                                                            "finalizers": ["example.com/keep"]}}))
    terminating = server.delete(Widget, "f", "default")
    assert terminating is not None and terminating.metadata.deletion_timestamp is not None
    assert terminating.metadata.generation == 2
    terminating = edit(terminating)
    terminating.metadata.finalizers = []
    server.update(terminating)
    with pytest.raises(NotFound):
        server.get(Widget, "f")
    assert obj.metadata.uid


def test_update_cannot_clear_deletion_timestamp(server: APIServer) -> None:
    server.create(Widget.model_validate({"metadata": {"name": "f", "namespace": "default",
                                                      "finalizers": ["example.com/a", "example.com/b"]}}))
    deleting = server.delete(Widget, "f", "default")
    assert deleting is not None
    obj = edit(deleting)
    stamp = obj.metadata.deletion_timestamp
    obj.metadata.deletion_timestamp = None
    obj.metadata.finalizers = ["example.com/a"]
    out = server.update(obj)
    assert out.metadata.deletion_timestamp == stamp


def test_status_write_result_equals_the_stored_object_and_shares_nothing_with_the_input(
        server: APIServer) -> None:
    obj = edit(make(server))
    obj.status = WidgetStatus(phase="Running")
    obj.spec.size = 9  # type: ignore[union-attr]
    out = server.update_status(obj)
    assert out == server.get(Widget, "w")
    changed = edit(out)
    changed.status.phase = "Changed"  # type: ignore[union-attr]
    changed.metadata.labels = {"changed": "yes"}
    assert out.status.phase == "Running"  # type: ignore[union-attr]
    assert obj.status.phase == "Running" and obj.metadata.labels is None  # type: ignore[union-attr]
    assert obj.spec.size == 9  # type: ignore[union-attr]


class _SpecReadingStrategy(DefaultStrategy):
    """A status strategy of its own: it sees the caller's whole object, as the protocol promises."""

    def __init__(self) -> None:
        self.seen: list[object] = []

    def prepare_for_status_update(self, new: Gadget, old: Gadget) -> None:  # type: ignore[override]
        self.seen.append(new.spec.size if new.spec else None)
        super().prepare_for_status_update(new, old)


def test_a_strategy_with_its_own_status_preparation_gets_the_whole_object() -> None:
    registry = make_registry()
    strategy = _SpecReadingStrategy()
    registry.register(Gadget, strategy)
    server = APIServer(MemoryStore(), registry, now=FakeClock().now, rng=random.Random(1))
    gadget = edit(server.create(Gadget.model_validate({"metadata": {"name": "g"}, "spec": {"size": 1}})))
    gadget.spec.size = 5  # type: ignore[union-attr]
    out = server.update_status(gadget)
    assert strategy.seen == [5]
    assert out.spec.size == 1  # type: ignore[union-attr]
