"""The same CLI against a running ``kbatch serve`` (``--server URL``), and as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kbatch.server.process import ServeProcess

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TIMEOUT = 60


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    proc = ServeProcess(tmp_path_factory.mktemp("remote-state")).start()
    try:
        yield proc
    finally:
        assert proc.stop() == 0, "".join(proc.output)


def run(*args: str, env: dict[str, str] | None = None,
        input_: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kbatch.cli", *args], capture_output=True, text=True,
                          timeout=TIMEOUT, env=env or dict(os.environ), input=input_)


def test_commands_through_the_server(kb: Any, server: ServeProcess) -> None:
    remote = ("--server", server.url)
    kb.ok(*remote, "nodes", "add", "--count", "2")
    assert kb.ok(*remote, "apply", "-f",
                 str(EXAMPLES / "indexed-job.yaml")).strip() == "job.batch/sample-job created"
    rows = kb.ok(*remote, "get", "pods", "--no-headers").splitlines()
    assert len(rows) == 3
    out = kb.ok(*remote, "wait", "job/sample-job", "--for", "condition=Complete", "--timeout", "5m")
    assert out.strip() == "job.batch/sample-job condition met"
    out = kb.ok(*remote, "wait", "job/sample-job", "--for=jsonpath={.status.succeeded}=3", "--timeout", "1s")
    assert out.strip() == "job.batch/sample-job condition met"
    several = kb(*remote, "wait", "job/sample-job", "--for=jsonpath={.status.conditions[*].type}=Complete")
    assert several.code == 1
    assert several.err.strip() == "error: given jsonpath expression matches more than one value"
    job = json.loads(kb.ok(*remote, "get", "job", "sample-job", "-o", "json"))
    assert job["status"]["succeeded"] == 3
    pod = json.loads(kb.ok(*remote, "get", "pods", "-o", "json"))["items"][0]["metadata"]["name"]
    assert kb.ok(*remote, "logs", pod).startswith("My partition: ")
    assert kb.ok(*remote, "advance", "1m").startswith("advanced 1m")
    assert len(kb.ok(*remote, "trace").splitlines()) > 5
    missing = kb(*remote, "get", "job", "nope")
    assert missing.code == 1 and 'jobs.batch "nope" not found' in missing.err
    assert not kb.state.exists()  # remote mode never touches the local state directory


def test_environment_variables_select_server_and_state(server: ServeProcess, tmp_path: Path) -> None:
    env = {**os.environ, "KBATCH_SERVER": server.url}
    out = run("get", "nodes", env=env)
    assert (out.returncode == 0 and "node-0" in out.stdout) or "No resources" in out.stderr
    env = {**os.environ, "KBATCH_STATE": str(tmp_path / "s")}
    env.pop("KBATCH_SERVER", None)
    assert run("nodes", "add", env=env).returncode == 0
    assert (tmp_path / "s" / "state.kbatch").exists()
    bad = run("--controllers", "bogus", "get", "pods", env=env)
    assert bad.returncode == 1 and "bogus" in bad.stderr and "Traceback" not in bad.stderr


def test_kubeconfig_command(server: ServeProcess) -> None:
    out = run("--state", str(server.state), "kubeconfig")
    assert out.returncode == 0 and server.url in out.stdout
    remote = run("--server", server.url, "kubeconfig")
    assert "current-context: kbatch" in remote.stdout


def test_unreachable_server_is_one_line(tmp_path: Path) -> None:
    """kubectl's last line for the same (k8s.io/kubectl ``StandardErrorMessage``; checked against
    kubectl 1.32: ``kubectl --server http://127.0.0.1:9 get pods``)."""
    out = run("--server", "http://127.0.0.1:9", "get", "pods")
    assert out.returncode == 1
    assert out.stderr == ("The connection to the server 127.0.0.1:9 was refused - did you specify the right "
                          "host or port?\n")
    unknown = run("--server", "http://nosuchhost.invalid:9", "get", "pods")
    assert unknown.returncode == 1 and unknown.stderr.startswith("Unable to connect to the server: ")
    assert "Traceback" not in unknown.stderr


def test_binding_beyond_loopback_needs_a_token(tmp_path: Path) -> None:
    out = run("--state", str(tmp_path / "s"), "serve", "--address", "0.0.0.0", "--port", "0")
    assert out.returncode == 1 and "--token" in out.stderr


def test_token_protected_server(tmp_path: Path) -> None:
    with ServeProcess(tmp_path / "s", "--token", "t0ken") as proc:
        denied = run("--server", proc.url, "get", "pods", env={**os.environ, "KBATCH_TOKEN": ""})
        assert denied.returncode == 1
        assert denied.stderr.strip() == "error: You must be logged in to the server (Unauthorized)"
        allowed = run("--server", proc.url, "get", "pods", env={**os.environ, "KBATCH_TOKEN": "t0ken"})
        assert allowed.returncode == 0, allowed.stderr


