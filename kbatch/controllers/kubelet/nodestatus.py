"""The kubelet's node status updates, pure: what the kubelet would post for its node, and when.

Upstream ``pkg/kubelet/kubelet_node_status.go`` (``syncNodeStatus`` → ``updateNodeStatus`` →
``tryUpdateNodeStatus``, ``nodeStatusHasChanged``), ``pkg/kubelet/nodestatus/setters.go`` and KEP-589
("Efficient node heartbeats"):

* every ``nodeStatusUpdateFrequency`` (KubeletConfiguration, 10 s) the kubelet computes its node's
  status; it PATCHes it only when the status *changed* (conditions compared without their
  ``lastHeartbeatTime``) or when ``nodeStatusReportFrequency`` (5 min) has passed since the last
  report. The Lease (:mod:`.heartbeat`) is the frequent heartbeat; this report is the slow one;
* when the report frequency is not set but the update frequency is, the report frequency defaults
  to the update frequency (the KubeletConfiguration defaulting kept for backwards compatibility);
* every posted status refreshes each of the kubelet's conditions' ``lastHeartbeatTime``; a
  condition's ``lastTransitionTime`` moves only when its status changes;
* after a post caused by a change, or the first one after the kubelet (re)started, the next
  periodic report comes a one-time random ``delayAfterNodeStatusChange`` later, uniform in
  ``[-0.5, 0.5] * nodeStatusReportFrequency`` (``pkg/kubelet/kubelet.go``; it spreads the reports
  of nodes that changed together); a periodic report resets that delay to 0;
* a condition status change is an event on the node, ``Normal`` ``NodeReady`` /
  ``NodeHasSufficientMemory`` / … "Node N status is now: NodeReady" (``recordNodeStatusEvent``).

What the simulated kubelet computes (kbatch has no eviction manager or container runtime to ask):
its conditions (``Ready``, ``MemoryPressure``, ``DiskPressure``, ``PIDPressure``) are the ones the
node carries — a fault-injected ``Ready=False`` (:func:`kbatch.sim.mark_node_not_ready`) is the
kubelet's own report and stays — except that a condition the node lifecycle controller wrote
(reasons ``NodeStatusUnknown`` / ``NodeStatusNeverUpdated``: "Kubelet stopped posting node status")
is not the kubelet's view: a running kubelet posts its healthy condition at its next update. A
(re)started kubelet posts every one of its conditions healthy (and ``Ready`` even if missing). The
conditions a node was created without are not added (the node templates carry all four, and
``NetworkUnavailable``, which is not the kubelet's and is left alone). The node's order of its
conditions does not matter: the views are compared as sets.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kbatch.sim.node_conditions import HEALTHY, View  # the healthy conditions' table (re-exported)

__all__ = [
    "HEALTHY",
    "NODE_STATUS_REPORT_FREQUENCY",
    "NODE_STATUS_UPDATE_FREQUENCY",
    "Reporting",
    "View",
    "frequencies",
    "kubelet_view",
    "report_due",
    "status_items",
    "transition_event",
]

NODE_STATUS_UPDATE_FREQUENCY = 10.0  # KubeletConfiguration nodeStatusUpdateFrequency
NODE_STATUS_REPORT_FREQUENCY = 300.0  # KubeletConfiguration nodeStatusReportFrequency
EPSILON = 1e-6  # virtual-time slack when comparing a timer's instant with a due time

CONTROLLER_REASONS = frozenset({"NodeStatusUnknown", "NodeStatusNeverUpdated"})  # node lifecycle's
_EVENTS = {  # (type, new status) -> recordNodeStatusEvent's event (setters.go)
    ("Ready", "True"): "NodeReady", ("Ready", "False"): "NodeNotReady",
    ("MemoryPressure", "False"): "NodeHasSufficientMemory",
    ("MemoryPressure", "True"): "NodeHasInsufficientMemory",
    ("DiskPressure", "False"): "NodeHasNoDiskPressure", ("DiskPressure", "True"): "NodeHasDiskPressure",
    ("PIDPressure", "False"): "NodeHasSufficientPID", ("PIDPressure", "True"): "NodeHasInsufficientPID",
}


@dataclass(slots=True)
class Reporting:
    """One node's report clock: the next status computation, ``lastStatusReportTime`` and
    ``delayAfterNodeStatusChange``."""

    next_sync: float
    last_report: float
    delay: float = 0.0


def frequencies(options: Mapping[str, Any]) -> tuple[float, float]:
    """(update, report) frequencies from the kubelet options, with upstream's defaulting."""
    update = float(options.get("node_status_update_frequency", NODE_STATUS_UPDATE_FREQUENCY))
    default_report = update if "node_status_update_frequency" in options else NODE_STATUS_REPORT_FREQUENCY
    report = float(options.get("node_status_report_frequency", default_report))
    if update <= 0 or report <= 0:
        raise ValueError("node_status_update_frequency and node_status_report_frequency must be positive")
    return update, report


def kubelet_view(current: Sequence[View], restarted: bool = False) -> list[View]:
    """The kubelet's conditions, given the node's (its own types only, in ``HEALTHY`` order)."""
    have = {v[0]: v for v in current}
    if restarted:
        return [healthy for type_, healthy in HEALTHY.items() if type_ == "Ready" or type_ in have]
    return [HEALTHY[type_] if have[type_][2] in CONTROLLER_REASONS else have[type_]
            for type_ in HEALTHY if type_ in have]


def report_due(reporting: Reporting, now: float, frequency: float) -> bool:
    """Whether ``nodeStatusReportFrequency`` (plus the one-time delay) has passed since the last
    report."""
    return now - reporting.last_report >= frequency + reporting.delay - EPSILON


def status_items(current: Iterable[View], view: Sequence[View], stamp: str) -> list[dict[str, Any]]:
    """Strategic-merge items (merge key ``type``) from the node's conditions to the kubelet's:
    each refreshes ``lastHeartbeatTime``; a changed status, reason or message is sent with it, and
    ``lastTransitionTime`` too when the status changed (the two-way patch ``PatchNodeStatus``
    sends)."""
    have = {v[0]: v for v in current}
    items = []
    for type_, status, reason, message in view:
        item: dict[str, Any] = {"type": type_, "lastHeartbeatTime": stamp}
        old = have.get(type_)
        if old is None or old[1:] != (status, reason, message):
            item.update(status=status, reason=reason, message=message)
        if old is None or old[1] != status:
            item["lastTransitionTime"] = stamp
        items.append(item)
    return items


def transition_event(old_status: str | None, view: View) -> str | None:
    """The node event for a condition whose status changes to ``view``'s (None: no change)."""
    if old_status == view[1]:
        return None
    return _EVENTS.get((view[0], view[1]))
