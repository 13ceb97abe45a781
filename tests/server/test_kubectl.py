"""The real kubectl (v1.32 on this machine) against ``kbatch serve`` started as a subprocess."""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

KUBECTL = shutil.which("kubectl")
pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.yaml"))
TIMEOUT = 30


def kubectl(served: Any, *args: str, input_: str | None = None,
            check: bool = True) -> subprocess.CompletedProcess[str]:
    out = subprocess.run([KUBECTL, *args], env=served.env(), capture_output=True, text=True, timeout=TIMEOUT,
                         input=input_)
    if check and out.returncode != 0:
        raise AssertionError(f"kubectl {' '.join(args)} failed: {out.stderr}")
    return out


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_apply_every_example(served: Any, example: Path) -> None:
    first = kubectl(served, "apply", "-f", str(example))
    assert "created" in first.stdout or "configured" in first.stdout or "unchanged" in first.stdout
    again = kubectl(served, "apply", "-f", str(example))
    assert "unchanged" in again.stdout or "configured" in again.stdout
    # the patch comes from the served OpenAPI v3 document: every field the example sets is in it
    assert "error calculating patch" not in again.stderr, again.stderr


def test_get_table_yaml_json(served: Any) -> None:
    kubectl(served, "apply", "-f", str(EXAMPLES[0].parent / "kwok-pod.yaml"))
    table = kubectl(served, "get", "pods").stdout.splitlines()
    assert table[0].split() == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert any(line.startswith("fake-pod ") for line in table[1:])
    wide = kubectl(served, "get", "po", "-o", "wide").stdout.splitlines()[0]
    assert "NOMINATED NODE" in wide and "READINESS GATES" in wide
    yaml_text = kubectl(served, "get", "pod", "fake-pod", "-o", "yaml").stdout
    assert "name: fake-pod" in yaml_text and "kind: Pod" in yaml_text
    listed = json.loads(kubectl(served, "get", "pods", "-o", "json").stdout)
    assert listed["kind"] == "List" and any(i["metadata"]["name"] == "fake-pod" for i in listed["items"])
    jobs = kubectl(served, "get", "jobs.batch").stdout.splitlines()
    assert jobs[0].split()[:5] == ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]
    none = kubectl(served, "get", "cronjobs")
    assert "No resources found" in none.stderr


def test_describe_patch_delete(served: Any) -> None:
    kubectl(served, "apply", "-f", str(EXAMPLES[0].parent / "kwok-node.yaml"))
    described = kubectl(served, "describe", "node", "kwok-node-0").stdout
    assert "Name:" in described and "kwok-node-0" in described
    kubectl(served, "patch", "node", "kwok-node-0", "-p", '{"metadata":{"labels":{"rack":"r1"}}}')
    kubectl(served, "patch", "node", "kwok-node-0", "--type=json",
            "-p", '[{"op":"add","path":"/metadata/labels/zone","value":"z1"}]')
    kubectl(served, "patch", "node", "kwok-node-0", "--subresource=status", "--type=merge",
            "-p", '{"status":{"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady"}]}}')
    got = json.loads(kubectl(served, "get", "node", "kwok-node-0", "-o", "json").stdout)
    assert got["metadata"]["labels"]["rack"] == "r1" and got["metadata"]["labels"]["zone"] == "z1"
    assert kubectl(served, "get", "nodes").stdout.splitlines()[1].split()[1] == "Ready"
    kubectl(served, "create", "-f", "-", input_=json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "doomed"},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]}}))
    deleted = kubectl(served, "delete", "pod", "doomed", "--wait=false")
    assert 'pod "doomed" deleted' in deleted.stdout
    missing = kubectl(served, "get", "pod", "doomed", check=False)
    assert missing.returncode != 0 and "NotFound" in missing.stderr


def test_server_side_apply_after_client_side_apply(served: Any) -> None:
    # kubectl may take over what client-side apply set (lastappliedmanager.go) ...
    kubectl(served, "apply", "-f", str(EXAMPLES[0].parent / "pi-job.yaml"))
    out = kubectl(served, "apply", "--server-side", "-f", str(EXAMPLES[0].parent / "pi-job.yaml"))
    assert "serverside-applied" in out.stdout
    # ... but not the pod's atomic tolerations, which admission extended (DefaultTolerationSeconds)
    kubectl(served, "apply", "-f", str(EXAMPLES[0].parent / "kwok-pod.yaml"))
    out = kubectl(served, "apply", "--server-side", "-f", str(EXAMPLES[0].parent / "kwok-pod.yaml"),
                  check=False)
    assert out.returncode != 0
    assert 'conflict with "kubectl-client-side-apply" using v1: .spec.tolerations' in out.stderr


def test_errors_read_like_kubernetes(served: Any) -> None:
    bad = kubectl(served, "get", "widgets", check=False)
    assert bad.returncode != 0 and "widgets" in bad.stderr
    invalid = kubectl(served, "create", "-f", "-", check=False, input_=json.dumps(
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"}, "spec": {"containers": []}}))
    assert (invalid.returncode != 0 and "Invalid" in invalid.stderr) or "invalid" in invalid.stderr


def test_explain_reads_the_openapi_schema(served: Any) -> None:
    out = kubectl(served, "explain", "jobs.spec", check=False)
    assert out.returncode == 0, out.stderr
    assert "parallelism" in out.stdout


def test_get_watch_streams_changes(served: Any) -> None:
    proc = subprocess.Popen([KUBECTL, "get", "pods", "-w", "--request-timeout=20s"], env=served.env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout],
                     daemon=True).start()  # type: ignore[union-attr]
    try:
        header = lines.get(timeout=TIMEOUT)
        assert header.split()[:2] == ["NAME", "READY"]
        kubectl(served, "create", "-f", "-", input_=json.dumps({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "watched"},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}}))
        while True:
            line = lines.get(timeout=TIMEOUT)
            if line.startswith("watched "):
                break
    finally:
        proc.kill()
        proc.wait(timeout=TIMEOUT)


def test_apply_a_list(served: Any, tmp_path: Path) -> None:
    """kubectl validates a ``kind: List`` client-side against the OpenAPI v2 document in protobuf form
    (the server cannot validate a List with fieldValidation); kbatch serves one."""
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "from-a-list"},
           "spec": {"template": {"spec": {"restartPolicy": "Never",
                                          "containers": [{"name": "c", "image": "busybox"}]}}}}
    path = tmp_path / "list.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [job]}))
    assert kubectl(served, "apply", "-f", str(path)).stdout.strip() == "job.batch/from-a-list created"
    assert kubectl(served, "apply", "-f", str(path)).stdout.strip() == "job.batch/from-a-list unchanged"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [job, 5]}))
    refused = kubectl(served, "apply", "-f", str(path), check=False)
    assert refused.returncode == 1 and "invalid object to validate" in refused.stderr
