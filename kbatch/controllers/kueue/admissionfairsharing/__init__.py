"""Admission fair sharing (KEP-4136): LocalQueues of a ClusterQueue ordered by their decayed usage.

Upstream: kubernetes-sigs/kueue ``keps/4136-admission-fair-sharing``, ``pkg/util/admissionfairsharing``,
``pkg/cache/queue/afs`` (v0.19.2). On when the ``AdmissionFairSharing`` gate is (beta, on by default)
*and* the Configuration has ``admissionFairSharing``; it then applies to the ClusterQueues whose
``admissionScope.admissionMode`` is ``UsageBasedAdmissionFairSharing``. :mod:`.arithmetic` holds the
Go-faithful amounts and floats, :mod:`.ledger` the per-LocalQueue usage and entry penalties.
"""

from __future__ import annotations

from collections.abc import Mapping

from kbatch.api.kueue_config import AdmissionFairSharingConfig
from kbatch.api.quantity import Quantity
from kbatch.controllers.kueue.admissionfairsharing.arithmetic import approximate_float, from_quantity
from kbatch.controllers.kueue.admissionfairsharing.ledger import LedgerEntry, UsageLedger

__all__ = ["USAGE_BASED", "LedgerEntry", "UsageLedger", "lq_weight", "resource_weights"]

USAGE_BASED = "UsageBasedAdmissionFairSharing"


def resource_weights(
    admission_mode: str | None, config: AdmissionFairSharingConfig | None
) -> Mapping[str, float] | None:
    """``ResourceWeights``: the weights when the ClusterQueue orders by usage, else ``None``.
    ``config`` is ``None`` when admission fair sharing is off (``afs.Enabled``)."""
    if config is None or admission_mode != USAGE_BASED:
        return None
    return config.resource_weights


def lq_weight(weight: Quantity | None) -> float:
    """``LQWeightAsFloat64``: ``spec.fairSharing.weight`` as ``AsApproximateFloat64`` gives it, 1
    when unset (or the LocalQueue is gone: ``ResolveLQWeight``)."""
    return 1.0 if weight is None else approximate_float(from_quantity(weight))
