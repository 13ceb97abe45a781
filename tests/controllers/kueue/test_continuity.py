"""A control plane running Kueue pickles mid-run (issue 15: every CLI command continues a saved image)
and the loaded copy continues exactly as the original does: same outcome, same trace digest."""

from __future__ import annotations

import pytest

from kbatch.api.batch_v1 import Job
from kbatch.runtime.image import load_image, save_image

from .helpers import World
from .test_jobs import _world, job

FAIR = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
        "fairSharing": {"preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]},
        "waitForPodsReady": {"timeout": "5m", "blockAdmission": True,
                             "requeuingStrategy": {"backoffBaseSeconds": 10}}}


def _mid_run(**kwargs) -> World:
    w = _world(nominal="2", preemption={"withinClusterQueue": "LowerPriority"}, **kwargs)
    w.apply({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass",
             "metadata": {"name": "urgent"}, "value": 1000})
    w.apply(job("low", seconds=40))
    w.cp.advance(5)
    w.apply(job("high", seconds=30, priority_class="urgent"), job("later", seconds=10))
    w.cp.advance(3)  # high admitted and running, low preempted and requeued, later waiting
    return w


@pytest.mark.parametrize("config", [None, FAIR], ids=["shipped", "fair-sharing+waitForPodsReady"])
def test_a_saved_kueue_control_plane_continues_as_the_original(tmp_path, config) -> None:
    original = _mid_run(**({"kueue_config": config} if config else {}))
    save_image(original.cp, tmp_path / "state.kbatch", {})
    loaded, _ = load_image(tmp_path / "state.kbatch")
    for cp in (original.cp, loaded):
        cp.advance(200)
    for name in ("low", "high", "later"):
        a = original.cp.client.get(Job, name, "default")
        b = loaded.client.get(Job, name, "default")
        assert a.status.succeeded == b.status.succeeded == 2
    assert loaded.trace.digest() == original.cp.trace.digest()
