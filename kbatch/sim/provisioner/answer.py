"""What the simulated cluster-autoscaler writes on a ProvisioningRequest: a pure decision over the
request, the capacity check's outcome and the clock.

Upstream (kubernetes/autoscaler ``cluster-autoscaler``):

* ``provisioningrequest/conditions/conditions.go``: the reasons and messages (``Accepted``,
  ``CapacityIsFound`` "Capacity is found in the cluster", ``CapacityIsNotFound``,
  ``CapacityReservationTimeExpired`` "Capacity reservation time is expired", ``Expired``
  "ProvisioningRequest is expired"); ``AddOrUpdateCondition`` replaces a condition of the same type.
* ``provisioningrequest/checkcapacity/provisioningclass.go`` (``checkcapacity``): Provisioned=True
  ``CapacityIsFound`` when every pod schedules, else Provisioned=False ``CapacityIsNotFound`` "Capacity
  is not found, CA will try to find it later." (retried every loop), or Failed=True "CA could not find
  requested capacity" when the request's ``noRetry`` parameter is ``"true"``.
* ``processors/provreq/provisioning_request_processor.go`` (``refresh``): a Provisioned request whose
  condition is older than ``defaultReservationTime`` (10 minutes) gets BookingExpired; one never
  provisioned within ``defaultExpirationTime`` (7 days) gets Failed ``Expired``. A request with
  BookingExpired or Failed is left alone. The same file's ``bookCapacity`` stops booking once the
  request's pods are all scheduled: kbatch then lets the booking lapse without a condition.

kbatch answers both classes the autoscaler implements, ``check-capacity.autoscaling.x-k8s.io`` and
``best-effort-atomic-scale-up.autoscaling.x-k8s.io``, from the capacity already in the cluster: there
are no node groups to scale up, so an atomic scale-up finds what a capacity check finds.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from kbatch.api.autoscaling_x_v1 import (
    ACCEPTED,
    BEST_EFFORT_ATOMIC_SCALE_UP,
    BOOKING_EXPIRED,
    CHECK_CAPACITY,
    FAILED,
    PROVISIONED,
    ProvisioningRequest,
)
from kbatch.api.meta import Condition

__all__ = [
    "BOOKING_TIME",
    "EXPIRATION_TIME",
    "RETRY_PERIOD",
    "SUPPORTED_CLASSES",
    "Answer",
    "answer",
    "needs_capacity_check",
]

BOOKING_TIME = timedelta(minutes=10)  # defaultReservationTime
EXPIRATION_TIME = timedelta(days=7)  # defaultExpirationTime
RETRY_PERIOD = 10.0  # the autoscaler's loop: --scan-interval, 10 s by default
SUPPORTED_CLASSES = (CHECK_CAPACITY, BEST_EFFORT_ATOMIC_SCALE_UP)

ACCEPTED_MSG = "ProvisioningRequest is accepted by ClusterAutoscaler"
FOUND, FOUND_MSG = "CapacityIsFound", "Capacity is found in the cluster"
NOT_FOUND, NOT_FOUND_MSG = "CapacityIsNotFound", "Capacity is not found, CA will try to find it later."
NO_RETRY_MSG = "CA could not find requested capacity"
EXPIRED_BOOKING = "CapacityReservationTimeExpired"
EXPIRED_BOOKING_MSG = "Capacity reservation time is expired"
EXPIRED, EXPIRED_MSG = "Expired", "ProvisioningRequest is expired"


@dataclass(frozen=True, slots=True)
class Answer:
    """The conditions to set (by type, replacing) and when to look again (seconds; 0: only on events)."""

    conditions: tuple[Condition, ...] = ()
    requeue_after: float = 0.0


def _cond(pr: ProvisioningRequest, kind: str, status: bool, reason: str, message: str) -> Condition:
    return Condition(
        type=kind,
        status="True" if status else "False",
        reason=reason,
        message=message,
        observed_generation=pr.metadata.generation,
    )


def _booking(pr: ProvisioningRequest, provisioned: Condition, now: datetime, consumed: bool) -> Answer:
    if consumed:
        return Answer()
    expires = (provisioned.last_transition_time or now) + BOOKING_TIME
    if expires > now:
        return Answer(requeue_after=(expires - now).total_seconds())
    return Answer((_cond(pr, BOOKING_EXPIRED, True, EXPIRED_BOOKING, EXPIRED_BOOKING_MSG),))


def answer(pr: ProvisioningRequest, now: datetime, capacity_found: bool | None, consumed: bool) -> Answer:
    """The autoscaler's next step for ``pr``. ``capacity_found`` is the capacity check's outcome (None:
    not checked because the request is already provisioned); ``consumed``: its pods all run."""
    spec = pr.spec
    if spec is None or spec.provisioning_class_name not in SUPPORTED_CLASSES:
        return Answer()
    if pr.true_condition(BOOKING_EXPIRED) or pr.true_condition(FAILED):
        return Answer()
    provisioned = pr.true_condition(PROVISIONED)
    if provisioned is not None:
        return _booking(pr, provisioned, now, consumed)
    created = pr.metadata.creation_timestamp or now
    if created + EXPIRATION_TIME <= now:
        return Answer((_cond(pr, FAILED, True, EXPIRED, EXPIRED_MSG),))
    accepted = () if pr.true_condition(ACCEPTED) else (_cond(pr, ACCEPTED, True, ACCEPTED, ACCEPTED_MSG),)
    if capacity_found:
        return Answer(
            (*accepted, _cond(pr, PROVISIONED, True, FOUND, FOUND_MSG)), BOOKING_TIME.total_seconds()
        )
    if (spec.parameters or {}).get("noRetry") == "true":
        return Answer((*accepted, _cond(pr, FAILED, True, NOT_FOUND, NO_RETRY_MSG)))
    return Answer((*accepted, _cond(pr, PROVISIONED, False, NOT_FOUND, NOT_FOUND_MSG)), RETRY_PERIOD)


def needs_capacity_check(pr: ProvisioningRequest) -> bool:
    """Whether :func:`answer` will ask for the capacity check (a supported, live, unprovisioned one)."""
    spec = pr.spec
    return (
        spec is not None
        and spec.provisioning_class_name in SUPPORTED_CLASSES
        and not any(pr.true_condition(kind) for kind in (BOOKING_EXPIRED, FAILED, PROVISIONED))
    )
