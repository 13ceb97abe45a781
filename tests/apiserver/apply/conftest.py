"""An APIServer over the built-in kinds (Pod, Job, ...) with a settable clock, for server-side apply."""

from __future__ import annotations

import random

import pytest

from kbatch.apiserver import APIServer
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore
from tests.apiserver.conftest import FakeClock


def make_apiserver(clock: FakeClock | None = None) -> APIServer:
    clock = clock or FakeClock()
    return APIServer(MemoryStore(), builtin_registry(), now=clock.now, rng=random.Random(3))


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def api(clock: FakeClock) -> APIServer:
    return make_apiserver(clock)
