"""What an update event maps (kbatch.runtime.handler): controller-runtime's
``EnqueueRequestsFromMapFunc`` (``pkg/handler/enqueue_mapped.go``: ``Update`` maps ``ObjectOld`` and
``ObjectNew``) by default; ``new_object_only`` for a client-go handler that reads only ``cur``."""

from __future__ import annotations

import pickle
from types import SimpleNamespace
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kbatch.runtime.handler import QueueingHandler, enqueue_object, maps_old_on_update, new_object_only
from kbatch.runtime.reconcile import Request


def _obj(name: str, target: str) -> Any:
    return SimpleNamespace(metadata=SimpleNamespace(namespace="ns", name=name, labels={"t": target}))


def _by_label(obj: Any) -> list[Request]:
    return [Request("ns", obj.metadata.labels["t"])]


def _updates(mapper: Any, old: Any, new: Any) -> list[Request]:
    out: list[Request] = []
    QueueingHandler(out.append, mapper).on_update(old, new)
    return out


def test_a_map_func_maps_the_old_and_the_new_object() -> None:
    assert _updates(_by_label, _obj("p", "a"), _obj("p", "b")) == [Request("ns", "a"), Request("ns", "b")]


def test_new_object_only_maps_the_new_object() -> None:
    assert _updates(new_object_only(_by_label), _obj("p", "a"), _obj("p", "b")) == [Request("ns", "b")]


@given(old=st.sampled_from("abc"), new=st.sampled_from("abc"))
def test_new_object_only_is_what_create_of_the_new_object_maps(old: str, new: str) -> None:
    """Property: the update maps exactly what adding the new object would, whatever the old was."""
    added: list[Request] = []
    QueueingHandler(added.append, new_object_only(_by_label)).on_add(_obj("p", new))
    assert _updates(new_object_only(_by_label), _obj("p", old), _obj("p", new)) == added


def test_enqueue_object_maps_the_object_once() -> None:
    assert not maps_old_on_update(enqueue_object)
    assert _updates(enqueue_object, _obj("p", "a"), _obj("p", "b")) == [Request("ns", "p")]


def test_new_object_only_survives_pickling() -> None:
    mapper = pickle.loads(pickle.dumps(new_object_only(enqueue_object)))
    assert not maps_old_on_update(mapper) and mapper.mapper is enqueue_object
