"""Kueue admitting Jobs end to end: the job framework, the scheduler, preemption and borrowing.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobframework/reconciler.go`` and
``test/integration/singlecluster/controller/jobs/job/job_controller_test.go`` (suspend, Workload,
start with the admission, finish), ``pkg/scheduler/scheduler_test.go`` (the Pending message),
``pkg/scheduler/preemption/preemption_test.go`` (InClusterQueue), ``test/integration/singlecluster/
scheduler/scheduler_test.go`` (borrowing in a cohort), ``pkg/webhooks/clusterqueue_webhook.go``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from conformance.target import Obj, condition, has_condition
from conformance.timing import budget

KUEUE = "kueue.x-k8s.io/v1beta2"
FRAMEWORK = "kubernetes-sigs/kueue pkg/controller/jobframework/reconciler.go"
SCHEDULER = "kubernetes-sigs/kueue pkg/scheduler/scheduler.go"


def _cq(name: str, flavor: str, nominal: str, cohort: str | None = None, **spec: Any) -> Obj:
    body: dict[str, Any] = {
        "namespaceSelector": {},
        "resourceGroups": [
            {
                "coveredResources": ["cpu"],
                "flavors": [{"name": flavor, "resources": [{"name": "cpu", "nominalQuota": nominal}]}],
            }
        ],
        **spec,
    }
    if cohort:
        body["cohortName"] = cohort
    return {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": body}


@contextlib.contextmanager
def queues(target, *quotas: tuple[str, str], cohort: bool = False, **spec: Any) -> Iterator[list[str]]:
    """A ResourceFlavor, one ClusterQueue per ``(local queue name, nominal cpu)`` (named after the
    namespace, in one cohort when ``cohort``) and its LocalQueue; the cluster-scoped ones deleted at
    the end. Yields the ClusterQueue names."""
    ns = target.namespace
    flavor = f"{ns}-flavor"
    names = [f"{ns}-{lq}" for lq, _ in quotas]
    target.create({"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": flavor}})
    try:
        for (lq, nominal), cq in zip(quotas, names, strict=True):
            target.create(_cq(cq, flavor, nominal, f"{ns}-cohort" if cohort else None, **spec))
            target.create(
                {
                    "apiVersion": KUEUE,
                    "kind": "LocalQueue",
                    "metadata": {"name": lq},
                    "spec": {"clusterQueue": cq},
                }
            )
        yield names
    finally:
        for job in target.list("Job"):
            target.delete("Job", job["metadata"]["name"], propagation_policy="Background")
        for lq, _ in quotas:
            target.delete("LocalQueue", lq)
        for cq in names:
            with contextlib.suppress(Exception):
                target.delete("ClusterQueue", cq)
        with contextlib.suppress(Exception):
            target.delete("ResourceFlavor", flavor)


def sleeping_pod_spec(seconds: int, cpu: str) -> Obj:
    """A pod spec whose one container sleeps ``seconds`` and requests ``cpu``."""
    return {
        "restartPolicy": "Never",
        "terminationGracePeriodSeconds": 1,
        "containers": [{"name": "c", "image": "busybox:1.36", "command": ["sh", "-c", f"sleep {seconds}"],
                        "resources": {"requests": {"cpu": cpu}}}],
    }


def _job(
    name: str, queue: str, seconds: int, pods: int = 2, cpu: str = "100m", priority_class: str | None = None
) -> Obj:
    labels = {"kueue.x-k8s.io/queue-name": queue}
    if priority_class:
        labels["kueue.x-k8s.io/priority-class"] = priority_class
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "labels": labels},
        "spec": {
            "parallelism": pods,
            "completions": pods,
            "template": {
                "spec": sleeping_pod_spec(seconds, cpu)
            },
        },
    }


def _workload(target, job: str) -> Obj | None:
    for wl in target.list("Workload.kueue.x-k8s.io"):  # not scheduling.k8s.io's Workload
        if any(
            o.get("kind") == "Job" and o.get("name") == job
            for o in wl["metadata"].get("ownerReferences") or ()
        ):
            return wl
    return None


def _wl_has(target, job: str, kind: str, status: str = "True") -> bool:
    return has_condition(_workload(target, job), kind, status)


def _reservation(target, cq: str) -> list[Obj]:
    """The ClusterQueue's ``status.flavorsReservation`` resources, of every flavor."""
    flavors = ((target.get("ClusterQueue", cq) or {}).get("status") or {}).get("flavorsReservation") or []
    return [r for f in flavors for r in f.get("resources") or ()]


def _suspended(target, job: str) -> bool:
    return bool(((target.get("Job", job) or {}).get("spec") or {}).get("suspend"))


def _succeeded(target, job: str) -> int:
    return ((target.get("Job", job) or {}).get("status") or {}).get("succeeded") or 0


@pytest.mark.runs_pods
@pytest.mark.needs_kueue
@pytest.mark.semantic(
    "a Job naming a LocalQueue gets a Workload it owns; with quota the Workload is QuotaReserved and "
    "Admitted, the Job unsuspended and run; when it completes the Workload is Finished and the quota free",
    source=f"{FRAMEWORK} ReconcileGenericJob; {SCHEDULER} admit",
)
def test_a_queued_job_is_admitted_run_and_finished(target) -> None:
    with queues(target, ("lq", "200m")) as [cq]:
        target.create(_job("j", "lq", 3))
        assert target.wait_for(lambda: _wl_has(target, "j", "Admitted"), timeout=budget(extra=5))
        wl = _workload(target, "j")
        assert wl["metadata"]["name"].startswith("job-j-") and wl["spec"]["queueName"] == "lq"
        assert wl["status"]["admission"]["clusterQueue"] == cq
        assert condition(wl, "QuotaReserved")["message"] == f"Quota reserved in ClusterQueue {cq}"
        assert target.wait_for(
            lambda: _succeeded(target, "j") == 2, timeout=budget(rounds=1, runs=3, extra=5)
        )
        assert target.wait_for(lambda: _wl_has(target, "j", "Finished"), timeout=budget(extra=5))
        assert condition(_workload(target, "j"), "Finished")["reason"] == "Succeeded"

        def released() -> bool:
            return all(str(r.get("total")) in ("0", "0m") for r in _reservation(target, cq))

        assert target.wait_for(released, timeout=budget(extra=5))


