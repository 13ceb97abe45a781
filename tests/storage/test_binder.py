"""The persistentvolume-binder and the kbatch.io/simulated provisioner end to end, in virtual time.

Upstream: ``pkg/controller/volume/persistentvolume/pv_controller.go`` (provisioning requests,
``ExternalProvisioning``, WaitForFirstConsumer, reclaim, Lost, the 15 s resync, the retroactive
default class) and sig-storage-lib-external-provisioner (``Provisioning`` /
``ProvisioningSucceeded``, ``pvc-<uid>`` volumes, deletion of Released ``Delete`` volumes).
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch import ControlPlane
from kbatch.api.core_v1 import Event, Node, PersistentVolumeClaim
from kbatch.api.core_v1.persistent_volume import PersistentVolume
from kbatch.api.errors import NotFound
from kbatch.controllers.storage.volume_match import best_match_for_claim
from kbatch.sim import NodeTemplate, create_nodes


def storage_class(name: str, *, wait: bool = False, policy: str = "Delete", default: bool = False,
                  provisioner: str = "kbatch.io/simulated") -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if default:
        meta["annotations"] = {"storageclass.kubernetes.io/is-default-class": "true"}
    return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": meta,
            "provisioner": provisioner, "reclaimPolicy": policy,
            "volumeBindingMode": "WaitForFirstConsumer" if wait else "Immediate"}


STATIC = ""  # a claim for a pre-provisioned volume: no class, so the default `standard` is not given


def pvc(name: str = "data", cls: str | None = None, size: str = "2Gi") -> dict[str, Any]:
    spec: dict[str, Any] = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}}
    if cls is not None:
        spec["storageClassName"] = cls
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def pv(name: str, size: str = "5Gi", policy: str = "Retain") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
            "spec": {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"],
                     "persistentVolumeReclaimPolicy": policy, "hostPath": {"path": f"/data/{name}"}}}


def get_claim(cp: ControlPlane, name: str = "data") -> PersistentVolumeClaim:
    return cp.client.get(PersistentVolumeClaim, name, "default")


def volume_or_none(cp: ControlPlane, name: str) -> PersistentVolume | None:
    try:
        return cp.client.get(PersistentVolume, name)
    except NotFound:
        return None


def reasons(cp: ControlPlane, name: str = "data") -> list[str]:
    events = sorted(cp.client.list(Event, "default").items,
                    key=lambda e: int(e.metadata.resource_version or 0))
    return [e.reason or "" for e in events if e.involved_object.name == name]


def messages(cp: ControlPlane, name: str = "data") -> dict[str, str]:
    return {e.reason or "": e.message or "" for e in cp.client.list(Event, "default").items
            if e.involved_object.name == name}


def test_immediate_class_provisions_and_binds() -> None:
    cp = ControlPlane(seed=1)
    cp.apply([storage_class("sim", policy="Retain"), pvc(cls="sim")])
    claim = get_claim(cp)
    name = f"pvc-{claim.metadata.uid}"
    assert claim.status is not None and claim.status.phase == "Bound" and claim.spec.volume_name == name
    assert str(claim.status.capacity["storage"]) == "2Gi" and claim.status.access_modes == ["ReadWriteOnce"]
    annotations = claim.metadata.annotations or {}
    assert annotations["volume.kubernetes.io/storage-provisioner"] == "kbatch.io/simulated"
    assert annotations["volume.beta.kubernetes.io/storage-provisioner"] == "kbatch.io/simulated"
    assert annotations["pv.kubernetes.io/bind-completed"] == "yes"
    assert annotations["pv.kubernetes.io/bound-by-controller"] == "yes"
    volume = cp.client.get(PersistentVolume, name)
    assert volume.status is not None and volume.status.phase == "Bound"
    assert volume.spec.persistent_volume_reclaim_policy == "Retain"  # the class's
    assert volume.spec.storage_class_name == "sim" and volume.spec.node_affinity is None
    assert (volume.metadata.annotations or {})["pv.kubernetes.io/provisioned-by"] == "kbatch.io/simulated"
    assert volume.spec.claim_ref is not None and volume.spec.claim_ref.uid == claim.metadata.uid
    assert reasons(cp) == ["ExternalProvisioning", "Provisioning", "ProvisioningSucceeded"]
    assert messages(cp)["ProvisioningSucceeded"] == f"Successfully provisioned volume {name}"
    assert messages(cp)["Provisioning"] == (
        'External provisioner is provisioning volume for claim "default/data"')


def test_wait_for_first_consumer_then_the_selected_node() -> None:
    cp = ControlPlane(seed=1)
    create_nodes(cp, 2, NodeTemplate())
    cp.apply([storage_class("local", wait=True), pvc(cls="local")])
    cp.advance(60)
    assert get_claim(cp).status.phase == "Pending"
    assert messages(cp)["WaitForFirstConsumer"] == "waiting for first consumer to be created before binding"
    assert not cp.client.list(PersistentVolume).items
    node = sorted(n.metadata.name or "" for n in cp.client.list(Node).items)[1]
    cp.client.patch(PersistentVolumeClaim, "data", {"metadata": {"annotations": {
        "volume.kubernetes.io/selected-node": node}}}, "default")  # what the scheduler does
    cp.run_until_idle()
    claim = get_claim(cp)
    assert claim.status.phase == "Bound"
    volume = cp.client.get(PersistentVolume, claim.spec.volume_name)
    term = volume.spec.node_affinity.required.node_selector_terms[0].match_expressions[0]
    assert (term.key, term.operator, term.values) == ("kubernetes.io/hostname", "In", [node])


def test_a_missing_selected_node_fails_provisioning() -> None:
    cp = ControlPlane(seed=1)
    manifest = pvc(cls="local")
    manifest["metadata"]["annotations"] = {"volume.kubernetes.io/selected-node": "gone"}
    cp.apply([storage_class("local", wait=True), manifest])
    assert get_claim(cp).status.phase == "Pending"
    assert messages(cp)["ProvisioningFailed"] == 'failed to get target node: node "gone" not found'


def test_an_in_tree_provisioner_kbatch_lacks_fails() -> None:
    cp = ControlPlane(seed=1)
    cp.apply([storage_class("manual", provisioner="kubernetes.io/no-provisioner"), pvc(cls="manual")])
    assert messages(cp)["ProvisioningFailed"] == "no volume plugin matched name: kubernetes.io/no-provisioner"
    assert get_claim(cp).status.phase == "Pending"


def test_a_missing_class_fails() -> None:
    cp = ControlPlane(seed=1)
    cp.apply([pvc(cls="nope")])
    assert messages(cp)["ProvisioningFailed"] == 'storageclass.storage.k8s.io "nope" not found'


def test_deleting_the_claim_deletes_a_provisioned_delete_volume() -> None:
    cp = ControlPlane(seed=1)
    cp.apply([storage_class("sim"), pvc(cls="sim")])
    name = get_claim(cp).spec.volume_name
    cp.client.delete(PersistentVolumeClaim, "data", "default")
    cp.advance(5)
    assert volume_or_none(cp, name) is None


def test_deleting_the_claim_releases_a_retained_volume() -> None:
    cp = ControlPlane(seed=1)
    cp.apply([pv("static")])
    cp.apply([pvc(cls=STATIC)])
    assert get_claim(cp).spec.volume_name == "static"
    cp.client.delete(PersistentVolumeClaim, "data", "default")
    cp.advance(5)
    volume = cp.client.get(PersistentVolume, "static")
    assert volume.status.phase == "Released" and volume.spec.claim_ref is not None


def test_a_static_delete_volume_without_a_deleter_fails() -> None:
    """pv_controller.go: no deleter plugin for a hostPath volume here → Failed, VolumeFailedDelete."""
    cp = ControlPlane(seed=1)
    cp.apply([pv("static", policy="Delete")])
    cp.apply([pvc(cls=STATIC)])
    cp.client.delete(PersistentVolumeClaim, "data", "default")
    cp.advance(5)
    volume = cp.client.get(PersistentVolume, "static")
    assert volume.status.phase == "Failed"
    assert volume.status.message == (
        'error getting deleter volume plugin for volume "static": no volume plugin matched')


def test_a_claim_whose_volume_vanished_is_lost() -> None:
    cp = ControlPlane(seed=1, controllers="*,-pv-protection")
    cp.apply([pv("static")])
    cp.apply([pvc(cls=STATIC)])
    cp.client.patch(PersistentVolume, "static", {"metadata": {"finalizers": None}})
    cp.client.delete(PersistentVolume, "static")
    cp.advance(1)
    assert get_claim(cp).status.phase == "Lost"
    assert messages(cp)["ClaimLost"] == (
        "Bound claim has lost its PersistentVolume. Data on the volume is lost!")


def test_a_claim_and_volume_created_together_bind_on_the_resync() -> None:
    """The claim's sync ran before the volume was Available: upstream's 15 s resync binds it."""
    cp = ControlPlane(seed=1)
    cp.apply([pv("static"), pvc(cls=STATIC)])
    assert get_claim(cp).status.phase == "Pending"
    assert reasons(cp) == ["FailedBinding"]
    cp.advance(15)
    assert get_claim(cp).status.phase == "Bound"


def test_a_default_class_is_given_retroactively() -> None:
    cp = ControlPlane(seed=1, addons="")  # a cluster created without a default class (kubeadm's)
    cp.apply([pvc()])
    assert get_claim(cp).spec.storage_class_name is None
    cp.apply([storage_class("sim", default=True)])
    cp.advance(15)
    claim = get_claim(cp)
    assert claim.spec.storage_class_name == "sim" and claim.status.phase == "Bound"


def test_the_controllers_can_be_turned_off() -> None:
    cp = ControlPlane(seed=1, controllers="*,-persistentvolume-binder,-simulated-provisioner")
    cp.apply([storage_class("sim"), pv("static")])
    cp.apply([pvc(), pvc("dyn", cls="sim")])
    cp.advance(30)
    assert get_claim(cp).status.phase == "Pending" and get_claim(cp, "dyn").status.phase == "Pending"
    assert cp.client.get(PersistentVolume, "static").status.phase == "Pending"
    assert "persistentvolume-binder" not in cp.enabled


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=6),
       request=st.integers(min_value=1, max_value=9), seed=st.integers(min_value=0, max_value=1000))
def test_the_match_is_the_smallest_fit_whatever_the_order(sizes: list[int], request: int, seed: int) -> None:
    """Invariant: the chosen volume fits, no fitting volume is smaller, and the volumes' order
    (upstream: informer map order) does not change the answer."""
    volumes = [PersistentVolume.model_validate({**pv(f"v{i}", f"{s}Gi"), "status": {"phase": "Available"}})
               for i, s in enumerate(sizes)]
    claim = PersistentVolumeClaim.model_validate({**pvc(size=f"{request}Gi"), "spec": {
        **pvc(size=f"{request}Gi")["spec"], "volumeMode": "Filesystem"}})
    chosen = best_match_for_claim(claim, volumes, delay_binding=False)
    shuffled = list(volumes)
    random.Random(seed).shuffle(shuffled)
    again = best_match_for_claim(claim, shuffled, delay_binding=False)
    fitting = [s for s in sizes if s >= request]
    if not fitting:
        assert chosen is None and again is None
        return
    assert chosen is not None and again is not None and chosen.metadata.name == again.metadata.name
    assert str(chosen.spec.capacity["storage"]) == f"{min(fitting)}Gi"


def test_an_unscheduled_consumer_is_named() -> None:
    """``emitEventForUnboundDelayBindingClaim``: WaitForPodScheduled names the unscheduled pod."""
    cp = ControlPlane(seed=1)  # no nodes: the pod stays unscheduled
    cp.apply([storage_class("local", wait=True), pvc(cls="local")])
    cp.apply([{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "user", "namespace": "default"},
               "spec": {"containers": [{"name": "c", "image": "busybox"}],
                        "volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": "data"}}]}}])
    cp.advance(15)  # the resync
    assert messages(cp)["WaitForPodScheduled"] == "waiting for pod user to be scheduled"


def test_a_released_recycle_volume_fails_without_a_recycler() -> None:
    cp = ControlPlane(seed=1)
    cp.apply([pv("static", policy="Recycle")])
    cp.apply([pvc(cls=STATIC)])
    cp.client.delete(PersistentVolumeClaim, "data", "default")
    cp.advance(5)
    volume = cp.client.get(PersistentVolume, "static")
    assert volume.status.phase == "Failed"
    assert volume.status.message == "No recycler plugin found for the volume!"
    assert messages(cp, "static")["VolumeFailedRecycle"] == "No recycler plugin found for the volume!"
