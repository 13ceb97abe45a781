"""The core family: what kube-apiserver serves built in apart from batch, and the components of a
cluster that run pods (scheduler, kubelet, node lifecycle, garbage collection).

Kinds: core/v1 Namespace (first: the API server bootstraps namespaces), Pod, Node, Service, Event,
ConfigMap, Secret, Endpoints; discovery.k8s.io/v1 EndpointSlice; scheduling.k8s.io/v1 PriorityClass;
policy/v1 PodDisruptionBudget; coordination.k8s.io/v1
Lease; core/v1 PersistentVolumeClaim (objects only: no storage is simulated); core/v1 ResourceQuota and
LimitRange (docs/quota.md); core/v1 ServiceAccount (docs/serviceaccounts.md); node.k8s.io/v1
RuntimeClass with its admission plugin (docs/runtimeclass.md).
Virtual resources (answered, never stored: :mod:`.virtual`): the authentication.k8s.io and
authorization.k8s.io reviews, and metrics.k8s.io's node and pod usage.
Admission plugins in kube-apiserver's recommended order (``NamespaceLifecycle`` first, then
``LimitRanger``, ``ServiceAccount``,
``DefaultTolerationSeconds``, ``Priority`` and ``ResourceQuota``; upstream
``pkg/kubeapiserver/options/plugins.go``).
Scheduler plugins: kube-scheduler's default ``multiPoint`` set with its weights
(``pkg/scheduler/apis/config/v1/default_plugins.go``), with VolumeBinding at its place after
NodeResourcesFit (docs/storage.md); without VolumeRestrictions, NodeVolumeLimits, VolumeZone and
ImageLocality, which kbatch does not model.
"""

from __future__ import annotations

from kbatch.api import events_v1
from kbatch.api.coordination_v1 import Lease
from kbatch.api.core_v1 import (
    ConfigMap,
    Endpoints,
    Event,
    LimitRange,
    Namespace,
    Node,
    PersistentVolumeClaim,
    Pod,
    PodTemplate,
    ResourceQuota,
    Secret,
    Service,
    ServiceAccount,
)
from kbatch.api.discovery_v1 import EndpointSlice
from kbatch.api.features import FeatureSpec, Stage
from kbatch.api.node_v1 import RuntimeClass
from kbatch.api.policy_v1 import PodDisruptionBudget
from kbatch.api.scheduling_v1 import PriorityClass
from kbatch.api.strategies.coordination import LeaseStrategy
from kbatch.api.strategies.core import (
    ConfigMapStrategy,
    EventStrategy,
    NamespaceStrategy,
    NodeStrategy,
    PersistentVolumeClaimStrategy,
    PodStrategy,
    PodTemplateStrategy,
    PriorityClassStrategy,
    SecretStrategy,
    ServiceAccountStrategy,
    ServiceStrategy,
)
from kbatch.api.strategies.core.endpoints import EndpointsStrategy
from kbatch.api.strategies.core.events import events_v1_errors
from kbatch.api.strategies.core.limitrange import LimitRangeStrategy
from kbatch.api.strategies.core.quota import ResourceQuotaStrategy
from kbatch.api.strategies.discovery import EndpointSliceStrategy
from kbatch.api.strategies.node import RuntimeClassStrategy
from kbatch.api.strategies.policy import PodDisruptionBudgetStrategy
from kbatch.api.versions import ServedVersion
from kbatch.families.core import (
    endpoint_pages,
    endpoint_printers,
    node_page,
    pod_page,
    printers,
    quota_pages,
    quota_printers,
    secret_page,
    service_page,
    serviceaccount_page,
    virtual,
)
from kbatch.families.core.generic_page import generic_page
from kbatch.families.family import (
    AdmissionPlugin,
    ControllerSpec,
    EventsApi,
    Family,
    KindEntry,
    SchedulerPlugin,
    kcm_account,
)

__all__ = ["CORE", "SCHEDULER_POP_FROM_BACKOFF_Q", "SCHEDULER_QUEUEING_HINTS"]

SCHEDULER_QUEUEING_HINTS = "SchedulerQueueingHints"
SCHEDULER_POP_FROM_BACKOFF_Q = "SchedulerPopFromBackoffQ"  # KEP-5142, beta (on) since 1.33
_GATES = "kubernetes/website content/en/docs/reference/command-line-tools-reference/feature-gates/"

_PLUGINS = "kbatch.controllers.scheduler.plugins."


def _plugin(name: str, module: str, weight: int = 0) -> SchedulerPlugin:
    return SchedulerPlugin(name, f"{_PLUGINS}{module}:new", multi_point=True, weight=weight)


