"""Fixtures: ``kbatch serve`` subprocesses (virtual and real clock) with only the Job and CronJob
controllers, as the in-process conformance target runs, and HTTP targets pointed at them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conformance.http_target import HttpTarget
from conformance.kubeconfig import load_kubeconfig
from kbatch.server.process import ServeProcess

CONTROLLERS = "job,cronjob"


def _serve(tmp_path_factory: pytest.TempPathFactory, clock: str) -> Iterator[ServeProcess]:
    pytest.importorskip("uvicorn", reason="kbatch serve needs uvicorn")
    server = ServeProcess(tmp_path_factory.mktemp(f"serve-{clock}"), "--clock", clock,
                          controllers=CONTROLLERS).start()
    try:
        yield server
    finally:
        assert server.stop() == 0, "".join(server.output)


@pytest.fixture(scope="package")
def virtual_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    yield from _serve(tmp_path_factory, "virtual")


@pytest.fixture(scope="package")
def real_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    yield from _serve(tmp_path_factory, "real")


@pytest.fixture
def http_target(virtual_server: ServeProcess) -> Iterator[HttpTarget]:
    target = HttpTarget(load_kubeconfig(virtual_server.kubeconfig))
    yield target
    target.close()
