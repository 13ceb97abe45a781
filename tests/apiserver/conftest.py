"""Fixtures: an APIServer over a fresh MemoryStore with the test kinds, a settable clock."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from kbatch.apiserver import APIServer
from kbatch.store import MemoryStore
from tests.apiserver.kinds import make_registry


class FakeClock:
    def __init__(self) -> None:
        self.t = datetime(2026, 1, 1, tzinfo=UTC)

    def now(self) -> datetime:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += timedelta(seconds=seconds)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def server(store: MemoryStore, clock: FakeClock) -> APIServer:
    return APIServer(store, make_registry(), now=clock.now, rng=random.Random(7))


def make_server(seed: int = 7, *, namespaces: bool = True) -> APIServer:
    clock = FakeClock()
    registry = make_registry(namespaces=namespaces)
    return APIServer(MemoryStore(), registry, now=clock.now, rng=random.Random(seed))
