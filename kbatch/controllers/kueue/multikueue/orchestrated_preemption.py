"""MultiKueue's orchestrated preemption: which worker's copy may preempt next.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/workload.go``
(``workloadToOpenPreemptionGate``, ``singleClusterPreemptionTimeout``, step 7 of ``reconcileGroup``,
``cloneForCreate``), KEP ``keps/8303-multikueue-orchestrated-preemption``; gate
``MultiKueueOrchestratedPreemption`` (alpha, off).

With the gate on, every copy the manager dispatches carries only the closed
``kueue.x-k8s.io/multikueue`` preemption gate, so no worker preempts on its own. A worker whose
scheduler would have to preempt marks its copy ``BlockedOnPreemptionGates=True``; the manager opens
the gate of the copy that signalled first, and opens another only once
:data:`SINGLE_CLUSTER_PREEMPTION_TIMEOUT` has passed since the last gate it opened (the preemption
there did not lead to an admission). Ties between equal signal times go to the first worker by name
(upstream's map order is random).
"""

from __future__ import annotations

from datetime import datetime

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue import preemption_gates as gates

__all__ = ["SINGLE_CLUSTER_PREEMPTION_TIMEOUT", "gate_to_open"]

SINGLE_CLUSTER_PREEMPTION_TIMEOUT = 5 * 60.0  # seconds (``singleClusterPreemptionTimeout``)


def gate_to_open(remotes: dict[str, Workload | None], now: datetime) -> tuple[str | None, float]:
    """``workloadToOpenPreemptionGate``: the worker whose copy's gate to open now (or ``None``) and
    when to look again (seconds; 0: nothing to wait for)."""
    last_opened: datetime | None = None
    candidate: str | None = None
    oldest: datetime | None = None
    for cluster in sorted(remotes):
        wl = remotes[cluster]
        if wl is None:
            continue
        state = gates.find_state(wl.status, gates.MULTIKUEUE_GATE)
        if state is not None and state.position == gates.OPEN:
            opened = state.last_transition_time
            if opened is not None and (last_opened is None or opened > last_opened):
                last_opened = opened
            continue
        signal = gates.blocked_condition(wl.status)
        if signal is None or signal.last_transition_time is None:
            continue
        if oldest is None or signal.last_transition_time < oldest:
            candidate, oldest = cluster, signal.last_transition_time
    if candidate is None:
        return None, 0.0
    if last_opened is not None:
        left = SINGLE_CLUSTER_PREEMPTION_TIMEOUT - (now - last_opened).total_seconds()
        if left > 0:
            return None, left
    return candidate, SINGLE_CLUSTER_PREEMPTION_TIMEOUT
