"""Upstream's DefaultStorageClass admission table, through kbatch's API server.

Source: kubernetes/kubernetes ``plugin/pkg/admission/storage/storageclass/setdefault/admission_test.go``
``TestAdmission`` (the copy with the newest-default rows, kubernetes#110559, 1.26+). Each row stores
its classes, then creates its claim and reads the class the claim was stored with. Translation notes:
upstream's classes carry creation times as written; here the API server stamps them, so a row that
needs two times advances the server's clock between the two creates (upstream: 1 ns apart, here 1 s).
Upstream names two non-default classes ``nondefault2``; the second is ``nondefault3`` here (two stored
objects cannot share a name). A claim without an access mode or size is not valid through an API
server, so every claim asks for ``ReadWriteOnce`` and 1Gi.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.core_v1 import PersistentVolumeClaim
from kbatch.api.storage_v1 import IS_DEFAULT_STORAGE_CLASS_ANNOTATION as DEFAULT
from kbatch.api.storage_v1 import StorageClass
from kbatch.apiserver import APIServer
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore


def sc(name: str, default: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if default is not None:
        meta["annotations"] = {DEFAULT: default}
    return {"metadata": meta, "provisioner": name}


DEFAULT1, DEFAULT2 = sc("default1", "true"), sc("default2", "true")
FALSE_DEFAULT, NO_DEFAULT = sc("nondefault1", "false"), sc("nondefault2")
EMPTY_DEFAULT = sc("nondefault3", "")
NON_DEFAULTS = [FALSE_DEFAULT, NO_DEFAULT, EMPTY_DEFAULT]
LATER = "later"  # a marker: advance the clock before the next class

ROWS: dict[str, tuple[list[Any], str | None, str | None]] = {
    "no default, no modification of PVCs": (NON_DEFAULTS, None, None),
    "one default, modify PVC with class=nil": ([DEFAULT1, *NON_DEFAULTS], None, "default1"),
    "one default, no modification of PVC with class=''": ([DEFAULT1, *NON_DEFAULTS], "", ""),
    "one default, no modification of PVC with class='foo'": ([DEFAULT1, *NON_DEFAULTS], "foo", "foo"),
    "two defaults, no modification of PVC with class=''": ([DEFAULT1, DEFAULT2, *NON_DEFAULTS], "", ""),
    "two defaults, no modification of PVC with class='foo'": (
        [DEFAULT1, DEFAULT2, *NON_DEFAULTS], "foo", "foo"),
    "two defaults with same creation time, choose the one with smaller name": (
        [DEFAULT2, DEFAULT1, *NON_DEFAULTS], None, "default1"),
    "two defaults, choose the one with newer creation time": (
        [DEFAULT2, LATER, DEFAULT1, *NON_DEFAULTS], None, "default1"),
}


@pytest.mark.parametrize(("classes", "asked", "expected"), ROWS.values(), ids=ROWS.keys())
def test_admission(classes: list[Any], asked: str | None, expected: str | None) -> None:
    clock = [datetime(2022, 1, 1, tzinfo=UTC)]
    srv = APIServer(MemoryStore(), builtin_registry(), now=lambda: clock[0], rng=random.Random(1))
    for item in classes:
        if item == LATER:
            clock[0] += timedelta(seconds=1)
        else:
            srv.create(StorageClass.model_validate(item))
    spec: dict[str, Any] = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    if asked is not None:
        spec["storageClassName"] = asked
    claim = srv.create(PersistentVolumeClaim.model_validate(
        {"metadata": {"name": "claim", "namespace": "default"}, "spec": spec}))
    assert claim.spec.storage_class_name == expected


def test_beta_annotation_counts_as_a_class() -> None:
    """PersistentVolumeClaimHasClass: the beta annotation alone means the user chose."""
    srv = APIServer(MemoryStore(), builtin_registry(), now=lambda: datetime(2022, 1, 1, tzinfo=UTC),
                    rng=random.Random(1))
    srv.create(StorageClass.model_validate(DEFAULT1))
    claim = srv.create(PersistentVolumeClaim.model_validate({
        "metadata": {"name": "claim", "namespace": "default",
                     "annotations": {"volume.beta.kubernetes.io/storage-class": "slow"}},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}))
    assert claim.spec.storage_class_name is None


def test_disabled_plugin_leaves_the_claim_alone() -> None:
    """--disable-admission-plugins=DefaultStorageClass, through a control plane."""
    cp = ControlPlane(controllers="", disable_admission_plugins="DefaultStorageClass")
    cp.apply([{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", **DEFAULT1},
              {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
               "metadata": {"name": "claim", "namespace": "default"},
               "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}])
    assert cp.server.get(PersistentVolumeClaim, "claim", "default").spec.storage_class_name is None
