"""The structural schemas of ProvisioningRequestConfig (kueue.x-k8s.io) and ProvisioningRequest
(autoscaling.x-k8s.io/v1), as :class:`~.schema.Node` values.

Upstream: kubernetes-sigs/kueue ``config/components/crd/bases/kueue.x-k8s.io_provisioningrequestconfigs.yaml``
(from the markers of ``apis/kueue/v1beta2/provisioningrequestconfig_types.go``, v0.19.2) and
kubernetes/autoscaler ``cluster-autoscaler/apis/provisioningrequest/autoscaling.x-k8s.io/v1/types.go``
(its CRD ``config/crd/autoscaling.x-k8s.io_provisioningrequests.yaml``), ``maxProperties`` included
(100 parameters, 64 class details).
"""

from __future__ import annotations

from kbatch.api.kueue_v1beta2.provisioning import MERGE_POLICIES
from kbatch.api.strategies.kueue.schema import Node, Rule
from kbatch.api.strategies.kueue.schemas import CONDITIONS, DNS_SUBDOMAIN, QUALIFIED, _list, _map, _obj, _str

__all__ = ["PROVISIONING_REQUEST", "PROVISIONING_REQUEST_CONFIG"]

_CLASS_NAME = _str(pattern=DNS_SUBDOMAIN, max_length=253, min_length=1)

PROVISIONING_REQUEST_CONFIG = _obj(
    spec=_obj(
        required=("provisioningClassName",),
        provisioningClassName=_CLASS_NAME,
        parameters=_map(_str(max_length=255), max_properties=100),
        managedResources=_list(_str(), max_items=100, set_list=True),
        retryStrategy=_obj(
            # +kubebuilder:default={backoffLimitCount:3,backoffBaseSeconds:60,backoffMaxSeconds:1800}
            default={},
            backoffLimitCount=Node("integer", default=3),
            backoffBaseSeconds=Node("integer", default=60),
            backoffMaxSeconds=Node("integer", default=1800),
        ),
        podSetUpdates=_obj(
            nodeSelector=_list(
                _obj(
                    required=("key", "valueFromProvisioningClassDetail"),
                    key=_str(pattern=QUALIFIED, max_length=317, min_length=1),
                    valueFromProvisioningClassDetail=_str(max_length=32768, min_length=1),
                ),
                max_items=8,
                map_keys=("key",),
            ),
        ),
        podSetMergePolicy=_str(enum=MERGE_POLICIES),
    ),
)

_IMMUTABLE = Rule(lambda new, old: new == old, "Value is immutable", transition=True)

PROVISIONING_REQUEST = _obj(
    required=("spec",),
    spec=_obj(
        required=("podSets", "provisioningClassName"),
        podSets=Node(
            "array",
            items=_obj(
                required=("podTemplateRef", "count"),
                podTemplateRef=_obj(required=("name",), name=_str(pattern=DNS_SUBDOMAIN, max_length=253)),
                count=Node("integer", minimum=1),
            ),
            min_items=1,
            max_items=32,
            rules=(_IMMUTABLE,),
        ),
        provisioningClassName=Node("string", pattern=DNS_SUBDOMAIN, max_length=253, rules=(_IMMUTABLE,)),
        parameters=_map(_str(max_length=255), max_properties=100, rules=(_IMMUTABLE,)),
    ),
    status=_obj(
        conditions=CONDITIONS,
        provisioningClassDetails=_map(_str(max_length=32768), max_properties=64),
    ),
)
