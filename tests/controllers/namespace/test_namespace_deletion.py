"""The namespace controller and the ``kubernetes`` finalize handshake (upstream
pkg/controller/namespace/deletion, pkg/registry/core/namespace/storage), in virtual time."""

from __future__ import annotations

import pytest

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Namespace, Pod
from kbatch.api.errors import Forbidden, NotFound
from kbatch.api.frozen import edit
from kbatch.controllers.namespace import ContentTotals, deletion_conditions
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import NodeTemplate, create_nodes
from kbatch.testing import make_job, make_pod


def _cluster() -> ControlPlane:
    cp = ControlPlane(seed=0)
    create_nodes(cp, 2, NodeTemplate())
    cp.client.create(Namespace.model_validate({"metadata": {"name": "team"}}))
    return cp


def _in_team(obj: object) -> object:
    obj.metadata.namespace = "team"  # type: ignore[attr-defined]
    return obj


def _ns(cp: ControlPlane) -> Namespace | None:
    try:
        return cp.client.get(Namespace, "team")
    except NotFound:
        return None


def _conditions(ns: Namespace) -> dict[str, tuple[str, str, str]]:
    return {c.type: (c.status, c.reason or "", c.message or "") for c in ns.status.conditions or ()}


def test_new_namespace_carries_the_kubernetes_finalizer() -> None:
    cp = _cluster()
    ns = _ns(cp)
    assert ns is not None and ns.spec is not None and ns.spec.finalizers == ["kubernetes"]
    assert ns.status is not None and ns.status.phase == "Active"


def test_deleting_a_namespace_removes_its_pods_and_jobs_then_the_namespace() -> None:
    cp = _cluster()
    for i in range(3):
        cp.client.create(_in_team(make_pod(f"p{i}").command("sleep 100000").obj()))
    cp.client.create(_in_team(make_job("j").parallelism(2).completions(4).command("sleep 100000").obj()))
    cp.advance(5)
    assert len(cp.client.list(Pod, "team").items) == 5
    out = cp.client.delete(Namespace, "team")
    assert out is not None and out.status.phase == "Terminating" and out.metadata.deletion_timestamp
    assert out.spec.finalizers == ["kubernetes"]
    with pytest.raises(Forbidden, match="because it is being terminated"):
        cp.client.create(_in_team(make_pod("late").obj()))
    cp.advance(60)
    cp.run_until_idle()
    assert _ns(cp) is None
    assert cp.client.list(Pod, "team").items == [] and cp.client.list(Job, "team").items == []
    assert {n.metadata.name for n in cp.client.list(Namespace).items} >= {"default", "kube-system"}


def test_finalizers_keep_the_namespace_terminating_until_released() -> None:
    cp = _cluster()
    held = make_job("held").command("sleep 100000").obj()
    held.metadata.finalizers = ["example.com/hold"]
    cp.client.create(_in_team(held))
    cp.advance(5)
    cp.client.delete(Namespace, "team")
    cp.advance(120)
    cp.run_until_idle()
    ns = _ns(cp)
    assert ns is not None and ns.status.phase == "Terminating" and ns.spec.finalizers == ["kubernetes"]
    conds = _conditions(ns)
    assert conds["NamespaceFinalizersRemaining"] == (
        "True", "SomeFinalizersRemain",
        "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances")
    assert conds["NamespaceContentRemaining"] == (
        "True", "SomeResourcesRemain", "Some resources are remaining: jobs.batch has 1 resource instances")
    job = edit(cp.client.get(Job, "held", "team"))
    job.metadata.finalizers = [f for f in job.metadata.finalizers or () if f != "example.com/hold"] or None
    cp.client.update(job)
    cp.advance(5)
    cp.run_until_idle()
    assert _ns(cp) is None


def test_deletion_conditions_when_empty_are_upstreams() -> None:
    out = {c[0]: c[1:] for c in deletion_conditions(ContentTotals())}
    assert out == {
        "NamespaceDeletionDiscoveryFailure": ("False", "ResourcesDiscovered",
                                              "All resources successfully discovered"),
        "NamespaceDeletionGroupVersionParsingFailure": ("False", "ParsedGroupVersions",
                                                        "All legacy kube types successfully parsed"),
        "NamespaceDeletionContentFailure": (
            "False", "ContentDeleted", "All content successfully deleted, may be waiting on finalization"),
        "NamespaceContentRemaining": ("False", "ContentRemoved", "All content successfully removed"),
        "NamespaceFinalizersRemaining": ("False", "ContentHasNoFinalizers",
                                         "All content-preserving finalizers finished"),
    }


def test_remaining_messages_are_sorted() -> None:
    totals = ContentTotals(resources={"pods": 2, "jobs.batch": 1}, finalizers={"b/x": 1, "a/y": 2})
    out = {c[0]: c[3] for c in deletion_conditions(totals)}
    assert out["NamespaceContentRemaining"] == ("Some resources are remaining: jobs.batch has 1 resource "
                                                "instances, pods has 2 resource instances")
    assert out["NamespaceFinalizersRemaining"] == ("Some content in the namespace has finalizers remaining: "
                                                   "a/y in 2 resource instances, b/x in 1 resource instances")


def test_job_creates_in_a_terminating_namespace_are_ignored_quietly() -> None:
    """Upstream ``manageJob`` returns early on a create refused with the ``NamespaceTerminating``
    cause, so the pod stays counted in ``status.active`` (any other failed create is taken off it).
    Its FailedCreate event is skipped too, which a test cannot see: the namespace refuses Events."""
    cp = ControlPlane(seed=0, controllers="job")  # no namespace controller: the Job outlives the delete
    cp.client.create(Namespace.model_validate({"metadata": {"name": "team"}}))
    job = cp.client.create(_in_team(make_job("j").parallelism(2).completions(2).suspend(True).obj()))
    cp.run_until_idle()
    cp.client.delete(Namespace, "team")
    job = edit(cp.client.get(Job, "j", "team"))
    job.spec.suspend = False
    cp.client.update(job)
    cp.run_until_idle()
    assert cp.client.list(Pod, "team").items == []
    assert cp.client.get(Job, "j", "team").status.active == 2
