"""Storage keys as kube-apiserver lays out etcd: built-in resources under their resource name (with
upstream's historical prefixes), custom resources under group/resource; no two kinds share a range."""

from __future__ import annotations

import itertools
from pathlib import Path

from kbatch.api.batch_v1 import Job
from kbatch.apiserver.keys import KindKeys, storage_prefix
from kbatch.families import BUILTIN_FAMILIES, compose
from kbatch.runtime.controlplane import ControlPlane
from kbatch.server.facade import restore_control_plane, save_control_plane
from kbatch.store.kv import DeleteOp, PutOp


def test_builtin_resources_use_upstreams_prefixes_and_custom_resources_their_group() -> None:
    assert storage_prefix("batch", "jobs") == "jobs"
    assert storage_prefix("", "pods") == "pods"
    assert storage_prefix("", "nodes") == "minions"
    assert storage_prefix("", "services") == "services/specs"
    assert storage_prefix("coordination.k8s.io", "leases") == "leases"
    assert storage_prefix("resource.k8s.io", "resourceclaims") == "resourceclaims"
    # compiled into kube-apiserver too (pkg/controlplane/instance.go), not a custom resource
    assert storage_prefix("admissionregistration.k8s.io", "validatingadmissionpolicies") == \
        "validatingadmissionpolicies"
    assert storage_prefix("storage.k8s.io", "csidrivers") == "csidrivers"
    assert storage_prefix("jobset.x-k8s.io", "jobsets") == "jobset.x-k8s.io/jobsets"
    assert storage_prefix("kueue.x-k8s.io", "workloads") == "kueue.x-k8s.io/workloads"


def test_every_served_kind_has_a_range_of_its_own() -> None:
    """One stored version per kind: two kinds whose roots were equal, or one inside the other, would
    list each other's objects."""
    roots: dict[bytes, str] = {}
    for spec in compose(BUILTIN_FAMILIES).registry():
        root = KindKeys.of(spec.info).root
        if root in roots and roots[root] == spec.info.kind:
            continue  # further served versions of one kind share its storage
        assert root not in roots, (spec.info.kind, roots.get(root))
        roots[root] = spec.info.kind
    ordered = sorted(roots)
    for shorter, longer in itertools.pairwise(ordered):
        assert not longer.startswith(shorter), (shorter, longer)


def test_an_objects_only_snapshot_of_the_older_layout_restores_with_its_objects_moved(tmp_path: Path) -> None:
    """Before this layout kbatch stored built-in groups under /registry/<group>/<plural>/; such a
    snapshot (portable across versions) restores with the objects where they are served today."""
    old = ControlPlane(controllers="")
    old.apply({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "old"},
               "spec": {"template": {"spec": {"restartPolicy": "Never",
                                              "containers": [{"name": "c", "image": "busybox"}]}}}})
    kv = old.store.range(b"/registry/jobs/default/old").kvs[0]
    old.store.txn((), [PutOp(b"/registry/batch/jobs/default/old", kv.value), DeleteOp(kv.key)])
    save_control_plane(old, tmp_path / "old.kbatch")
    cp = restore_control_plane(tmp_path / "old.kbatch", controllers="")
    assert [j.metadata.name for j in cp.client.list(Job, "default").items] == ["old"]
    assert not cp.store.range(b"/registry/batch/", b"/registry/batch0").kvs
