"""Fixtures: ``kbatch serve`` subprocesses and HTTP targets pointed at them.

* ``virtual_server``: virtual clock, only the workload controllers (Job, CronJob, JobSet), the
  garbage collector and the two that ready namespaces for pods (``PLAYED_KUBELET``), no nodes, as
  the in-process target for the checks that play the kubelet by patching pod status.
* ``virtual_cluster_server``: virtual clock, the default controllers (scheduler and kubelet among
  them) and two nodes added with ``kbatch nodes add``: the checks whose pods really run.
* ``real_server``: real clock, default controllers and two nodes — standing in for a real cluster.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

from conformance.http_target import HttpTarget
from conformance.isolation import NamespacedTarget, claim_namespace, namespace_names, release_namespace
from conformance.kbatch_target import FEATURE_GATES, PLAYED_KUBELET
from conformance.kubeconfig import load_kubeconfig
from kbatch.server.process import ServeProcess

NODES = 2


def _serve(tmp_path_factory: pytest.TempPathFactory, clock: str, controllers: str | None = None,
           nodes: int = 0) -> Iterator[ServeProcess]:
    state = tmp_path_factory.mktemp(f"serve-{clock}-{'nodes' if nodes else 'bare'}")
    if nodes:
        subprocess.run([sys.executable, "-m", "kbatch.cli", "--state", str(state), "nodes", "add",
                        "--count", str(nodes)], check=True, capture_output=True, timeout=60)
    server = ServeProcess(state, "--clock", clock, "--feature-gates", FEATURE_GATES,
                          controllers=controllers).start()
    try:
        yield server
    finally:
        assert server.stop() == 0, "".join(server.output)


@pytest.fixture(scope="package")
def virtual_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    yield from _serve(tmp_path_factory, "virtual", PLAYED_KUBELET)


@pytest.fixture(scope="package")
def virtual_cluster_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    yield from _serve(tmp_path_factory, "virtual", nodes=NODES)


@pytest.fixture(scope="package")
def real_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    yield from _serve(tmp_path_factory, "real", nodes=NODES)


@pytest.fixture
def http_target(virtual_server: ServeProcess, request: pytest.FixtureRequest) -> Iterator[NamespacedTarget]:
    """The HTTP target against the virtual server, in a fresh namespace of this test's own (as the
    suite gives each check)."""
    target = HttpTarget(load_kubeconfig(virtual_server.kubeconfig))
    namespace = claim_namespace(target, namespace_names(0, request.node.nodeid))
    yield NamespacedTarget(target, namespace)
    release_namespace(target, namespace, ("CronJob", "Job", "Pod", "Service"))
    target.close()
