"""Upstream's ``TestSync`` table, one ``syncClaim`` / ``syncVolume`` call per row.

Source: kubernetes ``pkg/controller/volume/persistentvolume/binder_test.go`` ``TestSync`` (master,
1.37: the VolumeAttributesClass rows ``2-11``/``2-12`` run with the gate on). Each row creates its
claims and volumes through the API (the binder off, so nothing moves), sets the initial phases
through the status subresource, calls the binder's sync once — as upstream's ``testCall`` does —
and compares the stored objects. Names spell upstream's ``_`` as ``-``. Claim uids are the
server's; a row's ``uidN`` for the claim ``claimN`` is that claim's uid, any other uid a literal.

Not translated: ``1-17``'s volume with an empty phase (kbatch's status strategy defaults it to
Pending, as upstream's decode does); ``4-11``/``4-12`` (an informer that lags etcd: kbatch's
cache is the store's view); ``2-7``'s returned error (kbatch records the event and leaves the claim).
Rows whose table lists no events but whose code path records one (``1-16``, ``2-6``: upstream's
harness tolerates it) are checked on the objects only.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.core_v1 import Event, PersistentVolumeClaim, Pod
from kbatch.api.core_v1.persistent_volume import PersistentVolume
from kbatch.controllers.storage.binder import PersistentVolumeBinder
from kbatch.controllers.storage.protection import BY_CLAIM, claims_of_pod

BOUND_BY = "pv.kubernetes.io/bound-by-controller"
COMPLETED = "pv.kubernetes.io/bind-completed"
LABELS = {"foo": "true", "bar": "false"}


def _dns(name: str) -> str:
    """Upstream's object names use ``_``; a kbatch (and kube-apiserver) name may not."""
    return name.replace("_", "-")


def vol(name: str, size: str, uid: str, claim: str, phase: str, policy: str = "Retain", cls: str = "",
        *anns: str, labels: dict[str, str] | None = None, vac: str | None = None) -> dict[str, Any]:
    name, claim = _dns(name), _dns(claim)
    return {"name": name, "size": size, "uid": uid, "claim": claim, "phase": phase, "policy": policy,
            "class": cls, "anns": anns, "labels": labels, "vac": vac}


def clm(name: str, size: str, volume: str, phase: str, cls: str | None = None, *anns: str,
        selector: dict[str, str] | None = None, modes: list[str] | None = None,
        extra: dict[str, str] | None = None, vac: str | None = None,
        uid: str | None = None) -> dict[str, Any]:
    name, volume = _dns(name), _dns(volume)
    return {"name": name, "size": size, "volume": volume, "phase": phase, "class": cls, "anns": anns,
            "selector": selector, "modes": modes, "extra": extra or {}, "vac": vac,
            "uid": uid or "uid" + name.removeprefix("claim")}


def _claim_manifest(c: dict[str, Any]) -> dict[str, Any]:
    annotations = {a: "yes" for a in c["anns"]} | c["extra"]
    spec: dict[str, Any] = {"accessModes": c["modes"] or ["ReadWriteOnce"],
                            "resources": {"requests": {"storage": c["size"]}}}
    if c["volume"]:
        spec["volumeName"] = c["volume"]
    if c["class"] is not None:
        spec["storageClassName"] = c["class"]
    if c["selector"]:
        spec["selector"] = {"matchLabels": c["selector"]}
    if c["vac"]:
        spec["volumeAttributesClassName"] = c["vac"]
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": c["name"], "namespace": "default", "annotations": annotations or None},
            "spec": spec}


def _volume_manifest(v: dict[str, Any], uids: dict[str, str]) -> dict[str, Any]:
    spec: dict[str, Any] = {"capacity": {"storage": v["size"]}, "accessModes": ["ReadWriteOnce"],
                            "persistentVolumeReclaimPolicy": v["policy"], "storageClassName": v["class"]}
    if v["vac"]:
        spec["csi"] = {"driver": "example.com", "volumeHandle": v["name"]}
        spec["volumeAttributesClassName"] = v["vac"]
    else:
        spec["hostPath"] = {"path": f"/data/{v['name']}"}
    if v["claim"]:  # newVolume: a claimRef only when a claim name is given
        spec["claimRef"] = {"kind": "PersistentVolumeClaim", "apiVersion": "v1", "namespace": "default",
                            "name": v["claim"], "uid": uids.get(v["uid"], v["uid"])}
    return {"apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": v["name"], "labels": v["labels"],
                         "annotations": {a: "yes" for a in v["anns"]} or None}, "spec": spec}


