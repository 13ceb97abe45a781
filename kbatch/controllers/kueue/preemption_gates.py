"""A Workload's preemption gates: which are closed, and their positions in ``status``.

Upstream: kubernetes-sigs/kueue v0.19.2 ``apis/kueue/v1beta2/workload_types.go`` (``PreemptionGate``,
``PreemptionGateState``, ``WorkloadBlockedOnPreemptionGates``, reason ``PreemptionGated``),
``pkg/workload/workload.go`` (``HasClosedPreemptionGate``, ``SetPreemptionGatePosition``,
``FindPreemptionGate``, ``OpenPreemptionGate``, ``EnsurePreemptionGateOnSpec``,
``SetBlockedOnPreemptionGatesCondition``, ``BlockedOnPreemptionGatesCondition``),
``pkg/workload/evict/evict.go`` (``unsetBlockedOnPreemptionGatesCondition``,
``closeAllPreemptionGates``) and ``pkg/controller/core/workload_controller.go``
(``syncPreemptionGateStates``); KEP ``keps/8303-multikueue-orchestrated-preemption``.

A gate named in ``spec.preemptionGates`` is closed unless ``status.preemptionGates`` says it is
``Open``: a gate only in the spec counts as closed, so a workload can be created gated in one write.
A workload with a closed gate may be admitted where it fits, but may not preempt (the scheduler,
``scheduling.cycle``). Each function changes a private copy of the status and says whether anything
changed, as :mod:`.workloads` does.
"""

from __future__ import annotations

from datetime import datetime

from kbatch.api.kueue_v1beta2 import Workload, WorkloadStatus
from kbatch.api.kueue_v1beta2.constants import Cond
from kbatch.api.kueue_v1beta2.workload import PreemptionGate, PreemptionGateState
from kbatch.api.meta import Condition
from kbatch.controllers.kueue import workloads as W

__all__ = [
    "BLOCKED_ON_PREEMPTION_GATES",
    "CLOSED",
    "CONCURRENT_ADMISSION_GATE",
    "GATED_MESSAGE",
    "MULTIKUEUE_GATE",
    "OPEN",
    "PREEMPTION_GATED",
    "blocked_condition",
    "close_all",
    "find_state",
    "has_closed_gate",
    "is_open",
    "set_blocked",
    "set_position",
    "sync_states",
    "unset_blocked",
    "with_gate",
]

BLOCKED_ON_PREEMPTION_GATES = Cond.BLOCKED_ON_PREEMPTION_GATES  # condition type
PREEMPTION_GATED = "PreemptionGated"  # its reason (and the queue's requeue reason)
OPEN, CLOSED = "Open", "Closed"  # ``PreemptionGatePosition``
# ``pkg/controller/constants/constants.go``: the gates Kueue's own controllers manage
MULTIKUEUE_GATE = "kueue.x-k8s.io/multikueue"
CONCURRENT_ADMISSION_GATE = "kueue.x-k8s.io/concurrent-admission"
GATED_MESSAGE = "Workload requires preemption, but it's gated"  # ``processEntry``'s message


def _spec_names(wl: Workload) -> list[str]:
    return [g.name or "" for g in (wl.spec.preemption_gates if wl.spec else None) or ()]


def has_closed_gate(wl: Workload) -> bool:
    """``HasClosedPreemptionGate``: some gate of the spec is not recorded ``Open`` in the status."""
    positions = {s.name: s.position for s in (wl.status.preemption_gates if wl.status else None) or ()}
    return any(positions.get(name, CLOSED) == CLOSED for name in _spec_names(wl))


def find_state(status: WorkloadStatus | None, name: str) -> PreemptionGateState | None:
    """``FindPreemptionGate``."""
    for state in (status.preemption_gates if status else None) or ():
        if state.name == name:
            return state
    return None


def is_open(status: WorkloadStatus | None, name: str) -> bool:
    """``HasOpenPreemptionGate``."""
    state = find_state(status, name)
    return state is not None and state.position == OPEN


def set_position(wl: Workload, status: WorkloadStatus, name: str, position: str, now: datetime) -> bool:
    """``SetPreemptionGatePosition`` (``OpenPreemptionGate`` with ``OPEN``): only a gate of the spec;
    its state is added, or its position and transition time overwritten (as upstream, even when the
    position stays)."""
    if name not in _spec_names(wl):
        return False
    state = find_state(status, name)
    if state is None:
        status.preemption_gates = [
            *(status.preemption_gates or ()),
            PreemptionGateState(name=name, position=position, last_transition_time=now),
        ]
    else:
        state.position, state.last_transition_time = position, now
    return True


def with_gate(gates: list[PreemptionGate] | None, name: str) -> list[PreemptionGate]:
    """``EnsurePreemptionGateOnSpec``: ``gates`` with ``name`` appended when it is not there."""
    out = list(gates or ())
    if all(g.name != name for g in out):
        out.append(PreemptionGate(name=name))
    return out


def sync_states(wl: Workload, status: WorkloadStatus, now: datetime) -> bool:
    """``syncPreemptionGateStates``: states of gates no longer in the spec are dropped; a gate of
    the spec without a state gets one, ``Closed`` since ``now``, in spec order."""
    names = _spec_names(wl)
    kept = [s for s in status.preemption_gates or () if s.name in names]
    changed = len(kept) != len(status.preemption_gates or ())
    have = {s.name for s in kept}
    for name in names:
        if name not in have:
            kept.append(PreemptionGateState(name=name, position=CLOSED, last_transition_time=now))
            have.add(name)
            changed = True
    if changed:
        status.preemption_gates = kept or None
    return changed


def close_all(status: WorkloadStatus, now: datetime) -> bool:
    """``closeAllPreemptionGates`` (on eviction): every state ``Closed`` since ``now``."""
    for state in status.preemption_gates or ():
        state.position, state.last_transition_time = CLOSED, now
    return bool(status.preemption_gates)


def blocked_condition(status: WorkloadStatus | None) -> Condition | None:
    """``BlockedOnPreemptionGatesCondition``: the condition when it is ``True``."""
    cond = W.find(status, BLOCKED_ON_PREEMPTION_GATES)
    return cond if cond is not None and cond.status == "True" else None


def set_blocked(status: WorkloadStatus, message: str, generation: int | None, now: datetime) -> bool:
    """``SetBlockedOnPreemptionGatesCondition`` with reason ``PreemptionGated``."""
    return W.set_condition(
        status, BLOCKED_ON_PREEMPTION_GATES, True, PREEMPTION_GATED, W.truncate(message), generation, now
    )


def unset_blocked(
    status: WorkloadStatus, reason: str, message: str, generation: int | None, now: datetime
) -> bool:
    """``unsetBlockedOnPreemptionGatesCondition`` (on eviction): a ``True`` condition turns ``False``
    with the eviction's reason and message."""
    if blocked_condition(status) is None:
        return False
    return W.set_condition(
        status, BLOCKED_ON_PREEMPTION_GATES, False, reason, W.truncate(message), generation, now
    )