def test_real_clock_runs_jobs_without_advance(tmp_path: Path) -> None:
    with ServeProcess(tmp_path / "s", "--clock", "real") as proc:
        remote = ("--server", proc.url)
        assert run(*remote, "nodes", "add").returncode == 0
        job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "quick"},
               "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
                   {"name": "c", "image": "busybox", "command": ["true"]}]}}}}
        assert run(*remote, "create", "-f", "-", input_=json.dumps(job)).returncode == 0
        refused = run(*remote, "advance", "1m")
        assert refused.returncode == 1 and "real clock" in refused.stderr
        import httpx

        def complete(job: dict) -> bool:
            conds = (job.get("status") or {}).get("conditions") or []
            return any(c["type"] == "Complete" and c["status"] == "True" for c in conds)

        with httpx.Client(base_url=proc.url, timeout=TIMEOUT) as http:
            path = "/apis/batch/v1/namespaces/default/jobs"
            listed = http.get(path).json()  # the Job may have completed while `advance` was refused
            done = any(complete(job) for job in listed["items"])
            if not done:
                since = listed["metadata"]["resourceVersion"]
                params = {"watch": "1", "timeoutSeconds": "20", "resourceVersion": since}
                with http.stream("GET", path, params=params) as resp:
                    done = any(complete(json.loads(line)["object"]) for line in resp.iter_lines())
            assert done


def test_local_commands_on_a_served_state_point_to_the_server(server: ServeProcess) -> None:
    out = run("--state", str(server.state), "get", "pods")
    assert out.returncode == 1 and f"use --server {server.url}" in out.stderr


def test_http_backend_list_passes_resource_version_match(server: ServeProcess) -> None:
    """The CLI's HTTP backend forwards ``resourceVersionMatch`` as the Backend protocol promises: an
    ``Exact`` list reads the named revision, and the server's ValidateListOptions rules apply."""
    from kbatch.api.core_v1 import Namespace
    from kbatch.api.errors import StatusError
    from kbatch.cli.remote import HttpBackend

    backend = HttpBackend(server.url)
    try:
        info = Namespace.api_info
        now = backend.list(info, None)
        rv = now["metadata"]["resourceVersion"]
        exact = backend.list(info, None, resource_version=rv, resource_version_match="Exact")
        assert exact["metadata"]["resourceVersion"] == rv
        assert sorted(i["metadata"]["name"] for i in exact["items"]) == \
            sorted(i["metadata"]["name"] for i in now["items"])
        with pytest.raises(StatusError) as err:  # a match without a resourceVersion is 422 Invalid
            backend.list(info, None, resource_version_match="NotOlderThan")
        assert err.value.status.code == 422
    finally:
        backend.close()


def test_wait_on_a_real_clock_waits_in_real_time(tmp_path: Path) -> None:
    """``kbatch --server URL wait`` against ``kbatch serve --clock real`` (and ``--etcd-servers``,
    whose clock is real) answered 'this control plane runs on the real clock; time cannot be
    advanced'. kubectl wait waits on the machine's clock (k8s.io/kubectl pkg/cmd/wait); so does
    kbatch now: the condition met, or kubectl's timeout line after --timeout of real time."""
    state = tmp_path / "state"
    assert run("--state", str(state), "nodes", "add").returncode == 0
    proc = ServeProcess(state, "--clock", "real").start()
    try:
        remote = ("--server", proc.url)
        job = json.dumps({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "short"},
                          "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
                              {"name": "c", "image": "busybox", "command": ["sleep", "1"]}]}}}})
        assert run(*remote, "apply", "-f", "-", input_=job).returncode == 0
        met = run(*remote, "wait", "job/short", "--for", "condition=Complete", "--timeout", "1m")
        assert met.returncode == 0 and met.stdout == "job.batch/short condition met\n", met.stderr
        late = run(*remote, "wait", "job/short", "--for", "condition=Failed", "--timeout", "500ms")
        assert late.returncode == 1
        assert late.stderr == "error: timed out waiting for the condition on jobs/short\n"
    finally:
        assert proc.stop() == 0, "".join(proc.output)


def test_write_warnings_come_through_the_server(kb: Any, server: ServeProcess, tmp_path: Path) -> None:
    """The ``Warning`` headers of ``kbatch serve`` (here a Job name that is no DNS label,
    pkg/registry/batch/job/strategy.go ``WarningsOnCreate``) are printed as a local write's are."""
    manifest = tmp_path / "job.yaml"
    manifest.write_text("apiVersion: batch/v1\nkind: Job\nmetadata: {name: warned.job}\n"
                        "spec:\n  suspend: true\n  template:\n    spec:\n      restartPolicy: Never\n"
                        "      containers: [{name: c, image: busybox}]\n")
    res = kb("--server", server.url, "apply", "-f", str(manifest))
    assert res.code == 0, res.err
    assert res.err == ("Warning: metadata.name: this is used in Pod names and hostnames, which can result in "
                       "surprising behavior; a DNS label is recommended: [must not contain dots]\n")


def test_names_resolve_against_what_the_server_serves(kb: Any, server: ServeProcess) -> None:
    """``workloads`` is both Kubernetes' scheduling.k8s.io Workload (GenericWorkload, off by default)
    and Kueue's. kubectl resolves names with a RESTMapper built from the server's discovery (client-go
    ``restmapper.NewDeferredDiscoveryRESTMapper``), so against a server that does not serve the
    gated kind it finds Kueue's; ``--server`` must too, not the kind the server never offered."""
    res = kb("--server", server.url, "get", "workloads")
    assert (res.code, res.err) == (0, "No resources found in default namespace.\n")
    res = kb("--server", server.url, "get", "workloads.scheduling.k8s.io")
    assert res.code == 1
    # the group-resource's resource alone (cli-runtime builder.go mappingFor, schema.ParseGroupResource)
    assert res.err == 'error: the server doesn\'t have a resource type "workloads"\n'
