"""Properties of ``find_matching_volume`` (upstream ``FindMatchingVolume``,
``k8s.io/component-helpers/storage/volume/pv_helpers.go``, on the scheduler's path: a node's
labels given): whatever the volumes, the answer is eligible for the claim on the node, a volume
pre-bound to the claim that reaches the node wins, and otherwise no eligible volume is strictly
smaller."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import PersistentVolumeClaim
from kbatch.api.core_v1.persistent_volume import PersistentVolume
from kbatch.api.pv_helpers import (
    check_node_affinity,
    claim_class,
    find_matching_volume,
    is_volume_bound_to_claim,
    volume_class,
)
from kbatch.api.quantity import Quantity

LABELS = {"zone": "a"}


def claim() -> PersistentVolumeClaim:
    return PersistentVolumeClaim.model_validate({
        "metadata": {"name": "c", "namespace": "ns", "uid": "u1"},
        "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
                 "resources": {"requests": {"storage": "2Gi"}}}})


@st.composite
def volumes(draw: Any) -> list[PersistentVolume]:
    out = []
    for i in range(draw(st.integers(0, 6))):
        spec: dict[str, Any] = {
            "capacity": {"storage": f"{draw(st.integers(1, 5))}Gi"},
            "accessModes": [draw(st.sampled_from(["ReadWriteOnce", "ReadOnlyMany"]))],
            "storageClassName": draw(st.sampled_from(["fast", "slow"])),
            "hostPath": {"path": f"/{i}"}}
        if draw(st.booleans()):
            spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "zone", "operator": "In", "values": [draw(st.sampled_from(["a", "b"]))]}]}]}}
        ref = draw(st.sampled_from([None, "c", "other"]))
        if ref:
            spec["claimRef"] = {"namespace": "ns", "name": ref}
        out.append(PersistentVolume.model_validate({
            "metadata": {"name": f"pv-{i}"}, "spec": spec,
            "status": {"phase": draw(st.sampled_from(["Available", "Pending", "Bound"]))}}))
    return out


def _size(volume: PersistentVolume) -> Quantity:
    return volume.spec.capacity["storage"]


def _eligible(volume: PersistentVolume, pvc: PersistentVolumeClaim) -> bool:
    """Every condition an unclaimed volume must meet, restated."""
    return (volume.spec.claim_ref is None and volume.status.phase == "Available"
            and _size(volume).cmp(Quantity("2Gi")) >= 0 and volume_class(volume) == claim_class(pvc)
            and check_node_affinity(volume, LABELS) and "ReadWriteOnce" in volume.spec.access_modes)


@settings(max_examples=200, deadline=None)
@given(volumes())
def test_the_match_is_eligible_and_the_smallest(vols: list[PersistentVolume]) -> None:
    pvc = claim()
    found = find_matching_volume(pvc, vols, LABELS)
    prebound = [v for v in vols if is_volume_bound_to_claim(v, pvc) and _size(v).cmp(Quantity("2Gi")) >= 0]
    if prebound:  # the first pre-bound volume big enough decides: itself if it reaches the node
        first = prebound[0]
        assert found is (first if check_node_affinity(first, LABELS) else None)
        return
    eligible = [v for v in vols if _eligible(v, pvc)]
    if not eligible:
        assert found is None
        return
    assert found is not None and _eligible(found, pvc)
    assert all(_size(found).cmp(_size(v)) <= 0 for v in eligible)
