"""What an informer event enqueues, controller by controller, as upstream's handlers decide it.

Each case counts the reconciles one event causes: an event upstream ignores (a handler it never
registered, or one that returns early) reconciles nothing; one it handles reconciles. Upstream
(kubernetes/kubernetes, kube-controller-manager's client-go handlers):

* ``pkg/controller/ttlafterfinished``: ``addJob``/``updateJob`` only (no ``DeleteFunc``), each queueing a
  Job that ``needsCleanup``;
* ``pkg/controller/namespace``: ``enqueueNamespace`` on add and update, "don't queue if we aren't
  deleted" (no ``DeleteFunc``), after the 5 s ``namespaceDeletionGracePeriod``;
* ``pkg/controller/serviceaccount``: ``namespaceAdded``/``namespaceUpdated`` (no namespace ``DeleteFunc``);
* ``pkg/controller/certificates/rootcacertpublisher``: ``namespaceAdded``, ``namespaceUpdated`` only
  for an ``Active`` namespace (no namespace ``DeleteFunc``);
* ``pkg/controller/clusterroleaggregation``: every ClusterRole event queues every ClusterRole with an
  ``aggregationRule``, and only those;
* ``pkg/controller/job``: ``updateJob`` queues a started Job for its new ``activeDeadlineSeconds``;
* ``pkg/controller/volume/ephemeral``: a pod's ``AddFunc`` only (``enqueuePod``: not deleting, with an
  ephemeral volume) and a claim's ``DeleteFunc`` only (``onPVCDelete``).
"""

from __future__ import annotations

from typing import Any

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Namespace, PersistentVolumeClaim, Pod
from kbatch.api.rbac_v1 import ClusterRole
from kbatch.runtime.controlplane import ControlPlane
from kbatch.runtime.reconcile import Request
from kbatch.testing import make_job


def _reconciles(cp: ControlPlane, controller: str) -> int:
    cp.run_until_idle()
    return cp.manager.get(controller).reconciles


def _finish(cp: ControlPlane, name: str) -> None:
    at = "2025-01-01T00:00:00Z"
    conditions = [{"type": t, "status": "True", "lastTransitionTime": at, "lastProbeTime": at, "reason": "X"}
                  for t in ("SuccessCriteriaMet", "Complete")]
    cp.client.patch_status(Job, name, {"status": {"startTime": at, "completionTime": at, "succeeded": 1,
                                                  "conditions": conditions}}, "default")


def _namespace(cp: ControlPlane, name: str) -> None:
    cp.client.create(Namespace.model_validate({"metadata": {"name": name}}))


def _label_namespace(cp: ControlPlane, name: str, value: str) -> None:
    cp.client.patch(Namespace, name, {"metadata": {"labels": {"touch": value}}})


# --- ttl-after-finished ---------------------------------------------------------------------------


def test_ttl_a_deleted_finished_job_is_not_reconciled() -> None:
    cp = ControlPlane(seed=0, controllers="ttl-after-finished")
    cp.client.create(make_job("j").manual_selector().ttl_after_finished(3600).obj())
    _finish(cp, "j")
    before = _reconciles(cp, "ttl-after-finished")
    assert before >= 1  # the update that finished it queued it (needsCleanup)
    cp.client.delete(Job, "j", "default", propagation_policy="Background")  # gone at once
    assert _reconciles(cp, "ttl-after-finished") == before


def test_ttl_an_update_of_a_finished_job_is_reconciled() -> None:
    cp = ControlPlane(seed=0, controllers="ttl-after-finished")
    cp.client.create(make_job("j").manual_selector().ttl_after_finished(3600).obj())
    _finish(cp, "j")
    before = _reconciles(cp, "ttl-after-finished")
    cp.client.patch(Job, "j", {"metadata": {"labels": {"touch": "1"}}}, "default")
    assert _reconciles(cp, "ttl-after-finished") == before + 1


# --- namespace ------------------------------------------------------------------------------------


def test_namespace_controller_ignores_live_namespaces() -> None:
    cp = ControlPlane(seed=0, controllers="namespace")
    before = _reconciles(cp, "namespace")
    _namespace(cp, "team")
    _label_namespace(cp, "team", "1")
    assert _reconciles(cp, "namespace") == before


def test_namespace_controller_reconciles_a_terminating_namespace() -> None:
    cp = ControlPlane(seed=0, controllers="namespace")
    _namespace(cp, "team")
    before = _reconciles(cp, "namespace")
    cp.client.delete(Namespace, "team")
    assert _reconciles(cp, "namespace") == before  # AddAfter(key, namespaceDeletionGracePeriod)
    cp.advance(5)
    assert _reconciles(cp, "namespace") == before + 1
    assert not cp.client.list(Namespace).items or all(
        n.metadata.name != "team" for n in cp.client.list(Namespace).items)


# --- serviceaccount and root-ca-cert-publisher ---------------------------------------------------


def test_serviceaccount_controller_ignores_a_namespace_delete() -> None:
    cp = ControlPlane(seed=0, controllers="serviceaccount")
    _namespace(cp, "team")
    _label_namespace(cp, "team", "1")
    before = _reconciles(cp, "serviceaccount")
    assert before >= 2  # namespaceAdded, namespaceUpdated
    cp.client.delete(Namespace, "team")  # no namespace controller: the namespace stays Terminating
    after_mark = _reconciles(cp, "serviceaccount")
    assert after_mark == before + 1  # namespaceUpdated (syncNamespace then skips a terminating one)
    cp.server.namespaces.finalize_spec("team")  # type: ignore[union-attr]  # the final delete
    assert _reconciles(cp, "serviceaccount") == after_mark


