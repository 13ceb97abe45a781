"""The DRA family: Dynamic Resource Allocation with structured parameters (resource.k8s.io/v1,
KEP-4381, GA in Kubernetes 1.34), as of 1.37.

Kinds: DeviceClass, ResourceSlice, DeviceTaintRule (cluster-scoped), ResourceClaim and
ResourceClaimTemplate. Controllers: ``resourceclaim`` (kube-controller-manager's
``resource-claim-controller``: claims from templates, reservedFor clean-up, deallocation) and
``device-taint-eviction`` (evicts pods using devices with NoExecute taints), ``dra-driver``
(kbatch's simulated drivers reporting device status, KEP-4817) and ``dra-attach`` (their attachment
controller setting binding conditions, KEP-5007). Scheduler plugin:
``DynamicResources`` in the default ``multiPoint`` set, just before DefaultPreemption (upstream
``default_plugins.go``: after InterPodAffinity, so its PostFilter runs before preemption's).
Feature gates at their 1.37 stages and defaults (kubernetes/website feature-gate pages;
/work/shared/reference/upstream-2026.md §5). docs/dra.md has the details.
"""

from __future__ import annotations

from kbatch.api.features import FeatureSpec, Stage
from kbatch.api.resource_v1 import (
    DeviceClass,
    DeviceTaintRule,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
)
from kbatch.api.scheduling_v1beta1 import WORKLOAD_RESOURCE_CLAIMS
from kbatch.api.strategies.resource import (
    DeviceClassStrategy,
    DeviceTaintRuleStrategy,
    ResourceClaimStrategy,
    ResourceClaimTemplateStrategy,
    ResourceSliceStrategy,
)
from kbatch.families.core.generic_page import generic_page
from kbatch.families.dra import printers
from kbatch.families.family import (
    AdmissionPlugin,
    ControllerSpec,
    Family,
    KindEntry,
    SchedulerPlugin,
    kcm_account,
)

__all__ = [
    "ADMIN_ACCESS",
    "BINDING_CONDITIONS",
    "CONSUMABLE_CAPACITY",
    "DEVICE_TAINTS",
    "DEVICE_TAINT_RULES",
    "DRA",
    "DYNAMIC_RESOURCE_ALLOCATION",
    "EXTENDED_RESOURCE",
    "PARTITIONABLE_DEVICES",
    "PREEMPTION",
    "PRIORITIZED_LIST",
    "WORKLOAD_RESOURCE_CLAIMS",
]

_GATES = "kubernetes/website content/en/docs/reference/command-line-tools-reference/feature-gates/"

DYNAMIC_RESOURCE_ALLOCATION = "DynamicResourceAllocation"
PRIORITIZED_LIST = "DRAPrioritizedList"
ADMIN_ACCESS = "DRAAdminAccess"
DEVICE_TAINTS = "DRADeviceTaints"
DEVICE_TAINT_RULES = "DRADeviceTaintRules"
PARTITIONABLE_DEVICES = "DRAPartitionableDevices"
CONSUMABLE_CAPACITY = "DRAConsumableCapacity"
BINDING_CONDITIONS = "DRADeviceBindingConditions"
EXTENDED_RESOURCE = "DRAExtendedResource"
DEVICE_STATUS = "DRAResourceClaimDeviceStatus"
# KEP-5690 (kubernetes/enhancements keps/sig-scheduling/5690-dra-preemption, kep.yaml: beta in 1.38):
# not a gate of 1.37, whose scheduler never frees devices by preemption; kbatch offers it, off by
# default as 1.37 behaves (docs/dra.md, "Preemption")
PREEMPTION = "DRAPreemption"
_KEP_5690 = "kubernetes/enhancements keps/sig-scheduling/5690-dra-preemption/kep.yaml"
# KEP-5729, PodGroup ResourceClaims: beta in 1.37, off by default (upstream-2026.md §1.1, [FG]);
# effective only with GenericWorkload (the PodGroup API) on, as upstream's controller requires


def _gate(name: str, stage: Stage, locked: bool = False) -> FeatureSpec:
    return FeatureSpec(name, True, stage, locked=locked, source=_GATES + name + ".md")


