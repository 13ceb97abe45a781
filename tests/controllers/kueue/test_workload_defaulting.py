"""``mworkload.kb.io`` (kueue pkg/webhooks/workload_webhook.go): on create, a Workload's pod sets lose
``minCount`` unless PartialAdmission is on; the webhook is registered for ``verbs=create`` only, so
an update that sets ``minCount`` keeps it."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api import edit
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.runtime.controlplane import ControlPlane


def _workload(min_count: int | None) -> Workload:
    pod_set: dict[str, Any] = {
        "name": "main",
        "count": 4,
        "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}},
    }
    if min_count is not None:
        pod_set["minCount"] = min_count
    return Workload.model_validate(
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "Workload",
            "metadata": {"name": "w", "namespace": "default"},
            "spec": {"queueName": "nowhere", "podSets": [pod_set]},
        }
    )


@pytest.mark.parametrize(("gate", "kept"), [("true", 2), ("false", None)])
def test_create_keeps_min_count_only_with_partial_admission(gate: str, kept: int | None) -> None:
    cp = ControlPlane(feature_gates=f"PartialAdmission={gate}")
    created = cp.client.create(_workload(2))
    assert created.spec.pod_sets[0].min_count == kept


def test_an_update_is_not_defaulted() -> None:
    cp = ControlPlane(feature_gates="PartialAdmission=false")
    created = cp.client.create(_workload(None))
    changed = edit(created)
    changed.spec.pod_sets[0].min_count = 3
    assert cp.client.update(changed).spec.pod_sets[0].min_count == 3
