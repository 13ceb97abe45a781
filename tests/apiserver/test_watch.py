"""Watch: initial state, typed events, selectors moving objects in and out, bookmarks, Expired."""

from __future__ import annotations

import pytest

from kbatch.api.errors import Expired, Status
from kbatch.api.frozen import FrozenObjectError, edit
from kbatch.apiserver import APIServer
from kbatch.store.errors import CompactedError
from tests.apiserver.kinds import Widget


def make(server: APIServer, name: str, **labels: str) -> Widget:
    return server.create(Widget.model_validate({"metadata": {"name": name, "namespace": "default",
                                                             "labels": labels or None}}))


def kinds(events: list) -> list[tuple[str, str]]:  # type: ignore[type-arg]
    return [(e.type, e.object.metadata.name) for e in events]


def test_initial_state_then_changes(server: APIServer) -> None:
    make(server, "a")
    w = server.watch(Widget)
    assert kinds(w.poll()) == [("ADDED", "a")]
    b = edit(make(server, "b"))
    b.metadata.labels = {"x": "y"}
    b = server.update(b)
    server.delete(Widget, "b", "default")
    events = w.poll()
    assert kinds(events) == [("ADDED", "b"), ("MODIFIED", "b"), ("DELETED", "b")]
    deleted = events[-1].object
    assert deleted.metadata.labels == {"x": "y"}  # last state
    assert int(deleted.metadata.resource_version) == server.store.revision  # the deletion's revision
    assert w.poll() == []


def test_watch_from_resource_version_has_no_synthetic_events(server: APIServer) -> None:
    a = make(server, "a")
    w = server.watch(Widget, resource_version=a.metadata.resource_version)
    assert w.poll() == []
    make(server, "b")
    assert kinds(w.poll()) == [("ADDED", "b")]


def test_watch_replays_history_after_resource_version(server: APIServer) -> None:
    a = make(server, "a")
    make(server, "b")
    w = server.watch(Widget, resource_version=str(int(a.metadata.resource_version) - 1))
    assert kinds(w.poll()) == [("ADDED", "a"), ("ADDED", "b")]


def test_selector_moves_become_added_and_deleted(server: APIServer) -> None:
    w = server.watch(Widget, label_selector="app=web")
    obj = edit(make(server, "a", app="db"))
    assert w.poll() == []
    obj.metadata.labels = {"app": "web"}
    obj = edit(server.update(obj))
    assert kinds(w.poll()) == [("ADDED", "a")]
    obj.metadata.labels = {"app": "web", "v": "2"}
    obj = edit(server.update(obj))
    assert kinds(w.poll()) == [("MODIFIED", "a")]
    obj.metadata.labels = {"app": "db"}
    obj = server.update(obj)
    events = w.poll()
    assert kinds(events) == [("DELETED", "a")]
    assert events[0].object.metadata.labels == {"app": "web", "v": "2"}  # previous state
    assert events[0].object.metadata.resource_version == obj.metadata.resource_version
    server.delete(Widget, "a", "default")
    assert w.poll() == []


def test_field_selector_watch(server: APIServer) -> None:
    w = server.watch(Widget, field_selector="metadata.name=b")
    make(server, "a")
    make(server, "b")
    assert kinds(w.poll()) == [("ADDED", "b")]


def test_namespace_scoped_watch(server: APIServer) -> None:
    w = server.watch(Widget, "kube-system")
    make(server, "a")
    server.create(Widget.model_validate({"metadata": {"name": "k", "namespace": "kube-system"}}))
    assert kinds(w.poll()) == [("ADDED", "k")]


def test_bookmarks(server: APIServer) -> None:
    make(server, "a")
    w = server.watch(Widget, label_selector="app=web", allow_bookmarks=True, send_initial_events=True)
    events = w.poll()
    assert [e.type for e in events] == ["BOOKMARK"]
    assert events[0].object.metadata.annotations == {"k8s.io/initial-events-end": "true"}
    make(server, "b")  # filtered out: the revision advances anyway
    events = w.poll()
    assert [e.type for e in events] == ["BOOKMARK"]
    assert events[0].object.metadata.resource_version == str(server.store.revision)


@pytest.mark.parametrize("resource_version", [None, "0"])
def test_the_initial_events_end_annotation_is_only_for_send_initial_events(
        server: APIServer, resource_version: str | None) -> None:
    # k8s.io/apiserver v0.37.0-beta.0 pkg/storage/cacher/cacher.go setInitialEventsEndBookmarkIfRequested:
    # the k8s.io/initial-events-end bookmark only for sendInitialEvents=true with allowWatchBookmarks;
    # a plain watch from resourceVersion unset or "0" gets the synthetic ADDED events and plain bookmarks
    make(server, "a")
    w = server.watch(Widget, resource_version=resource_version, allow_bookmarks=True)
    events = w.poll()
    assert [e.type for e in events] == ["ADDED", "BOOKMARK"]
    assert not events[1].object.metadata.annotations
    assert events[1].object.metadata.resource_version == str(server.store.revision)


def test_expired_resource_version(server: APIServer) -> None:
    make(server, "a")
    make(server, "b")
    server.store.compact(server.store.revision)
    with pytest.raises(Expired, match="too old resource version"):
        server.watch(Widget, resource_version="1")


def test_store_watch_cancelled_by_compaction_is_an_error_event(server: APIServer) -> None:
    w = server.watch(Widget, resource_version=str(server.store.revision))

    class Compacted:
        def poll(self) -> list:  # type: ignore[type-arg]
            raise CompactedError(3, 9)

        def set_notify(self, fn: object) -> None: ...

        def close(self) -> None: ...

    w._watcher = Compacted()  # type: ignore[assignment]
    events = w.poll()
    assert [e.type for e in events] == ["ERROR"]
    status = events[0].object
    assert isinstance(status, Status) and status.code == 410 and status.reason == "Expired"
    assert w.poll() == []


def test_notify_fires_on_change(server: APIServer) -> None:
    w = server.watch(Widget, resource_version=str(server.store.revision))
    woken: list[int] = []
    w.set_notify(lambda: woken.append(1))
    make(server, "a")
    assert woken
    assert kinds(w.poll()) == [("ADDED", "a")]
    w.close()
    make(server, "b")
    assert w.poll() == []


def test_events_carry_the_shared_read_only_object(server: APIServer) -> None:
    w = server.watch(Widget)
    written = make(server, "a", app="x")
    event = w.poll()[0]
    assert event.object is written is server.get(Widget, "a")  # decoded never: the write's own object
    with pytest.raises(FrozenObjectError):  # strict mode (the suite's)
        event.object.metadata.labels = {"app": "changed"}
    assert server.get(Widget, "a").metadata.labels == {"app": "x"}
