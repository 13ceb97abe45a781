"""The real kubectl against ``kbatch serve``: ResourceQuota and LimitRange are served, ``get`` prints
kbatch's table (pkg/printers ``printResourceQuota``, ``printLimitRange``), kubectl's own
``describe`` reads them, and a create past the quota is a 403 with kube-apiserver's text."""

from __future__ import annotations

from typing import Any

from tests.server.test_kubectl import kubectl, pytestmark  # noqa: F401  (skipped without kubectl)

QUOTA = """apiVersion: v1
kind: ResourceQuota
metadata: {name: compute, namespace: default}
spec:
  hard: {pods: "1", requests.cpu: "1"}
---
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: default}
spec:
  limits:
  - type: Container
    defaultRequest: {cpu: 250m}
"""
POD = """apiVersion: v1
kind: Pod
metadata: {name: NAME, namespace: default}
spec:
  containers: [{name: c, image: busybox}]
"""


def test_kubectl_quota_and_limit_range(served: Any) -> None:
    assert kubectl(served, "apply", "-f", "-", input_=QUOTA).stdout == (
        "resourcequota/compute created\nlimitrange/defaults created\n")
    kubectl(served, "create", "-f", "-", input_=POD.replace("NAME", "p1"))
    refused = kubectl(served, "create", "-f", "-", input_=POD.replace("NAME", "p2"), check=False)
    assert refused.returncode != 0
    assert refused.stderr == ('Error from server (Forbidden): error when creating "STDIN": pods "p2" is '
                              'forbidden: exceeded quota: compute, requested: pods=1, used: pods=1, '
                              'limited: pods=1\n')
    table = kubectl(served, "get", "quota", "-n", "default").stdout.splitlines()
    assert table[0].split() == ["NAME", "AGE", "REQUEST", "LIMIT"]
    assert table[1].startswith("compute") and table[1].rstrip().endswith("pods: 1/1, requests.cpu: 250m/1")
    assert kubectl(served, "get", "limits", "-n", "default").stdout.splitlines()[0].split() == \
        ["NAME", "CREATED", "AT"]
    described = kubectl(served, "describe", "quota", "compute", "-n", "default").stdout
    assert "requests.cpu  250m  1" in described and "pods          1     1" in described
    limits = kubectl(served, "describe", "limitrange", "defaults", "-n", "default").stdout
    assert "Container   cpu       -    -    250m             -              -" in limits
