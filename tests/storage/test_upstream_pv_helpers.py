"""Upstream's tables for the storage helpers the binder and the scheduler share, translated.

Upstream: ``k8s.io/component-helpers`` at 1961876 (2026-07, Kubernetes 1.37),
``storage/volume/pv_helpers_test.go`` (``TestFindMatchVolumeWithNode``, ``TestDelayBindingMode``) and
``storage/volume/helpers_test.go`` (``TestCheckVolumeNodeAffinity``), against
:mod:`kbatch.api.pv_helpers`. Cases that do not translate: the ``[VolumeAttributesClass: false]``
variants (``fail-on-error``, ``fail-volumes-vac``) — kbatch has the GA feature always on; and
``TestDelayBindingMode``'s ``no-mode-class`` (an error for a class without ``volumeBindingMode``),
which the API server's defaulting makes unreachable."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kbatch.api.core_v1 import PersistentVolumeClaim
from kbatch.api.core_v1.persistent_volume import PersistentVolume
from kbatch.api.pv_helpers import check_node_affinity, find_matching_volume, is_delay_binding_mode
from kbatch.api.storage_v1 import StorageClass

Mod = Callable[[dict[str, Any]], None] | None


def aff(key: str, value: str) -> dict[str, Any]:
    """``makeNodeAffinity``."""
    return {"required": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": key, "operator": "In", "values": [value]}]}]}}


def pv(uid: str, name: str, capacity: str, available: bool, **spec: Any) -> PersistentVolume:
    """``makeTestVolume``: RWO+ROX, Filesystem, the uid is what the table names."""
    body: dict[str, Any] = {"capacity": {"storage": capacity},
                            "accessModes": ["ReadWriteOnce", "ReadOnlyMany"], "volumeMode": "Filesystem",
                            "local": {"path": "/x"}, **spec}
    status = {"phase": "Available"} if available else {}
    return PersistentVolume.model_validate({"metadata": {"name": name, "uid": uid}, "spec": body,
                                            "status": status})


def pvc(name: str, size: str, modes: list[str], vac: str | None = None) -> PersistentVolumeClaim:
    """``makeTestPersistentVolumeClaim``: class ``wait``, Filesystem, namespace ``myns``."""
    spec: dict[str, Any] = {"accessModes": modes, "resources": {"requests": {"storage": size}},
                            "storageClassName": "wait", "volumeMode": "Filesystem"}
    if vac is not None:
        spec["volumeAttributesClassName"] = vac
    meta = {"name": name, "namespace": "myns"}
    return PersistentVolumeClaim.model_validate({"metadata": meta, "spec": spec})


def volumes(vac: str | None = None) -> list[PersistentVolume]:
    """``TestFindMatchVolumeWithNode``'s volumes (``volumesWithVAC`` when ``vac`` is given)."""
    extra = {"volumeAttributesClassName": vac} if vac else {}
    wait = {"storageClassName": "wait", **extra}
    return [
        pv("local-small", "local001", "5G", True, **extra),
        pv("local-pd-very-large", "local002", "200E", True, storageClassName="large", **extra),
        pv("affinity-pv", "affinity001", "100G", True, nodeAffinity=aff("key1", "value1"), **wait),
        pv("affinity-pv2", "affinity002", "150G", True, nodeAffinity=aff("key1", "value1"), **wait),
        pv("affinity-prebound", "affinity003", "100G", True, nodeAffinity=aff("key1", "value1"),
                    claimRef={"name": "claim02", "namespace": "myns"}, **wait),
        pv("affinity-pv3", "affinity003", "200G", True, nodeAffinity=aff("key1", "value3"), **wait),
        pv("affinity-pv4", "affinity004", "200G", False, nodeAffinity=aff("key1", "value4"), **wait),
    ]


RWO, RWX = ["ReadWriteOnce"], ["ReadWriteMany"]
V0, V1, V2, V3, V4 = (f"test-value{i}" for i in range(5))
NODE = {n: {"key1": f"value{n}"} for n in (1, 2, 3, 4)}

# name: (claim, node, excluded, volumes' VAC, expected uid or "")
FIND_CASES: dict[str, tuple[PersistentVolumeClaim, int, tuple[str, ...], str | None, str]] = {
    "success-match": (pvc("claim01", "100G", RWO), 1, (), None, "affinity-pv"),
    "success-prebound": (pvc("claim02", "100G", RWO), 1, (), None, "affinity-prebound"),
    "success-exclusion": (pvc("claim01", "100G", RWO), 1, ("affinity001",), None, "affinity-pv2"),
    "fail-exclusion": (pvc("claim01", "100G", RWO), 1,
                       ("affinity001", "affinity002", "affinity002-vac"), None, ""),
    "fail-accessmode": (pvc("claim01", "100G", RWX), 1, (), None, ""),
    "fail-nodeaffinity": (pvc("claim01", "100G", RWO), 2, (), None, ""),
    "fail-prebound-node-affinity": (pvc("claim02", "100G", RWO), 3, (), None, ""),
    "fail-nonavaliable": (pvc("claim04", "100G", RWO), 4, (), None, ""),
    "success-bad-and-good-node-affinity": (pvc("claim03", "100G", RWO), 3, (), None, "affinity-pv3"),
    "success-match-with-vac": (pvc("claim01", "100G", RWO, vac="gold"), 1, (), "gold", "affinity-pv"),
    "fail-vac": (pvc("claim01", "100G", RWO, vac="silver"), 1, (), None, ""),
    "fail-prebound-vac": (pvc("claim02", "100G", RWO, vac="silver"), 1, (), "gold", ""),
}


