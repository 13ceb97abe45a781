"""The kubelet's own status writes do not come back as reconciles; other writers' writes do."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.controllers.kubelet.controller import Kubelet
from kbatch.sim import add_pod_condition

from .cluster import get_pod, pod_yaml, sim_cluster


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    original = Kubelet.reconcile

    def counting(self: Kubelet, request: Any) -> Any:
        seen.append(request.name)
        return original(self, request)

    monkeypatch.setattr(Kubelet, "reconcile", counting)
    return seen


def test_own_writes_are_not_reconciled_again(calls: list[str]) -> None:
    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "sleep 30"))
    assert get_pod(cp, "p").status.phase == "Running"
    assert calls == ["p"], "bound -> one reconcile writes Running; its echo is dropped"
    cp.advance(30)
    assert get_pod(cp, "p").status.phase == "Succeeded"
    assert calls == ["p", "p"], "the timer writes Succeeded; its echo is dropped"


def test_another_writers_change_still_reaches_the_kubelet(calls: list[str]) -> None:
    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "sleep 30"))
    add_pod_condition(cp, "p", "ConfigIssue", reason="Test", message="m")
    cp.advance(30)
    pod = get_pod(cp, "p")
    assert pod.status.phase == "Succeeded"
    assert any(c.type == "ConfigIssue" for c in pod.status.conditions), "kept by the strategic merge"
