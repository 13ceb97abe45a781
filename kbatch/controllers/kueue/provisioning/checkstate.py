"""A provisioning check's state on a Workload from its ProvisioningRequest. Pure.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/provisioning/controller.go``
``syncCheckStates`` and ``podSetUpdates``; ``pkg/workload/admissionchecks.go``
``UpdateAdmissionCheckRequeueState``; messages from ``constants.go``. For one check:

* no usable config (the check's parameters do not resolve): Pending, "the check is not active";
* no request needed (``managedResources``): Ready, "the provisioning request is not needed";
* the request Failed: while its attempt is within ``backoffLimitCount``, "Retrying after failure: …"
  and, once per attempt (attempt above ``retryCount``), Retry with ``requeueAfterSeconds`` the
  ``retryCount+1``-th back-off (``backoffBaseSeconds·2^n``, capped at ``backoffMaxSeconds``);
  beyond it, Rejected with the Failed condition's message;
* CapacityRevoked on an active, unfinished workload: Rejected (it is deactivated);
* BookingExpired before the workload is admitted: as Failed ("Retrying after booking expired: …");
* Provisioned: Ready once, with the pod set updates (the consume and class annotations, and the
  config's node selectors from ``provisioningClassDetails``) and the Provisioned message;
* Accepted with a Provisioned condition: Pending with its message (the autoscaler's ETA);
* otherwise: Pending, no message.

A state change keeps the check's ``lastTransitionTime`` as it was (upstream copies the stored check
and ``SetAdmissionCheckState`` takes a non-zero time from it), so a retry's time counts from when
the check last became Pending.
"""

from __future__ import annotations

from dataclasses import dataclass

from kbatch.api.autoscaling_x_v1 import (
    ACCEPTED,
    BOOKING_EXPIRED,
    CAPACITY_REVOKED,
    CONSUME_ANNOTATION,
    FAILED,
    PROVISIONED,
    PROVISIONING_CLASS_ANNOTATION,
    ProvisioningRequest,
)
from kbatch.api.kueue_v1beta2 import AdmissionCheckState, PodSetUpdate, ProvisioningRequestConfig, Workload
from kbatch.api.policy_helpers import find_condition
from kbatch.controllers.kueue.provisioning.naming import attempt_of, pod_template_name

__all__ = ["CHECK_INACTIVE", "NO_REQUEST_NEEDED", "Facts", "next_state", "pod_set_updates", "requeue_seconds"]

CHECK_INACTIVE = "the check is not active"
NO_REQUEST_NEEDED = "the provisioning request is not needed"


@dataclass(frozen=True, slots=True)
class Facts:
    """What the decision reads of the Workload besides the check."""

    workload: Workload
    admitted: bool
    active: bool
    finished: bool


def requeue_seconds(retry_count: int, base: int, cap: int) -> int:
    """``UpdateAdmissionCheckRequeueState``: the ``retryCount+1``-th step of kueue's ``wait.Backoff``
    (factor 2; the first step is ``base`` even above ``cap``), truncated to whole seconds. Its jitter
    (at most 0.01 %) does not survive the truncation for whole-second bases, and is left out."""
    steps = retry_count + 1
    duration = base * 2 ** (steps - 1)
    if cap and steps > 1:
        duration = min(duration, cap)
    return int(duration)


def pod_set_updates(
    wl: Workload, pr: ProvisioningRequest, prc: ProvisioningRequestConfig
) -> list[PodSetUpdate]:
    """``podSetUpdates``: one update per pod set of the request, named after the workload pod set whose
    template it references."""
    name = pr.metadata.name or ""
    by_template = {
        pod_template_name(name, ps.name or ""): ps.name or ""
        for ps in (wl.spec.pod_sets if wl.spec else None) or ()
    }
    details = (pr.status.provisioning_class_details if pr.status else None) or {}
    selectors = prc.spec.pod_set_updates if prc.spec else None
    out = []
    for ps in (pr.spec.pod_sets if pr.spec else None) or ():
        ref = ps.pod_template_ref.name if ps.pod_template_ref else ""
        update = PodSetUpdate(
            name=by_template.get(ref or "", ""),
            annotations={
                CONSUME_ANNOTATION: name,
                PROVISIONING_CLASS_ANNOTATION: (pr.spec.provisioning_class_name if pr.spec else None) or "",
            },
        )
        if selectors is not None:
            update.node_selector = {
                s.key or "": details[s.value_from_provisioning_class_detail or ""]
                for s in selectors.node_selector or ()
                if (s.value_from_provisioning_class_detail or "") in details
            }
        out.append(update)
    return out


def _retry_or_reject(
    state: AdmissionCheckState,
    attempt: int,
    prc: ProvisioningRequestConfig,
    message: str,
    reject_message: str,
) -> None:
    rs = prc.spec.retry_strategy if prc.spec else None
    limit = rs.backoff_limit_count if rs else None
    base, cap = (rs.backoff_base_seconds if rs else None) or 0, (rs.backoff_max_seconds if rs else None) or 0
    if attempt <= (3 if limit is None else limit):
        state.message = message
        if attempt > (state.retry_count or 0):  # not again for an older request
            state.state = "Retry"
            state.requeue_after_seconds = requeue_seconds(state.retry_count or 0, base, cap)
    else:
        state.state, state.message = "Rejected", reject_message


def _from_request(
    state: AdmissionCheckState, facts: Facts, pr: ProvisioningRequest, prc: ProvisioningRequestConfig
) -> None:
    wl, check = facts.workload, state.name or ""
    attempt = attempt_of(pr.metadata.name or "", wl.metadata.name or "", check)
    if (failed := pr.true_condition(FAILED)) is not None:
        _retry_or_reject(state, attempt, prc, f"Retrying after failure: {failed.message}", failed.message)
    elif (revoked := pr.true_condition(CAPACITY_REVOKED)) is not None:
        if facts.active and not facts.finished:
            state.state, state.message = "Rejected", revoked.message
    elif (expired := pr.true_condition(BOOKING_EXPIRED)) is not None:
        if not facts.admitted:
            _retry_or_reject(
                state, attempt, prc, f"Retrying after booking expired: {expired.message}", expired.message
            )
    elif (provisioned := pr.true_condition(PROVISIONED)) is not None:
        if state.state != "Ready":
            state.state = "Ready"
            state.pod_set_updates = pod_set_updates(wl, pr, prc) or None
            state.message = provisioned.message
    elif pr.true_condition(ACCEPTED) is not None:
        cond = find_condition(pr.status.conditions if pr.status else None, PROVISIONED)
        if cond is not None:
            state.message, state.state = cond.message, "Pending"
    else:
        state.message, state.state = "", "Pending"


def next_state(
    current: AdmissionCheckState,
    facts: Facts,
    prc: ProvisioningRequestConfig | None,
    needed: bool,
    pr: ProvisioningRequest | None,
) -> AdmissionCheckState | None:
    """The check's state after ``syncCheckStates`` (a new object; ``current`` is not changed), or None
    when its request is needed but not there yet (upstream then writes nothing at all)."""
    state = current.model_copy(deep=True)
    if prc is None:
        state.state, state.message = "Pending", CHECK_INACTIVE
    elif not needed:
        if state.state != "Ready":
            state.state, state.message, state.pod_set_updates = "Ready", NO_REQUEST_NEEDED, None
    elif pr is None:
        return None
    else:
        _from_request(state, facts, pr, prc)
    return state