CLASSES = [{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "wait"},
            "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer"}]


def run_row(volumes: list[dict[str, Any]], claims: list[dict[str, Any]], test: str,
            uid_of: dict[str, str]) -> ControlPlane:
    # nothing but this one sync touches the objects; no default class, as upstream's fixture has none
    cp = ControlPlane(seed=1, controllers="", addons="")
    cp.apply(CLASSES)
    uids: dict[str, str] = {}
    for c in claims:
        created = cp.client.create(PersistentVolumeClaim.model_validate(_claim_manifest(c)))
        uids[uid_of.get(c["name"], "")] = created.metadata.uid or ""
        cp.client.patch_status(PersistentVolumeClaim, c["name"], {"status": {"phase": c["phase"]}}, "default")
    for v in volumes:
        cp.client.create(PersistentVolume.model_validate(_volume_manifest(v, uids)))
        cp.client.patch_status(PersistentVolume, v["name"], {"status": {"phase": v["phase"]}})
    cp.run_until_idle()
    cp.cache.add_index(Pod, BY_CLAIM, claims_of_pod)  # what the binder's setup registers
    binder = PersistentVolumeBinder(cp.context("persistentvolume-binder"))
    if test == "claim":
        binder.sync_claim(cp.cache.get(PersistentVolumeClaim, claims[0]["name"], "default"))
    else:
        binder.sync_volume(cp.cache.get(PersistentVolume, volumes[0]["name"]))
    cp.run_until_idle()
    return cp


def _check_volume(cp: ControlPlane, want: dict[str, Any], uids: dict[str, str]) -> None:
    got = cp.client.get(PersistentVolume, want["name"])
    assert got.status is not None and got.status.phase == want["phase"], want["name"]
    ref = got.spec.claim_ref
    if not want["claim"]:
        assert ref is None
    else:
        assert ref is not None and ref.name == want["claim"]
        assert (ref.uid or "") == uids.get(want["uid"], want["uid"])
    assert (BOUND_BY in (got.metadata.annotations or {})) == (BOUND_BY in want["anns"])


def _check_claim(cp: ControlPlane, want: dict[str, Any], capacity: str | None) -> None:
    got = cp.client.get(PersistentVolumeClaim, want["name"], "default")
    assert got.status is not None and got.status.phase == want["phase"], want["name"]
    assert (got.spec.volume_name or "") == want["volume"]
    annotations = got.metadata.annotations or {}
    assert {a for a in (BOUND_BY, COMPLETED) if a in annotations} == set(want["anns"])
    if want["vac"]:  # withExpectedVAC: the bound claim reports the volume's class
        assert got.status.current_volume_attributes_class_name == want["vac"]
    if capacity is not None:
        assert got.status.capacity is not None and str(got.status.capacity["storage"]) == capacity


def _events(cp: ControlPlane) -> list[str]:
    return sorted(f"{e.type} {e.reason}" for e in cp.client.list(Event, "default").items)


