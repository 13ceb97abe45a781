"""The kueue family: Kueue v0.19's API (kueue.x-k8s.io v1beta2 stored, v1beta1 served with conversion),
its webhooks as admission plugins, its manager as one controller, its feature gates.

Upstream: kubernetes-sigs/kueue v0.19.2. What kbatch implements and where it differs: docs/kueue.md.
"""

from __future__ import annotations

from dataclasses import replace

from kbatch.api import kueue_v1beta1 as v1
from kbatch.api.core_v1 import Pod
from kbatch.api.kueue_v1beta2 import (
    AdmissionCheck,
    ClusterQueue,
    Cohort,
    LocalQueue,
    MultiKueueCluster,
    MultiKueueConfig,
    ProvisioningRequestConfig,
    ResourceFlavor,
    Topology,
    Workload,
    WorkloadPriorityClass,
)
from kbatch.api.meta import Resource
from kbatch.api.printing import Printer
from kbatch.api.strategies.kueue import strategy_for
from kbatch.api.versions import ServedVersion
from kbatch.families.core.generic_page import generic_page
from kbatch.families.family import (
    AdmissionPlugin,
    ControllerSpec,
    EventsApi,
    Family,
    JobIntegration,
    KindEntry,
)
from kbatch.families.kueue import printers
from kbatch.families.kueue.gates import KUEUE_GATES
from kbatch.families.kueue.visibility import VISIBILITY

__all__ = ["KUEUE"]


# cmd/kueue/main.go and the controllers' setup: mgr.GetEventRecorder(...), controller-runtime v0.24's
# events.k8s.io/v1 recorder, one broadcaster per manager; hostname: see JobSet's (the Deployment's
# name). Kueue v0.19.2 records the reason as the action but for the calls that pass another
# (provisioning/controller.go Created, jobs/pod/pod_controller.go Admission, scheduler/scheduler.go
# Replaced, failurerecovery ForcefulTermination, tas/node_controller.go PodTerminated)
KUEUE_EVENTS = EventsApi("kueue-controller-manager", "kueue-controller-manager", actions=(
    ("ProvisioningRequestCreated", "Created"), ("WorkloadNameConflict", "Admission"),
    ("WorkloadSliceReplaced", "Replaced"), ("KueueForcefullyDeleted", "ForcefulTermination"),
    ("PodTerminatedByKueue", "PodTerminated")))


def _v1beta1(kind: str, printer: Printer | None) -> tuple[ServedVersion, ...]:
    return (replace(v1.CONVERSIONS[kind], printer=printer),)


def _kind(
    model: type[Resource],
    printer: Printer | None = None,
    v1_printer: Printer | None = None,
) -> KindEntry:
    return KindEntry(
        model,
        strategy_for(model),
        printer,
        page=generic_page,  # kubectl describes a custom resource generically
        versions=_v1beta1(model.api_info.kind, v1_printer or printer),
    )


_WEBHOOKS = "kbatch.controllers.kueue.webhooks"

KUEUE = Family(
    name="kueue",
    description="Kueue v0.19: quota, queues, admission and preemption of whole workloads (kueue.x-k8s.io)",
    kinds=(
        _kind(ResourceFlavor),
        _kind(
            ClusterQueue,
            printers.CLUSTER_QUEUE,
            printers.CLUSTER_QUEUE_V1BETA1,
        ),
        _kind(LocalQueue, printers.LOCAL_QUEUE),
        _kind(Cohort),
        _kind(Workload, printers.WORKLOAD),
        _kind(WorkloadPriorityClass, printers.WORKLOAD_PRIORITY_CLASS),
        _kind(AdmissionCheck),
        _kind(Topology),
        _kind(ProvisioningRequestConfig),
        _kind(MultiKueueConfig),
        _kind(MultiKueueCluster, printers.MULTIKUEUE_CLUSTER),
    ),
    virtual=VISIBILITY,
    admission=(
        AdmissionPlugin(
            "KueueWebhooks",
            f"{_WEBHOOKS}.kinds:install",
            description="Kueue's webhooks for its own kinds (pkg/webhooks): finalizers, "
            "ClusterQueue/Cohort/ResourceFlavor/Workload validation",
        ),
        AdmissionPlugin(
            "KueueJobWebhooks",
            f"{_WEBHOOKS}.jobs:install",
            description="Kueue's job webhooks (jobframework): default LocalQueue, suspend "
            "on create, queue-name and partial-admission validation",
        ),
    ),
    controllers=(
        ControllerSpec(
            "kueue",
            "Kueue's manager: queues, cache, scheduler, workload/queue controllers, job framework",
            "kbatch.controllers.kueue:setup",
            aliases=("kueue-manager",),
            source="kueue-admission",
            # config/default: namespace kueue-system, namePrefix kueue-, SA controller-manager
            user="system:serviceaccount:kueue-system:kueue-controller-manager",
            events=KUEUE_EVENTS,
        ),
    ),
    feature_gates=KUEUE_GATES,
    # Kueue's own integration of a core kind: plain pods and pod groups (docs/kueue.md, "Plain pods")
    job_integrations=(
        JobIntegration("pod", Pod, "kbatch.controllers.kueue.podintegration.single:SinglePod"),
    ),
)
