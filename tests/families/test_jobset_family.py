"""The JobSet family's declaration: its kind is served with the CRD's columns and kubectl's generic
describe page (tests/families/test_generic_page.py), its gates are known, and its Kueue integration
(``jobset.x-k8s.io/jobset``) is a complete ``GenericJob``
(kubernetes-sigs/kueue ``pkg/controller/jobs/jobset/jobset_controller_test.go``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api import edit
from kbatch.api.core_v1 import Toleration
from kbatch.api.features import FeatureGateError
from kbatch.api.jobframework import GenericJob, JobWithManagedBy, JobWithPriorityClass, PodSetInfo
from kbatch.api.jobset_v1alpha2 import JobSet
from kbatch.families import BUILTIN_FAMILIES, JOBSET, builtin, resolve
from kbatch.families.jobset.integration import JobSetIntegration, ReclaimablePod
from kbatch.families.jobset.printers import JOBSET as PRINTER
from kbatch.server.table import build_table

NOW = datetime(2025, 1, 1, 0, 5, tzinfo=UTC)


def jobset(**status: Any) -> JobSet:
    template = {"spec": {"parallelism": 3, "completions": 2, "template": {
        "metadata": {"labels": {"app": "x"}},
        "spec": {"priorityClassName": "high", "containers": [{"name": "c", "image": "i"}]}}}}
    return JobSet.model_validate({
        "metadata": {"name": "js", "namespace": "ns", "creationTimestamp": "2025-01-01T00:00:00Z"},
        "spec": {"suspend": True, "replicatedJobs": [
            {"name": "driver", "replicas": 1, "template": {"spec": {"template": {"spec": {
                "containers": [{"name": "c", "image": "i"}]}}}}},
            {"name": "workers", "replicas": 4, "template": template}]},
        **({"status": status} if status else {})})


def test_the_family_is_built_in_with_its_kind_plugins_controller_gates_and_integration() -> None:
    assert JOBSET in BUILTIN_FAMILIES
    composed = builtin()
    spec = composed.registry().for_name("jobsets")
    assert spec.model is JobSet and spec.info.short_names == () and spec.gc_policy == "Background"
    assert [c.name for c in JOBSET.controllers] == ["jobset"] and JOBSET.controllers[0].source == "jobset"
    gates = composed.feature_gates()
    assert not any(gates.enabled(g) for g in ("RestartJob", "InPlaceRestart", "ElasticJobSet"))
    assert composed.feature_gates("RestartJob=true").enabled("RestartJob")
    with pytest.raises(FeatureGateError, match="unrecognized feature gate: NoSuchJobSetGate"):
        composed.feature_gates("NoSuchJobSetGate=true")
    (integration,) = [j for j in composed.job_integrations if j.name == "jobset.x-k8s.io/jobset"]
    assert resolve(integration.adapter) is JobSetIntegration and integration.model is JobSet


def test_the_printer_shows_the_crds_columns() -> None:
    running = jobset(restarts=0).to_dict()
    done = jobset(restarts=2, terminalState="Failed", conditions=[
        {"type": "Completed", "status": "False", "reason": "R", "message": "m",
         "lastTransitionTime": "2025-01-01T00:01:00Z"}]).to_dict()
    table = build_table([jobset().to_dict(), running, done], PRINTER, NOW)
    assert [(c["name"], c["type"]) for c in table["columnDefinitions"]] == [
        ("Name", "string"), ("TerminalState", "string"), ("Restarts", "string"), ("Completed", "string"),
        ("Suspended", "string"), ("Age", "date")]
    assert [row["cells"] for row in table["rows"]] == [
        ["js", "", "", "", "true", "5m"], ["js", "", "0", "", "true", "5m"],
        ["js", "Failed", "2", "False", "true", "5m"]]


def test_the_integration_is_a_generic_job_with_its_optional_capabilities() -> None:
    adapter = JobSetIntegration(jobset())
    assert isinstance(adapter, GenericJob) and isinstance(adapter, JobWithPriorityClass)
    assert isinstance(adapter, JobWithManagedBy)
    sets = adapter.pod_sets()
    assert [(p.name, p.count, p.min_count) for p in sets] == [("driver", 1, None), ("workers", 8, None)]
    assert sets[1].template.metadata.labels == {"app": "x"}
    assert adapter.priority_class() == "high" and adapter.is_suspended()
    adapter.set_managed_by("kueue.x-k8s.io/multikueue")
    assert adapter.managed_by() == "kueue.x-k8s.io/multikueue"


def test_run_injects_each_pod_sets_info_and_restore_puts_the_templates_back() -> None:
    adapter = JobSetIntegration(jobset())
    originals = [PodSetInfo(p.name, p.count, labels=dict(p.template.metadata.labels or {})
                            if p.template.metadata else {}) for p in adapter.pod_sets()]
    with pytest.raises(ValueError, match="expecting 2 podset, got 1"):
        adapter.run_with_pod_sets_info(originals[:1])
    admitted = [PodSetInfo("driver", 1, node_selector={"flavor": "a"}),
                PodSetInfo("workers", 8, node_selector={"flavor": "b"}, labels={"kueue.x-k8s.io/podset": "w"},
                           tolerations=(Toleration(key="gpu", operator="Exists"),), scheduling_gates=("g",))]
    adapter.run_with_pod_sets_info(admitted)
    assert not adapter.is_suspended()
    pod = adapter.object.spec.replicated_jobs[1].template.spec.template
    assert pod.spec.node_selector == {"flavor": "b"}
    assert pod.metadata.labels == {"app": "x", "kueue.x-k8s.io/podset": "w"}
    assert [t.key for t in pod.spec.tolerations] == ["gpu"]
    assert [g.name for g in pod.spec.scheduling_gates] == ["g"]
    adapter.suspend()
    assert adapter.restore_pod_sets_info(originals) is True
    assert pod.spec.node_selector is None and pod.spec.tolerations is None
    assert pod.spec.scheduling_gates is None
    assert pod.metadata.labels == {"app": "x"}
    assert adapter.restore_pod_sets_info(originals) is False and adapter.restore_pod_sets_info([]) is False


def test_finished_active_ready_and_reclaimable_follow_the_status() -> None:
    assert JobSetIntegration(jobset()).finished() == ("", False, False)
    status = {"replicatedJobsStatus": [
        {"name": "driver", "ready": 1, "succeeded": 0, "failed": 0, "active": 1, "suspended": 0},
        {"name": "workers", "ready": 1, "succeeded": 3, "failed": 0, "active": 1, "suspended": 0}]}
    adapter = JobSetIntegration(jobset(**status))
    assert adapter.is_active() and adapter.pods_ready()
    assert adapter.reclaimable_pods() == [ReclaimablePod("workers", 6)]
    condition = {"type": "Failed", "status": "True", "reason": "FailedJobs", "message": "boom",
                 "lastTransitionTime": "2025-01-01T00:00:00Z"}
    failed = JobSetIntegration(jobset(conditions=[condition]))
    assert failed.finished() == ("boom", False, True)


def test_kueue_style_admission_of_a_suspended_jobset_on_a_control_plane() -> None:
    """Created suspended, it stays suspended; the admitted node selector reaches the Jobs on resume."""
    from kbatch.api.batch_v1 import Job
    from kbatch.sim import NodeTemplate, create_nodes

    cp = ControlPlane(seed=2)
    create_nodes(cp, 2, NodeTemplate())
    manifest = jobset().to_dict()
    manifest["metadata"] = {"name": "js"}
    cp.apply(manifest)
    cp.advance(60)
    assert all(j.spec.suspend for j in cp.client.list(Job, "default").items)
    adapter = JobSetIntegration(edit(cp.client.get(JobSet, "js", "default")))
    node1 = {"kubernetes.io/hostname": "node-1"}
    adapter.run_with_pod_sets_info([PodSetInfo("driver", 1, node_selector=node1),
                                    PodSetInfo("workers", 8, node_selector=node1)])
    cp.client.update(adapter.object)
    cp.run_until_idle()
    jobs = cp.client.list(Job, "default").items
    assert all(not j.spec.suspend and j.spec.template.spec.node_selector == node1 for j in jobs)
