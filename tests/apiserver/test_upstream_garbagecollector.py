"""Cases of upstream's garbage-collector tables, ported one by one onto kbatch's collector.

Upstream (kubernetes/kubernetes main as stored, 1.37 development): ``pkg/controller/garbagecollector/
garbagecollector_test.go`` TestConflictingData (each scenario named below) and
``test/integration/garbagecollector/garbage_collector_test.go`` (cascading deletion, orphaning,
foreground with blockOwnerDeletion, cross-namespace owners). Upstream's scenarios are step by step
(graph events, queue contents, client calls, the absent-owner cache); kbatch's collector has no
queue or cache to inspect, so each case keeps upstream's objects and checks the outcome a user sees:
which objects exist after the collector has nothing left to do. Upstream uses pods as children and
owners where the kind does not matter; here they are ConfigMaps (no graceful deletion to wait out).
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import pytest

from kbatch.api.errors import NotFound
from kbatch.apiserver import APIServer, GarbageCollector
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore


@pytest.fixture
def server() -> APIServer:
    out = APIServer(MemoryStore(), builtin_registry(), now=lambda: datetime(2026, 1, 1, tzinfo=UTC),
                    rng=random.Random(3))
    for ns in ("ns1", "ns2"):
        make(out, "v1", "Namespace", None, ns)
    return out


def make(server: APIServer, api_version: str, kind: str, namespace: str | None, name: str,
         *owners: Any, uid: str | None = None, **fields: Any) -> Any:
    model = server.registry.for_gvk(api_version, kind).model
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if owners:
        meta["ownerReferences"] = list(owners)
    return server.create(model.model_validate({"apiVersion": api_version, "kind": kind,
                                               "metadata": meta, **fields}))


def ref(api_version: str, kind: str, name: str, uid: str, block: bool | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"apiVersion": api_version, "kind": kind, "name": name, "uid": uid}
    if block is not None:
        out["blockOwnerDeletion"] = block
    return out


def ref_to(obj: Any, block: bool | None = None) -> dict[str, Any]:
    return ref(type(obj).api_info.api_version, type(obj).api_info.kind, obj.name, obj.metadata.uid, block)


def exists(server: APIServer, obj: Any) -> bool:
    try:
        got = server.get(type(obj), obj.name, obj.metadata.namespace)
    except NotFound:
        return False
    return got.metadata.uid == obj.metadata.uid


def configmap(server: APIServer, namespace: str, name: str, *owners: Any) -> Any:
    return make(server, "v1", "ConfigMap", namespace, name, *owners)


def node(server: APIServer, name: str, *owners: Any) -> Any:
    return make(server, "v1", "Node", None, name, *owners)


# --- TestConflictingData -----------------------------------------------------------------------------

def test_good_child_in_ns1_to_cluster_scoped_owner(server: APIServer) -> None:
    """TestConflictingData "good child in ns1 -> cluster-scoped owner": a namespaced dependent of a
    cluster-scoped owner stays while the owner lives, and goes with it."""
    gc = GarbageCollector(server)
    owner = node(server, "nodename")
    child = configmap(server, "ns1", "podname1", ref_to(owner))
    gc.sync()
    assert exists(server, child)
    server.delete(type(owner), "nodename")
    gc.sync()
    assert not exists(server, child)


@pytest.mark.parametrize("owner_first", [False, True], ids=["child first", "owner first"])
def test_bad_child_in_ns1_to_owner_in_ns2(server: APIServer, owner_first: bool) -> None:
    """TestConflictingData "bad child in ns1 -> owner in ns2": a namespaced owner is looked up in the
    dependent's namespace only; the owner living in ns2 does not keep the ns1 child, which is
    deleted."""
    gc = GarbageCollector(server)
    if owner_first:
        owner = configmap(server, "ns2", "podname2")
        child = configmap(server, "ns1", "podname1", ref_to(owner))
    else:
        child = configmap(server, "ns1", "podname1", ref("v1", "ConfigMap", "podname2", "poduid2"))
        gc.sync()
        owner = make(server, "v1", "ConfigMap", "ns2", "podname2")
    gc.sync()
    assert not exists(server, child)
    assert exists(server, owner)


@pytest.mark.parametrize("owner_first", [False, True], ids=["child first", "owner first"])
def test_bad_cluster_scoped_child_to_owner_in_ns1(server: APIServer, owner_first: bool) -> None:
    """TestConflictingData "bad cluster-scoped child -> owner in ns1": a cluster-scoped object cannot
    be owned by a namespaced one; upstream's attemptToDeleteItem stops at that reference
    (namespacedOwnerOfClusterScopedObjectErr) and never deletes the child, whether or not the owner
    exists."""
    gc = GarbageCollector(server)
    if owner_first:
        owner = configmap(server, "ns1", "podname1")
        child = node(server, "nodename", ref_to(owner))
    else:
        child = node(server, "nodename", ref("v1", "ConfigMap", "podname1", "poduid1"))
        gc.sync()
        owner = configmap(server, "ns1", "podname1")
    gc.sync()
    assert exists(server, child)
    server.delete(type(owner), owner.name, "ns1")
    gc.sync()
    assert exists(server, child)


def test_good_child_to_existing_owner_with_non_preferred_accessible_api_version(server: APIServer) -> None:
    """TestConflictingData "good child -> existing owner with non-preferred accessible API version":
    a reference through a served, non-preferred version (here kueue v1beta1 for a LocalQueue
    stored as v1beta2) is a live owner; the child goes once the owner does."""
    gc = GarbageCollector(server)
    owner = make(server, "kueue.x-k8s.io/v1beta2", "LocalQueue", "ns1", "role1",
                 spec={"clusterQueue": "cq"})
    child = configmap(server, "ns1", "podname1",
                      ref("kueue.x-k8s.io/v1beta1", "LocalQueue", "role1", owner.metadata.uid))
    gc.sync()
    assert exists(server, child)
    server.delete(type(owner), "role1", "ns1")
    gc.sync()
    assert not exists(server, child)


@pytest.mark.parametrize("owner_exists", [True, False], ids=["existing owner", "non-existent owner"])
def test_child_to_owner_with_inaccessible_api_version(server: APIServer, owner_exists: bool) -> None:
    """TestConflictingData "child -> existing owner with inaccessible API version" and "child ->
    non-existent owner with inaccessible API version": a reference through a version the server does
    not serve cannot be resolved (a REST-mapping error), so the child is never deleted, before or
    after the real owner goes; a sibling referencing the served version of the absent owner is
    deleted (the unresolvable child does not block it)."""
    gc = GarbageCollector(server)
    owner = configmap(server, "ns1", "deployment1") if owner_exists else None
    uid = owner.metadata.uid if owner is not None else "deploymentuid1"
    child = configmap(server, "ns1", "podname1", ref("extensions/v1beta1", "ConfigMap", "deployment1", uid))
    sibling = configmap(server, "ns1", "podname2", ref("v1", "ConfigMap", "deployment1", uid))
    gc.sync()
    assert exists(server, child)
    assert exists(server, sibling) is owner_exists
    if owner is not None:
        server.delete(type(owner), "deployment1", "ns1")
        gc.sync()
    assert exists(server, child)
    assert not exists(server, sibling)


def test_child_to_unknown_kind_is_never_collected(server: APIServer) -> None:
    """TestConflictingData (REST-mapping errors): a reference to a kind no served group knows is
    retried, never treated as a gone owner."""
    gc = GarbageCollector(server)
    child = configmap(server, "ns1", "podname1", ref("example.com/v1", "Gizmo", "g", "gizmouid"))
    gc.sync()
    assert exists(server, child)


def test_owner_reference_with_another_group_is_not_the_owner(server: APIServer) -> None:
    """isDangling reads the owner through the reference's own apiVersion: a kueue Workload reference
    carrying the uid of a scheduling.k8s.io Workload of the same name does not find it, so the
    dependent is collected."""
    gc = GarbageCollector(server)
    owner = make(server, "scheduling.k8s.io/v1beta1", "Workload", "ns1", "w",
                 spec={"podGroupTemplates": [{"name": "g", "schedulingPolicy": {"basic": {}}}]})
    child = configmap(server, "ns1", "c", ref("kueue.x-k8s.io/v1beta2", "Workload", "w", owner.metadata.uid))
    gc.sync()
    assert not exists(server, child)
    assert exists(server, owner)


# --- test/integration/garbagecollector/garbage_collector_test.go -------------------------------------

def test_cascading_deletion(server: APIServer) -> None:
    """TestCascadingDeletion: a dependent with one owner goes with it (Background); one that also
    references a live owner stays, its reference to the deleted owner removed; one whose only owner
    never existed goes."""
    gc = GarbageCollector(server)
    toBeDeleted = configmap(server, "ns1", "rc1")
    remaining = configmap(server, "ns1", "rc2")
    p1 = configmap(server, "ns1", "p1", ref_to(toBeDeleted))
    p2 = configmap(server, "ns1", "p2", ref_to(toBeDeleted), ref_to(remaining))
    p3 = configmap(server, "ns1", "p3", ref("v1", "ConfigMap", "ghost", "ghostuid"))
    server.delete(type(toBeDeleted), "rc1", "ns1", propagation_policy="Background")
    gc.sync()
    assert not exists(server, p1) and not exists(server, p3)
    kept = server.get(type(p2), "p2", "ns1")
    assert [r.uid for r in kept.metadata.owner_references or ()] == [remaining.metadata.uid]


def test_orphaning(server: APIServer) -> None:
    """TestOrphaning: an Orphan delete keeps every dependent, strips the owner's reference from each,
    then removes the orphan finalizer so the owner is gone."""
    gc = GarbageCollector(server)
    owner = configmap(server, "ns1", "rc")
    deps = [configmap(server, "ns1", f"p{i}", ref_to(owner)) for i in range(3)]
    server.delete(type(owner), "rc", "ns1", propagation_policy="Orphan")
    gc.sync()
    assert not exists(server, owner)
    for dep in deps:
        assert server.get(type(dep), dep.name, "ns1").metadata.owner_references is None


def test_solid_owner_does_not_block_foreground_deletion_of_other_owner(server: APIServer) -> None:
    """TestSolidOwnerDoesNotBlockWaitingOwner: a dependent with a live owner and a foreground-deleting
    owner (blockOwnerDeletion) keeps only the live owner's reference, so the foreground owner is
    released."""
    gc = GarbageCollector(server)
    waiting = configmap(server, "ns1", "waiting")
    solid = configmap(server, "ns1", "solid")
    dep = configmap(server, "ns1", "p", ref_to(waiting, block=True), ref_to(solid))
    server.delete(type(waiting), "waiting", "ns1", propagation_policy="Foreground")
    gc.sync()
    assert not exists(server, waiting)
    kept = server.get(type(dep), "p", "ns1")
    assert [r.uid for r in kept.metadata.owner_references or ()] == [solid.metadata.uid]


def test_non_blocking_owner_ref_does_not_block(server: APIServer) -> None:
    """TestNonBlockingOwnerRefDoesNotBlock: a foreground owner does not wait for dependents whose
    reference has blockOwnerDeletion false or unset; they are deleted all the same."""
    gc = GarbageCollector(server)
    owner = configmap(server, "ns1", "rc")
    unset = configmap(server, "ns1", "p1", ref_to(owner))
    false = configmap(server, "ns1", "p2", ref_to(owner, block=False))
    server.delete(type(owner), "rc", "ns1", propagation_policy="Foreground")
    gc.sync()
    assert not exists(server, owner)
    assert not exists(server, unset) and not exists(server, false)


def test_blocking_owner_ref_does_block(server: APIServer) -> None:
    """TestBlockingOwnerRefDoesBlock: a foreground owner stays (with foregroundDeletion) while a
    dependent with blockOwnerDeletion exists, here one held by its own finalizer."""
    gc = GarbageCollector(server)
    owner = configmap(server, "ns1", "rc")
    model = type(owner)
    dep = server.create(model.model_validate({"metadata": {"name": "p", "namespace": "ns1",
                                                           "finalizers": ["example.com/hold"],
                                                           "ownerReferences": [ref_to(owner, block=True)]}}))
    server.delete(model, "rc", "ns1", propagation_policy="Foreground")
    gc.sync()
    held = server.get(model, "rc", "ns1")
    assert held.metadata.finalizers == ["foregroundDeletion"]
    assert server.get(model, "p", "ns1").metadata.deletion_timestamp is not None
    got = server.get(model, "p", "ns1")
    got = got.model_copy(deep=True)
    got.metadata.finalizers = None
    server.update(got)
    gc.sync()
    assert not exists(server, owner) and not exists(server, dep)


# --- the OwnerRefInvalidNamespace event (graph_builder.go reportInvalidNamespaceOwnerRef) ------------

def _invalid_namespace_events(cp: Any) -> list[tuple[str, str, str, str]]:
    model = cp.server.registry.for_gvk("v1", "Event").model
    items = cp.server.list(model).items
    return sorted((e.involved_object.kind, e.involved_object.name, e.type, e.message) for e in items
                  if e.reason == "OwnerRefInvalidNamespace")


def test_bad_child_in_ns1_to_owner_in_ns2_is_reported() -> None:
    """TestConflictingData "bad child in ns1 -> owner in ns2 (owner first)": a Warning
    OwnerRefInvalidNamespace event on the child, in upstream's words."""
    from kbatch.runtime.controlplane import ControlPlane

    cp = ControlPlane(seed=0, controllers="garbage-collector")
    for ns in ("ns1", "ns2"):
        make(cp.server, "v1", "Namespace", None, ns)
    owner = configmap(cp.server, "ns2", "podname2")
    cp.run_until_idle()
    child = configmap(cp.server, "ns1", "podname1", ref_to(owner))
    cp.run_until_idle()
    uid = owner.metadata.uid
    assert _invalid_namespace_events(cp) == [
        ("ConfigMap", "podname1", "Warning",
         f"ownerRef [v1/ConfigMap, namespace: ns1, name: podname2, uid: {uid}] "
         'does not exist in namespace "ns1"'),
    ]
    assert not exists(cp.server, child)


