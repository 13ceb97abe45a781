"""Delayed topology requests: TAS behind a ProvisioningRequest check gets quota first, topology later.

Upstream: kubernetes-sigs/kueue v0.19.2

* ``pkg/scheduler/flavorassigner/tas_flavorassigner.go`` (``podSetTopologyRequest``): a pod set of
  a Workload without a quota reservation, whose TAS flavor a ProvisioningRequest check of the
  ClusterQueue covers (``ClusterQueueSnapshot.HasProvRequestAdmissionCheck``, from
  ``pkg/cache/scheduler/clusterqueue.go`` ``flavorsWithProvReqAdmissionCheck``: the flavors each
  such check's rule names, every flavor for a rule without flavors), is not searched: its
  assignment gets ``delayedTopologyRequest: Pending`` and no ``topologyAssignment``;
* ``pkg/workload/admissionchecks.go`` (``SyncAdmittedCondition``): such a Workload, its checks
  Ready, is not admitted: ``Admitted=False`` ``PendingDelayedTopologyRequests``, "There are pending
  delayed topology requests" (``workloads.sync_admitted``);
* ``pkg/workload/workload.go`` (``NeedsSecondPass``, ``needsSecondPassForDelayedAssignment``,
  ``HasTopologyAssignmentsPending``): with checks, all Ready, a pending pod set and not admitted, the
  Workload is queued for the scheduler's second pass (:mod:`.second_pass`'s back-off queue);
* the second pass (``scheduler.go``, ``flavorassigner.go`` keeping the admitted flavors,
  ``podSetTopologyRequest`` with a reservation): the pending pod sets are searched on the current
  nodes — those the autoscaler provisioned among them — with each Ready check's ``podSetUpdates``
  for the pod set merged into its node selector and tolerations (``tas_flavor_snapshot.go``
  ``findTopologyAssignment``: ``podset.FromUpdate``/``Merge``; a conflicting key fails the search
  "invalid podSetUpdate for PodSet P, error: invalid admission check PodSetUpdate: conflict for
  nodeSelector: conflict for key=k, value1=a, value2=b"); found, each gets its assignment and
  ``delayedTopologyRequest: Ready`` (``UpdateForTASResult``), and the Workload is admitted; not found,
  a ``SecondPassFailed`` warning and another try after the back-off (1 s doubling to 30 s).

With MultiKueue the topology is always found on the worker: a ClusterQueue with a MultiKueue check
(``ClusterQueueSnapshot.HasMultiKueueAdmissionCheck``, ``pkg/cache/scheduler/clusterqueue.go``: a
check of the queue that exists and whose controller is ``kueue.x-k8s.io/multikueue``) delays every
TAS pod set, first pass or not (:func:`has_multikueue_check`); the MultiKueue workload controller
marks the requests ``Ready`` once the admitting worker's copy has a topology
(``multikueue/delayed_topology.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kbatch.api.errors import NotFound
from kbatch.api.kueue_v1beta2 import Admission, AdmissionCheck, PodSet, Workload
from kbatch.api.kueue_v1beta2.constants import Cond
from kbatch.api.kueue_v1beta2.multikueue import CONTROLLER_NAME as MULTIKUEUE_CONTROLLER
from kbatch.api.kueue_v1beta2.provisioning import PROVISIONING_REQUEST_CONTROLLER
from kbatch.controllers.kueue import workloads as W
from kbatch.controllers.kueue.model.clusterqueue import CheckRules
from kbatch.controllers.kueue.workloads import DELAYED_PENDING, DELAYED_READY

__all__ = [
    "DELAYED_PENDING",
    "DELAYED_READY",
    "delays_topology",
    "has_multikueue_check",
    "needs_delayed_pass",
    "pending_pod_sets",
    "update_conflict",
    "updates_for",
]


def delays_topology(rules: CheckRules, every: Sequence[str], flavor: str, cache: Any) -> bool:
    """``HasProvRequestAdmissionCheck(flavor)``: a ProvisioningRequest check of the ClusterQueue
    (one that exists, read from the informer ``cache``) covers the TAS flavor."""
    for name, flavors in rules:
        if flavor not in (flavors or every):
            continue
        try:
            ac = cache.get(AdmissionCheck, name)
        except NotFound:  # a missing check is not counted (``updateWithAdmissionChecks``)
            continue
        if ac.spec is not None and ac.spec.controller_name == PROVISIONING_REQUEST_CONTROLLER:
            return True
    return False


def has_multikueue_check(rules: CheckRules, cache: Any) -> bool:
    """``HasMultiKueueAdmissionCheck``: one of the ClusterQueue's checks (that exists) is
    MultiKueue's."""
    for name, _ in rules:
        try:
            ac = cache.get(AdmissionCheck, name)
        except NotFound:
            continue
        if ac.spec is not None and ac.spec.controller_name == MULTIKUEUE_CONTROLLER:
            return True
    return False


def needs_delayed_pass(wl: Workload) -> bool:
    """``needsSecondPassForDelayedAssignment`` (the caller checked finished, evicted, quota)."""
    status = wl.status
    checks = status.admission_checks if status is not None else None
    return (
        bool(checks)
        and all(c.state == "Ready" for c in checks or ())
        and W.topology_assignments_pending(status)
        and not W.has(status, Cond.ADMITTED)
    )


def pending_pod_sets(admission: Admission) -> list[int]:
    """The indexes of the admission's pod sets waiting for their delayed topology."""
    return [
        i
        for i, psa in enumerate(admission.pod_set_assignments or ())
        if psa.topology_assignment is None and psa.delayed_topology_request == DELAYED_PENDING
    ]


def updates_for(wl: Workload, pod_set: str) -> list[Any]:
    """The Ready checks' ``podSetUpdates`` naming the pod set, in the checks' order."""
    out = []
    for check in (wl.status.admission_checks if wl.status else None) or ():
        if check.state == "Ready":
            out += [u for u in check.pod_set_updates or () if u.name == pod_set]
    return out


def _conflict(what: str, have: Mapping[str, str], new: Mapping[str, str]) -> str:
    for key, value in have.items():
        if key in new and new[key] != value:
            return (
                f"invalid admission check PodSetUpdate: conflict for {what}: "
                f"conflict for key={key}, value1={value}, value2={new[key]}"
            )
    return ""


def update_conflict(ps: PodSet, updates: Sequence[Any]) -> tuple[dict[str, str], list[Any], str]:
    """``podset.FromPodSet`` merged with each update (``PodSetInfo.Merge``): the node selector and
    tolerations the search filters nodes by, or the message of the first conflict."""
    template = ps.template
    meta = template.metadata if template is not None else None
    spec = template.spec if template is not None else None
    annotations = dict((meta.annotations if meta else None) or {})
    labels = dict((meta.labels if meta else None) or {})
    selector = dict((spec.node_selector if spec else None) or {})
    tolerations = list((spec.tolerations if spec else None) or ())
    for u in updates:
        for what, have, new in (
            ("annotations", annotations, u.annotations or {}),
            ("labels", labels, u.labels or {}),
            ("nodeSelector", selector, u.node_selector or {}),
        ):
            if message := _conflict(what, have, new):
                return selector, tolerations, f"invalid podSetUpdate for PodSet {ps.name}, error: {message}"
            have.update(new)
        tolerations += [t for t in u.tolerations or () if t not in tolerations]
    return selector, tolerations, ""
