"""core/v1 Container and what it is made of: env, ports, mounts, probes, lifecycle, security.

Upstream: k8s.io/api ``core/v1/types.go`` (Container, EnvVar, ContainerPort, VolumeMount, Probe,
Lifecycle, SecurityContext). Probes and lifecycle hooks are modelled so that manifests round-trip;
the simulated kubelet does not run them.
"""

from __future__ import annotations

from pydantic import Field

from kbatch.api.base import KubeModel
from kbatch.api.core_v1.common import IntOrString, ResourceRequirements
from kbatch.api.quantity import Quantity

__all__ = [
    "AppArmorProfile",
    "Capabilities",
    "ConfigMapEnvSource",
    "ConfigMapKeySelector",
    "Container",
    "ContainerPort",
    "ContainerResizePolicy",
    "ContainerRestartRule",
    "ContainerRestartRuleOnExitCodes",
    "EnvFromSource",
    "EnvVar",
    "EnvVarSource",
    "EphemeralContainer",
    "ExecAction",
    "FileKeySelector",
    "GRPCAction",
    "HTTPGetAction",
    "HTTPHeader",
    "Lifecycle",
    "LifecycleHandler",
    "ObjectFieldSelector",
    "Probe",
    "ResourceFieldSelector",
    "SELinuxOptions",
    "SeccompProfile",
    "SecretEnvSource",
    "SecretKeySelector",
    "SecurityContext",
    "SleepAction",
    "TCPSocketAction",
    "VolumeDevice",
    "VolumeMount",
    "WindowsSecurityContextOptions",
]


class ObjectFieldSelector(KubeModel):
    api_version: str | None = None
    field_path: str = ""


class ResourceFieldSelector(KubeModel):
    container_name: str | None = None
    resource: str = ""
    divisor: Quantity | None = None


class ConfigMapKeySelector(KubeModel):
    name: str | None = None
    key: str = ""
    optional: bool | None = None


class SecretKeySelector(KubeModel):
    name: str | None = None
    key: str = ""
    optional: bool | None = None


class FileKeySelector(KubeModel):
    volume_name: str = ""
    path: str = ""
    key: str = ""
    optional: bool | None = None


class EnvVarSource(KubeModel):
    field_ref: ObjectFieldSelector | None = None
    resource_field_ref: ResourceFieldSelector | None = None
    config_map_key_ref: ConfigMapKeySelector | None = None
    secret_key_ref: SecretKeySelector | None = None
    file_key_ref: FileKeySelector | None = None


class EnvVar(KubeModel):
    name: str = ""
    value: str | None = None
    value_from: EnvVarSource | None = None


class ConfigMapEnvSource(KubeModel):
    name: str | None = None
    optional: bool | None = None


class SecretEnvSource(KubeModel):
    name: str | None = None
    optional: bool | None = None


class EnvFromSource(KubeModel):
    prefix: str | None = None
    config_map_ref: ConfigMapEnvSource | None = None
    secret_ref: SecretEnvSource | None = None


class ContainerPort(KubeModel):
    name: str | None = None
    host_port: int | None = None
    container_port: int = 0
    protocol: str | None = None  # TCP | UDP | SCTP (defaulted to TCP)
    host_ip: str | None = Field(default=None, alias="hostIP")


class VolumeMount(KubeModel):
    name: str = ""
    read_only: bool | None = None
    recursive_read_only: str | None = None
    mount_path: str = ""
    sub_path: str | None = None
    mount_propagation: str | None = None
    sub_path_expr: str | None = None


class VolumeDevice(KubeModel):
    name: str = ""
    device_path: str = ""


class ExecAction(KubeModel):
    command: list[str] | None = None


class HTTPHeader(KubeModel):
    name: str = ""
    value: str = ""


class HTTPGetAction(KubeModel):
    path: str | None = None
    port: IntOrString = 0
    host: str | None = None
    scheme: str | None = None
    http_headers: list[HTTPHeader] | None = None