@pytest.mark.parametrize("child_first", [True, False], ids=["child first", "owner first"])
def test_misplaced_owner_is_reported_once_whichever_is_seen_first(server: APIServer,
                                                                  child_first: bool) -> None:
    """TestConflictingData "bad child in ns1 -> owner in ns2 (child first / owner first)": the
    collector reports the reference once, when it sees the child after the owner (graph_builder.go
    addDependentToOwners) or the owner after the child (processGraphChanges, the observed identity
    of a virtual owner). Child first: both exist before the collector starts, and its initial list
    reads ns1 before ns2."""
    seen: list[tuple[str, str]] = []

    def report(dep: Any, ref: Any) -> None:
        seen.append((dep.name, ref.uid))

    gc = None if child_first else GarbageCollector(server, report=report)
    owner = configmap(server, "ns2", "podname2")
    configmap(server, "ns1", "podname1", ref_to(owner))
    if gc is None:
        gc = GarbageCollector(server, report=report)
    gc.sync()
    assert seen == [("podname1", owner.metadata.uid)]


def test_bad_cluster_scoped_child_to_owner_in_ns1_is_reported() -> None:
    """TestConflictingData "bad cluster-scoped child -> owner in ns1 (owner first)": the event names the
    empty namespace the cluster-scoped child looked in; the child stays."""
    from kbatch.runtime.controlplane import ControlPlane

    cp = ControlPlane(seed=0, controllers="garbage-collector")
    make(cp.server, "v1", "Namespace", None, "ns1")
    owner = configmap(cp.server, "ns1", "podname1")
    child = node(cp.server, "nodename", ref_to(owner))
    cp.run_until_idle()
    uid = owner.metadata.uid
    assert _invalid_namespace_events(cp) == [
        ("Node", "nodename", "Warning",
         f'ownerRef [v1/ConfigMap, namespace: , name: podname1, uid: {uid}] does not exist in namespace ""'),
    ]
    assert exists(cp.server, child)


