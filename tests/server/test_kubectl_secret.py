"""Secrets through the real kubectl against ``kbatch serve``: ``create secret generic``, ``get``
(``NAME TYPE DATA AGE``, base64 ``data`` in ``-o yaml``), ``describe`` (sizes, never values), a
type's required keys refused with the server's Invalid, and ``count/secrets`` / ``secrets`` quota.

Upstream: k8s.io/kubectl ``pkg/cmd/create/create_secret.go`` (the client builds the Secret, the
server stores it), ``pkg/printers/internalversion/printers.go`` ``printSecret``,
``pkg/describe/describe.go`` ``describeSecret``, ``pkg/quota/v1/evaluator/core/registry.go``.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from tests.server.test_kubectl import EXAMPLES, KUBECTL, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")


def test_create_get_describe_secret(served: Any) -> None:
    made = kubectl(served, "create", "secret", "generic", "db", "--from-literal=user=admin",
                   "--from-literal=pass=s3cr3t!")
    assert made.stdout.strip() == "secret/db created"
    table = kubectl(served, "get", "secret", "db").stdout.splitlines()
    assert table[0].split() == ["NAME", "TYPE", "DATA", "AGE"]
    assert table[1].split()[:3] == ["db", "Opaque", "2"]
    obj = json.loads(kubectl(served, "get", "secret", "db", "-o", "json").stdout)
    assert obj["data"] == {"pass": base64.b64encode(b"s3cr3t!").decode(),
                           "user": base64.b64encode(b"admin").decode()}
    assert "stringData" not in obj and "generation" not in obj["metadata"]
    assert "user: YWRtaW4=" in kubectl(served, "get", "secret", "db", "-o", "yaml").stdout
    page = kubectl(served, "describe", "secret", "db").stdout
    assert "Type:  Opaque" in page and "pass:  7 bytes" in page and "user:  5 bytes" in page
    assert "s3cr3t" not in page and "admin" not in page


def test_typed_secret_without_its_keys_is_invalid(served: Any) -> None:
    out = kubectl(served, "create", "secret", "generic", "tls-bad", "--type=kubernetes.io/tls",
                  "--from-literal=tls.crt=x", check=False)
    assert out.returncode == 1
    assert 'Secret "tls-bad" is invalid: data[tls.key]: Required value' in out.stderr
    gone = kubectl(served, "get", "secret", "tls-bad", check=False)
    assert gone.returncode == 1 and "NotFound" in gone.stderr


def test_secret_quota_counts_secrets(served: Any) -> None:
    kubectl(served, "create", "namespace", "sq")
    kubectl(served, "create", "quota", "few", "-n", "sq", "--hard=count/secrets=1,secrets=1")
    kubectl(served, "create", "secret", "generic", "one", "-n", "sq", "--from-literal=a=1")
    second = kubectl(served, "create", "secret", "generic", "two", "-n", "sq", "--from-literal=a=1",
                     check=False)
    assert second.returncode == 1
    assert 'secrets "two" is forbidden: exceeded quota: few' in second.stderr


def test_pod_waits_for_its_secret(served: Any) -> None:
    """kubectl shows the kubelet's ``CreateContainerConfigError`` until the Secret exists."""
    from kbatch.cli import main

    kubectl(served, "apply", "-f", str(EXAMPLES[0].parent / "kwok-node.yaml"))
    kubectl(served, "create", "-f", "-", input_=json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "needs-secret"},
        "spec": {"nodeName": "kwok-node-0", "restartPolicy": "Never", "containers": [
            {"name": "c", "image": "busybox", "command": ["sleep", "100"],
             "envFrom": [{"secretRef": {"name": "later"}}]}]}}))
    row = kubectl(served, "get", "pod", "needs-secret").stdout.splitlines()[1].split()
    assert row[2] == "CreateContainerConfigError"
    events = kubectl(served, "get", "events", "--field-selector", "involvedObject.name=needs-secret").stdout
    assert 'Error: secret "later" not found' in events
    kubectl(served, "create", "secret", "generic", "later", "--from-literal=k=v")
    try:
        main(["--server", served.url, "advance", "10s"])
    except SystemExit as exit_:
        assert not exit_.code
    row = kubectl(served, "get", "pod", "needs-secret").stdout.splitlines()[1].split()
    assert row[2] == "Running"
