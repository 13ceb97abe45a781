"""Upstream's PersistentVolume validation tables, through kbatch's API server.

Source: kubernetes/kubernetes ``pkg/apis/core/validation/validation_test.go``
``TestValidatePersistentVolumes`` (stored copy with the VolumeAttributesClass rows, 1.34+). Each
success row is created (and updated unchanged); each error row is refused with a 422 at the field
noted. Translation notes: upstream's rows use ``gcePersistentDisk`` for a second source and in
``testVolumeWithNodeAffinity``; kbatch models hostPath, local, csi and nfs only (docs/storage.md),
so those rows use ``csi`` and ``hostPath``. "unexpected-namespace" does not translate: the API
server clears a cluster-scoped object's namespace (``rest.BeforeCreate``). The
``enableVolumeAttributesClass`` switch is always on: the gate is GA and locked since 1.34.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.core_v1.persistent_volume import PersistentVolume
from tests.api.upstream_batch import rejected, server

HOST = {"hostPath": {"path": "/foo", "type": "Directory"}}
CSI = {"csi": {"driver": "test-driver", "volumeHandle": "test-123"}}


def pv(name: str = "foo", capacity: str | None = "10G", modes: list[str] | None = None,
       source: dict[str, Any] | None = None, **spec: Any) -> PersistentVolume:
    body: dict[str, Any] = {"accessModes": ["ReadWriteOnce"] if modes is None else modes,
                            **(HOST if source is None else source), **spec}
    if capacity is not None:
        body["capacity"] = {"storage": capacity}
    return PersistentVolume.model_validate({"metadata": {"name": name}, "spec": body})


def affinity(required: dict[str, Any] | None) -> dict[str, Any]:
    return {"nodeAffinity": {} if required is None else {"required": required}}


SIMPLE_AFFINITY = {"nodeSelectorTerms": [{"matchExpressions": [
    {"key": "foo", "operator": "In", "values": ["bar"]}]}]}

GOOD: dict[str, PersistentVolume] = {
    "good-volume": pv(),
    "good-volume-with-capacity-unit": pv(capacity="10Gi"),
    "good-volume-without-capacity-unit": pv(capacity="10"),
    "good-volume-with-storage-class": pv(storageClassName="valid"),
    "good-volume-with-retain-policy": pv(persistentVolumeReclaimPolicy="Retain"),
    "good-volume-with-volume-mode": pv(volumeMode="Filesystem"),
    "with-read-write-once-pod": pv(modes=["ReadWriteOncePod"]),
    "volume-node-affinity": pv(**affinity(SIMPLE_AFFINITY)),
    "volume-with-good-volume-attributes-class-and-matched-volume-resource-when-feature-gate-is-on":
        pv(source=CSI, storageClassName="valid", volumeAttributesClassName="valid"),
}


@pytest.mark.parametrize("volume", GOOD.values(), ids=GOOD.keys())
def test_success_rows_are_created_and_updated(volume: PersistentVolume) -> None:
    srv = server()
    srv.update(srv.create(volume))


BAD: dict[str, tuple[PersistentVolume, list[tuple[str, str]]]] = {
    "invalid-accessmode": (pv(modes=["fakemode"]), [("spec.accessModes", "FieldValueNotSupported")]),
    "invalid-reclaimpolicy": (pv(persistentVolumeReclaimPolicy="fakeReclaimPolicy"),
                              [("spec.persistentVolumeReclaimPolicy", "FieldValueNotSupported")]),
    "invalid-volume-mode": (pv(volumeMode="fakeVolumeMode"), [("spec.volumeMode", "FieldValueNotSupported")]),
    "with-read-write-once-pod-and-others": (pv(modes=["ReadWriteOncePod", "ReadWriteMany"]),
                                            [("spec.accessModes", "FieldValueForbidden")]),
    "missing-volume-source": (pv(source={}), [("spec", "FieldValueRequired")]),
    "bad-name": (pv(name="123*Bad(Name"), [("metadata.name", "FieldValueInvalid")]),
    "missing-name": (pv(name=""), [("metadata.name", "FieldValueRequired")]),
    "missing-capacity": (pv(capacity=None), [("spec.capacity", "FieldValueRequired"),
                                             ("spec.capacity", "FieldValueNotSupported")]),
    "bad-volume-zero-capacity": (pv(capacity="0"), [("spec.capacity[storage]", "FieldValueInvalid")]),
    "missing-accessmodes": (pv(modes=[]), [("spec.accessModes", "FieldValueRequired")]),
    # upstream: hostPath + gcePersistentDisk, and no access modes
    "too-many-sources": (pv(capacity="5G", modes=[], source={**HOST, **CSI}),
                         [("spec.accessModes", "FieldValueRequired"), ("spec.csi", "FieldValueForbidden")]),
    "host mount of / with recycle reclaim policy": (
        pv(source={"hostPath": {"path": "/", "type": "Directory"}},
           persistentVolumeReclaimPolicy="Recycle"),
        [("spec.persistentVolumeReclaimPolicy", "FieldValueForbidden")]),
    "host mount of / with recycle reclaim policy 2": (
        pv(source={"hostPath": {"path": "/a/..", "type": "Directory"}},
           persistentVolumeReclaimPolicy="Recycle"),
        [("spec.hostPath.path", "FieldValueInvalid"),
         ("spec.persistentVolumeReclaimPolicy", "FieldValueForbidden")]),
    "invalid-storage-class-name": (pv(storageClassName="-invalid-"),
                                   [("spec.storageClassName", "FieldValueInvalid")]),
    "bad-hostpath-volume-backsteps": (pv(source={"hostPath": {"path": "/foo/..", "type": "Directory"}},
                                         storageClassName="backstep-hostpath"),
                                      [("spec.hostPath.path", "FieldValueInvalid")]),
    "volume-empty-node-affinity": (pv(**affinity(None)),
                                   [("spec.nodeAffinity.required", "FieldValueRequired")]),
    "volume-bad-node-affinity": (
        pv(**affinity({"nodeSelectorTerms": [{"matchExpressions": [
            {"operator": "In", "values": ["test-label-value"]}]}]})),
        [("spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].key",
          "FieldValueInvalid")] * 2),
    "invalid-volume-attributes-class-name": (
        pv(storageClassName="invalid", volumeAttributesClassName="-invalid-"),
        [("spec.volumeAttributesClassName", "FieldValueInvalid"), ("spec.csi", "FieldValueRequired")]),
    "invalid-empty-volume-attributes-class-name": (
        pv(storageClassName="invalid", volumeAttributesClassName=""),
        [("spec.volumeAttributesClassName", "FieldValueRequired"), ("spec.csi", "FieldValueRequired")]),
    "volume-with-good-volume-attributes-class-and-mismatched-volume-resource-when-feature-gate-is-on": (
        pv(storageClassName="valid", volumeAttributesClassName="valid"),
        [("spec.csi", "FieldValueRequired")]),
}


@pytest.mark.parametrize(("volume", "expected"), BAD.values(), ids=BAD.keys())
def test_error_rows_are_refused(volume: PersistentVolume, expected: list[tuple[str, str]]) -> None:
    causes = rejected(server().create, volume)
    assert [(c[0], c[1]) for c in causes] == expected, causes


def test_local_volume_requires_node_affinity() -> None:
    """ValidatePersistentVolumeSpec: ``Local volume requires node affinity``."""
    causes = rejected(server().create, pv(source={"local": {"path": "/mnt/disks/a"}}))
    assert causes == [("spec.nodeAffinity", "FieldValueRequired",
                       "Required value: Local volume requires node affinity")], causes


def test_create_defaults_and_pending_status() -> None:
    """SetDefaults_PersistentVolume (Retain, Filesystem, hostPath type ""); the strategy's
    PrepareForCreate (phase Pending, lastPhaseTransitionTime the creation time)."""
    created = server().create(pv(source={"hostPath": {"path": "/foo"}}))
    spec, status = created.spec, created.status
    assert (spec.persistent_volume_reclaim_policy, spec.volume_mode, spec.host_path.type) == \
        ("Retain", "Filesystem", "")
    assert status is not None and status.phase == "Pending"
    assert status.last_phase_transition_time == created.metadata.creation_timestamp
    assert created.metadata.generation is None
