"""Upstream's exclusive-placement pod controller table (``TestValidatePodPlacements``).

Source: kubernetes-sigs/jobset v0.12.0 ``pkg/controllers/pod_controller_test.go`` and
``pod_controller.go`` (``Reconcile``, ``validatePodPlacements``, ``leaderPodTopology``). The leader
and follower pods are created through the API (without the ``jobset-name`` label, as upstream's
``makePod`` leaves it, so the pod webhooks' objectSelector passes them by) and the ``jobset-pod``
reconciler of a control plane is run on the leader: an invalid placement is its error (upstream:
``validatePodPlacements``' error, retried with back-off). "get node error" (an injected client
error) does not translate; ``TestDeleteFollowerPods`` and ``TestListPodsForJob`` test helpers kbatch
folds into the reconcile, and the deletion they test is unreachable in v0.12.0 (docs/jobset.md).
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api import jobset_constants as c
from kbatch.api.core_v1 import Node, Pod
from kbatch.controllers.jobset.placement import PlacementError, PlacementReconciler
from kbatch.runtime.reconcile import Request

KEY = "test-node-topologyKey"
LEADER, FOLLOWER = "test-jobset-replicated-job-1-test-job-0-0", "test-jobset-replicated-job-1-test-job-0-1"


def _pod(name: str, index: str, node: str | None = None, selector: dict[str, str] | None = None) -> Pod:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "i"}]}
    if node:
        spec["nodeName"] = node
    if selector is not None:
        spec["nodeSelector"] = selector
    return Pod.model_validate({"metadata": {
        "name": name, "namespace": "default", "labels": {c.JOB_KEY: "job-key-0"},
        "annotations": {c.EXCLUSIVE_KEY: KEY, "batch.kubernetes.io/job-completion-index": index},
        "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "job-uid",
                             "controller": True}]}, "spec": spec})


@pytest.mark.parametrize(("case", "node_labels", "selector", "error"), [
    ("topology node label not found", {}, {KEY: "topologyDomain"},
     f"node does not have topology label: {KEY}"),
    ("valid pod placements", {KEY: "topologyDomain"}, {KEY: "topologyDomain"}, None),
    ("follower pod nodeSelector is nil", {KEY: "topologyDomain"}, None,
     f"pod {FOLLOWER} nodeSelector is nil"),
    ("follower pod nodeSelector is empty", {KEY: "topologyDomain"}, {},
     f"pod {FOLLOWER} nodeSelector is missing key: {KEY}"),
    ("followerTopology != leaderTopology", {KEY: "topologyDomain"}, {KEY: "topologyDomain1"},
     'follower topology "topologyDomain1" != leader topology "topologyDomain"'),
])
def test_validate_pod_placements(case: str, node_labels: dict[str, str], selector: dict[str, str] | None,
                                 error: str | None) -> None:
    cp = ControlPlane(seed=1, controllers="jobset")
    cp.client.create(Node.model_validate({"metadata": {"name": "test-node", "labels": node_labels}}))
    cp.client.create(_pod(LEADER, "0", node="test-node"))
    cp.client.create(_pod(FOLLOWER, "1", selector=selector))
    cp.run_until_idle()
    reconciler = PlacementReconciler(cp.context("jobset-pod"))
    if error is None:
        reconciler.reconcile(Request("default", LEADER))
        return
    with pytest.raises(PlacementError) as info:
        reconciler.reconcile(Request("default", LEADER))
    assert str(info.value) == error, case
