"""The store tests run against both backends: ``MemoryStore`` and ``EtcdStore`` on a fresh etcd.

``new_store(**kwargs)`` builds a store of the test's backend (a fresh etcd per store, so revisions
start at 1 as in a fresh ``MemoryStore``); ``store`` is one; ``settle(store)`` waits until every
open watcher has received every committed event, which ``MemoryStore`` does synchronously and
etcd's pushed stream does shortly after (``EtcdStore.settle``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kbatch.store import KV, MemoryStore
from kbatch.testing.etcd import EtcdProcess

BACKENDS = ["memory", "etcd"]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def new_store(backend: str, request: pytest.FixtureRequest) -> Iterator[Callable[..., Any]]:
    if backend == "memory":
        yield lambda **kwargs: MemoryStore(**kwargs)
        return
    from kbatch.store import EtcdStore

    etcd_factory: Callable[..., EtcdProcess] = request.getfixturevalue("etcd_factory")
    stores: list[Any] = []

    def make(**kwargs: Any) -> Any:
        store = EtcdStore(etcd_factory().url, **kwargs)
        stores.append(store)
        return store

    yield make
    for store in stores:
        store.close()


@pytest.fixture
def store(new_store: Callable[..., KV]) -> KV:
    return new_store()


def _settle(store: Any) -> None:
    wait = getattr(store, "settle", None)
    if wait is not None:
        wait()


@pytest.fixture
def settle() -> Callable[[Any], None]:
    return _settle
