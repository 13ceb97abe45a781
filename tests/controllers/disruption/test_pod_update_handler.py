"""What a pod update enqueues for the disruption controller: upstream's ``updatePod``
(kubernetes/kubernetes ``pkg/controller/disruption/disruption.go``, stored commit 003e8629) is a
client-go handler that reads only the new pod (``cur``): it looks up the new pod's PDB once, so a pod
matching several PDBs gets one ``MultiplePodDisruptionBudgets`` event per update, and the PDB a
relabelled pod leaves is not synced by that update (only at its own next event)."""

from __future__ import annotations

from typing import Any

from kbatch.api.core_v1 import Event, Pod
from kbatch.api.policy_v1 import PodDisruptionBudget
from kbatch.runtime.controlplane import ControlPlane
from kbatch.testing import make_pod


def _pdb(cp: ControlPlane, name: str, labels: dict[str, str]) -> None:
    cp.client.create(PodDisruptionBudget.model_validate(
        {"metadata": {"name": name, "namespace": "default"},
         "spec": {"minAvailable": 0, "selector": {"matchLabels": labels}}}))
    cp.run_until_idle()


def _multiple_pdb_events(cp: ControlPlane) -> int:
    events: list[Any] = cp.client.list(Event, "default").items
    return sum(e.count or 1 for e in events if e.reason == "MultiplePodDisruptionBudgets")


def _label(cp: ControlPlane, labels: dict[str, str]) -> None:
    cp.client.patch(Pod, "p", {"metadata": {"labels": labels}}, "default")
    cp.run_until_idle()


def test_an_update_of_a_pod_matching_two_pdbs_records_one_event() -> None:
    cp = ControlPlane(seed=0, controllers="disruption")
    _pdb(cp, "a", {"foo": "bar"})
    _pdb(cp, "b", {"foo": "bar"})
    cp.client.create(make_pod("p").label("foo", "bar").obj())
    cp.run_until_idle()
    before = _multiple_pdb_events(cp)
    assert before >= 1  # addPod looked the pod up once
    _label(cp, {"foo": "bar", "x": "1"})
    assert _multiple_pdb_events(cp) == before + 1


def test_the_pdb_a_relabelled_pod_leaves_is_not_synced_by_that_update() -> None:
    cp = ControlPlane(seed=0, controllers="disruption")
    _pdb(cp, "a", {"foo": "bar"})
    cp.client.create(make_pod("p").label("foo", "bar").obj())
    cp.run_until_idle()
    assert cp.client.get(PodDisruptionBudget, "a", "default").status.expected_pods == 1
    _label(cp, {"foo": "baz"})  # the new pod matches no PDB: nothing is enqueued
    assert cp.client.get(PodDisruptionBudget, "a", "default").status.expected_pods == 1
    cp.client.patch(PodDisruptionBudget, "a", {"metadata": {"labels": {"touch": "1"}}}, "default")
    cp.run_until_idle()  # the PDB's own event syncs it
    assert cp.client.get(PodDisruptionBudget, "a", "default").status.expected_pods == 0
