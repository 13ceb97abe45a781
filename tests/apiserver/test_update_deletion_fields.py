"""An update may not set or change ``deletionTimestamp`` / ``deletionGracePeriodSeconds``: k8s.io/apiserver
1.37 ``pkg/registry/rest/update.go`` ``BeforeUpdate`` carries old's ``deletionTimestamp`` only when
old has one, and old's grace only when old has one and the update sends none; whatever else the
update sends reaches ``ValidateObjectMetaAccessorUpdate``, whose ``ValidateImmutableField`` refuses
it (k8s.io/apimachinery ``pkg/api/validation/objectmeta.go``), the value rendered as ``json.Marshal``
writes a ``*metav1.Time`` / ``*int64``."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kbatch import ControlPlane
from kbatch.api import edit
from kbatch.api.core_v1 import ConfigMap
from kbatch.api.errors import Invalid

T = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def _live(cp: ControlPlane, finalizer: bool = False) -> ConfigMap:
    meta: dict[str, object] = {"name": "c", "namespace": "default"}
    if finalizer:
        meta["finalizers"] = ["example.com/hold"]
    return cp.client.create(ConfigMap.model_validate({"metadata": meta}))


def test_setting_a_deletion_timestamp_by_update_is_refused() -> None:
    cp = ControlPlane()
    changed = edit(_live(cp))
    changed.metadata.deletion_timestamp = T
    with pytest.raises(Invalid) as err:
        cp.client.update(changed)
    assert err.value.message == ('ConfigMap "c" is invalid: metadata.deletionTimestamp: Invalid value: '
                                 '"2026-01-02T03:04:05Z": field is immutable')


def test_setting_a_grace_period_by_update_is_refused() -> None:
    cp = ControlPlane()
    changed = edit(_live(cp))
    changed.metadata.deletion_grace_period_seconds = 30
    with pytest.raises(Invalid) as err:
        cp.client.update(changed)
    assert err.value.message == ('ConfigMap "c" is invalid: metadata.deletionGracePeriodSeconds: Invalid '
                                 'value: 30: field is immutable')


def test_a_deleting_objects_fields_are_kept_when_the_update_omits_or_changes_the_timestamp() -> None:
    cp = ControlPlane()
    _live(cp, finalizer=True)
    cp.client.delete(ConfigMap, "c", "default")
    deleting = cp.client.get(ConfigMap, "c", "default")
    assert deleting.metadata.deletion_timestamp is not None
    omitted = edit(deleting)
    omitted.metadata.deletion_timestamp = None
    omitted.metadata.deletion_grace_period_seconds = None
    omitted.metadata.labels = {"a": "b"}
    kept = cp.client.update(omitted)
    assert kept.metadata.deletion_timestamp == deleting.metadata.deletion_timestamp
    assert kept.metadata.deletion_grace_period_seconds == deleting.metadata.deletion_grace_period_seconds
    moved = edit(kept)
    moved.metadata.deletion_timestamp = T  # BeforeUpdate puts old's back: an update can never change it
    assert cp.client.update(moved).metadata.deletion_timestamp == deleting.metadata.deletion_timestamp
