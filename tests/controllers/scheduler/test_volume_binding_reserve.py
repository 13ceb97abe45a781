"""The VolumeBinding plugin's Reserve (upstream ``volumebinding/binder.go`` ``AssumePodVolumes``):
each chosen volume is assumed as ``GetBindVolumeToClaim`` (k8s.io/component-helpers
``storage/volume/pv_helpers.go``) returns it."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from kbatch.api.core_v1 import PersistentVolumeClaim
from kbatch.api.core_v1.persistent_volume import PersistentVolume
from kbatch.api.storage_v1 import StorageClass
from kbatch.controllers.scheduler.plugins.volume_binding.plugin import VolumeBinding

BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"


def _plugin(claim_ref: dict[str, str] | None) -> VolumeBinding:
    plugin = VolumeBinding(SimpleNamespace(client=None, cache=None, clock=None, on_event=None))
    plugin.observe("StorageClass", None, StorageClass.model_validate({
        "metadata": {"name": "local"}, "provisioner": "kubernetes.io/no-provisioner",
        "volumeBindingMode": "WaitForFirstConsumer"}))
    plugin.observe("PersistentVolumeClaim", None, PersistentVolumeClaim.model_validate({
        "metadata": {"name": "data", "namespace": "default", "uid": "claim-uid", "resourceVersion": "3"},
        "spec": {"storageClassName": "local", "accessModes": ["ReadWriteOnce"],
                 "resources": {"requests": {"storage": "1Gi"}}}}))
    spec: dict[str, Any] = {"storageClassName": "local", "accessModes": ["ReadWriteOnce"],
                            "capacity": {"storage": "1Gi"}, "hostPath": {"path": "/d"}}
    if claim_ref is not None:
        spec["claimRef"] = claim_ref
    plugin.observe("PersistentVolume", None, PersistentVolume.model_validate({
        "metadata": {"name": "pv", "resourceVersion": "2"}, "spec": spec, "status": {"phase": "Available"}}))
    return plugin


@pytest.mark.parametrize(("claim_ref", "annotated"), [
    (None, True),  # the scheduler chose an unclaimed volume: the controller bound it
    ({"namespace": "default", "name": "data"}, False),  # a user pre-bound it: it stays the user's
])
def test_reserve_assumes_the_volume_as_get_bind_volume_to_claim_returns_it(
        claim_ref: dict[str, str] | None, annotated: bool) -> None:
    """``GetBindVolumeToClaim`` sets ``bound-by-controller`` only when the volume was not already
    bound to the claim (``IsVolumeBoundToClaim``: a claimRef without uid names it too). The plugin's
    own copy annotated a user's pre-bound volume as well, so the binder would later treat the
    binding as its own (``syncVolume`` unbinds such a volume when its claim goes, rather than
    leaving it pre-bound)."""
    plugin = _plugin(claim_ref)
    pod = SimpleNamespace(pvc_volumes=[("data", False)], namespace="default", name="user", uid="pod-uid")
    state: dict[str, Any] = {}
    assert plugin.pre_filter(state, pod, None) is None
    node = SimpleNamespace(name="node-0", shape=SimpleNamespace(labels={}))
    assert plugin.filter(state, pod, node) is None
    assert plugin.reserve(state, pod, "node-0") is None
    assumed = plugin.volumes.get("pv")
    assert assumed.spec.claim_ref.uid == "claim-uid"
    assert (BOUND_BY_CONTROLLER in (assumed.metadata.annotations or {})) is annotated
