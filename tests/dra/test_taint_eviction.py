"""The device-taint-eviction controller against upstream
``pkg/controller/devicetainteviction/device_taint_eviction.go``: the pod's DisruptionTarget condition
and the event it records when it evicts (``emitPodDeletionEvent``)."""

from __future__ import annotations

from kbatch.api.core_v1 import Event
from kbatch.api.resource_v1 import DeviceTaintRule

from .test_lifecycle import cluster, gpu_pod, pods


def test_eviction_records_upstreams_event() -> None:
    # emitPodDeletionEvent: Normal "DeviceTaintManagerEviction" "Marking for deletion"; the
    # condition: DisruptionTarget, DeletionByDeviceTaintManager
    cp = cluster(nodes=1, gpus=1)
    victim = gpu_pod("p0", seconds=1000)
    victim.spec.termination_grace_period_seconds = 30
    cp.client.create(victim)
    cp.advance(1)
    rule = {
        "metadata": {"name": "broken"},
        "spec": {"deviceSelector": {"device": "gpu-0"}, "taint": {"key": "broken", "effect": "NoExecute"}},
    }
    cp.client.create(DeviceTaintRule.model_validate(rule))
    cp.advance(1)
    pod = pods(cp)["p0"]
    condition = pod.status.condition("DisruptionTarget")
    assert (condition.status, condition.reason, condition.message) == (
        "True",
        "DeletionByDeviceTaintManager",
        "Device Taint manager: deleting due to NoExecute taint",
    )
    events = [
        (e.type, e.reason, e.message)
        for e in cp.client.list(Event, "default").items
        if e.involved_object.name == "p0" and "Taint" in (e.reason or "")
    ]
    assert events == [("Normal", "DeviceTaintManagerEviction", "Marking for deletion")]