# kube-scheduler records through events.k8s.io/v1 (cmd/kube-scheduler/app/options/options.go:
# NewEventBroadcasterAdapterWithContext; NewRecorder(scheme, schedulerName) per profile); it runs as
# kind's static pod on the host network, so its hostname is the control-plane node's. Its actions:
# Binding for Scheduled (pkg/scheduler/schedule_one.go), Scheduling for FailedScheduling
# (handleSchedulingFailure) and DRA's BindingConditionsPending (framework/plugins/dynamicresources),
# Preempting for Preempted (framework/preemption/executor.go)
SCHEDULER_EVENTS = EventsApi("kube-scheduler", "kind-control-plane", actions=(
    ("Scheduled", "Binding"), ("FailedScheduling", "Scheduling"), ("BindingConditionsPending", "Scheduling"),
    ("Preempted", "Preempting")))

# events.k8s.io/v1 Event: core/v1 Event's storage under the newer names, strict validation of its writes
EVENTS_V1 = ServedVersion(events_v1.EventV1, events_v1.to_storage, events_v1.from_storage,
                          printer=printers.EVENT_V1, validate=events_v1_errors,
                          field_selector=events_v1.field_selector_to_storage)

CORE = Family(
    name="core",
    description="core/v1, PriorityClass, PodDisruptionBudget, Lease; the scheduler, kubelet and node "
                "lifecycle that run pods",
    kinds=(
        KindEntry(Namespace, NamespaceStrategy(), printers.NAMESPACE),
        KindEntry(Pod, PodStrategy(), printers.POD, page=pod_page.describe_pod_page,
                  subresources=virtual.POD_SUBRESOURCES),
        KindEntry(Node, NodeStrategy(), printers.NODE, page=node_page.describe_node_page),
        KindEntry(Service, ServiceStrategy(), printers.SERVICE, page=service_page.describe_service_page),
        KindEntry(Event, EventStrategy(), printers.EVENT, versions=(EVENTS_V1,)),
        KindEntry(PriorityClass, PriorityClassStrategy(), printers.PRIORITY_CLASS),
        KindEntry(PodDisruptionBudget, PodDisruptionBudgetStrategy(), printers.POD_DISRUPTION_BUDGET),
        KindEntry(Lease, LeaseStrategy(), printers.LEASE),
        KindEntry(PersistentVolumeClaim, PersistentVolumeClaimStrategy(), printers.PERSISTENT_VOLUME_CLAIM),
        KindEntry(ConfigMap, ConfigMapStrategy(), printers.CONFIG_MAP),
        KindEntry(Secret, SecretStrategy(), printers.SECRET, page=secret_page.describe_secret_page),
        KindEntry(ResourceQuota, ResourceQuotaStrategy(), quota_printers.RESOURCE_QUOTA,
                  page=quota_pages.describe_quota_page),
        KindEntry(LimitRange, LimitRangeStrategy(), quota_printers.LIMIT_RANGE,
                  page=quota_pages.describe_limit_range_page),
        KindEntry(ServiceAccount, ServiceAccountStrategy(), printers.SERVICE_ACCOUNT,
                  page=serviceaccount_page.describe_service_account_page,
                  subresources=virtual.SERVICE_ACCOUNT_SUBRESOURCES),
        # kubectl's describerMap has no RuntimeClass: its generic page (docs/runtimeclass.md)
        KindEntry(RuntimeClass, RuntimeClassStrategy(), printers.RUNTIME_CLASS, page=generic_page),
        # what Kueue's ProvisioningRequest check writes for the cluster-autoscaler (podTemplateRef)
        # kubectl has no PodTemplate describer: its generic page (pkg/describe/describe.go describerMap)
        KindEntry(PodTemplate, PodTemplateStrategy(), printers.POD_TEMPLATE, page=generic_page),
        # the endpoints and endpointslice controllers' output, and the API server's for default/kubernetes
        # (docs/simulation.md "Endpoints and EndpointSlices")
        KindEntry(Endpoints, EndpointsStrategy(), endpoint_printers.ENDPOINTS,
                  page=endpoint_pages.describe_endpoints_page),
        KindEntry(EndpointSlice, EndpointSliceStrategy(), endpoint_printers.ENDPOINT_SLICE,
                  page=endpoint_pages.describe_endpoint_slice_page),
    ),
    virtual=virtual.VIRTUAL,
    admission=(
        AdmissionPlugin("NamespaceLifecycle", "kbatch.apiserver.namespaces:install_lifecycle",
                        description="no new objects in a missing or terminating namespace"),
        AdmissionPlugin("LimitRanger", "kbatch.apiserver.admission_plugins.limit_ranger:install",
                        description="LimitRange defaults and bounds for pod containers"),
        AdmissionPlugin("ServiceAccount", "kbatch.apiserver.admission_plugins.service_account:install",
                        description="pods run as a ServiceAccount that exists, with its API credentials "
                                    "mounted"),
        AdmissionPlugin("DefaultTolerationSeconds",
                        "kbatch.apiserver.admission_plugins.default_toleration_seconds:install",
                        description="pods tolerate not-ready/unreachable NoExecute taints for 300 s"),
        AdmissionPlugin("Priority", "kbatch.apiserver.admission_plugins.priority:install",
                        description="spec.priorityClassName -> spec.priority and preemptionPolicy"),
        AdmissionPlugin("ResourceQuota", "kbatch.apiserver.admission_plugins.resource_quota:install",
                        description="refuses creates that would exceed a namespace's ResourceQuotas"),
        # kind's kubeadm ClusterConfiguration enables it (kube-apiserver alone does not); upstream runs
        # it after ServiceAccount, kbatch appends it (family order is append-only)
        AdmissionPlugin("NodeRestriction", "kbatch.apiserver.admission_plugins.node_restriction:install",
                        description="a kubelet (system:node:N) writes only its own Node, Lease and "
                                    "pods bound to it; no forbidden node labels"),
        # upstream runs it after DefaultStorageClass and before MutatingAdmissionPolicy; appended here
        # (the core family's order is append-only), which keeps it ahead of the policy family's plugins
        AdmissionPlugin("RuntimeClass", "kbatch.apiserver.admission_plugins.runtime_class:install",
                        description="spec.runtimeClassName -> spec.overhead, node selector and "
                                    "tolerations of the RuntimeClass; refuses unknown classes"),
    ),
    controllers=(
        ControllerSpec("garbage-collector", "deletes dependents whose owners are gone (ownerReferences)",
                       "kbatch.runtime.builtin.garbage_collector:setup",
                       aliases=("garbage-collector-controller", "garbagecollector"),
                       source="garbage-collector-controller", user=kcm_account("generic-garbage-collector")),
        ControllerSpec("podgc", "deletes terminated, orphaned and unscheduled terminating pods",
                       "kbatch.controllers.podgc:setup", aliases=("pod-garbage-collector-controller",),
                       source="pod-garbage-collector-controller", user=kcm_account("pod-garbage-collector")),
        ControllerSpec("node-lifecycle", "taints NotReady/unreachable nodes (node.kubernetes.io/not-ready)",
                       "kbatch.controllers.nodelifecycle:setup",
                       aliases=("node-lifecycle-controller", "nodelifecycle"), source="node-controller",
                       user=kcm_account("node-controller")),
        ControllerSpec("taint-eviction-controller", "evicts pods that do not tolerate NoExecute taints",
                       "kbatch.controllers.nodelifecycle:setup_taint_eviction",
                       # core.go startTaintEvictionController: the node-controller account
                       user=kcm_account("node-controller")),
        ControllerSpec("scheduler", "binds pending pods to nodes (simulated kube-scheduler)",
                       "kbatch.controllers.scheduler:setup", source="default-scheduler",
                       user="system:kube-scheduler", events=SCHEDULER_EVENTS),
        ControllerSpec("kubelet", "runs bound pods on simulated nodes (KWOK-style)",
                       "kbatch.controllers.kubelet:setup"),
        ControllerSpec("disruption",
                       "keeps PodDisruptionBudget status current, resets stale DisruptionTarget",
                       "kbatch.controllers.disruption:setup", aliases=("disruption-controller",),
                       source="controllermanager", user=kcm_account("disruption-controller")),
        ControllerSpec("resourcequota", "keeps ResourceQuota status.hard and status.used current",
                       "kbatch.controllers.resourcequota:setup", aliases=("resourcequota-controller",),
                       source="resourcequota-controller", user=kcm_account("resourcequota-controller")),
        ControllerSpec("ephemeral-volume", "creates the claims of pods' generic ephemeral volumes",
                       "kbatch.controllers.ephemeral:setup", aliases=("ephemeral-volume-controller",),
                       source="ephemeral_volume", user=kcm_account("ephemeral-volume-controller")),
        ControllerSpec("namespace", "deletes the content of terminating namespaces, then finalizes them",
                       "kbatch.controllers.namespace:setup", aliases=("namespace-controller",),
                       source="namespace-controller", user=kcm_account("namespace-controller")),
        ControllerSpec("serviceaccount", "keeps a `default` ServiceAccount in every active namespace",
                       "kbatch.controllers.serviceaccount:setup", aliases=("serviceaccount-controller",),
                       source="serviceaccount-controller", user=kcm_account("service-account-controller")),
        ControllerSpec("root-ca-cert-publisher", "keeps the kube-root-ca.crt ConfigMap in every namespace",
                       "kbatch.controllers.rootcacertpublisher:setup",
                       aliases=("root-ca-certificate-publisher-controller",),
                       source="root-ca-certificate-publisher-controller",
                       user=kcm_account("root-ca-cert-publisher")),
        ControllerSpec("serviceaccount-token", "fills legacy service-account token Secrets, deletes those of "
                       "deleted accounts", "kbatch.controllers.serviceaccount.tokens:setup",
                       aliases=("serviceaccount-token-controller",),
                       source="serviceaccount-token-controller",
                       # the manager's root client: the other accounts' tokens need this controller
                       user="system:kube-controller-manager"),
        # off by default: kube-controller-manager starts it only with --allocate-node-cidrs=true
        # (cmd/kube-controller-manager/app/core.go startNodeIpamController; kind sets it, kubeadm only
        # with a pod network CIDR); pod addresses cost memory (docs/simulation.md "Pod and node addresses")
        ControllerSpec("node-ipam-controller", "allocates each node's pod CIDR (spec.podCIDR)",
                       "kbatch.controllers.nodeipam:setup", enabled_by_default=False,
                       aliases=("nodeipam",), source="cidrAllocator",
                       user=kcm_account("node-controller")),
        # kube-controller-manager's default controllers (cmd/kube-controller-manager/app/
        # controller_descriptor.go): the Services' EndpointSlices and (deprecated) Endpoints, and the
        # EndpointSlices mirrored from the Endpoints of Services without a selector
        ControllerSpec("endpointslice", "keeps the EndpointSlices of Services with a selector",
                       "kbatch.controllers.endpointslice:setup", aliases=("endpointslice-controller",),
                       source="endpoint-slice-controller", user=kcm_account("endpointslice-controller")),
        ControllerSpec("endpoint", "keeps the (deprecated) Endpoints of Services with a selector",
                       "kbatch.controllers.endpoint:setup", aliases=("endpoints-controller",),
                       source="endpoint-controller", user=kcm_account("endpoint-controller")),
        ControllerSpec("endpointslicemirroring", "mirrors the Endpoints of Services without a selector "
                       "into EndpointSlices", "kbatch.controllers.endpointslicemirroring:setup",
                       aliases=("endpointslice-mirroring-controller",),
                       source="endpoint-slice-mirroring-controller",
                       user=kcm_account("endpointslicemirroring-controller")),
    ),
    scheduler_plugins=(
        _plugin("SchedulingGates", "scheduling_gates"),
        _plugin("PrioritySort", "priority_sort"),
        _plugin("NodeUnschedulable", "node_unschedulable"),
        _plugin("NodeName", "node_name"),
        _plugin("TaintToleration", "taint_toleration", 3),
        _plugin("NodeAffinity", "node_affinity", 2),
        _plugin("NodePorts", "node_ports"),
        _plugin("NodeResourcesFit", "node_resources_fit", 1),
        _plugin("VolumeBinding", "volume_binding"),
        _plugin("PodTopologySpread", "pod_topology_spread", 2),
        _plugin("InterPodAffinity", "inter_pod_affinity", 2),
        _plugin("DefaultPreemption", "default_preemption"),
        _plugin("NodeResourcesBalancedAllocation", "balanced_allocation", 1),
    ),
    feature_gates=(
        FeatureSpec(SCHEDULER_QUEUEING_HINTS, True, Stage.GA, source=_GATES + "SchedulerQueueingHints.md"),
        FeatureSpec(SCHEDULER_POP_FROM_BACKOFF_Q, True, Stage.BETA,
                    source=_GATES + "SchedulerPopFromBackoffQ.md"),
        # KEP-4960 lifecycle.stopSignal, read by the simulated kubelet (kbatch.sim.signals)
        FeatureSpec("ContainerStopSignals", False, Stage.ALPHA, source=_GATES + "ContainerStopSignals.md"),
        # KEP-5307 a container's own restartPolicy/restartPolicyRules, regular and init containers
        # (kbatch.api.gates, container_validation, the simulated kubelet's restart decision);
        # kube_features.go: 1.34 alpha off, 1.35 beta on; no GA found for 1.37
        FeatureSpec("ContainerRestartRules", True, Stage.BETA, source=_GATES + "ContainerRestartRules.md"),
        # KEP-5532 the RestartAllContainers action (1.35 alpha, 1.36 beta on by default,
        # kubernetes/kubernetes#136681; kep.yaml targets stable 1.37, no GA found): validation
        # (kbatch.api.gates.restart_all_allowed) and the kubelet's in-place restart (docs/simulation.md)
        FeatureSpec("RestartAllContainersOnContainerExits", True, Stage.BETA,
                    source=_GATES + "RestartAllContainersOnContainerExits.md"),
        # KEP-4412: NodeRestriction limits a node's TokenRequest audiences
        # (kbatch.apiserver.admission_plugins.node_token_audience)
        FeatureSpec("ServiceAccountNodeAudienceRestriction", True, Stage.BETA,
                    source=_GATES + "ServiceAccountNodeAudienceRestriction.md"),
    ),
)
