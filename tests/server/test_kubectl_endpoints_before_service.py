"""kubectl (the real one) against ``kbatch serve``: Endpoints applied before their selector-less
Service are kept (the endpoint controller reacts to Endpoints deletes only and checks leftovers once at
its start: kubernetes ``pkg/controller/endpoint/endpoints_controller.go``), then mirrored into an
EndpointSlice when the Service comes. Virtual time moves only through ``kbatch advance``."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from kbatch.server.process import ServeProcess
from tests.cli.test_endpoints_before_service_cli import ENDPOINTS, SERVICE
from tests.server.test_kubectl import KUBECTL, kubectl
from tests.server.test_kubectl_endpoints import kb

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    server = ServeProcess(tmp_path_factory.mktemp("serve-endpoints-first")).start()
    try:
        yield server
    finally:
        assert server.stop() == 0, "".join(server.output)


def test_kubectl_endpoints_before_their_service_are_kept(served: ServeProcess) -> None:
    kubectl(served, "apply", "-f", "-", input_=ENDPOINTS)
    kb(served, "advance", "1m")
    rows = kubectl(served, "get", "endpoints", "ext").stdout.splitlines()
    assert rows[1].split()[:2] == ["ext", "192.0.2.10:8080"]
    kubectl(served, "apply", "-f", "-", input_=SERVICE)
    kb(served, "advance", "1s")
    out = kubectl(served, "get", "endpointslices", "-l", "kubernetes.io/service-name=ext", "-o", "json")
    [mirrored] = json.loads(out.stdout)["items"]
    assert [e["addresses"] for e in mirrored["endpoints"]] == [["192.0.2.10"]]
    assert kubectl(served, "get", "endpoints", "ext").stdout.splitlines()[1].split()[1] == "192.0.2.10:8080"
