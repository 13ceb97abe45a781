"""EndpointSlices and Endpoints as kubectl (the real one) sees them against ``kbatch serve`` with pod
addresses on: ``kubectl get endpointslices,endpoints`` prints kube-apiserver's Table columns and the
v1 Endpoints deprecation warning (KEP-4974; k8s.io/apiserver ``pkg/endpoints/deprecation``), once per
command, on every verb; ``kubectl describe`` pages; ``-o yaml`` of the API server's own
``kubernetes`` slice; a slice created by hand is validated as upstream's. Virtual time moves only
through ``kbatch advance``, run as a separate process."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kbatch.server.process import ServeProcess
from tests.server.test_kubectl import KUBECTL, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "indexed-job-with-service.yaml"
WARNING = "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    state = tmp_path_factory.mktemp("serve-endpoints")
    server = ServeProcess(state, controllers="*,node-ipam-controller").start()
    try:
        yield server
    finally:
        assert server.stop() == 0, "".join(server.output)


def kb(served: Any, *args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "kbatch", "--server", served.url, *args],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr


def _rows(out: str) -> list[list[str]]:
    return [line.split() for line in out.splitlines()]


def test_kubectl_get_endpointslices_and_endpoints(served: Any) -> None:
    kb(served, "nodes", "add", "--count", "2")
    kubectl(served, "apply", "-f", str(EXAMPLE))
    kb(served, "advance", "5s")
    out = kubectl(served, "get", "endpointslices,endpoints")
    assert out.stderr == WARNING
    rows = _rows(out.stdout)
    assert rows[0] == ["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"]
    assert rows[1][:4] == ["endpointslice.discovery.k8s.io/kubernetes", "IPv4", "6443", "172.18.0.1"]
    assert rows[2][0].startswith("endpointslice.discovery.k8s.io/mysvc-")
    assert rows[2][1:4] == ["IPv4", "<unset>", "10.244.0.2,10.244.1.2,10.244.1.3"]
    assert rows[4] == ["NAME", "ENDPOINTS", "AGE"]
    assert rows[5][:2] == ["endpoints/kubernetes", "172.18.0.1:6443"]
    assert rows[6][:2] == ["endpoints/mysvc", "10.244.0.2,10.244.1.2,10.244.1.3"]
    # every verb on v1 Endpoints warns: get -o yaml, describe
    yaml_out = kubectl(served, "get", "endpoints", "kubernetes", "-o", "json")
    assert yaml_out.stderr == WARNING
    assert json.loads(yaml_out.stdout)["subsets"] == [
        {"addresses": [{"ip": "172.18.0.1"}], "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}]}]
    described = kubectl(served, "describe", "endpoints", "mysvc")
    assert "Subsets:\n  Addresses:          10.244.0.2,10.244.1.2,10.244.1.3\n" in described.stdout
    eps = json.loads(kubectl(served, "get", "endpointslice", "kubernetes", "-o", "json").stdout)
    assert {k: eps[k] for k in ("addressType", "endpoints", "ports")} == {
        "addressType": "IPv4", "endpoints": [{"addresses": ["172.18.0.1"], "conditions": {"ready": True}}],
        "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}]}
    assert eps["metadata"]["labels"] == {"kubernetes.io/service-name": "kubernetes"}
    page = kubectl(served, "describe", "endpointslice", "kubernetes").stdout
    assert ("AddressType:  IPv4\nPorts:\n  Name   Port  Protocol\n  ----   ----  --------\n"
            "  https  6443  TCP\n") in page


def test_kubectl_create_of_an_invalid_slice(served: Any) -> None:
    body = {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "metadata": {"name": "bad"},
            "addressType": "IPv4", "endpoints": [{"addresses": ["127.0.0.1"]}]}
    out = kubectl(served, "create", "-f", "-", input_=json.dumps(body), check=False)
    assert out.returncode == 1
    assert out.stderr == ('The EndpointSlice "bad" is invalid: endpoints[0].addresses[0]: Invalid value: '
                          '"127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)\n')


SERVICE = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "labels": {"app": "web"}},
           "spec": {"selector": {"job-name": "myjob"},
                    "ports": [{"name": "http", "port": 80, "targetPort": 8080},
                              {"name": "metrics", "port": 9090}]}}  # no appProtocol: kubectl 1.32 prints none


def _kbatch(served: Any, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "kbatch", "--server", served.url, *args],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("what", [("service", "web"), ("service", "kubernetes"), ("service", "mysvc"),
                                  ("endpoints", "web"), ("endpointslice", "kubernetes")],
                         ids=lambda w: "/".join(w))
def test_kbatch_describe_is_kubectls(served: Any, what: tuple[str, str]) -> None:
    """kubectl's describers run in kubectl, reading the slices through the API: kbatch's pages are the
    same text (``describeService`` with ``formatEndpointSlices``, ``describeEndpoints``,
    ``describeEndpointSliceV1``)."""
    kubectl(served, "apply", "-f", "-", input_=json.dumps(SERVICE))
    kb(served, "advance", "1s")
    theirs = kubectl(served, "describe", *what).stdout
    assert theirs == _kbatch(served, "describe", *what)
    if what == ("service", "web"):
        assert "Endpoints:                10.244.0.2:8080,10.244.1.2:8080,10.244.1.3:8080\n" in theirs
