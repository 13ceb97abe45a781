"""``kbatch serve --etcd-servers``: several real server processes on one real etcd.

Each test starts its own etcd (``etcd`` fixture, tests/conftest.py) and ``kbatch serve`` processes
(``ServeProcess``), with short leader-election timings (lease 3 s, renew deadline 2 s, retry 0.5 s;
the defaults are kube-controller-manager's 15/10/2 s, checked in tests/runtime/test_leaderelection.py)
so that a handover takes seconds. Waits are bounded polls of the API (real processes on a real
clock), never sleeps of a fixed length.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from kbatch.server.process import ServeProcess
from kbatch.testing.etcd import EtcdProcess

LEASE, RENEW, RETRY = 3.0, 2.0, 0.5
TIMING = ("--leader-elect-lease-duration", str(LEASE), "--leader-elect-renew-deadline", str(RENEW),
          "--leader-elect-retry-period", str(RETRY))
ELECTION = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager"
LEASES = "/apis/coordination.k8s.io/v1/namespaces/default/leases"
JOBS = "/apis/batch/v1/namespaces/default/jobs"


def wait_until(check: Callable[[], Any], timeout: float, what: str, step: float = 0.1) -> Any:
    """Poll ``check`` until it returns something truthy (bounded): the processes run on real time."""
    tick = threading.Event()
    waited = 0.0
    while waited < timeout:
        try:
            found = check()
        except httpx.HTTPError:
            found = None
        if found:
            return found
        tick.wait(step)
        waited += step
    raise AssertionError(f"not within {timeout}s: {what}")


class Server:
    def __init__(self, process: ServeProcess) -> None:
        self.process = process
        self.http = httpx.Client(base_url=process.url, timeout=30)
        line = next(x for x in process.output if "listening on" in x)
        self.identity = line.rsplit("identity ", 1)[1].rstrip(")\n")

    def get(self, path: str) -> httpx.Response:
        return self.http.get(path)

    def post(self, path: str, body: Any) -> httpx.Response:
        return self.http.post(path, json=body)

    def put(self, path: str, body: Any) -> httpx.Response:
        return self.http.put(path, json=body)

    def holder(self) -> str | None:
        r = self.get(ELECTION)
        return r.json()["spec"].get("holderIdentity") if r.status_code == 200 else None


@pytest.fixture
def serve(etcd: EtcdProcess, tmp_path: Path) -> Iterator[Callable[..., Server]]:
    started: list[ServeProcess] = []

    def start(*extra: str) -> Server:
        process = ServeProcess(tmp_path / f"state{len(started)}", "--etcd-servers", etcd.url, *TIMING, *extra,
                               start_timeout=60)
        started.append(process.start())
        return Server(process)

    yield start
    for process in started:
        if process.process is not None and process.process.poll() is None:
            process.stop(timeout=60)


def lease(name: str, holder: str = "x") -> dict[str, Any]:
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": name, "namespace": "default"}, "spec": {"holderIdentity": holder}}


def test_clock_virtual_is_refused_with_etcd(etcd: EtcdProcess, tmp_path: Path) -> None:
    command = [sys.executable, "-m", "kbatch.cli", "--state", str(tmp_path), "serve", "--port", "0",
               "--etcd-servers", etcd.url, "--clock", "virtual"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert run.returncode != 0
    assert "--clock virtual cannot be used with --etcd-servers" in run.stdout + run.stderr


def test_two_servers_serve_the_same_objects_with_optimistic_concurrency(serve: Callable[..., Server]) -> None:
    a, b = serve(), serve()
    created = a.post(LEASES, lease("shared"))
    assert created.status_code == 201
    seen = b.get(f"{LEASES}/shared").json()
    assert seen["metadata"]["uid"] == created.json()["metadata"]["uid"]
    stale = dict(seen)
    fresh = a.put(f"{LEASES}/shared", {**seen, "spec": {"holderIdentity": "a"}})
    assert fresh.status_code == 200
    conflict = b.put(f"{LEASES}/shared", {**stale, "spec": {"holderIdentity": "b"}})
    assert conflict.status_code == 409 and conflict.json()["reason"] == "Conflict"
    # and the other way round
    current = b.get(f"{LEASES}/shared").json()
    assert b.put(f"{LEASES}/shared", {**current, "spec": {"holderIdentity": "b"}}).status_code == 200
    again = a.put(f"{LEASES}/shared", {**current, "spec": {"holderIdentity": "a2"}})
    assert again.status_code == 409
    assert a.post(LEASES, lease("shared")).status_code == 409  # AlreadyExists from either
    assert b.get(f"{LEASES}/shared").json()["spec"]["holderIdentity"] == "b"


def test_one_leader_runs_the_controllers_and_a_killed_leader_hands_over(serve: Callable[..., Server]) -> None:
    a = serve()
    wait_until(lambda: a.holder() == a.identity, 30, "the first server leads")
    b = serve()
    assert b.holder() == a.identity  # b follows while a renews
    assert b.post("/apis/kbatch.dev/v1alpha1/actions/nodes-add", {"count": 2}).status_code == 200
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "work"},
           "spec": {"completions": 6, "parallelism": 2, "template": {"spec": {
               "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox",
                                                         "command": ["sleep", "2"]}]}}}}
    assert b.post(JOBS, job).status_code == 201
    wait_until(lambda: (b.get(f"{JOBS}/work").json().get("status") or {}).get("succeeded", 0) >= 2, 60,
               "two pods succeeded under the first leader")
    a.process.process.kill()  # SIGKILL: no release, the lease has to run out
    a.process.process.wait(30)
    waited = [0.0]

    def took_over() -> bool:
        waited[0] += 0.1
        return b.holder() == b.identity

    wait_until(took_over, 30, "the second server takes the lease")
    # within the lease duration of the last renewal, plus the follower's jittered retry period
    assert waited[0] <= LEASE + RETRY * 2.2 + 1.5
    done = wait_until(lambda: _complete(b.get(f"{JOBS}/work").json()), 90, "the job completes under b")
    assert done["succeeded"] == 6 and not done.get("failed")
    pods = b.get("/api/v1/namespaces/default/pods").json()["items"]
    assert len(pods) == 6  # no pod created twice across the handover
    assert b.get(ELECTION).json()["spec"]["leaseTransitions"] == 1


def _complete(job: dict[str, Any]) -> dict[str, Any] | None:
    status = job.get("status") or {}
    if any(c["type"] == "Complete" and c["status"] == "True" for c in status.get("conditions") or ()):
        return status
    return None


def test_a_stopped_leader_releases_the_lease_and_the_follower_takes_it_at_once(
        serve: Callable[..., Server]) -> None:
    a = serve()
    wait_until(lambda: a.holder() == a.identity, 30, "the first server leads")
    b = serve()
    assert a.process.stop() == 0  # SIGTERM: release on the way out
    wait_until(lambda: b.holder() == b.identity, LEASE, "the follower takes the released lease")


def test_etcd_down_gives_503_status_and_the_server_recovers_without_5xx(
        serve: Callable[..., Server], etcd: EtcdProcess) -> None:
    a = serve()
    assert a.post(LEASES, lease("before")).status_code == 201
    etcd.kill()
    down = a.get(f"{LEASES}/before")
    assert down.status_code == 503
    body = down.json()
    assert (body["kind"], body["reason"], body["code"]) == ("Status", "ServiceUnavailable", 503)
    assert a.post(LEASES, lease("during")).status_code == 503
    etcd.start()
    wait_until(lambda: a.get(f"{LEASES}/before").status_code == 200, 30, "the server reaches etcd again")
    codes = [a.post(LEASES, lease(f"after{i}")).status_code for i in range(20)]
    codes += [a.get(f"{LEASES}/after{i}").status_code for i in range(20)]
    codes += [a.get(LEASES).status_code, a.get("/api/v1/namespaces").status_code]
    assert all(c < 500 for c in codes), codes
    names = {x["metadata"]["name"] for x in a.get(LEASES).json()["items"]}
    assert {"before", *(f"after{i}" for i in range(20))} <= names and "during" not in names


def test_a_watch_stream_survives_an_etcd_restart(serve: Callable[..., Server], etcd: EtcdProcess) -> None:
    a = serve()
    listed = a.get(LEASES).json()
    events: list[dict[str, Any]] = []
    got = threading.Condition()

    def follow() -> None:
        import json

        url = f"{a.process.url}{LEASES}?watch=1&resourceVersion={listed['metadata']['resourceVersion']}"
        with httpx.stream("GET", url, timeout=httpx.Timeout(60, read=60)) as resp:
            for line in resp.iter_lines():
                if line:
                    with got:
                        events.append(json.loads(line))
                        got.notify_all()
                    if len(events) >= 2:
                        return

    thread = threading.Thread(target=follow, daemon=True)
    thread.start()
    assert a.post(LEASES, lease("one")).status_code == 201
    with got:
        assert got.wait_for(lambda: len(events) >= 1, 30)
    etcd.kill()
    etcd.start()
    wait_until(lambda: a.post(LEASES, lease("two")).status_code == 201, 30, "a write after the restart")
    with got:
        assert got.wait_for(lambda: len(events) >= 2, 30)
    seen = [(e["type"], e["object"]["metadata"]["name"]) for e in events]
    assert seen == [("ADDED", "one"), ("ADDED", "two")]
