"""kubectl (the real one) against ``kbatch serve``: a Service without a selector and Endpoints written
by hand get a mirrored EndpointSlice (kube-controller-manager's endpointslice-mirroring controller,
``pkg/controller/endpointslicemirroring``), which follows the Endpoints and goes with them; and
``default/kubernetes``'s Endpoints and EndpointSlice, deleted, are back after the API server's next
10-second reconcile (``pkg/controlplane/controller/kubernetesservice``). Virtual time moves only
through ``kbatch advance``, run as a separate process."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from kbatch.server.process import ServeProcess
from tests.controllers.endpointslicemirroring.objects import SELECTORLESS
from tests.server.test_kubectl import KUBECTL, kubectl
from tests.server.test_kubectl_endpoints import kb

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

MIRRORED = "endpointslice.kubernetes.io/managed-by=endpointslicemirroring-controller.k8s.io"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    server = ServeProcess(tmp_path_factory.mktemp("serve-mirroring")).start()
    try:
        yield server
    finally:
        assert server.stop() == 0, "".join(server.output)


def _mirrored(served: Any) -> list[dict[str, Any]]:
    out = kubectl(served, "get", "endpointslices", "-l", MIRRORED, "-o", "json")
    return list(json.loads(out.stdout)["items"])


def test_kubectl_sees_the_mirrored_slice_follow_the_endpoints(served: Any) -> None:
    kubectl(served, "apply", "-f", "-", input_=SELECTORLESS)
    [eps] = _mirrored(served)
    assert eps["metadata"]["generateName"] == "ext-"
    assert eps["metadata"]["labels"]["team"] == "a"
    assert eps["metadata"]["ownerReferences"][0]["kind"] == "Endpoints"
    assert [(e["addresses"], e["conditions"]["ready"]) for e in eps["endpoints"]] == \
        [(["192.0.2.10"], True), (["192.0.2.11"], False)]
    rows = kubectl(served, "get", "endpointslices").stdout.splitlines()
    want = [eps["metadata"]["name"], "IPv4", "8080", "192.0.2.10,192.0.2.11"]
    assert any(r.split()[:4] == want for r in rows)
    kubectl(served, "delete", "endpoints", "ext")
    assert _mirrored(served) == []


def test_kubectl_deleted_kubernetes_endpoints_come_back(served: Any) -> None:
    kubectl(served, "delete", "endpoints,endpointslices", "kubernetes")
    assert kubectl(served, "get", "endpointslice", "kubernetes", check=False).returncode != 0
    kb(served, "advance", "10s")
    out = kubectl(served, "get", "endpointslice", "kubernetes", "-o", "json")
    ready = {"addresses": ["172.18.0.1"], "conditions": {"ready": True}}
    assert json.loads(out.stdout)["endpoints"] == [ready]
    assert kubectl(served, "get", "endpoints", "kubernetes").stdout.splitlines()[1].split()[:2] == \
        ["kubernetes", "172.18.0.1:6443"]
