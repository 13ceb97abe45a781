"""Manager quota automation with a worker over HTTP (a real ``kbatch serve``): the worker's watch events
are typed, so a status-only or label-only update of a worker ClusterQueue costs no list of the
worker's LocalQueues (kubernetes-sigs/kueue v0.19.2 ``multikueuecluster.go`` ``startQueueWatchers``:
updates that leave ``spec.resourceGroups`` alone are skipped), while a quota change or a deletion costs
one and moves the manager's quota.

Events of one stream arrive in order, so waiting for the quota change's event means the updates
written before it were handled too. The manager's clock moves only to let the events batch period
pass; the only waits are bounded waits for the worker's events.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api import edit
from kbatch.api.errors import Conflict
from kbatch.api.kueue_v1beta2 import ClusterQueue, ClusterQueueStatus, LocalQueue
from kbatch.api.meta import Condition
from kbatch.controllers.kueue.multikueue import MULTIKUEUE
from kbatch.controllers.kueue.multikueue.http_remote import HttpRemote
from kbatch.controllers.kueue.multikueue.inbox import RemoteInbox
from kbatch.controllers.kueue.multikueue.kubeconfig import ClientConfig
from kbatch.controllers.kueue.multikueue.quota_events import WorkerQueueEvents
from kbatch.controllers.kueue.multikueue.remote import WatchEvent
from kbatch.server.process import ServeProcess

from .quota_world import GATE, config, cq, lq, manager, quotas
from .world import NAMESPACE, kubeconfig, mk_cluster, secret

WAIT = 60.0  # the longest wait for the worker's events (a bound, not an expectation)


class Seen:
    """The worker queue events handled on the manager's loop, and the lists of the worker's
    LocalQueues made through HTTP."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, str]] = []  # type, name, resourceVersion
        self.lq_lists = 0
        self.ready = threading.Event()


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> Seen:
    record = Seen()
    handle, list_ = WorkerQueueEvents.__call__, HttpRemote.list

    def observed(self: WorkerQueueEvents, event: WatchEvent) -> None:
        if isinstance(event.obj, ClusterQueue):
            meta = event.obj.metadata
            record.events.append((event.type, meta.name or "", meta.resource_version or ""))
        handle(self, event)

    def counted(self: HttpRemote, kind: type[Any], labels: dict[str, str]) -> list[Any]:
        record.lq_lists += kind is LocalQueue
        return list_(self, kind, labels)

    monkeypatch.setattr(WorkerQueueEvents, "__call__", observed)
    monkeypatch.setattr(HttpRemote, "list", counted)
    return record


@pytest.fixture
def worker(tmp_path: Path) -> Iterator[HttpRemote]:
    with ServeProcess(tmp_path / "worker") as server:
        client = HttpRemote(ClientConfig(server.url), RemoteInbox())
        client.create(LocalQueue.from_dict(lq("lq1", "w-cq")))
        client.create(ClusterQueue.from_dict(cq("w-cq", [("default", {"cpu": "4"})])))
        yield client


def _manager(url: str, seen: Seen) -> ControlPlane:
    m = ControlPlane(seed=0, feature_gates=GATE)
    m.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
    m.apply(manager(cq("cq1", [("default", {"cpu": "0"})], checks=("ac1",)), [lq("lq1", "cq1")],
                    config("config1", ["w1"])))
    m.published.get(MULTIKUEUE).inbox()._wake = seen.ready.set
    m.apply([secret("w1-kubeconfig", kubeconfig(url)), mk_cluster("w1")], namespace=NAMESPACE)
    _batch(m)
    return m


def _batch(m: ControlPlane) -> None:
    """Let the events batch period pass, so the requeued manager ClusterQueues reconcile."""
    m.run_until_idle()
    m.advance(1.5)
    m.run_until_idle()


def _wait_for(m: ControlPlane, seen: Seen, done: Callable[[], bool]) -> None:
    """Run the manager's rounds as events arrive (its clock does not move) until ``done()``."""
    m.run_until_idle()
    while not done():
        assert seen.ready.wait(WAIT), f"nothing arrived; seen {seen.events}"
        seen.ready.clear()
        m.run_until_idle()


def _write(client: HttpRemote, change: Callable[[ClusterQueue], None], status: bool = False) -> ClusterQueue:
    """Change the worker's ClusterQueue, retried over the worker's own concurrent writes."""
    while True:
        obj = edit(client.get(ClusterQueue, "w-cq", None))
        assert obj is not None
        change(obj)
        try:
            return client.update_status(obj) if status else client.update(obj)
        except Conflict:
            continue


def _condition(obj: ClusterQueue) -> None:
    obj.status = obj.status or ClusterQueueStatus()
    cond = Condition(type="ByTest", status="True", reason="ByTest", message="status only",
                     last_transition_time="2026-01-01T00:00:00Z")
    obj.status.conditions = [*(obj.status.conditions or ()), cond]


def _label(obj: ClusterQueue) -> None:
    obj.metadata.labels = {"team": "a"}


def _quota(obj: ClusterQueue) -> None:
    wanted = ClusterQueue.from_dict(cq("w-cq", [("default", {"cpu": "6"})])).spec
    assert obj.spec is not None and wanted is not None
    obj.spec.resource_groups = wanted.resource_groups


def test_only_quota_changes_and_deletions_list_the_workers_queues(worker: HttpRemote, seen: Seen) -> None:
    m = _manager(str(worker.config.server), seen)
    assert quotas(m, "cq1") == {"cpu": "4"}
    seen.lq_lists, seen.events = 0, []

    status_only = _write(worker, _condition, status=True)
    labelled = _write(worker, _label)
    changed = _write(worker, _quota)
    rv = changed.metadata.resource_version or ""
    _wait_for(m, seen, lambda: ("MODIFIED", "w-cq", rv) in seen.events)
    handled = {r for _, _, r in seen.events}
    assert {status_only.metadata.resource_version, labelled.metadata.resource_version} <= handled
    assert seen.lq_lists == 1  # the quota change's, not the status-only or label-only update's
    _batch(m)
    assert quotas(m, "cq1") == {"cpu": "6"}

    seen.lq_lists = 0
    worker.delete(ClusterQueue, "w-cq", None)
    _wait_for(m, seen, lambda: any(t == "DELETED" for t, _, _ in seen.events))
    assert seen.lq_lists == 1
    _batch(m)
    assert quotas(m, "cq1") == {"cpu": "0"}
