"""kubectl, the HTTP body, a watch and the ``kbatch`` CLI (a separate process) show unset by-value
times as a 1.37 API server does: ``lastProbeTime: null`` in every pod condition, set in a Job's; no
``creationTimestamp`` in a pod template (``omitzero``). See kbatch.api.wire_zeros."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import httpx
import pytest

from kbatch.cli import main
from tests.server.test_kubectl import KUBECTL, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: probe-times
spec:
  template:
    spec:
      containers:
      - name: main
        image: busybox
        command: ["sleep", "5"]
      restartPolicy: Never
"""


def _kbatch(served: Any, *args: str) -> None:
    try:
        main(["--server", served.url, *args])
    except SystemExit as exit_:
        assert not exit_.code


@pytest.fixture(scope="module")
def finished(served: Any) -> Any:
    _kbatch(served, "nodes", "add", "--count", "1")
    kubectl(served, "apply", "-f", "-", input_=JOB)
    _kbatch(served, "advance", "1m")
    return served


def test_kubectl_yaml_prints_null_probe_time_like_upstream(finished: Any) -> None:
    pod_yaml = kubectl(finished, "get", "pods", "-l", "job-name=probe-times", "-o", "yaml").stdout
    conditions = pod_yaml.count("lastTransitionTime:")
    assert conditions >= 4 and pod_yaml.count("lastProbeTime: null") == conditions
    job_yaml = kubectl(finished, "get", "job", "probe-times", "-o", "yaml").stdout
    assert "lastProbeTime: \"" in job_yaml and "lastProbeTime: null" not in job_yaml
    assert "creationTimestamp: null" not in job_yaml and job_yaml.count("creationTimestamp:") == 1


def test_http_body_and_watch_keep_go_field_order(finished: Any) -> None:
    url = f"{finished.url}/api/v1/namespaces/default/pods?labelSelector=job-name%3Dprobe-times"
    body = httpx.get(url).text
    assert '"status":"True","lastProbeTime":null,"lastTransitionTime":"' in body
    with httpx.stream("GET", url + "&watch=1&timeoutSeconds=1") as stream:
        first = json.loads(next(stream.iter_lines()))
    assert all(c["lastProbeTime"] is None for c in first["object"]["status"]["conditions"])


def test_cli_in_its_own_process_prints_the_same(finished: Any) -> None:
    out = subprocess.run([sys.executable, "-m", "kbatch.cli", "--server", finished.url, "get", "pods",
                          "-l", "job-name=probe-times", "-o", "json"],
                         capture_output=True, text=True, timeout=60, env=finished.env(), check=True).stdout
    pod = json.loads(out)["items"][0]
    assert all("lastProbeTime" in c and c["lastProbeTime"] is None for c in pod["status"]["conditions"])


def test_table_rows_embed_objects_with_the_same_nulls(finished: Any) -> None:
    """``includeObject=Object`` embeds each row's whole object (k8s.io/apimachinery
    ``meta/v1`` ``TableRow.Object``, encoded by the same serializer as a JSON response): its unset
    by-value times are null there too, in a list, a get and a watch."""
    base = f"{finished.url}/api/v1/namespaces/default/pods"
    table = {"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
    listed = httpx.get(f"{base}?labelSelector=job-name%3Dprobe-times&includeObject=Object",
                       headers=table).json()
    pod = listed["rows"][0]["object"]
    name = pod["metadata"]["name"]
    one = httpx.get(f"{base}/{name}?includeObject=Object", headers=table).json()["rows"][0]["object"]
    with httpx.stream("GET", f"{base}?watch=1&timeoutSeconds=1&fieldSelector=metadata.name%3D{name}"
                      "&includeObject=Object", headers=table) as stream:
        watched = json.loads(next(stream.iter_lines()))["object"]["rows"][0]["object"]
    plain = httpx.get(f"{base}/{name}").json()
    for embedded in (pod, one, watched):
        assert embedded["status"]["conditions"] == plain["status"]["conditions"]
        assert all(c["lastProbeTime"] is None for c in embedded["status"]["conditions"])
