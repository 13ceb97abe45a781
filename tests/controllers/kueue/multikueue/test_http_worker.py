"""A worker reached over HTTP: a real ``kbatch serve`` process, watched by a manager in this process
on its virtual clock (kubernetes-sigs/kueue v0.19.2 ``multikueuecluster.go``: the remote client's
watches on the worker's Workloads and jobs labelled with the origin).

Every revision of a remote object reaches the manager, in order, and without the manager's clock
moving: a watch delivers changes as they happen (a poll every second would coalesce the revisions
written between two polls and only see them when time passes). The worker's process ending ends the
watch: the cluster goes ``Active=False`` and reconnects when a new worker answers at that address.
Assertions are on revisions and order, never on wall time; the only waits are bounded waits for the
other process's events to arrive.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from kbatch import ControlPlane
from kbatch.api import edit
from kbatch.api.errors import Conflict
from kbatch.api.kueue_v1beta2 import MultiKueueCluster, Workload
from kbatch.api.kueue_v1beta2.multikueue import ORIGIN_LABEL
from kbatch.api.meta import Resource
from kbatch.controllers.kueue.multikueue import MULTIKUEUE
from kbatch.controllers.kueue.multikueue.http_remote import HttpRemote
from kbatch.controllers.kueue.multikueue.kubeconfig import ClientConfig
from kbatch.runtime.image import load_image, save_image
from kbatch.server.process import ServeProcess

from .world import NAMESPACE, kubeconfig, mk_check, mk_cluster, mk_config, secret

WAIT = 60.0  # the longest wait for the other process (a bound, not an expectation)


@pytest.fixture
def worker(tmp_path: Path) -> Iterator[ServeProcess]:
    server = ServeProcess(tmp_path / "worker").start()
    try:
        yield server
    finally:
        server.stop()


class Arrivals:
    """What the manager's watch delivered, recorded on the manager's loop thread; ``ready`` is set
    from the reader thread when something was posted."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []
        self.ready = threading.Event()

    def wake(self) -> None:
        self.ready.set()


def _manager(url: str, observe: bool = True) -> tuple[ControlPlane, Arrivals]:
    m = ControlPlane(seed=0)
    m.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
    m.apply([mk_check(), mk_config("mkconf", ["w1"])])
    arrivals = _observe(m) if observe else Arrivals()
    m.apply([secret("w1-kubeconfig", kubeconfig(url)), mk_cluster("w1")], namespace=NAMESPACE)
    m.run_until_idle()
    return m, arrivals


def _observe(m: ControlPlane) -> Arrivals:
    """Record what the watch delivers (the key queued for the workload reconciler), and be told from
    the reader thread when something was posted."""
    mk = m.published.get(MULTIKUEUE)
    arrivals = Arrivals()
    original = mk.workload_changed_remotely

    def changed(obj: Resource) -> None:
        arrivals.seen.append((obj.metadata.name or "", obj.metadata.resource_version or ""))
        original(obj)

    mk.workload_changed_remotely = changed  # type: ignore[method-assign]
    mk.inbox()._wake = arrivals.wake
    return arrivals


def _active(m: ControlPlane) -> tuple[str, str]:
    (cond,) = m.client.get(MultiKueueCluster, "w1").status.conditions
    return cond.status, cond.reason or ""


def _wait_for(m: ControlPlane, arrivals: Arrivals, done: object) -> None:
    """Run the manager's rounds as events arrive (its clock does not move) until ``done()``."""
    while not done():  # type: ignore[operator]
        assert arrivals.ready.wait(WAIT), f"nothing arrived; seen {arrivals.seen}"
        arrivals.ready.clear()
        m.run_until_idle()


def _copy(name: str) -> Workload:
    spec = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "pause"}]}
    pod_set = {"name": "main", "count": 1, "template": {"spec": spec}}
    return Workload.from_dict({
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
        "metadata": {"name": name, "namespace": "default", "labels": {ORIGIN_LABEL: "multikueue"}},
        "spec": {"podSets": [pod_set]},
    })


def test_every_revision_arrives_in_order_without_the_clock_moving(worker: ServeProcess) -> None:
    m, arrivals = _manager(worker.url)
    assert _active(m) == ("True", "Active")
    start = m.clock.now()
    client = HttpRemote(ClientConfig(worker.url), m.published.get(MULTIKUEUE).inbox())
    written = [client.create(_copy("wl1"))]
    for i in range(4):  # four label edits, written back to back (the worker's Kueue writes too)
        written.append(_relabel(client, str(i)))
    client.delete(Workload, "wl1", "default")
    revisions = [int(w.metadata.resource_version or 0) for w in written]
    # every revision written arrived once a later one did (the deletion's, or the worker's own write)
    _wait_for(m, arrivals, lambda: any(n == "wl1" and int(rv) > revisions[-1] for n, rv in arrivals.seen))
    seen = [int(rv) for name, rv in arrivals.seen if name == "wl1"]
    assert seen == sorted(seen)  # in order
    assert [rv for rv in seen if rv in revisions] == revisions  # each revision written, none coalesced
    assert m.clock.now() == start  # no time passed on the manager: nothing was polled


def _relabel(client: HttpRemote, step: str) -> Workload:
    while True:
        obj = edit(client.get(Workload, "wl1", "default"))
        obj.metadata.labels = {**(obj.metadata.labels or {}), "step": step}
        try:
            return client.update(obj)
        except Conflict:
            continue


def test_the_workers_end_ends_the_watch_and_a_new_worker_is_reconnected(tmp_path: Path) -> None:
    first = ServeProcess(tmp_path / "w").start()
    m, arrivals = _manager(first.url)
    assert _active(m) == ("True", "Active")
    assert first.stop() == 0
    _wait_for(m, arrivals, lambda: _active(m)[0] == "False")  # the watch ended: reconnecting fails
    assert _active(m) == ("False", "ClientConnectionFailed")
    with ServeProcess(tmp_path / "w2") as second:  # a new worker; its kubeconfig replaced
        m.apply(secret("w1-kubeconfig", kubeconfig(second.url)), namespace=NAMESPACE)
        m.run_until_idle()
        assert _active(m) == ("True", "Active")


def test_a_restored_manager_watches_again(worker: ServeProcess, tmp_path: Path) -> None:
    """A saved image keeps the connection's config, not its reader threads: at the first round after
    a restore the watch counts as ended and the cluster reconnects (``watchEndedCh``), so the worker's
    changes arrive again."""
    m, _ = _manager(worker.url, observe=False)
    assert _active(m) == ("True", "Active")
    save_image(m, tmp_path / "image")
    restored, _ = load_image(tmp_path / "image")
    arrivals = _observe(restored)
    restored.run_until_idle()  # revived: reconnected, streams open again
    assert _active(restored) == ("True", "Active")
    mk = restored.published.get(MULTIKUEUE)
    created = HttpRemote(ClientConfig(worker.url), mk.inbox()).create(_copy("after-restore"))
    wanted = ("after-restore", created.metadata.resource_version)
    _wait_for(restored, arrivals, lambda: wanted in arrivals.seen)
