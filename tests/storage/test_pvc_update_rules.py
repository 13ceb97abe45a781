"""PersistentVolumeClaim update rules, after upstream's ``ValidatePersistentVolumeClaimUpdate``
(kubernetes ``pkg/apis/core/validation/validation.go``, copy with RecoverVolumeExpansionFailure and
VolumeAttributesClass options, 1.34+) and rows of its ``TestValidatePersistentVolumeClaimUpdate``
("valid-update-volume-name-only", "valid-upgrade-storage-class-annotation-to-spec",
"valid-upgrade-nil-storage-class-spec-to-spec", "invalid-update-change-storage-class-..."), through
kbatch's API server. ``volumeName`` may be set once; a claim without a class (and without the beta
annotation) may get one (RetroactiveDefaultStorageClass, GA 1.28); a class from the beta annotation
may be written into the spec; everything else of an unbound claim's spec is immutable."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.core_v1 import PersistentVolumeClaim
from tests.api.upstream_batch import rejected, server

BETA = "volume.beta.kubernetes.io/storage-class"


def claim(annotations: dict[str, str] | None = None, **spec: Any) -> PersistentVolumeClaim:
    body = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, **spec}
    meta: dict[str, Any] = {"name": "data", "namespace": "default"}
    if annotations:
        meta["annotations"] = annotations
    return PersistentVolumeClaim.model_validate({"metadata": meta, "spec": body})


def updated(before: PersistentVolumeClaim, after: PersistentVolumeClaim) -> tuple[Any, PersistentVolumeClaim]:
    srv = server()
    stored = srv.create(before)
    after.metadata.resource_version = stored.metadata.resource_version
    return srv, after


def test_volume_name_may_be_set_once() -> None:
    """valid-update-volume-name-only; then a second change is refused."""
    srv, after = updated(claim(storageClassName="fast"), claim(storageClassName="fast", volumeName="pv-1"))
    stored = srv.update(after)
    assert stored.spec.volume_name == "pv-1"
    again = claim(storageClassName="fast", volumeName="pv-2")
    again.metadata.resource_version = stored.metadata.resource_version
    causes = rejected(srv.update, again)
    assert [(c[0], c[1]) for c in causes] == [("spec", "FieldValueForbidden")], causes


def test_nil_class_may_be_set() -> None:
    """valid-upgrade-nil-storage-class-spec-to-spec (RetroactiveDefaultStorageClass)."""
    srv, after = updated(claim(), claim(storageClassName="fast"))
    assert srv.update(after).spec.storage_class_name == "fast"


def test_class_from_the_beta_annotation_may_move_to_the_spec() -> None:
    """valid-upgrade-storage-class-annotation-to-spec."""
    srv, after = updated(claim({BETA: "fast"}), claim({BETA: "fast"}, storageClassName="fast"))
    assert srv.update(after).spec.storage_class_name == "fast"


@pytest.mark.parametrize(("before", "after"), [
    (claim(storageClassName="fast"), claim(storageClassName="slow")),
    (claim(storageClassName=""), claim(storageClassName="fast")),
    (claim({BETA: "fast"}), claim({BETA: "fast"}, storageClassName="slow")),
    (claim(), claim(accessModes=["ReadWriteMany"])),
    (claim(), claim(resources={"requests": {"storage": "2Gi"}})),
], ids=["change class", "empty class to class", "annotation to another class", "access modes",
        "unbound claim grows"])
def test_other_spec_changes_are_forbidden(before: PersistentVolumeClaim,
                                          after: PersistentVolumeClaim) -> None:
    srv, after = updated(before, after)
    causes = rejected(srv.update, after)
    assert ("spec", "FieldValueForbidden") in [(c[0], c[1]) for c in causes], causes
    assert any("spec is immutable after creation except resources.requests and volumeAttributesClassName "
               "for bound claims" in c[2] for c in causes), causes


def test_beta_annotation_is_immutable() -> None:
    srv, after = updated(claim({BETA: "fast"}), claim({BETA: "slow"}))
    causes = rejected(srv.update, after)
    assert [(c[0], c[1]) for c in causes] == [(f"metadata.annotations.{BETA}", "FieldValueInvalid")], causes
