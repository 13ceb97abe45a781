"""Fixtures shared by every test package: a real etcd, started by the test itself, and a fresh
interning table for every test.

``etcd_factory()`` starts a fresh single-member etcd (free loopback ports, a temporary data
directory) and stops it after the test; ``etcd`` is one such etcd. Without the ``etcd`` binary the
tests that need it are skipped with the reason, except in CI (``CI`` set), where ``.ci/run``
installs Debian's ``etcd-server`` and a missing binary is a failure.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

import pytest

from kbatch.api.model_intern import reset_interning
from kbatch.testing.etcd import EtcdProcess, etcd_binary


@pytest.fixture(autouse=True)
def _fresh_interning() -> None:
    """The structural-sharing table and its per-class hit statistics are process-wide: a test that
    asserts sharing must not depend on which tests ran before it (a class whose lookups an earlier
    test's misses switched off is never looked up again)."""
    reset_interning()


def _require_etcd() -> None:
    if etcd_binary() is not None:
        return
    message = "etcd is not installed (Debian: apt-get install etcd-server; .ci/run installs it)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture
def etcd_factory() -> Iterator[Callable[..., EtcdProcess]]:
    _require_etcd()
    started: list[EtcdProcess] = []

    def start(**kwargs: object) -> EtcdProcess:
        process = EtcdProcess(**kwargs)  # type: ignore[arg-type]
        started.append(process)
        return process.start()

    yield start
    for process in started:
        process.close()


@pytest.fixture
def etcd(etcd_factory: Callable[..., EtcdProcess]) -> EtcdProcess:
    return etcd_factory()