DRA = Family(
    name="dra",
    description="resource.k8s.io/v1 Dynamic Resource Allocation: DeviceClass, ResourceSlice, ResourceClaim, "
    "ResourceClaimTemplate, DeviceTaintRule; the resourceclaim controller, device taint "
    "eviction and the DynamicResources scheduler plugin",
    kinds=(
        KindEntry(DeviceClass, DeviceClassStrategy(), printers.DEFAULT, page=generic_page),
        KindEntry(
            ResourceSlice, ResourceSliceStrategy(), printers.RESOURCE_SLICE, page=generic_page
        ),
        KindEntry(
            ResourceClaim, ResourceClaimStrategy(), printers.RESOURCE_CLAIM, page=generic_page
        ),
        KindEntry(
            ResourceClaimTemplate, ResourceClaimTemplateStrategy(), printers.DEFAULT, page=generic_page
        ),
        KindEntry(DeviceTaintRule, DeviceTaintRuleStrategy(), printers.DEFAULT, page=generic_page),
    ),
    admission=(
        AdmissionPlugin(
            "DynamicResourceAllocation",
            "kbatch.controllers.dra.admission:install",
            description="ResourceClaim adminAccess needs the namespace label "
            "resource.kubernetes.io/admin-access=true; device taints get timeAdded",
        ),
    ),
    controllers=(
        ControllerSpec(
            "resourceclaim",
            "creates ResourceClaims from templates for pods, cleans up reservedFor, "
            "deallocates unused claims",
            "kbatch.controllers.dra.resourceclaim:setup",
            aliases=("resource-claim-controller", "resourceclaim-controller"),
            source="resource_claim",
            user=kcm_account("resource-claim-controller"),
        ),
        ControllerSpec(
            "device-taint-eviction",
            "evicts pods whose allocated devices have NoExecute taints",
            "kbatch.controllers.dra.devicetainteviction:setup",
            aliases=("device-taint-eviction-controller",),
            source="device-taint-eviction-controller",
            user=kcm_account("device-taint-eviction-controller"),
        ),
        ControllerSpec(
            "dra-driver",
            "kbatch's simulated DRA drivers (nodes added with --device-status) report the devices they "
            "prepared in ResourceClaim status.devices, as each node's kubelet plugin",
            "kbatch.controllers.dra.driver:setup",
            source="kubelet",
        ),
        ControllerSpec(
            "dra-attach",
            "kbatch's simulated DRA drivers (nodes added with --binding-conditions) attach allocated "
            "devices and set their binding conditions in ResourceClaim status.devices (KEP-5007)",
            "kbatch.controllers.dra.driver:setup_attach",
            source="dra-attach-controller",  # writes as kube-system/dra-attach-controller, made on first use
        ),
    ),
    scheduler_plugins=(
        SchedulerPlugin("DynamicResources", "kbatch.controllers.dra.dynamicresources:new", multi_point=True,
                        before="DefaultPreemption"),
    ),
    feature_gates=(
        _gate(DYNAMIC_RESOURCE_ALLOCATION, Stage.GA, locked=True),
        _gate(PRIORITIZED_LIST, Stage.GA, locked=True),
        _gate(ADMIN_ACCESS, Stage.GA, locked=True),
        _gate(DEVICE_TAINTS, Stage.GA, locked=True),
        _gate(DEVICE_TAINT_RULES, Stage.GA, locked=True),
        _gate(EXTENDED_RESOURCE, Stage.GA, locked=True),
        _gate(DEVICE_STATUS, Stage.GA, locked=True),
        _gate(PARTITIONABLE_DEVICES, Stage.BETA),
        _gate(CONSUMABLE_CAPACITY, Stage.BETA),
        _gate(BINDING_CONDITIONS, Stage.BETA),
        FeatureSpec(PREEMPTION, False, Stage.ALPHA, source=_KEP_5690),
        FeatureSpec(WORKLOAD_RESOURCE_CLAIMS, False, Stage.BETA,
                    source=_GATES + WORKLOAD_RESOURCE_CLAIMS + ".md"),
    ),
)