ROWS: list[tuple[str, list[Any], list[Any], list[Any], list[Any], list[str] | None, str, str | None]] = [
    # name, initial volumes, expected volumes, initial claims, expected claims, events, test, capacity
    ("1-1 - successful bind", [vol("volume1-1", "1Gi", "", "", "Available")],
     [vol("volume1-1", "1Gi", "uid1-1", "claim1-1", "Bound", "Retain", "", BOUND_BY)],
     [clm("claim1-1", "1Gi", "", "Pending")],
     [clm("claim1-1", "1Gi", "volume1-1", "Bound", None, BOUND_BY, COMPLETED)], [], "claim", "1Gi"),
    ("1-2 - noop", [vol("volume1-2", "1Gi", "", "", "Available")],
     [vol("volume1-2", "1Gi", "", "", "Available")],
     [clm("claim1-2", "10Gi", "", "Pending")], [clm("claim1-2", "10Gi", "", "Pending")],
     ["Normal FailedBinding"], "claim", None),
    ("1-3 - reset to Pending", [vol("volume1-3", "1Gi", "", "", "Available")],
     [vol("volume1-3", "1Gi", "", "", "Available")],
     [clm("claim1-3", "10Gi", "", "Bound")], [clm("claim1-3", "10Gi", "", "Pending")],
     ["Normal FailedBinding"], "claim", None),
    ("1-4 - smallest volume",
     [vol("volume1-4_1", "10Gi", "", "", "Available"), vol("volume1-4_2", "1Gi", "", "", "Available")],
     [vol("volume1-4_1", "10Gi", "", "", "Available"),
      vol("volume1-4_2", "1Gi", "uid1-4", "claim1-4", "Bound", "Retain", "", BOUND_BY)],
     [clm("claim1-4", "1Gi", "", "Pending")],
     [clm("claim1-4", "1Gi", "volume1-4_2", "Bound", None, BOUND_BY, COMPLETED)], [], "claim", "1Gi"),
    ("1-5 - prebound volume by name - success",
     [vol("volume1-5_1", "10Gi", "", "claim1-5", "Available"),
      vol("volume1-5_2", "1Gi", "", "", "Available")],
     [vol("volume1-5_1", "10Gi", "uid1-5", "claim1-5", "Bound"),
      vol("volume1-5_2", "1Gi", "", "", "Available")],
     [clm("claim1-5", "1Gi", "", "Pending")],
     [clm("claim1-5", "1Gi", "volume1-5_1", "Bound", None, BOUND_BY, COMPLETED)], [], "claim", "10Gi"),
    ("1-6 - prebound volume by UID - success",
     [vol("volume1-6_1", "10Gi", "uid1-6", "claim1-6", "Available"),
      vol("volume1-6_2", "1Gi", "", "", "Available")],
     [vol("volume1-6_1", "10Gi", "uid1-6", "claim1-6", "Bound"),
      vol("volume1-6_2", "1Gi", "", "", "Available")],
     [clm("claim1-6", "1Gi", "", "Pending")],
     [clm("claim1-6", "1Gi", "volume1-6_1", "Bound", None, BOUND_BY, COMPLETED)], [], "claim", "10Gi"),
    ("1-7 - prebound volume to different claim",
     [vol("volume1-7", "10Gi", "uid1-777", "claim1-7", "Available")],
     [vol("volume1-7", "10Gi", "uid1-777", "claim1-7", "Available")],
     [clm("claim1-7", "1Gi", "", "Pending")], [clm("claim1-7", "1Gi", "", "Pending")],
     ["Normal FailedBinding"], "claim", None),
    ("1-8 - complete bind after crash - PV bound",
     [vol("volume1-8", "1Gi", "uid1-8", "claim1-8", "Available", "Retain", "", BOUND_BY)],
     [vol("volume1-8", "1Gi", "uid1-8", "claim1-8", "Bound", "Retain", "", BOUND_BY)],
     [clm("claim1-8", "1Gi", "", "Pending")],
     [clm("claim1-8", "1Gi", "volume1-8", "Bound", None, BOUND_BY, COMPLETED)], [], "claim", None),
    ("1-9 - complete bind after crash - PV status saved",
     [vol("volume1-9", "1Gi", "uid1-9", "claim1-9", "Bound", "Retain", "", BOUND_BY)],
     [vol("volume1-9", "1Gi", "uid1-9", "claim1-9", "Bound", "Retain", "", BOUND_BY)],
     [clm("claim1-9", "1Gi", "", "Pending")],
     [clm("claim1-9", "1Gi", "volume1-9", "Bound", None, BOUND_BY, COMPLETED)], [], "claim", None),
    ("1-10 - complete bind after crash - PVC bound",
     [vol("volume1-10", "1Gi", "uid1-10", "claim1-10", "Bound", "Retain", "", BOUND_BY)],
     [vol("volume1-10", "1Gi", "uid1-10", "claim1-10", "Bound", "Retain", "", BOUND_BY)],
     [clm("claim1-10", "1Gi", "volume1-10", "Pending", None, BOUND_BY, COMPLETED)],
     [clm("claim1-10", "1Gi", "volume1-10", "Bound", None, BOUND_BY, COMPLETED)], [], "claim", None),
    ("1-11 - bind when selector matches", [vol("volume1-1", "1Gi", "", "", "Available", labels=LABELS)],
     [vol("volume1-1", "1Gi", "uid1-1", "claim1-1", "Bound", "Retain", "", BOUND_BY)],
     [clm("claim1-1", "1Gi", "", "Pending", selector=LABELS)],
     [clm("claim1-1", "1Gi", "volume1-1", "Bound", None, BOUND_BY, COMPLETED)], [], "claim", None),
    ("1-12 - do not bind when selector does not match", [vol("volume1-1", "1Gi", "", "", "Available")],
     [vol("volume1-1", "1Gi", "", "", "Available")],
     [clm("claim1-1", "1Gi", "", "Pending", selector=LABELS)], [clm("claim1-1", "1Gi", "", "Pending")],
     ["Normal FailedBinding"], "claim", None),
    ("1-13 - delayed binding", [vol("volume1-1", "1Gi", "", "", "Available", "Retain", "wait")],
     [vol("volume1-1", "1Gi", "", "", "Available")],
     [clm("claim1-1", "1Gi", "", "Pending", "wait")], [clm("claim1-1", "1Gi", "", "Pending")],
     ["Normal WaitForFirstConsumer"], "claim", None),
    ("1-14 - successful prebound PV",
     [vol("volume1-1", "1Gi", "", "claim1-1", "Available", "Retain", "wait")],
     [vol("volume1-1", "1Gi", "uid1-1", "claim1-1", "Bound")],
     [clm("claim1-1", "1Gi", "", "Pending", "wait")],
     [clm("claim1-1", "1Gi", "volume1-1", "Bound", "wait", BOUND_BY, COMPLETED)], [], "claim", None),
    ("1-15 - successful prebound PVC",
     [vol("volume1-15_1", "10Gi", "", "", "Available"), vol("volume1-15_2", "1Gi", "", "", "Available")],
     [vol("volume1-15_1", "10Gi", "uid1-15", "claim1-15", "Bound", "Retain", "", BOUND_BY),
      vol("volume1-15_2", "1Gi", "", "", "Available")],
     [clm("claim1-15", "1Gi", "volume1-15_1", "Pending")],
     [clm("claim1-15", "1Gi", "volume1-15_1", "Bound", None, COMPLETED)], [], "claim", "10Gi"),
    ("1-16 - successful prebound PVC (different access mode)",
     [vol("volume1-16", "1Gi", "", "", "Available")],
     [vol("volume1-16", "1Gi", "", "", "Available")],
     [clm("claim1-16", "1Gi", "volume1-16", "Pending", modes=["ReadWriteMany"])],
     [clm("claim1-16", "1Gi", "volume1-16", "Pending")], None, "claim", None),
    ("1-17 - skip non-available PV if it's not pre-bind",
     [vol("volume1-17-pending", "1Gi", "", "", "Pending"), vol("volume1-17-failed", "1Gi", "", "", "Failed"),
      vol("volume1-17-released", "1Gi", "", "", "Released")],
     [vol("volume1-17-pending", "1Gi", "", "", "Pending"), vol("volume1-17-failed", "1Gi", "", "", "Failed"),
      vol("volume1-17-released", "1Gi", "", "", "Released")],
     [clm("claim1-17", "1Gi", "", "Pending")], [clm("claim1-17", "1Gi", "", "Pending")], None, "claim", None),
    ("1-18 - successful pre-bound PV to PVC provisioning",
     [vol("volume1-18", "1Gi", "uid1-18", "claim1-18", "Available", "Retain", "wait")],
     [vol("volume1-18", "1Gi", "uid1-18", "claim1-18", "Bound")],
     [clm("claim1-18", "1Gi", "", "Pending", "wait", extra={"volume.kubernetes.io/selected-node": "node1"})],
     [clm("claim1-18", "1Gi", "volume1-18", "Bound", "wait", BOUND_BY, COMPLETED)], [], "claim", None),
    ("2-1 - claim prebound to non-existing volume - noop", [], [],
     [clm("claim2-1", "10Gi", "volume2-1", "Pending")], [clm("claim2-1", "10Gi", "volume2-1", "Pending")],
     [], "claim", None),
    ("2-2 - claim prebound to non-existing volume - reset status", [], [],
     [clm("claim2-2", "10Gi", "volume2-2", "Bound")], [clm("claim2-2", "10Gi", "volume2-2", "Pending")],
     [], "claim", None),
    ("2-3 - claim prebound to unbound volume", [vol("volume2-3", "1Gi", "", "", "Available")],
     [vol("volume2-3", "1Gi", "uid2-3", "claim2-3", "Bound", "Retain", "", BOUND_BY)],
     [clm("claim2-3", "1Gi", "volume2-3", "Pending")],
     [clm("claim2-3", "1Gi", "volume2-3", "Bound", None, COMPLETED)], [], "claim", None),
    ("2-4 - claim prebound to prebound volume by name",
     [vol("volume2-4", "1Gi", "", "claim2-4", "Available")],
     [vol("volume2-4", "1Gi", "uid2-4", "claim2-4", "Bound")],
     [clm("claim2-4", "1Gi", "volume2-4", "Pending")],
     [clm("claim2-4", "1Gi", "volume2-4", "Bound", None, COMPLETED)], [], "claim", None),
    ("2-5 - claim prebound to prebound volume by UID",
     [vol("volume2-5", "1Gi", "uid2-5", "claim2-5", "Available")],
     [vol("volume2-5", "1Gi", "uid2-5", "claim2-5", "Bound")],
     [clm("claim2-5", "1Gi", "volume2-5", "Pending")],
     [clm("claim2-5", "1Gi", "volume2-5", "Bound", None, COMPLETED)], [], "claim", None),
    ("2-6 - claim prebound to already bound volume",
     [vol("volume2-6", "1Gi", "uid2-6_1", "claim2-6_1", "Bound")],
     [vol("volume2-6", "1Gi", "uid2-6_1", "claim2-6_1", "Bound")],
     [clm("claim2-6", "1Gi", "volume2-6", "Bound")], [clm("claim2-6", "1Gi", "volume2-6", "Pending")],
     None, "claim", None),
    ("2-7 - claim bound by controller to already bound volume",
     [vol("volume2-7", "1Gi", "uid2-7_1", "claim2-7_1", "Bound")],
     [vol("volume2-7", "1Gi", "uid2-7_1", "claim2-7_1", "Bound")],
     [clm("claim2-7", "1Gi", "volume2-7", "Bound", None, BOUND_BY)],
     [clm("claim2-7", "1Gi", "volume2-7", "Bound", None, BOUND_BY)], None, "claim", None),
    ("2-8 - claim prebound to unbound volume that does not match the selector",
     [vol("volume2-8", "1Gi", "", "", "Available")],
     [vol("volume2-8", "1Gi", "uid2-8", "claim2-8", "Bound", "Retain", "", BOUND_BY)],
     [clm("claim2-8", "1Gi", "volume2-8", "Pending", selector=LABELS)],
     [clm("claim2-8", "1Gi", "volume2-8", "Bound", None, COMPLETED)], [], "claim", None),
    ("2-9 - claim prebound to unbound volume that size is smaller than requested",
     [vol("volume2-9", "1Gi", "", "", "Available")], [vol("volume2-9", "1Gi", "", "", "Available")],
     [clm("claim2-9", "2Gi", "volume2-9", "Bound")], [clm("claim2-9", "2Gi", "volume2-9", "Pending")],
     ["Warning VolumeMismatch"], "claim", None),
    ("2-10 - claim prebound to unbound volume that class is different",
     [vol("volume2-10", "1Gi", "1", "", "Available", "Retain", "gold")],
     [vol("volume2-10", "1Gi", "", "", "Available")],
     [clm("claim2-10", "1Gi", "volume2-10", "Bound")], [clm("claim2-10", "1Gi", "volume2-10", "Pending")],
     ["Warning VolumeMismatch"], "claim", None),
    ("2-11 - claim prebound to unbound volume that volume attributes class is different",
     [vol("volume2-11", "1Gi", "", "", "Available", vac="gold")],
     [vol("volume2-11", "1Gi", "", "", "Available")],
     [clm("claim2-11", "1Gi", "volume2-11", "Bound")], [clm("claim2-11", "1Gi", "volume2-11", "Pending")],
     ["Warning VolumeMismatch"], "claim", None),
    ("2-12 - claim prebound to unbound volume that volume attributes class is same",
     [vol("volume2-12", "1Gi", "", "", "Available", vac="gold")],
     [vol("volume2-12", "1Gi", "uid2-12", "claim2-12", "Bound", "Retain", "", BOUND_BY)],
     [clm("claim2-12", "1Gi", "volume2-12", "Pending", vac="gold")],
     [clm("claim2-12", "1Gi", "volume2-12", "Bound", None, COMPLETED, vac="gold")], [], "claim", None),
    ("3-1 - bound claim with missing VolumeName", [], [],
     [clm("claim3-1", "10Gi", "", "Bound", None, BOUND_BY, COMPLETED)],
     [clm("claim3-1", "10Gi", "", "Lost", None, BOUND_BY, COMPLETED)], ["Warning ClaimLost"], "claim", None),
    ("3-2 - bound claim with missing volume", [], [],
     [clm("claim3-2", "10Gi", "volume3-2", "Bound", None, BOUND_BY, COMPLETED)],
     [clm("claim3-2", "10Gi", "volume3-2", "Lost", None, BOUND_BY, COMPLETED)], ["Warning ClaimLost"],
     "claim", None),
    ("3-3 - bound claim with unbound volume", [vol("volume3-3", "10Gi", "", "", "Available")],
     [vol("volume3-3", "10Gi", "uid3-3", "claim3-3", "Bound", "Retain", "", BOUND_BY)],
     [clm("claim3-3", "10Gi", "volume3-3", "Pending", None, BOUND_BY, COMPLETED)],
     [clm("claim3-3", "10Gi", "volume3-3", "Bound", None, BOUND_BY, COMPLETED)], [], "claim", None),
    ("3-4 - bound claim with prebound volume",
     [vol("volume3-4", "10Gi", "claim3-4-x", "claim3-4", "Available")],
     [vol("volume3-4", "10Gi", "claim3-4-x", "claim3-4", "Available")],
     [clm("claim3-4", "10Gi", "volume3-4", "Pending", None, BOUND_BY, COMPLETED)],
     [clm("claim3-4", "10Gi", "volume3-4", "Lost", None, BOUND_BY, COMPLETED)], ["Warning ClaimMisbound"],
     "claim", None),
    ("3-5 - bound claim with bound volume", [vol("volume3-5", "10Gi", "uid3-5", "claim3-5", "Available")],
     [vol("volume3-5", "10Gi", "uid3-5", "claim3-5", "Bound")],
     [clm("claim3-5", "10Gi", "volume3-5", "Pending", None, COMPLETED)],
     [clm("claim3-5", "10Gi", "volume3-5", "Bound", None, COMPLETED)], [], "claim", None),
    ("3-6 - bound claim with bound volume (different claimant)",
     [vol("volume3-6", "10Gi", "uid3-6-x", "claim3-6-x", "Available")],
     [vol("volume3-6", "10Gi", "uid3-6-x", "claim3-6-x", "Available")],
     [clm("claim3-6", "10Gi", "volume3-6", "Pending", None, COMPLETED)],
     [clm("claim3-6", "10Gi", "volume3-6", "Lost", None, COMPLETED)],
     ["Warning ClaimMisbound"], "claim", None),
    ("3-7 - bound claim with unbound volume where selector doesn't match",
     [vol("volume3-3", "10Gi", "", "", "Available")],
     [vol("volume3-3", "10Gi", "uid3-3", "claim3-3", "Bound", "Retain", "", BOUND_BY)],
     [clm("claim3-3", "10Gi", "volume3-3", "Pending", None, BOUND_BY, COMPLETED, selector=LABELS)],
     [clm("claim3-3", "10Gi", "volume3-3", "Bound", None, BOUND_BY, COMPLETED)], [], "claim", None),
    ("4-1 - pending volume", [vol("volume4-1", "10Gi", "", "", "Pending")],
     [vol("volume4-1", "10Gi", "", "", "Available")], [], [], [], "volume", None),
    ("4-2 - pending prebound volume", [vol("volume4-2", "10Gi", "", "claim4-2", "Pending")],
     [vol("volume4-2", "10Gi", "", "claim4-2", "Available")], [], [], [], "volume", None),
    ("4-3 - bound volume with missing claim", [vol("volume4-3", "10Gi", "uid4-3", "claim4-3", "Bound")],
     [vol("volume4-3", "10Gi", "uid4-3", "claim4-3", "Released")], [], [], [], "volume", None),
    ("4-4 - volume bound to claim with different UID",
     [vol("volume4-4", "10Gi", "uid4-4", "claim4-4", "Bound")],
     [vol("volume4-4", "10Gi", "uid4-4", "claim4-4", "Released")],
     [clm("claim4-4", "10Gi", "volume4-4", "Bound", None, COMPLETED, uid="uid4-4-x")],
     [clm("claim4-4", "10Gi", "volume4-4", "Bound", None, COMPLETED)], [], "volume", None),
    ("4-5 - volume bound by controller to unbound claim",
     [vol("volume4-5", "10Gi", "uid4-5", "claim4-5", "Bound", "Retain", "", BOUND_BY)],
     [vol("volume4-5", "10Gi", "uid4-5", "claim4-5", "Bound", "Retain", "", BOUND_BY)],
     [clm("claim4-5", "10Gi", "", "Pending")], [clm("claim4-5", "10Gi", "", "Pending")], [], "volume", None),
    ("4-5 - volume bound by user to bound claim", [vol("volume4-5", "10Gi", "uid4-5", "claim4-5", "Bound")],
     [vol("volume4-5", "10Gi", "uid4-5", "claim4-5", "Bound")],
     [clm("claim4-5", "10Gi", "", "Pending")], [clm("claim4-5", "10Gi", "", "Pending")], [], "volume", None),
    ("4-6 - volume bound by to bound claim", [vol("volume4-6", "10Gi", "uid4-6", "claim4-6", "Available")],
     [vol("volume4-6", "10Gi", "uid4-6", "claim4-6", "Bound")],
     [clm("claim4-6", "10Gi", "volume4-6", "Bound")], [clm("claim4-6", "10Gi", "volume4-6", "Bound")], [],
     "volume", None),
    ("4-7 - volume bound by controller to claim bound somewhere else",
     [vol("volume4-7", "10Gi", "uid4-7", "claim4-7", "Bound", "Retain", "", BOUND_BY)],
     [vol("volume4-7", "10Gi", "", "", "Available")],
     [clm("claim4-7", "10Gi", "volume4-7-x", "Bound")], [clm("claim4-7", "10Gi", "volume4-7-x", "Bound")], [],
     "volume", None),
    ("4-8 - volume bound by user to claim bound somewhere else",
     [vol("volume4-8", "10Gi", "uid4-8", "claim4-8", "Bound")],
     [vol("volume4-8", "10Gi", "", "claim4-8", "Available")],
     [clm("claim4-8", "10Gi", "volume4-8-x", "Bound")], [clm("claim4-8", "10Gi", "volume4-8-x", "Bound")], [],
     "volume", None),
    ("4-9 - volume bound to bound claim, with PersistentVolumeReclaimDelete",
     [vol("volume4-9", "10Gi", "uid4-9", "claim4-9", "Available", "Delete")],
     [vol("volume4-9", "10Gi", "uid4-9", "claim4-9", "Bound", "Delete")],
     [clm("claim4-9", "10Gi", "volume4-9", "Bound")], [clm("claim4-9", "10Gi", "volume4-9", "Bound")], [],
     "volume", None),
    ("4-10 - volume bound to missing claim",
     [vol("volume4-10", "10Gi", "uid4-10", "claim4-10", "Available", "Delete")],
     [vol("volume4-10", "10Gi", "uid4-10", "claim4-10", "Failed", "Delete")], [], [],
     ["Warning VolumeFailedDelete"], "volume", None),
    ("13-1 - binding to class",
     [vol("volume13-1-1", "1Gi", "", "", "Available"),
      vol("volume13-1-2", "10Gi", "", "", "Available", "Retain", "gold")],
     [vol("volume13-1-1", "1Gi", "", "", "Available"),
      vol("volume13-1-2", "10Gi", "uid13-1", "claim13-1", "Bound", "Retain", "gold", BOUND_BY)],
     [clm("claim13-1", "1Gi", "", "Pending", "gold")],
     [clm("claim13-1", "1Gi", "volume13-1-2", "Bound", "gold", BOUND_BY, COMPLETED)], [], "claim", "10Gi"),
    ("13-2 - binding without a class",
     [vol("volume13-2-1", "1Gi", "", "", "Available", "Retain", "gold"),
      vol("volume13-2-2", "10Gi", "", "", "Available")],
     [vol("volume13-2-1", "1Gi", "", "", "Available"),
      vol("volume13-2-2", "10Gi", "uid13-2", "claim13-2", "Bound", "Retain", "", BOUND_BY)],
     [clm("claim13-2", "1Gi", "", "Pending")],
     [clm("claim13-2", "1Gi", "volume13-2-2", "Bound", None, BOUND_BY, COMPLETED)], [], "claim", "10Gi"),
    ("13-3 - binding to specific a class",
     [vol("volume13-3-1", "1Gi", "", "", "Available", "Retain", "silver"),
      vol("volume13-3-2", "10Gi", "", "", "Available", "Retain", "gold")],
     [vol("volume13-3-1", "1Gi", "", "", "Available"),
      vol("volume13-3-2", "10Gi", "uid13-3", "claim13-3", "Bound", "Retain", "gold", BOUND_BY)],
     [clm("claim13-3", "1Gi", "", "Pending", "gold")],
     [clm("claim13-3", "1Gi", "volume13-3-2", "Bound", "gold", BOUND_BY, COMPLETED)], [], "claim", "10Gi"),
    ("13-4 - empty class", [vol("volume13-4", "1Gi", "", "", "Available")],
     [vol("volume13-4", "1Gi", "uid13-4", "claim13-4", "Bound", "Retain", "", BOUND_BY)],
     [clm("claim13-4", "1Gi", "", "Pending", "")],
     [clm("claim13-4", "1Gi", "volume13-4", "Bound", "", BOUND_BY, COMPLETED)], [], "claim", None),
    ("13-5 - nil class", [vol("volume13-5", "1Gi", "", "", "Available")],
     [vol("volume13-5", "1Gi", "uid13-5", "claim13-5", "Bound", "Retain", "", BOUND_BY)],
     [clm("claim13-5", "1Gi", "", "Pending")],
     [clm("claim13-5", "1Gi", "volume13-5", "Bound", None, BOUND_BY, COMPLETED)], [], "claim", None),
]


def _uid_keys(claims: list[dict[str, Any]]) -> dict[str, str]:
    """claim name → the uid the row gives it (``claimN`` has ``uidN`` unless the row says)."""
    return {c["name"]: c["uid"] for c in claims}


@pytest.mark.parametrize(("name", "volumes", "want_volumes", "claims", "want_claims", "events", "test",
                          "capacity"), ROWS, ids=[row[0] for row in ROWS])
def test_sync(name: str, volumes: list[Any], want_volumes: list[Any], claims: list[Any],
              want_claims: list[Any], events: list[str] | None, test: str, capacity: str | None) -> None:
    uid_of = _uid_keys(claims)
    cp = run_row(volumes, claims, test, uid_of)
    uids = {key: cp.client.get(PersistentVolumeClaim, claim, "default").metadata.uid or ""
            for claim, key in uid_of.items()}
    for want in want_volumes:
        _check_volume(cp, want, uids)
    for want in want_claims:
        _check_claim(cp, want, capacity)
    if events is not None:
        assert _events(cp) == sorted(events)