@pytest.mark.parametrize("case", sorted(FIND_CASES))
def test_find_match_volume_with_node(case: str) -> None:
    """pv_helpers_test.go ``TestFindMatchVolumeWithNode`` (``[VolumeAttributesClass: true]``): the
    scheduler's path, a node and ``delayBinding`` true."""
    claim, node, excluded, vac, expected = FIND_CASES[case]
    found = find_matching_volume(claim, volumes(vac), NODE[node], excluded, delay_binding=True)
    assert (found.metadata.uid if found is not None else "") == expected


def test_find_match_volume_without_node_delay_binding_takes_prebound_volumes_only() -> None:
    """The binder's path of the same function (``node == nil && delayBinding``, pv_helpers.go): the
    pre-bound volume still matches, an unbound one never does, and node affinity is not looked at."""
    assert find_matching_volume(pvc("claim02", "100G", RWO), volumes(), None, (), True).metadata.uid \
        == "affinity-prebound"
    assert find_matching_volume(pvc("claim01", "100G", RWO), volumes(), None, (), True) is None
    found = find_matching_volume(pvc("claim01", "100G", RWO), volumes(), None, (), False)
    assert found is not None and found.metadata.uid == "affinity-pv"


def _terms(*terms: dict[str, Any]) -> dict[str, Any]:
    return {"required": {"nodeSelectorTerms": list(terms)}}


def _in(key: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": "In", "values": list(values)}


NODE_LABELS = {"test-key1": V1, "test-key2": V2}
AFFINITY_CASES: dict[str, tuple[dict[str, Any] | None, bool]] = {
    "valid-nil": (None, True),
    "valid-no-constraints": ({}, True),
    "select-nothing": ({"required": {}}, False),
    "select-nothing-empty-terms": (_terms({"matchExpressions": []}), False),
    "valid-multiple-terms": (_terms({"matchExpressions": [_in("test-key3", V1, V3)]},
                                    {"matchExpressions": [_in("test-key2", V0, V2)]}), True),
    "valid-multiple-match-expressions": (_terms({"matchExpressions": [
        _in("test-key1", V1, V3), _in("test-key2", V0, V2)]}), True),
    "invalid-multiple-match-expressions-key": (_terms({"matchExpressions": [
        _in("test-key1", V1, V3), _in("test-key3", V0, V2)]}), False),
    "invalid-multiple-match-expressions-values": (_terms({"matchExpressions": [
        _in("test-key1", V3, V4), _in("test-key2", V0, V2)]}), False),
    "invalid-multiple-terms": (_terms({"matchExpressions": [_in("test-key3", V1, V3)]},
                                      {"matchExpressions": [_in("test-key2", V0, V1)]}),
                               False),
}


@pytest.mark.parametrize("case", sorted(AFFINITY_CASES))
def test_check_volume_node_affinity(case: str) -> None:
    """helpers_test.go ``TestCheckVolumeNodeAffinity``."""
    node_affinity, fits = AFFINITY_CASES[case]
    spec: dict[str, Any] = {} if node_affinity is None else {"nodeAffinity": node_affinity}
    volume = PersistentVolume.model_validate({"metadata": {"name": "test-constraints"}, "spec": spec})
    assert check_node_affinity(volume, NODE_LABELS) is fits


@pytest.mark.parametrize(("case", "class_name", "delay"), [
    ("nil-class", None, False),
    ("class-not-found", "not-here", False),
    ("immediate-mode-class", "immediate-mode", False),
    ("wait-mode-class", "wait-mode", True),
])
def test_delay_binding_mode(case: str, class_name: str | None, delay: bool) -> None:
    """pv_helpers_test.go ``TestDelayBindingMode``."""
    classes = {name: StorageClass.model_validate({"metadata": {"name": name}, "provisioner": "p",
                                                  "volumeBindingMode": mode})
               for name, mode in (("immediate-mode", "Immediate"), ("wait-mode", "WaitForFirstConsumer"))}
    claim = PersistentVolumeClaim.model_validate({"metadata": {"name": "c", "namespace": "ns"},
                                                  "spec": {"storageClassName": class_name}})
    assert is_delay_binding_mode(claim, classes.get) is delay


@pytest.mark.parametrize(("case", "term", "fits"), [
    ("matchFields parsed, not matched", {"matchFields": [_in("metadata.name", "elsewhere")]}, True),
    ("matchFields beside expressions", {"matchExpressions": [_in("test-key1", V1)],
                                        "matchFields": [_in("metadata.name", "elsewhere")]}, True),
    ("matchFields operator not In/NotIn", {"matchFields": [{"key": "metadata.name", "operator": "Exists"}]},
     False),
    ("matchFields with two values", {"matchFields": [_in("metadata.name", "a", "b")]}, False),
    ("expression labels.NewRequirement refuses", {"matchExpressions": [
        {"key": "test-key1", "operator": "NotIn", "values": ["not a label value!"]}]}, False),
])
def test_check_node_affinity_reads_terms_as_nodeaffinity_does(case: str, term: dict[str, Any],
                                                                fits: bool) -> None:
    """``CheckNodeAffinity`` builds a node from the labels alone and asks
    ``nodeaffinity.LazyErrorNodeSelector.Match`` (component-helpers scheduling/corev1/nodeaffinity):
    a nameless node has no fields, so ``nodeSelectorTerm.match`` skips a term's ``matchFields``
    (parsed all the same: only ``In``/``NotIn`` with one value), and a term with an expression that
    does not parse never matches. The scheduler's own copy had matchFields never match (a volume
    pinned by ``metadata.name`` then fitted no node) and matched expressions it could not parse."""
    spec = {"nodeAffinity": _terms(term)}
    volume = PersistentVolume.model_validate({"metadata": {"name": "v"}, "spec": spec})
    assert check_node_affinity(volume, NODE_LABELS) is fits
