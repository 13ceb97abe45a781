"""Pod and node addresses as a user reads them, against ``kbatch serve`` in its own process: kubectl's
wide pod table (IP, NODE: ``pkg/printers/internalversion/printers.go`` ``printPod``) and node table
(INTERNAL-IP: ``printNode``), and the same tables from ``kbatch get -o wide`` in another process.
The server runs ``--controllers=*,node-ipam-controller``: addresses are off by default
(docs/simulation.md, "Pod and node addresses")."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from kbatch.server.process import ServeProcess
from tests.server.test_kubectl import KUBECTL, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "addressed", "namespace": "default"},
       "spec": {"restartPolicy": "Never", "nodeName": "ip-0",
                "containers": [{"name": "main", "image": "busybox", "command": ["sleep", "3600"]}]}}


def _kbatch(served: Any, *args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "kbatch.cli", "--server", served.url, *args],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    served = ServeProcess(Path(tmp_path_factory.mktemp("serve-ipam")),
                          controllers="*,node-ipam-controller").start()
    try:
        yield _populate(served)
    finally:
        assert served.stop() == 0, "".join(served.output)


def _populate(served: ServeProcess) -> ServeProcess:
    _kbatch(served, "nodes", "add", "--count", "2", "--prefix", "ip")
    kubectl(served, "create", "-f", "-", input_=json.dumps(POD))
    reply = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/clock", json={"advance": "5s"}, timeout=30)
    assert reply.status_code == 200, reply.text
    return served


def _row(table: str, name: str) -> list[str]:
    lines = table.splitlines()
    return next(line.split() for line in lines[1:] if line.split()[0] == name)


def test_kubectl_get_pods_wide_shows_the_pod_and_node(cluster: Any) -> None:
    pod = json.loads(kubectl(cluster, "get", "pod", "addressed", "-o", "json").stdout)
    status = pod["status"]
    node = json.loads(kubectl(cluster, "get", "node", "ip-0", "-o", "json").stdout)
    assert status["podIP"].startswith("10.244.") and status["podIPs"] == [{"ip": status["podIP"]}]
    assert node["spec"]["podCIDR"] == status["podIP"].rsplit(".", 1)[0] + ".0/24"
    internal = next(a["address"] for a in node["status"]["addresses"] if a["type"] == "InternalIP")
    assert status["hostIP"] == internal and status["hostIPs"] == [{"ip": internal}]
    table = kubectl(cluster, "get", "pods", "-o", "wide").stdout
    assert table.splitlines()[0].split() == ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE",
                                             "NOMINATED", "NODE", "READINESS", "GATES"]
    row = _row(table, "addressed")
    assert row[1:3] == ["1/1", "Running"] and row[5:7] == [status["podIP"], "ip-0"]
    assert _row(_kbatch(cluster, "get", "pods", "-o", "wide"), "addressed")[5:7] == [status["podIP"], "ip-0"]
    jsonpath = kubectl(cluster, "get", "pod", "addressed", "-o", "jsonpath={.status.podIP}").stdout
    assert jsonpath == status["podIP"]


def test_kubectl_get_nodes_wide_shows_each_nodes_internal_ip(cluster: Any) -> None:
    table = kubectl(cluster, "get", "nodes", "-o", "wide").stdout
    assert table.splitlines()[0].split()[5] == "INTERNAL-IP"
    first, second = _row(table, "ip-0")[5], _row(table, "ip-1")[5]
    assert first.startswith("172.18.") and second.startswith("172.18.") and first != second
    assert _row(_kbatch(cluster, "get", "nodes", "-o", "wide"), "ip-1")[5] == second
