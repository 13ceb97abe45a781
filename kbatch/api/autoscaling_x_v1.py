"""autoscaling.x-k8s.io/v1 ProvisioningRequest: a request for capacity the cluster-autoscaler answers.

Upstream: kubernetes/autoscaler ``cluster-autoscaler/apis/provisioningrequest/autoscaling.x-k8s.io/v1/
types.go`` (namespaced, short names ``provreq``/``provreqs``, a status subresource, printer column
Age) and KEP-1136 (ProvisioningRequest support). The CRD is the cluster-autoscaler's; Kueue's
ProvisioningRequest admission check creates these objects (:mod:`kbatch.controllers.kueue.provisioning`)
and kbatch's simulated autoscaler answers them (:mod:`kbatch.sim.provisioner`).
"""

from __future__ import annotations

from typing import ClassVar

from kbatch.api.base import ApiInfo, KubeModel
from kbatch.api.kueue_v1beta2.common import Int32
from kbatch.api.meta import Condition, Resource

__all__ = [
    "ACCEPTED",
    "BEST_EFFORT_ATOMIC_SCALE_UP",
    "BOOKING_EXPIRED",
    "CAPACITY_REVOKED",
    "CHECK_CAPACITY",
    "CONDITION_TYPES",
    "CONSUME_ANNOTATION",
    "FAILED",
    "GROUP",
    "PROVISIONED",
    "PROVISIONING_CLASS_ANNOTATION",
    "VERSION",
    "PodSet",
    "ProvisioningRequest",
    "ProvisioningRequestSpec",
    "ProvisioningRequestStatus",
    "Reference",
]

GROUP = "autoscaling.x-k8s.io"
VERSION = "v1"

# the condition types (types.go)
ACCEPTED = "Accepted"
BOOKING_EXPIRED = "BookingExpired"
CAPACITY_REVOKED = "CapacityRevoked"
PROVISIONED = "Provisioned"
FAILED = "Failed"
CONDITION_TYPES = (ACCEPTED, BOOKING_EXPIRED, CAPACITY_REVOKED, PROVISIONED, FAILED)

# the classes the cluster-autoscaler implements (types.go)
CHECK_CAPACITY = "check-capacity.autoscaling.x-k8s.io"
BEST_EFFORT_ATOMIC_SCALE_UP = "best-effort-atomic-scale-up.autoscaling.x-k8s.io"

# on the pods that consume a request (types.go)
CONSUME_ANNOTATION = "autoscaling.x-k8s.io/consume-provisioning-request"
PROVISIONING_CLASS_ANNOTATION = "autoscaling.x-k8s.io/provisioning-class-name"


class Reference(KubeModel):
    name: str | None = None


class PodSet(KubeModel):
    pod_template_ref: Reference | None = None
    count: Int32 | None = None


class ProvisioningRequestSpec(KubeModel):
    pod_sets: list[PodSet] | None = None
    provisioning_class_name: str | None = None
    parameters: dict[str, str] | None = None


class ProvisioningRequestStatus(KubeModel):
    conditions: list[Condition] | None = None
    provisioning_class_details: dict[str, str] | None = None


class ProvisioningRequest(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        GROUP,
        VERSION,
        "ProvisioningRequest",
        "provisioningrequests",
        True,
        short_names=("provreq", "provreqs"),
        singular="provisioningrequest",
    )
    spec: ProvisioningRequestSpec | None = None
    status: ProvisioningRequestStatus | None = None

    def true_condition(self, kind: str) -> Condition | None:
        """The condition of type ``kind`` when its status is True (``meta.IsStatusConditionTrue``)."""
        for cond in (self.status.conditions if self.status else None) or ():
            if cond.type == kind:
                return cond if cond.status == "True" else None
        return None
