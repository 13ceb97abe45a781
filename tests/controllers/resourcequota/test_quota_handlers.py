"""What enqueues a ResourceQuota recount, and when the full resync runs, as upstream's handlers.

Upstream (kubernetes ``pkg/controller/resourcequota``, v1.37): ``resource_quota_monitor.go``
``controllerFor`` (deletes replenish; updates only for a pod that stops counting, ``QuotaV1Pod(old) &&
!QuotaV1Pod(new)``, a Service whose ``GetQuotaServiceType`` changes, a claim whose allocated storage
changes), ``resource_quota_controller.go`` ``replenishQuota`` (only quotas whose ``status.hard``
tracks the kind) and ``Run`` (``enqueueAll`` every ``--resource-quota-sync-period``, 5 m, from start).
Each case counts the controller's reconciles around one event.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.core_v1 import ConfigMap, Pod, ResourceQuota, Service
from kbatch.controllers.resourcequota import RESYNC_PERIOD
from kbatch.runtime.controlplane import ControlPlane

RQ = "resourcequota"


def _quota(name: str, hard: dict[str, str]) -> ResourceQuota:
    return ResourceQuota.model_validate({"metadata": {"name": name, "namespace": "default"},
                                         "spec": {"hard": hard}})


def _reconciles(cp: ControlPlane) -> int:
    cp.run_until_idle()
    return cp.manager.get(RQ).reconciles


def _used(cp: ControlPlane, name: str) -> dict[str, str]:
    st = cp.client.get(ResourceQuota, name, "default").status
    assert st is not None
    return {k: str(v) for k, v in (st.used or {}).items()}


def _bound_pod(name: str) -> Pod:
    """Bound to a node no kubelet runs, so a graceful delete leaves it terminating."""
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": {
        "nodeName": "gone", "terminationGracePeriodSeconds": 30,
        "containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}]}})


def test_marking_a_pod_for_deletion_does_not_replenish_and_it_counts_until_its_grace_ends() -> None:
    cp = ControlPlane(seed=0, controllers=RQ)
    cp.client.create(_quota("q", {"pods": "5", "requests.cpu": "5"}))
    cp.client.create(_bound_pod("p"))
    cp.run_until_idle()
    before = _reconciles(cp)
    cp.client.delete(Pod, "p", "default")  # deletionTimestamp = now + 30 s: QuotaV1Pod still true
    assert cp.client.get(Pod, "p", "default").metadata.deletion_timestamp is not None
    assert _reconciles(cp) == before
    assert _used(cp, "q") == {"pods": "1", "requests.cpu": "1"}
    # stuck terminating: past deletionTimestamp + grace (60 s) it no longer counts, but no event says
    # so; the next enqueueAll (at 300 s from start) recounts it
    cp.advance(RESYNC_PERIOD - 1 - cp.clock.now())
    assert _used(cp, "q") == {"pods": "1", "requests.cpu": "1"}
    cp.advance(1)
    assert _used(cp, "q") == {"pods": "0", "requests.cpu": "0"}


def test_a_pod_turning_terminal_replenishes_at_once() -> None:
    cp = ControlPlane(seed=0, controllers=RQ)
    cp.client.create(_quota("q", {"pods": "5"}))
    cp.client.create(_bound_pod("p"))
    before = _reconciles(cp)
    cp.client.patch_status(Pod, "p", {"status": {"phase": "Running"}}, "default")
    assert _reconciles(cp) == before  # still counts: no replenishment
    cp.client.patch_status(Pod, "p", {"status": {"phase": "Succeeded"}}, "default")
    assert _reconciles(cp) == before + 1
    assert _used(cp, "q") == {"pods": "0"}


def test_a_delete_replenishes_only_the_quotas_tracking_the_kind() -> None:
    cp = ControlPlane(seed=0, controllers=RQ)
    cp.client.create(_quota("pods", {"pods": "5"}))
    cp.client.create(_quota("maps", {"configmaps": "5"}))
    cp.run_until_idle()
    counted = _used(cp, "maps")
    cp.client.create(ConfigMap.model_validate({"metadata": {"name": "c", "namespace": "default"}}))
    before = _reconciles(cp)
    cp.client.delete(ConfigMap, "c", "default")
    assert _reconciles(cp) == before + 1  # "maps" only
    assert _used(cp, "maps") == counted


def _service(kind: str) -> dict[str, Any]:
    return {"spec": {"type": kind, "ports": [{"port": 80}]}}


def test_a_service_replenishes_when_its_quota_type_changes_only() -> None:
    cp = ControlPlane(seed=0, controllers=RQ)
    cp.client.create(_quota("q", {"services": "5"}))
    cp.client.create(Service.model_validate({"metadata": {"name": "s", "namespace": "default"},
                                             **_service("ClusterIP")}))
    before = _reconciles(cp)
    cp.client.patch(Service, "s", {"metadata": {"labels": {"touch": "1"}}}, "default")
    assert _reconciles(cp) == before
    cp.client.patch(Service, "s", {"spec": {"type": "NodePort"}}, "default")
    assert _reconciles(cp) == before + 1


def test_the_full_resync_queues_every_quota_on_one_period_from_start() -> None:
    cp = ControlPlane(seed=0, controllers=RQ)
    cp.client.create(_quota("a", {"pods": "5"}))
    cp.advance(100)
    cp.client.create(_quota("b", {"pods": "5"}))
    before = _reconciles(cp)
    cp.advance(RESYNC_PERIOD - 1 - cp.clock.now())
    assert _reconciles(cp) == before  # "a" is not resynced 300 s after its own sync
    cp.advance(1)
    assert _reconciles(cp) == before + 3  # the sweep, then "a" and "b" together
