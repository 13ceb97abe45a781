"""``reconcileNodeLabels`` (kubernetes/kubernetes
``pkg/controller/nodelifecycle/node_lifecycle_controller.go``, stored commit 003e8629): the beta OS and
arch labels follow the stable ones on every node add and update (upstream's table is translated in
test_upstream_node_lifecycle_controller.py)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.core_v1 import Node
from kbatch.controllers.nodelifecycle.labels import RECONCILED_LABELS, labels_to_reconcile
from kbatch.runtime.controlplane import ControlPlane

OS, ARCH, BETA_OS, BETA_ARCH = "kubernetes.io/os", "kubernetes.io/arch", "beta.kubernetes.io/os", \
    "beta.kubernetes.io/arch"


def _labels_after(labels: dict[str, str] | None, then: dict[str, Any] | None = None) -> dict[str, str]:
    cp = ControlPlane(controllers="node-lifecycle")
    cp.client.create(Node.model_validate({"metadata": {"name": "n", "labels": labels}}))
    cp.run_until_idle()
    if then is not None:
        cp.client.patch(Node, "n", {"metadata": {"labels": then}})
        cp.run_until_idle()
    return dict(cp.client.get(Node, "n").metadata.labels or {})


def test_an_update_of_the_stable_label_moves_the_beta_one() -> None:
    assert _labels_after({ARCH: "amd64"}, then={ARCH: "arm64"}) == {ARCH: "arm64", BETA_ARCH: "arm64"}


keys = st.sampled_from([OS, ARCH, BETA_OS, BETA_ARCH, "other"])


@given(labels=st.dictionaries(keys, st.sampled_from(["linux", "windows", "amd64"])))
def test_reconciling_once_leaves_nothing_and_touches_only_beta_labels(labels: dict[str, str]) -> None:
    """Property: applying the answer leaves nothing to reconcile; only beta keys whose stable key is
    present are written."""
    wanted = labels_to_reconcile(labels)
    assert labels_to_reconcile({**labels, **wanted}) == {}
    assert all(any(b == k and p in labels for p, b in RECONCILED_LABELS) for k in wanted)
