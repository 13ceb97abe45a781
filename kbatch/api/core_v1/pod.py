"""core/v1 Pod, PodSpec, PodStatus and PodTemplateSpec (k8s.io/api ``core/v1/types.go``).

``PodTemplateSpec`` is what workload kinds (Job, JobSet, ...) embed. Status types carry the
container states the simulated kubelet writes (waiting / running / terminated with exit codes).
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo, KubeModel, Time
from kbatch.api.core_v1.affinity import Affinity, TopologySpreadConstraint
from kbatch.api.core_v1.common import (
    LocalObjectReference,
    ResourceList,
    ResourceRequirements,
    Toleration,
)
from kbatch.api.core_v1.container import (
    AppArmorProfile,
    Container,
    EphemeralContainer,
    SeccompProfile,
    SELinuxOptions,
    WindowsSecurityContextOptions,
)
from kbatch.api.core_v1.volume import Volume
from kbatch.api.meta import ObjectMeta, Resource

__all__ = [
    "ContainerExtendedResourceRequest",
    "ContainerState",
    "ContainerStateRunning",
    "ContainerStateTerminated",
    "ContainerStateWaiting",
    "ContainerStatus",
    "ContainerUser",
    "HostAlias",
    "HostIP",
    "LinuxContainerUser",
    "Pod",
    "PodCondition",
    "PodDNSConfig",
    "PodDNSConfigOption",
    "PodExtendedResourceClaimStatus",
    "PodIP",
    "PodOS",
    "PodReadinessGate",
    "PodResourceClaim",
    "PodResourceClaimStatus",
    "PodSchedulingGate",
    "PodSchedulingGroup",
    "PodSecurityContext",
    "PodSpec",
    "PodStatus",
    "PodTemplateSpec",
    "ResourceHealth",
    "ResourceStatus",
    "Sysctl",
    "VolumeMountStatus",
]


class Sysctl(KubeModel):
    name: str = ""
    value: str = ""


class PodSecurityContext(KubeModel):
    se_linux_options: SELinuxOptions | None = None
    windows_options: WindowsSecurityContextOptions | None = None
    run_as_user: int | None = None
    run_as_group: int | None = None
    run_as_non_root: bool | None = None
    supplemental_groups: list[int] | None = None
    supplemental_groups_policy: str | None = None
    fs_group: int | None = None
    sysctls: list[Sysctl] | None = None
    fs_group_change_policy: str | None = None
    seccomp_profile: SeccompProfile | None = None
    app_armor_profile: AppArmorProfile | None = None
    se_linux_change_policy: str | None = None


class HostAlias(KubeModel):
    ip: str = ""
    hostnames: list[str] | None = None


class PodDNSConfigOption(KubeModel):
    name: str | None = None
    value: str | None = None


class PodDNSConfig(KubeModel):
    nameservers: list[str] | None = None
    searches: list[str] | None = None
    options: list[PodDNSConfigOption] | None = None


class PodReadinessGate(KubeModel):
    condition_type: str = ""


class PodOS(KubeModel):
    name: str = ""


class PodSchedulingGate(KubeModel):
    name: str = ""


class PodSchedulingGroup(KubeModel):
    """``spec.schedulingGroup``: the PodGroup (scheduling.k8s.io, same namespace) the pod belongs to;
    immutable; dropped on create while the GenericWorkload gate is off (KEP-4671)."""

    pod_group_name: str | None = None


class PodResourceClaim(KubeModel):
    name: str = ""
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None


class PodSpec(KubeModel):
    volumes: list[Volume] | None = None
    init_containers: list[Container] | None = None
    containers: list[Container] = Field(default_factory=list)
    ephemeral_containers: list[EphemeralContainer] | None = None
    restart_policy: str | None = None  # Always | OnFailure | Never
    termination_grace_period_seconds: int | None = None
    active_deadline_seconds: int | None = None
    dns_policy: str | None = None
    node_selector: dict[str, str] | None = None
    service_account_name: str | None = None
    service_account: str | None = None  # deprecated alias of serviceAccountName
    automount_service_account_token: bool | None = None
    node_name: str | None = None
    host_network: bool | None = None
    host_pid: bool | None = Field(default=None, alias="hostPID")
    host_ipc: bool | None = Field(default=None, alias="hostIPC")
    share_process_namespace: bool | None = None
    security_context: PodSecurityContext | None = None
    image_pull_secrets: list[LocalObjectReference] | None = None
    hostname: str | None = None
    subdomain: str | None = None
    affinity: Affinity | None = None
    scheduler_name: str | None = None
    tolerations: list[Toleration] | None = None
    host_aliases: list[HostAlias] | None = None
    priority_class_name: str | None = None
    priority: int | None = None
    dns_config: PodDNSConfig | None = None
    readiness_gates: list[PodReadinessGate] | None = None
    runtime_class_name: str | None = None
    enable_service_links: bool | None = None
    preemption_policy: str | None = None  # PreemptLowerPriority | Never
    overhead: ResourceList | None = None
    topology_spread_constraints: list[TopologySpreadConstraint] | None = None
    set_hostname_as_fqdn: bool | None = Field(default=None, alias="setHostnameAsFQDN")
    os: PodOS | None = None
    host_users: bool | None = None
    scheduling_gates: list[PodSchedulingGate] | None = None
    resource_claims: list[PodResourceClaim] | None = None
    resources: ResourceRequirements | None = None
    hostname_override: str | None = None
    scheduling_group: PodSchedulingGroup | None = None

    def all_containers(self) -> list[Container]:
        """Init containers then regular containers (ephemeral ones excluded)."""
        return [*(self.init_containers or ()), *self.containers]


class PodTemplateSpec(KubeModel):
    """Metadata and spec of the pods a workload creates (absent metadata stays absent)."""

    metadata: ObjectMeta | None = None
    spec: PodSpec = Field(default_factory=PodSpec)


# --- status -----------------------------------------------------------------------------------


class PodCondition(KubeModel):
    type: str = ""
    observed_generation: int | None = None
    status: str = ""
    last_probe_time: Time | None = None
    last_transition_time: Time | None = None
    reason: str | None = None
    message: str | None = None


class ContainerStateWaiting(KubeModel):
    reason: str | None = None
    message: str | None = None


class ContainerStateRunning(KubeModel):
    started_at: Time | None = None


class ContainerStateTerminated(KubeModel):
    exit_code: int = 0
    signal: int | None = None
    reason: str | None = None
    message: str | None = None
    started_at: Time | None = None
    finished_at: Time | None = None
    container_id: str | None = Field(default=None, alias="containerID")


class ContainerState(KubeModel):
    waiting: ContainerStateWaiting | None = None
    running: ContainerStateRunning | None = None
    terminated: ContainerStateTerminated | None = None


class VolumeMountStatus(KubeModel):
    name: str = ""
    mount_path: str = ""
    read_only: bool | None = None
    recursive_read_only: str | None = None


class LinuxContainerUser(KubeModel):
    uid: int = 0
    gid: int = 0
    supplemental_groups: list[int] | None = None


class ContainerUser(KubeModel):
    linux: LinuxContainerUser | None = None


class ResourceHealth(KubeModel):
    resource_id: str = Field(default="", alias="resourceID")
    health: str | None = None


class ResourceStatus(KubeModel):
    name: str = ""
    resources: list[ResourceHealth] | None = None


class ContainerStatus(KubeModel):
    name: str = ""
    state: ContainerState | None = None
    last_state: ContainerState | None = None
    ready: bool = False
    restart_count: int = 0
    image: str = ""
    image_id: str = Field(default="", alias="imageID")
    container_id: str | None = Field(default=None, alias="containerID")
    started: bool | None = None
    allocated_resources: ResourceList | None = None
    resources: ResourceRequirements | None = None
    volume_mounts: list[VolumeMountStatus] | None = None
    user: ContainerUser | None = None
    allocated_resources_status: list[ResourceStatus] | None = None
    stop_signal: str | None = None


class HostIP(KubeModel):
    ip: str = ""


class PodIP(KubeModel):
    # one pod's address while it runs: interned by its string only (api/model_intern.py)
    intern_identified_by: ClassVar[tuple[str, ...]] = ("ip",)

    ip: str = ""


class PodResourceClaimStatus(KubeModel):
    name: str = ""
    resource_claim_name: str | None = None


class ContainerExtendedResourceRequest(KubeModel):
    container_name: str = ""
    resource_name: str = ""
    request_name: str = ""


class PodExtendedResourceClaimStatus(KubeModel):
    request_mappings: list[ContainerExtendedResourceRequest] | None = None
    resource_claim_name: str = ""


class PodStatus(KubeModel):
    # a status with an address belongs to one pod: interned by parts only (api/model_intern.py)
    intern_identified_by: ClassVar[tuple[str, ...]] = ("pod_ip",)

    observed_generation: int | None = None
    phase: str | None = None  # Pending | Running | Succeeded | Failed | Unknown
    conditions: list[PodCondition] | None = None
    message: str | None = None
    reason: str | None = None
    nominated_node_name: str | None = None
    host_ip: str | None = Field(default=None, alias="hostIP")
    host_ips: list[HostIP] | None = Field(default=None, alias="hostIPs")
    pod_ip: str | None = Field(default=None, alias="podIP")
    pod_ips: list[PodIP] | None = Field(default=None, alias="podIPs")
    start_time: Time | None = None
    init_container_statuses: list[ContainerStatus] | None = None
    container_statuses: list[ContainerStatus] | None = None
    qos_class: str | None = None
    ephemeral_container_statuses: list[ContainerStatus] | None = None
    resize: str | None = None
    resource_claim_statuses: list[PodResourceClaimStatus] | None = None
    extended_resource_claim_status: PodExtendedResourceClaimStatus | None = None

    def condition(self, type_: str) -> PodCondition | None:
        for cond in self.conditions or ():
            if cond.type == type_:
                return cond
        return None


class Pod(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="", version="v1", kind="Pod", plural="pods", namespaced=True,
        short_names=("po",), singular="pod", categories=("all",), subresources=("status",),
    )

    spec: PodSpec = Field(default_factory=PodSpec)
    status: PodStatus | None = None
