"""The endpoints kube-apiserver and kube-controller-manager keep, used as separate ``kbatch`` commands:
``default/kubernetes``'s Endpoints and EndpointSlice come back at the API server's next 10-second
reconcile after a delete (``pkg/controlplane/controller/kubernetesservice``), and Endpoints written
by hand for a Service without a selector get a mirrored EndpointSlice
(``pkg/controller/endpointslicemirroring``)."""

from __future__ import annotations

from tests.cli.conftest import Kbatch
from tests.controllers.endpointslicemirroring.objects import SELECTORLESS


def test_deleted_kubernetes_endpoints_come_back_at_the_next_tick(kb: Kbatch) -> None:
    kb.ok("advance", "3s")
    kb.ok("delete", "endpoints", "kubernetes")
    kb.ok("delete", "endpointslices", "kubernetes")
    assert "No resources found" in kb("get", "endpointslices").err
    kb.ok("advance", "6s")  # t=9s: the tick is at 10s
    assert "No resources found" in kb("get", "endpointslices").err
    kb.ok("advance", "1s")
    rows = [line.split() for line in kb.ok("get", "endpointslices").splitlines()]
    assert rows[1][:4] == ["kubernetes", "IPv4", "6443", "172.18.0.1"]
    endpoints = kb.ok("get", "endpoints", "kubernetes").splitlines()
    assert endpoints[1].split()[:2] == ["kubernetes", "172.18.0.1:6443"]


def test_a_selectorless_services_endpoints_get_a_mirrored_slice(kb: Kbatch) -> None:
    kb.ok("apply", "-f", "-", input_=SELECTORLESS)
    rows = [line.split() for line in kb.ok("get", "endpointslices").splitlines()]
    mirrored = [r for r in rows if r[0].startswith("ext-")]
    assert [r[1:4] for r in mirrored] == [["IPv4", "8080", "192.0.2.10,192.0.2.11"]]
    out = kb.ok("get", "endpointslices", mirrored[0][0], "-o", "jsonpath={.metadata.labels}")
    assert '"endpointslice.kubernetes.io/managed-by":"endpointslicemirroring-controller.k8s.io"' in out
