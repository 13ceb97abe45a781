"""The ``default-storage-class`` cluster add-on: a new cluster's StorageClass ``standard``, as kind's.

kind's class (kubernetes-sigs/kind ``pkg/build/nodeimage/const_storage.go``, installed by
``pkg/cluster/internal/create/actions/installstorage/storage.go`` once, at ``kind create cluster``):
``standard``, the default-class annotation, ``WaitForFirstConsumer``, ``Delete``; kbatch's names the
``kbatch.io/simulated`` provisioner. Checked here: the class and its ``kubectl get`` row; a claim
without a class gets it (DefaultStorageClass admission), waits for its first consumer, and is
provisioned on the node the pod is scheduled to, where the pod runs; the opt-out (``addons``); the
add-on runs only on a new store, so a deletion or an edit survives a restart; and choosing it moves
no other object's uid. Through separate CLI processes: tests/cli/test_default_storage_class_cli.py;
kubectl against ``kbatch serve``: tests/server/test_kubectl_default_storage_class.py.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch import ControlPlane
from kbatch.api.core_v1 import ConfigMap, Event, PersistentVolumeClaim, Pod
from kbatch.api.core_v1.persistent_volume import PersistentVolume
from kbatch.api.jobset_v1alpha2 import JobSet
from kbatch.api.storage_v1 import StorageClass
from kbatch.families import STORAGE, AddonSelectionError, ClusterAddon, Family, builtin
from kbatch.runtime.addons import is_new_store
from kbatch.runtime.image import load_image, save_image
from kbatch.runtime.selection import ControllerInfo, select
from kbatch.sim import NodeTemplate, create_nodes
from kbatch.store import MemoryStore

WITHOUT = "*,-default-storage-class"


def claim(name: str = "data") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}


def pod(command: str = "sleep 30") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "user", "namespace": "default"},
            "spec": {"restartPolicy": "Never",
                     "containers": [{"name": "c", "image": "busybox", "command": ["sh", "-c", command]}],
                     "volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": "data"}}]}}


def classes(cp: ControlPlane) -> list[StorageClass]:
    return list(cp.client.list(StorageClass).items)


def get_claim(cp: ControlPlane) -> PersistentVolumeClaim:
    return cp.client.get(PersistentVolumeClaim, "data", "default")


def test_a_new_cluster_has_kinds_standard_class() -> None:
    cp = ControlPlane(seed=1)
    [sc] = classes(cp)
    assert sc.metadata.name == "standard"
    assert sc.metadata.annotations == {"storageclass.kubernetes.io/is-default-class": "true"}
    assert (sc.provisioner, sc.volume_binding_mode, sc.reclaim_policy) == (
        "kbatch.io/simulated", "WaitForFirstConsumer", "Delete")
    assert sc.parameters is None and sc.allow_volume_expansion is None and sc.mount_options is None
    assert sc.metadata.labels is None  # kind's manifest has none
    cells = cp.registry.for_model(StorageClass).table_printer.cells(sc.to_dict(), cp.now())
    assert cells[:5] == ["standard (default)", "kbatch.io/simulated", "Delete", "WaitForFirstConsumer", False]


def test_a_claim_without_a_class_gets_standard_and_binds_where_its_pod_runs() -> None:
    cp = ControlPlane(seed=1)
    create_nodes(cp, 3, NodeTemplate())
    cp.apply([claim()])
    assert get_claim(cp).spec.storage_class_name == "standard"  # DefaultStorageClass admission
    cp.advance(20)
    assert get_claim(cp).status.phase == "Pending"  # WaitForFirstConsumer: no pod yet
    events = cp.client.list(Event, "default").items
    waiting = [e.message for e in events if e.reason == "WaitForFirstConsumer"]
    assert waiting and waiting[0] == "waiting for first consumer to be created before binding"
    assert not cp.client.list(PersistentVolume).items
    cp.apply([pod()])
    cp.wait_for(lambda: cp.client.get(Pod, "user", "default").status.phase == "Running", timeout="1m")
    node = cp.client.get(Pod, "user", "default").spec.node_name
    bound = get_claim(cp)
    assert bound.status.phase == "Bound" and bound.spec.volume_name == f"pvc-{bound.metadata.uid}"
    assert (bound.metadata.annotations or {})["volume.kubernetes.io/selected-node"] == node
    volume = cp.client.get(PersistentVolume, bound.spec.volume_name)
    assert volume.spec.storage_class_name == "standard"
    assert volume.spec.persistent_volume_reclaim_policy == "Delete"
    term = volume.spec.node_affinity.required.node_selector_terms[0].match_expressions[0]
    assert (term.key, term.values) == ("kubernetes.io/hostname", [node])
    cp.wait_for(lambda: cp.client.get(Pod, "user", "default").status.phase == "Succeeded", timeout="1m")
    cp.client.delete(Pod, "user", "default", grace_period_seconds=0)
    cp.client.delete(PersistentVolumeClaim, "data", "default")
    cp.advance(5)
    assert not cp.client.list(PersistentVolume).items  # reclaimPolicy Delete: the provisioner deleted it


def test_a_jobsets_claim_without_a_class_is_provisioned_and_the_jobset_completes() -> None:
    """JobSet ``volumeClaimPolicies`` (docs/jobset.md): the claim names no class, so on a kubeadm-like
    cluster its pods never start; with ``standard`` they run to completion."""
    cp = ControlPlane(seed=1)
    create_nodes(cp, 2, NodeTemplate())
    container = {"name": "c", "image": "busybox", "command": ["sh", "-c", "sleep 20"],
                 "volumeMounts": [{"name": "ckpt", "mountPath": "/ckpt"}]}
    cp.apply({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "train"},
              "spec": {"volumeClaimPolicies": [{"templates": [{"metadata": {"name": "ckpt"}, "spec": {
                  "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]}],
                       "replicatedJobs": [{"name": "w", "template": {"spec": {"template": {"spec": {
                           "restartPolicy": "Never", "containers": [container]}}}}}]}})
    cp.wait_for((JobSet, "train", "Completed"), timeout="5m")
    ckpt = cp.client.get(PersistentVolumeClaim, "ckpt-train", "default")
    assert ckpt.spec.storage_class_name == "standard" and ckpt.status.phase == "Bound"


@pytest.mark.parametrize("addons", [WITHOUT, "", "-default-storage-class"])
def test_a_cluster_without_the_default_class(addons: str) -> None:
    cp = ControlPlane(seed=1, addons=addons)
    create_nodes(cp, 1, NodeTemplate())
    assert not classes(cp)
    cp.apply([claim(), pod()])
    cp.advance(30)
    assert get_claim(cp).spec.storage_class_name is None and get_claim(cp).status.phase == "Pending"
    assert not cp.client.get(Pod, "user", "default").spec.node_name


def test_an_unknown_add_on_is_refused() -> None:
    known = "unknown cluster add-on 'nope'; known: default-storage-class"
    with pytest.raises(AddonSelectionError, match=known):
        ControlPlane(addons="*,-nope")


def test_a_deleted_class_stays_deleted_when_the_control_plane_restarts_over_its_store() -> None:
    cp = ControlPlane(seed=1)
    cp.client.delete(StorageClass, "standard")
    again = ControlPlane(seed=2, store=cp.store)  # a restart: what a CLI option change does
    assert not classes(again)
    cp.apply([claim()])
    assert get_claim(cp).spec.storage_class_name is None


def test_an_edited_class_keeps_the_edit_across_a_restart_and_an_image() -> None:
    cp = ControlPlane(seed=1)
    cp.client.patch(StorageClass, "standard", {"metadata": {"annotations": {
        "storageclass.kubernetes.io/is-default-class": "false"}}})
    again = ControlPlane(seed=1, store=cp.store)
    [sc] = classes(again)
    assert sc.metadata.annotations == {"storageclass.kubernetes.io/is-default-class": "false"}


def test_an_image_round_trip_does_not_install_again(tmp_path: Any) -> None:
    cp = ControlPlane(seed=1)
    cp.client.delete(StorageClass, "standard")
    save_image(cp, tmp_path / "state.kbatch", {})
    loaded, _ = load_image(tmp_path / "state.kbatch")
    assert not list(loaded.client.list(StorageClass).items)


def test_keys_outside_the_registry_do_not_make_a_store_old() -> None:
    store = MemoryStore()
    assert is_new_store(store)
    store.put(b"/elsewhere/x", b"1")
    assert is_new_store(store)
    store.put(b"/registry/configmaps/default/x", b"{}")
    assert not is_new_store(store)


def test_only_families_in_the_composition_contribute_add_ons() -> None:
    without_storage = tuple(f for f in builtin().families if f.name != "storage")
    cp = ControlPlane(families=without_storage, controllers="")
    assert StorageClass not in cp.registry
    with pytest.raises(AddonSelectionError):
        ControlPlane(families=without_storage, controllers="", addons="default-storage-class")


def test_an_add_on_disabled_by_default_is_installed_only_when_named() -> None:
    made: list[str] = []

    def install(server: Any) -> None:
        made.append(server.rng.random().hex())

    addon = ClusterAddon("extra", install, enabled_by_default=False)
    extra = Family("extra", "test add-on", cluster_addons=(addon,))
    families = (*builtin().families, extra)
    ControlPlane(families=families, controllers="")
    assert made == []
    ControlPlane(families=families, controllers="", addons="*,extra")
    ControlPlane(families=families, controllers="", addons="*,extra", seed=9)
    assert len(made) == 2 and made[0] == made[1]  # its own generator, whatever the seed


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_the_add_on_moves_no_other_objects_uid(seed: int) -> None:
    """Invariant: the add-on draws from a generator of its own, so every other object a seed makes
    (bootstrap namespaces and accounts, the user's objects) has the same uid with it as without."""
    def uids(addons: str | None) -> dict[str, str]:
        cp = ControlPlane(seed=seed, controllers="", addons=addons)
        cp.client.create(ConfigMap.model_validate({"metadata": {"name": "mine", "namespace": "default"}}))
        return {f"{o.metadata.namespace}/{o.metadata.name}": o.metadata.uid or ""
                for o in cp.client.list(ConfigMap).items}

    assert uids(None) == uids(WITHOUT)


TERMS = st.lists(st.sampled_from(["*", "a", "-a", "b", "-b", "c", "-c"]), max_size=5)


@settings(max_examples=200, deadline=None)
@given(terms=TERMS, defaults=st.tuples(st.booleans(), st.booleans(), st.booleans()))
def test_add_on_selection_reads_as_controller_selection(terms: list[str], defaults: tuple[bool, ...]) -> None:
    """Invariant: an add-on selection means what the same ``--controllers`` selection means."""
    addons = tuple(ClusterAddon(n, "x:y", enabled_by_default=d) for n, d in zip("abc", defaults, strict=True))
    composition = replace(builtin(), addons=addons)
    chosen = [a.name for a in composition.cluster_addons(",".join(terms))]
    infos = [ControllerInfo(a.name, enabled_by_default=a.enabled_by_default) for a in addons]
    assert chosen == select(",".join(terms), infos)


def test_the_storage_family_declares_the_add_on() -> None:
    assert [a.name for a in STORAGE.cluster_addons] == ["default-storage-class"]