def test_root_ca_publisher_ignores_updates_of_a_terminating_namespace() -> None:
    cp = ControlPlane(seed=0, controllers="root-ca-cert-publisher")
    _namespace(cp, "team")
    before = _reconciles(cp, "root-ca-cert-publisher")
    _label_namespace(cp, "team", "1")
    assert _reconciles(cp, "root-ca-cert-publisher") == before + 1  # Active: namespaceUpdated queues
    before = _reconciles(cp, "root-ca-cert-publisher")
    cp.client.delete(Namespace, "team")  # Terminating: namespaceUpdated returns
    _label_namespace(cp, "team", "2")
    assert _reconciles(cp, "root-ca-cert-publisher") == before


# --- clusterrole-aggregation ----------------------------------------------------------------------


def _role(name: str, labels: dict[str, str] | None = None, selector: dict[str, str] | None = None) -> Any:
    body: dict[str, Any] = {"metadata": {"name": name, "labels": labels or {}},
                            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}
    if selector is not None:
        body["aggregationRule"] = {"clusterRoleSelectors": [{"matchLabels": selector}]}
        body["rules"] = None
    return ClusterRole.model_validate(body)


def test_aggregation_queues_aggregated_roles_only() -> None:
    cp = ControlPlane(seed=0, controllers="clusterrole-aggregation")
    cp.run_until_idle()
    aggregated = sum(1 for r in cp.client.list(ClusterRole).items if r.aggregation_rule is not None)
    before = _reconciles(cp, "clusterrole-aggregation")
    cp.client.create(_role("plain"))
    assert _reconciles(cp, "clusterrole-aggregation") == before + aggregated
    before = _reconciles(cp, "clusterrole-aggregation")
    cp.client.create(_role("picked", {"agg": "x"}))
    cp.client.create(_role("collector", selector={"agg": "x"}))
    assert _reconciles(cp, "clusterrole-aggregation") >= before + aggregated
    assert cp.client.get(ClusterRole, "collector").rules  # the role aggregated what it selects


# --- job: updateJob's activeDeadlineSeconds resync -------------------------------------------------


def test_job_update_that_sets_a_passed_active_deadline_queues_the_job_now() -> None:
    """A status-only update is batched (1 s); one that also moves a started Job's deadline to a past
    instant queues it at once (``AddAfter`` with a negative delay), not after the batching period."""
    cp = ControlPlane(seed=0, controllers="job")
    cp.client.create(make_job("j").suspend().obj())
    cp.run_until_idle()
    cp.advance(10)
    old = cp.client.get(Job, "j", "default")
    old_started = old.model_copy(deep=True)
    old_started.status.start_time = cp.clock.now_datetime().replace(second=0)
    new = old_started.model_copy(deep=True)
    new.spec.active_deadline_seconds = 10  # started 10 s ago: the deadline is now
    queue = cp.manager.get("job").queue
    for handler in cp.cache.informer_for(Job).handlers:  # the update event alone, as updateJob gets it
        handler.on_update(old_started, new)
    assert queue.is_dirty(Request("default", "j"))


def test_job_update_without_a_deadline_change_is_batched() -> None:
    cp = ControlPlane(seed=0, controllers="job")
    cp.client.create(make_job("j").suspend().obj())
    cp.run_until_idle()
    cp.advance(10)
    old = cp.client.get(Job, "j", "default")
    queue = cp.manager.get("job").queue
    for handler in cp.cache.informer_for(Job).handlers:
        handler.on_update(old, old)
    assert not queue.is_dirty(Request("default", "j"))
    assert queue.waiting_deadline(Request("default", "j")) == cp.clock.now() + 1


# --- ephemeral-volume -----------------------------------------------------------------------------


def _ephemeral_pod() -> Pod:
    template = {"spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "",
                         "resources": {"requests": {"storage": "1Gi"}}}}
    return Pod.model_validate({
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "busybox"}],
                 "volumes": [{"name": "scratch", "ephemeral": {"volumeClaimTemplate": template}}]}})


def test_ephemeral_volume_controller_ignores_pod_updates_and_claim_updates() -> None:
    cp = ControlPlane(seed=0, controllers="ephemeral-volume")
    cp.client.create(_ephemeral_pod())
    before = _reconciles(cp, "ephemeral-volume")
    assert before == 1 and cp.client.get(PersistentVolumeClaim, "p-scratch", "default")
    cp.client.patch_status(Pod, "p", {"status": {"phase": "Running"}}, "default")
    cp.client.patch(PersistentVolumeClaim, "p-scratch", {"metadata": {"labels": {"touch": "1"}}}, "default")
    assert _reconciles(cp, "ephemeral-volume") == before


def test_ephemeral_volume_controller_recreates_a_deleted_claim() -> None:
    cp = ControlPlane(seed=0, controllers="ephemeral-volume")
    cp.client.create(_ephemeral_pod())
    before = _reconciles(cp, "ephemeral-volume")
    cp.client.delete(PersistentVolumeClaim, "p-scratch", "default")  # marked (pvc-protection finalizer)
    assert _reconciles(cp, "ephemeral-volume") == before
    cp.client.patch(PersistentVolumeClaim, "p-scratch", {"metadata": {"finalizers": None}}, "default")
    assert _reconciles(cp, "ephemeral-volume") == before + 1  # gone: onPVCDelete
    assert cp.client.get(PersistentVolumeClaim, "p-scratch", "default")
