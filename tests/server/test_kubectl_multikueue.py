"""MultiKueue across three ``kbatch serve`` processes, as a user sets it up with kubectl: one manager
and two workers (each its own API server on a virtual clock the test advances), kubeconfig Secrets in
the manager's ``kueue-system`` pointing at the workers over HTTP (Kueue's
site/content/en/docs/concepts/multikueue.md and tasks/run/multikueue, v0.19.2).

A Job applied on the manager gets ``spec.managedBy: kueue.x-k8s.io/multikueue``, is admitted on the
manager's quota, dispatched to both workers, runs on the one that admits it (worker2: worker1's queue
is too small) and the manager's ``kubectl get job`` shows the worker's status through to Complete.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from kbatch.server.process import ServeProcess

KUBECTL = shutil.which("kubectl")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CLOCK = "/apis/kbatch.dev/v1alpha1/clock"
pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")


def _kubectl(server: ServeProcess, *args: str, stdin: str | None = None) -> str:
    out = subprocess.run(
        [str(KUBECTL), *args], env=server.env(), capture_output=True, text=True, timeout=60, input=stdin
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def _kubeconfig(url: str) -> str:
    return (
        f"apiVersion: v1\nkind: Config\ncurrent-context: w\nclusters:\n- name: w\n  cluster:\n"
        f"    server: {url}\ncontexts:\n- name: w\n  context:\n    cluster: w\n    user: w\n"
        "users:\n- name: w\n  user: {}\n"
    )


def _secret(name: str, url: str) -> str:
    data = base64.b64encode(_kubeconfig(url).encode()).decode()
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": name, "namespace": "kueue-system"},
            "data": {"kubeconfig": data},
        }
    )


def _advance(servers: list[ServeProcess], seconds: float = 1.0) -> None:
    for server in servers:
        reply = httpx.post(f"{server.url}{CLOCK}", json={"advance": f"{seconds}s"}, timeout=60)
        assert reply.is_success, reply.text


@pytest.fixture(scope="module")
def clusters(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, ServeProcess]]:
    started: dict[str, ServeProcess] = {}
    try:
        for name in ("worker1", "worker2", "manager"):
            started[name] = ServeProcess(tmp_path_factory.mktemp(name)).start()
        yield started
    finally:
        for server in started.values():
            assert server.stop() == 0, "".join(server.output)


def _setup(clusters: dict[str, ServeProcess]) -> None:
    for name, cpu in (("worker1", "1"), ("worker2", "4")):
        worker = clusters[name]
        httpx.post(f"{worker.url}/apis/kbatch.dev/v1alpha1/actions/nodes-add", json={"count": 1}, timeout=30)
        queues = (
            (EXAMPLES / "kueue" / "queues.yaml")
            .read_text()
            .replace("nominalQuota: 4", f"nominalQuota: {cpu}")
        )
        _kubectl(worker, "apply", "-f", "-", stdin=queues)
    manager = clusters["manager"]
    setup = subprocess.run(
        [str(KUBECTL), "apply", "-f", str(EXAMPLES / "multikueue" / "manager-setup.yaml")],
        env=manager.env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert setup.returncode == 0, setup.stderr
    assert "Warning" not in setup.stderr  # the MultiKueue check is run here (server/inert_warnings.py)
    for i in (1, 2):
        _kubectl(manager, "apply", "-f", "-", stdin=_secret(f"worker{i}-secret", clusters[f"worker{i}"].url))


def _get(server: ServeProcess, *what: str) -> Any:
    return json.loads(_kubectl(server, "get", *what, "-o", "json"))


def test_job_runs_on_a_worker_and_the_manager_shows_its_status(clusters: dict[str, ServeProcess]) -> None:
    _setup(clusters)
    manager = clusters["manager"]
    everyone = [manager, clusters["worker1"], clusters["worker2"]]
    _advance(everyone)
    mkc = _kubectl(manager, "get", "multikueueclusters")
    assert mkc.split("\n")[0].split() == ["NAME", "CONNECTED", "AGE"]
    assert [line.split()[1] for line in mkc.strip().split("\n")[1:]] == ["True", "True"], mkc
    check = _get(manager, "admissioncheck", "sample-multikueue")
    assert [(c["type"], c["status"], c["reason"]) for c in check["status"]["conditions"]] == [
        ("Active", "True", "Active")
    ]
    _kubectl(manager, "apply", "-f", str(EXAMPLES / "multikueue" / "job.yaml"))
    assert _get(manager, "job", "sample-job")["spec"]["managedBy"] == "kueue.x-k8s.io/multikueue"
    for _ in range(40):
        _advance(everyone)
        job = _get(manager, "job", "sample-job")
        if any(
            c["type"] == "Complete" and c["status"] == "True" for c in job["status"].get("conditions", [])
        ):
            break
    else:
        pytest.fail(f"the manager's Job never completed: {job['status']}")
    assert job["status"]["succeeded"] == 2
    (wl,) = _get(manager, "workloads")["items"]
    assert wl["status"]["clusterName"] == "multikueue-test-worker2"
    (acs,) = wl["status"]["admissionChecks"]
    assert (acs["state"], acs["message"]) == (
        "Ready",
        'The workload was admitted on "multikueue-test-worker2"',
    )
    assert _get(manager, "pods")["items"] == []  # nothing ran on the manager
    _advance(everyone)
    for name in ("worker1", "worker2"):  # the finished Workload's copies are removed
        assert _get(clusters[name], "workloads")["items"] == []
