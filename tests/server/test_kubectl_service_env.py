"""Service variables as kubectl (the real one) sees them against ``kbatch serve``: ``kubectl create
service clusterip`` gets a cluster IP from kbatch's allocator (10.0.0.0/24), ``kubectl get svc``
lists the master ``kubernetes`` Service, and a Job's container reads ``$X_SERVICE_HOST`` (upstream
``pkg/kubelet/envvars``; docs/simulation.md "The environment"). Virtual time moves only through
``kbatch advance``, run as a separate process."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tests.server.test_kubectl import KUBECTL, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

SCRIPT = "echo $MY_SVC_SERVICE_HOST:$MY_SVC_SERVICE_PORT_80_8080 $KUBERNETES_SERVICE_HOST; echo $PATH"
POD_SPEC = {"restartPolicy": "Never",
            "containers": [{"name": "main", "image": "busybox", "command": ["sh", "-c", SCRIPT]}]}
JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "reader"},
       "spec": {"template": {"spec": POD_SPEC}}}


def kb(served: Any, *args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "kbatch", "--server", served.url, *args],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr


def test_a_jobs_container_reads_a_services_host(served: Any) -> None:
    kb(served, "nodes", "add", "--count", "1")
    kubectl(served, "create", "service", "clusterip", "my-svc", "--tcp=80:8080")
    svc = json.loads(kubectl(served, "get", "service", "my-svc", "-o", "json").stdout)
    assert svc["spec"]["clusterIP"] == "10.0.0.17" and svc["spec"]["clusterIPs"] == ["10.0.0.17"]
    listed = kubectl(served, "get", "services").stdout.splitlines()
    assert listed[1].split()[:4] == ["kubernetes", "ClusterIP", "10.0.0.1", "<none>"]
    kubectl(served, "apply", "-f", "-", input_=json.dumps(JOB))
    kb(served, "advance", "5s")
    logs = kubectl(served, "logs", "job/reader").stdout
    assert logs == "10.0.0.17:80 10.0.0.1\n/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n"
    taken = kubectl(served, "create", "service", "clusterip", "other", "--tcp=80", "--clusterip=10.0.0.17",
                    check=False)
    assert taken.returncode == 1
    assert taken.stderr == ('error: failed to create ClusterIP service: Service "other" is invalid: '
                            'spec.clusterIPs[0]: Invalid value: "10.0.0.17": '
                            "failed to allocate IP 10.0.0.17: provided IP is already allocated\n")
