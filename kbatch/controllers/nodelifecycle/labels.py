"""Beta node labels kept in step with the stable ones, pure (upstream
``pkg/controller/nodelifecycle/node_lifecycle_controller.go`` ``labelReconcileInfo`` and
``reconcileNodeLabels``, run on every node add and update; read in the stored controllerName-taking
version, where both entries still have ``ensureSecondaryExists``).

For ``kubernetes.io/os`` → ``beta.kubernetes.io/os`` and ``kubernetes.io/arch`` →
``beta.kubernetes.io/arch``: when the node has the stable (primary) label, the beta (secondary) one
is added if missing and overwritten if different; without the stable label nothing happens. The
controller writes the result as one labels patch (``AddOrUpdateLabelsOnNode``).
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["RECONCILED_LABELS", "labels_to_reconcile"]

RECONCILED_LABELS = (("kubernetes.io/os", "beta.kubernetes.io/os"),
                     ("kubernetes.io/arch", "beta.kubernetes.io/arch"))


def labels_to_reconcile(labels: Mapping[str, str] | None) -> dict[str, str]:
    """The beta labels to set on a node labelled ``labels`` (empty: nothing to do)."""
    out: dict[str, str] = {}
    for primary, secondary in RECONCILED_LABELS:
        value = (labels or {}).get(primary)
        if value is not None and (labels or {}).get(secondary) != value:
            out[secondary] = value
    return out