def test_good_child_is_not_reported() -> None:
    """A namespaced child of an owner in its own namespace, or of a cluster-scoped owner, is fine."""
    from kbatch.runtime.controlplane import ControlPlane

    cp = ControlPlane(seed=0, controllers="garbage-collector")
    make(cp.server, "v1", "Namespace", None, "ns1")
    owner = configmap(cp.server, "ns1", "a")
    cluster_owner = node(cp.server, "n")
    configmap(cp.server, "ns1", "b", ref_to(owner), ref_to(cluster_owner))
    cp.run_until_idle()
    assert _invalid_namespace_events(cp) == []


def test_cluster_scoped_owners(server: APIServer) -> None:
    """test/integration/garbagecollector/cluster_scoped_owner_test.go TestClusterScopedOwners (a Node
    stands for the PersistentVolume kbatch does not serve): a namespaced child of a present
    cluster-scoped owner stays, one of a missing owner is deleted, one whose owner is of an unknown
    type (unknown.group/v1 UnknownType) is never reaped."""
    gc = GarbageCollector(server)
    owner = node(server, "pv")
    valid = configmap(server, "ns1", "cm-valid", ref_to(owner))
    missing = configmap(server, "ns1", "cm-missing", ref("v1", "Node", "missing-name", "missing-uid"))
    invalid = configmap(server, "ns1", "cm-invalid", ref("unknown.group/v1", "UnknownType", "invalid-name",
                                                         "invalid-uid"))
    gc.sync()
    assert not exists(server, missing)
    assert exists(server, valid) and exists(server, invalid)
