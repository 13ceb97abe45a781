"""Which store changes make the garbage collector look at an object, as upstream's graph builder
(``pkg/controller/garbagecollector/graph_builder.go`` ``processGraphChanges``): a dependent entering
the graph or changing its ``ownerReferences``; its owner's deletion (``removeNode`` queues every
dependent); not an update that keeps its references, such as a status write."""

from __future__ import annotations

import pytest

from kbatch.api.frozen import edit
from kbatch.apiserver import APIServer, GarbageCollector
from tests.apiserver.kinds import Widget
from tests.apiserver.test_gc import exists, owned


def _looked_at(gc: GarbageCollector, monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    seen: list[bytes] = []
    process = gc._process

    def spy(key: bytes) -> int:
        seen.append(key)
        return process(key)

    monkeypatch.setattr(gc, "_process", spy)
    return seen


def _relabel(server: APIServer, name: str, value: str) -> None:
    obj = edit(server.get(Widget, name))
    obj.metadata.labels = {"touch": value}
    server.update(obj)


def test_an_update_keeping_the_references_is_not_looked_at(server: APIServer,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    gc = GarbageCollector(server)
    parent = owned(server, "parent")
    owned(server, "child", parent)
    gc.sync()
    seen = _looked_at(gc, monkeypatch)
    _relabel(server, "child", "1")
    _relabel(server, "child", "2")
    assert gc.sync() == 0
    assert seen == []


def test_new_references_and_an_owners_deletion_are_looked_at(server: APIServer,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    gc = GarbageCollector(server)
    parent = owned(server, "parent")
    other = owned(server, "other")
    owned(server, "child", parent)
    gc.sync()
    seen = _looked_at(gc, monkeypatch)
    child = edit(server.get(Widget, "child"))
    child.metadata.owner_references = [*child.metadata.owner_references, *owned(
        server, "x", other).metadata.owner_references]  # child now also names "other"
    server.update(child)
    gc.sync()
    assert sorted(k.rsplit(b"/", 1)[-1] for k in seen) == [b"child", b"x"]
    seen.clear()
    server.delete(Widget, "parent", "default")
    server.delete(Widget, "other", "default")
    assert gc.sync() == 2  # child and x go with their owners
    assert not exists(server, "child") and not exists(server, "x")