@pytest.mark.runs_pods
@pytest.mark.needs_kueue
@pytest.mark.semantic(
    "a Job beyond the free quota stays suspended, its Workload QuotaReserved=False (Pending: insufficient "
    "unused quota); it is admitted once the running Job finishes",
    source=f"{SCHEDULER} (requeue after the workload finishes); pkg/scheduler/flavorassigner",
)
def test_a_job_waits_for_quota_then_runs(target) -> None:
    with queues(target, ("lq", "200m")):
        target.create(_job("first", "lq", 3))
        assert target.wait_for(lambda: _wl_has(target, "first", "Admitted"), timeout=budget(extra=5))
        target.create(_job("second", "lq", 3))
        assert target.wait_for(
            lambda: _wl_has(target, "second", "QuotaReserved", "False"), timeout=budget(extra=5)
        )
        pending = condition(_workload(target, "second"), "QuotaReserved")
        assert pending["reason"] == "Pending" and "insufficient unused quota for cpu" in pending["message"]
        assert _suspended(target, "second")
        assert target.wait_for(
            lambda: _succeeded(target, "second") == 2, timeout=budget(rounds=2, runs=6, extra=10)
        )


@pytest.mark.runs_pods
@pytest.mark.needs_kueue
@pytest.mark.semantic(
    "withinClusterQueue LowerPriority: a higher WorkloadPriorityClass preempts the running lower Job, which "
    "is suspended again (Preempted: InClusterQueue, Evicted: Preempted) and runs after the higher one",
    source="kubernetes-sigs/kueue pkg/scheduler/preemption/preemption.go; " + FRAMEWORK,
)
def test_a_higher_priority_job_preempts_a_lower_one(target) -> None:
    urgent = f"{target.namespace}-urgent"
    target.create(
        {"apiVersion": KUEUE, "kind": "WorkloadPriorityClass", "metadata": {"name": urgent}, "value": 1000}
    )
    try:
        with queues(target, ("lq", "200m"), preemption={"withinClusterQueue": "LowerPriority"}):
            target.create(_job("low", "lq", 600))
            assert target.wait_for(lambda: _wl_has(target, "low", "Admitted"), timeout=budget(extra=5))
            target.create(_job("high", "lq", 3, priority_class=urgent))
            assert target.wait_for(lambda: _wl_has(target, "low", "Preempted"), timeout=budget(extra=5))
            low = _workload(target, "low")
            assert condition(low, "Preempted")["reason"] == "InClusterQueue"
            assert condition(low, "Evicted")["reason"] == "Preempted"
            assert target.wait_for(lambda: _suspended(target, "low"), timeout=budget(extra=5))
            assert target.wait_for(
                lambda: _succeeded(target, "high") == 2, timeout=budget(rounds=2, runs=3, extra=10)
            )
            assert _workload(target, "high")["spec"]["priority"] == 1000
            assert target.wait_for(lambda: not _suspended(target, "low"), timeout=budget(extra=10))
    finally:
        target.delete("WorkloadPriorityClass", urgent)


@pytest.mark.runs_pods
@pytest.mark.needs_kueue
@pytest.mark.semantic(
    "a ClusterQueue in a cohort borrows the unused nominal quota of the others (status borrowed)",
    source="kubernetes-sigs/kueue pkg/cache/scheduler/resource_node.go; "
    "test/integration/singlecluster/scheduler/scheduler_test.go",
)
def test_borrowing_within_a_cohort(target) -> None:
    with queues(target, ("small", "100m"), ("big", "300m"), cohort=True) as [small, _]:
        target.create(_job("wide", "small", 600, pods=3))
        assert target.wait_for(lambda: _wl_has(target, "wide", "Admitted"), timeout=budget(extra=5))

        def borrowed() -> str:
            return next((str(r.get("borrowed")) for r in _reservation(target, small)), "")

        assert target.wait_for(lambda: borrowed() == "200m", timeout=budget(extra=5))


@pytest.mark.api_validation
@pytest.mark.semantic(
    "Kueue's ClusterQueue webhook refuses a quota whose resource is not in coveredResources",
    source="kubernetes-sigs/kueue pkg/webhooks/clusterqueue_webhook.go validateFlavorQuotas",
)
def test_the_webhook_refuses_a_quota_outside_covered_resources(target) -> None:
    try:  # the webhooks need Kueue's API and webhooks (kbatch: admission plugins, whatever controllers run)
        target.list("ClusterQueue")
    except Exception as err:  # any "kind not served" answer, whatever the target
        pytest.skip(f"kueue.x-k8s.io is not served here: {err}")
    bad = _cq(f"{target.namespace}-bad", "f", "1")
    bad["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["name"] = "memory"
    with pytest.raises(Exception) as err:
        target.create(bad)
    assert "must match the name in coveredResources" in str(err.value)
    assert target.get("ClusterQueue", bad["metadata"]["name"]) is None