class TCPSocketAction(KubeModel):
    port: IntOrString = 0
    host: str | None = None


class GRPCAction(KubeModel):
    port: int = 0
    service: str | None = None


class SleepAction(KubeModel):
    seconds: int = 0


class Probe(KubeModel):
    exec: ExecAction | None = None
    http_get: HTTPGetAction | None = None
    tcp_socket: TCPSocketAction | None = None
    grpc: GRPCAction | None = None
    initial_delay_seconds: int | None = None
    timeout_seconds: int | None = None
    period_seconds: int | None = None
    success_threshold: int | None = None
    failure_threshold: int | None = None
    termination_grace_period_seconds: int | None = None


class LifecycleHandler(KubeModel):
    exec: ExecAction | None = None
    http_get: HTTPGetAction | None = None
    tcp_socket: TCPSocketAction | None = None
    sleep: SleepAction | None = None


class Lifecycle(KubeModel):
    post_start: LifecycleHandler | None = None
    pre_stop: LifecycleHandler | None = None
    stop_signal: str | None = None


class Capabilities(KubeModel):
    add: list[str] | None = None
    drop: list[str] | None = None


class SELinuxOptions(KubeModel):
    user: str | None = None
    role: str | None = None
    type: str | None = None
    level: str | None = None


class WindowsSecurityContextOptions(KubeModel):
    gmsa_credential_spec_name: str | None = None
    gmsa_credential_spec: str | None = None
    run_as_user_name: str | None = None
    host_process: bool | None = None


class SeccompProfile(KubeModel):
    type: str = ""
    localhost_profile: str | None = None


class AppArmorProfile(KubeModel):
    type: str = ""
    localhost_profile: str | None = None


class SecurityContext(KubeModel):
    capabilities: Capabilities | None = None
    privileged: bool | None = None
    se_linux_options: SELinuxOptions | None = None
    windows_options: WindowsSecurityContextOptions | None = None
    run_as_user: int | None = None
    run_as_group: int | None = None
    run_as_non_root: bool | None = None
    read_only_root_filesystem: bool | None = None
    allow_privilege_escalation: bool | None = None
    proc_mount: str | None = None
    seccomp_profile: SeccompProfile | None = None
    app_armor_profile: AppArmorProfile | None = None


class ContainerResizePolicy(KubeModel):
    resource_name: str = ""
    restart_policy: str = ""


class ContainerRestartRuleOnExitCodes(KubeModel):
    operator: str = ""  # In | NotIn
    values: list[int] | None = None


class ContainerRestartRule(KubeModel):
    action: str = ""  # Restart
    exit_codes: ContainerRestartRuleOnExitCodes | None = None


class Container(KubeModel):
    """One container of a pod; ``restartPolicy: Always`` on an init container makes it a sidecar."""

    name: str = ""
    image: str | None = None
    command: list[str] | None = None
    args: list[str] | None = None
    working_dir: str | None = None
    ports: list[ContainerPort] | None = None
    env_from: list[EnvFromSource] | None = None
    env: list[EnvVar] | None = None
    resources: ResourceRequirements | None = None
    resize_policy: list[ContainerResizePolicy] | None = None
    restart_policy: str | None = None
    restart_policy_rules: list[ContainerRestartRule] | None = None
    volume_mounts: list[VolumeMount] | None = None
    volume_devices: list[VolumeDevice] | None = None
    liveness_probe: Probe | None = None
    readiness_probe: Probe | None = None
    startup_probe: Probe | None = None
    lifecycle: Lifecycle | None = None
    termination_message_path: str | None = None
    termination_message_policy: str | None = None
    image_pull_policy: str | None = None
    security_context: SecurityContext | None = None
    stdin: bool | None = None
    stdin_once: bool | None = None
    tty: bool | None = None


class EphemeralContainer(Container):
    target_container_name: str | None = None
