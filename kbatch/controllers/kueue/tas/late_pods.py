"""The TAS node controller's late pods: the pods a node selector still sends to a node where they
cannot run, failed by Kueue so that their Job replaces them.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/tas/node_controller.go``
(``listPodsAssignedByNodeSelector``, ``groupPodsByWorkload``, ``getPodsToTerminate``,
``markPodsFailed``) and ``pkg/controller/tas/indexer/indexer.go`` (``indexPodNodeSelectorHostname``:
TAS pods by their ``kubernetes.io/hostname`` node selector). A pod is *sent to* a node when it is a
TAS pod (``utiltas.IsTAS``) whose node selector names the node at the hostname level; the ones to
terminate are those still waiting there: not bound (no ``spec.nodeName``), ``Pending``, and no
longer gated by ``kueue.x-k8s.io/topology`` (the TopologyUngater has placed them). Such a pod gets
``status.phase: Failed`` and the condition ``TerminatedByKueue`` (reason
``UnschedulableOnAssignedNode``, "Pod terminated by Kueue NodeController due to node taint": the
message upstream writes whatever the node's trouble), and a ``PodTerminatedByKueue`` event.

Which pods are terminated, and when, is the node controller's decision (:mod:`.node_failure`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from kbatch.api.core_v1 import Pod, PodCondition, PodStatus
from kbatch.api.errors import Conflict, NotFound
from kbatch.api.model_copy import copy_model
from kbatch.controllers.kueue.tas.request import TOPOLOGY_GATE, WORKLOAD_ANNOTATION, is_tas_pod
from kbatch.controllers.kueue.tas.snapshot import HOSTNAME

__all__ = [
    "CONDITION_MESSAGE",
    "CONDITION_REASON",
    "CONDITION_TYPE",
    "EVENT_REASON",
    "WorkloadKey",
    "hostname_selector",
    "late_workload_keys",
    "mark_failed",
    "pods_sent_to",
    "to_terminate",
]

CONDITION_TYPE = "TerminatedByKueue"  # podTerminatedByKueueConditionType
CONDITION_REASON = "UnschedulableOnAssignedNode"
CONDITION_MESSAGE = "Pod terminated by Kueue NodeController due to node taint"
EVENT_REASON = "PodTerminatedByKueue"

WorkloadKey = tuple[str, str]  # (namespace, name)


def hostname_selector(pod: Any) -> str | None:
    """The node a TAS pod's node selector names (``indexPodNodeSelectorHostname``)."""
    selector = pod.spec.node_selector if pod.spec else None
    if not selector or HOSTNAME not in selector or not is_tas_pod(pod):
        return None
    return str(selector[HOSTNAME])


def pods_sent_to(pods: Iterable[Pod], node: str) -> dict[WorkloadKey, list[Pod]]:
    """``listPodsAssignedByNodeSelector`` + ``groupPodsByWorkload``: the TAS pods whose node
    selector names ``node``, by the Workload their ``kueue.x-k8s.io/workload`` annotation names."""
    out: dict[WorkloadKey, list[Pod]] = {}
    for pod in pods:
        if hostname_selector(pod) != node:
            continue
        name = (pod.metadata.annotations or {}).get(WORKLOAD_ANNOTATION)
        if name is not None:
            out.setdefault((pod.metadata.namespace or "", name), []).append(pod)
    return out


def _waiting(pod: Pod) -> bool:
    gated = any(g.name == TOPOLOGY_GATE for g in pod.spec.scheduling_gates or ())
    phase = pod.status.phase if pod.status else None
    return not pod.spec.node_name and phase == "Pending" and not gated


def to_terminate(pods: Sequence[Pod]) -> list[Pod]:
    """``getPodsToTerminate``: the ungated pods still pending, unbound, on the node."""
    return [p for p in pods if _waiting(p)]


def _failed(pod: Pod, now: datetime) -> Pod:
    fresh = copy_model(pod)
    status = fresh.status or PodStatus()
    status.phase = "Failed"
    status.conditions = [
        *(status.conditions or ()),
        PodCondition(
            type=CONDITION_TYPE,
            status="True",
            reason=CONDITION_REASON,
            message=CONDITION_MESSAGE,
            last_transition_time=now,
        ),
    ]
    fresh.status = status
    return fresh


def mark_failed(client: Any, recorder: Any, pods: Sequence[Pod], now: datetime) -> None:
    """``markPodsFailed``: each pod ``Failed`` with the condition, and the event; a pod gone is
    skipped; a conflicting write is retried on the pod as it now is, unless it has stopped
    waiting meanwhile."""
    for pod in pods:
        current: Pod | None = pod
        for _ in range(3):
            if current is None or not _waiting(current):
                break
            try:
                written = client.update_status(_failed(current, now))
            except NotFound:
                break
            except Conflict:
                current = _reread(client, current)
                continue
            recorder.event(written, "Normal", EVENT_REASON, CONDITION_MESSAGE)
            break


def _reread(client: Any, pod: Pod) -> Pod | None:
    try:
        fresh: Pod = client.get(Pod, pod.metadata.name or "", pod.metadata.namespace)
    except NotFound:
        return None
    return fresh


def late_workload_keys(
    sent: Mapping[WorkloadKey, Sequence[Pod]], known: Iterable[WorkloadKey]
) -> list[WorkloadKey]:
    """The Workloads of pods sent to the node that are not among ``known`` (those whose
    assignment names the node), in key order."""
    have = set(known)
    return sorted(k for k in sent if k not in have)
