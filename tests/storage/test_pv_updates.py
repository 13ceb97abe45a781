"""PersistentVolume update rules (``ValidatePersistentVolumeUpdate``, pkg/apis/core/validation, and
the registry strategy's status handling), through kbatch's API server. Cases after upstream's
``TestValidatePersistentVolumeSourceUpdate`` and ``TestValidatePVSecretReference`` rows: the source
is immutable but a CSI ``controllerExpandSecretRef`` may be added; ``volumeMode`` is immutable;
``nodeAffinity`` may be set once (MutablePVNodeAffinity, alpha, off)."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.core_v1.persistent_volume import PersistentVolume
from kbatch.api.errors import Invalid
from tests.api.upstream_batch import rejected, server

CSI = {"driver": "test-driver", "volumeHandle": "test-123"}
AFFINITY = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
    {"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-0"]}]}]}}


def pv(**spec: Any) -> PersistentVolume:
    body = {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "csi": CSI, **spec}
    return PersistentVolume.model_validate({"metadata": {"name": "pv"}, "spec": body})


def update(before: PersistentVolume, after: PersistentVolume) -> Any:
    srv = server()
    stored = srv.create(before)
    after.metadata.resource_version = stored.metadata.resource_version
    return srv, after


def test_source_change_is_forbidden() -> None:
    srv, after = update(pv(), pv(csi={**CSI, "volumeHandle": "other"}))
    causes = rejected(srv.update, after)
    assert [(c[0], c[1]) for c in causes] == [("spec.persistentvolumesource", "FieldValueForbidden")], causes


def test_controller_expand_secret_ref_may_be_added() -> None:
    ref = {"name": "expand", "namespace": "default"}
    srv, after = update(pv(), pv(csi={**CSI, "controllerExpandSecretRef": ref}))
    assert srv.update(after).spec.csi.controller_expand_secret_ref.name == "expand"


def test_volume_mode_is_immutable_at_upstreams_path() -> None:
    srv, after = update(pv(), pv(volumeMode="Block"))
    causes = rejected(srv.update, after)
    assert [(c[0], c[1]) for c in causes] == [("volumeMode", "FieldValueInvalid")], causes


def test_node_affinity_may_be_set_once_then_is_immutable() -> None:
    srv, after = update(pv(), pv(nodeAffinity=AFFINITY))
    stored = srv.update(after)
    changed = pv(nodeAffinity={"required": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-1"]}]}]}})
    changed.metadata.resource_version = stored.metadata.resource_version
    causes = rejected(srv.update, changed)
    assert [(c[0], c[1]) for c in causes] == [("nodeAffinity", "FieldValueInvalid")], causes


def test_storage_class_and_capacity_may_change() -> None:
    srv, after = update(pv(), pv(storageClassName="fast", capacity={"storage": "2Gi"}))
    assert srv.update(after).spec.storage_class_name == "fast"


def test_main_update_keeps_status_and_status_write_keeps_spec() -> None:
    """The registry strategy: a spec update keeps the stored status; a status write keeps the spec."""
    srv = server()
    stored = srv.create(pv())
    changed = pv(storageClassName="fast")
    changed.status = stored.status.model_copy(update={"phase": "Bound"})
    changed.metadata.resource_version = stored.metadata.resource_version
    after = srv.update(changed)
    assert after.status.phase == "Pending"
    status = pv(storageClassName="other")
    status.status = after.status.model_copy(update={"phase": "Available"})
    status.metadata.resource_version = after.metadata.resource_version
    written = srv.update_status(status)
    assert (written.status.phase, written.spec.storage_class_name) == ("Available", "fast")


def test_invalid_update_writes_nothing() -> None:
    srv, after = update(pv(), pv(volumeMode="Block"))
    with pytest.raises(Invalid):
        srv.update(after)
    assert srv.get(PersistentVolume, "pv").spec.volume_mode == "Filesystem"
