"""Fixtures shared by every test package: a real etcd, started by the test itself.

``etcd_factory()`` starts a fresh single-member etcd (free loopback ports, a temporary data
directory) and stops it after the test; ``etcd`` is one such etcd. Without the ``etcd`` binary the
tests that need it are skipped with the reason, except in CI (``CI`` set), where ``.ci/run``
installs Debian's ``etcd-server`` and a missing binary is a failure.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

import pytest

from kbatch.testing.etcd import EtcdProcess, etcd_binary


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
