"""The token in a pod's ``kube-api-access`` volume is a real one: a script that cats it, read back with
``kubectl logs``, is a ``kubectl --token`` that ``kbatch serve --tls`` authenticates as the pod's
service account (with the pod and node in its extra), and that it refuses (401) once the pod is
deleted (the bound-object check, ``pkg/serviceaccount/claims.go``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from kbatch.server.process import ServeProcess
from tests.server.test_kubectl import KUBECTL, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
NS = "podtok"
TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token"


@pytest.fixture(scope="module")
def served(served_tls: ServeProcess) -> ServeProcess:
    return served_tls


def kbatch(served: Any, *args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "kbatch.cli", "--state", str(served.state), "--server",
                          served.url, *args], capture_output=True, text=True, timeout=120, env={**os.environ})
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_the_pods_token_file_authenticates_as_its_account_until_the_pod_is_deleted(served: Any) -> None:
    kbatch(served, "nodes", "add", "--count", "1")
    kubectl(served, "create", "namespace", NS)
    kubectl(served, "run", "reader", "-n", NS, "--image=busybox", "--restart=Never", "--command", "--",
            "sh", "-c", f"cat {TOKEN}; sleep 86400")
    kbatch(served, "advance", "5s")
    token = kubectl(served, "logs", "reader", "-n", NS).stdout.strip()
    assert token.count(".") == 2
    me = json.loads(kubectl(served, "auth", "whoami", f"--token={token}", "-o", "json").stdout)
    info = me["status"]["userInfo"]
    assert info["username"] == f"system:serviceaccount:{NS}:default"
    assert info["extra"]["authentication.kubernetes.io/pod-name"] == ["reader"]
    node = kubectl(served, "get", "pod", "reader", "-n", NS, "-o", "jsonpath={.spec.nodeName}").stdout
    assert info["extra"]["authentication.kubernetes.io/node-name"] == [node]
    kubectl(served, "delete", "pod", "reader", "-n", NS, "--grace-period=0", "--force")
    refused = kubectl(served, "get", "pods", "-n", NS, f"--token={token}", check=False)
    assert refused.returncode == 1
    assert "error: You must be logged in to the server" in refused.stderr
