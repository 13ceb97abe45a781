"""The Kueue Configuration's sections about the manager process, decoded strictly.

Upstream: kubernetes-sigs/kueue v0.19.2 ``apis/config/v1beta2/configuration_types.go``
(``ControllerManager``'s ``ControllerWebhook``, ``ControllerHealth``, ``ControllerConfigurationSpec``,
``TLSOptions``; ``InternalCertManagement``, ``ClientConnection``, ``MultiKueue`` with
``MultiKueueExternalFramework``, ``ClusterProfile``, ``ClusterProfileAccessProvider`` and
``IncrementalDispatcherConfig``, ``VisibilityServerConfiguration``), ``deprecated_types.go``
(``credentialsProviders``: the access-provider type under its old name),
``apis/config/v1beta1/configuration_types.go`` (``QueueVisibility``, ``ClusterQueueVisibility``,
``PodIntegrationOptions``), k8s.io/component-base ``config/v1alpha1/types.go``
(``LeaderElectionConfiguration``) and k8s.io/client-go ``tools/clientcmd/api/types.go``
(``ExecConfig``, ``ExecEnvVar``; ``Config``, ``StdinUnavailable`` and ``StdinUnavailableMessage`` are
``json:"-"``, so no field of the file).

kbatch runs none of this (no webhook server, leader election, TLS, client connection, pprof or
visibility server); it decodes these sections only so a file Kueue's manager refuses
(``pkg/config/config.go`` ``fromFile``: ``serializer.EnableStrict``) is refused here too, with the
same ``unknown field "<path>"``, and a value of a Go type the field does not have is refused before
validation, in the decoder's words (:mod:`kbatch.api.go_unmarshal`). The Go types are kept
(:mod:`kbatch.api.gotypes`, as for the sections kbatch acts on, and named with
:class:`~kbatch.api.gotypes.GoType` where Python's cannot say them): ``int32`` fields are
range-checked integers, ``int`` / ``int64`` (``webhook.port``, ``controller.groupKindConcurrency``,
and ``controller.cacheSyncTimeout``, a ``time.Duration``: nanoseconds, a number) are integers,
``float32`` numbers, ``bool`` booleans, ``metav1.Duration`` strings parsed as the decoder parses
them (:data:`kbatch.api.gotypes.Duration`; ``leaderElection``'s are values, ``multiKueue``'s
pointers). :data:`V1BETA1_ONLY` and :data:`V1BETA2_ONLY` name the fields one version has and the
other does not, :data:`V1BETA1_POINTERS` the ``metav1.Duration`` v1beta1 declares as a pointer and
v1beta2 not.
"""

from __future__ import annotations

from typing import Annotated, ClassVar

from kbatch.api.base import KubeModel
from kbatch.api.gotypes import Bool, Duration, DurationPtr, Float32, GoType, Int, Int32, Int64
from kbatch.api.meta import LabelSelector

__all__ = [
    "V1BETA1_ONLY",
    "V1BETA1_POINTERS",
    "V1BETA2_ONLY",
    "ClientConnection",
    "ControllerConfigurationSpec",
    "ControllerHealth",
    "ControllerWebhook",
    "InternalCertManagement",
    "LeaderElectionConfiguration",
    "MultiKueue",
    "PodIntegrationOptions",
    "QueueVisibility",
    "TLSOptions",
    "VisibilityServerConfiguration",
]

class ControllerWebhook(KubeModel):
    port: Int | None = None
    host: str | None = None
    cert_dir: str | None = None


class LeaderElectionConfiguration(KubeModel):
    """component-base ``config/v1alpha1.LeaderElectionConfiguration``."""

    go_type: ClassVar[GoType] = GoType("LeaderElectionConfiguration", "v1alpha1")
    leader_elect: Bool | None = None
    lease_duration: Duration | None = None
    renew_deadline: Duration | None = None
    retry_period: Duration | None = None
    resource_lock: str | None = None
    resource_name: str | None = None
    resource_namespace: str | None = None


class ControllerHealth(KubeModel):
    health_probe_bind_address: str | None = None
    readiness_endpoint_name: str | None = None
    liveness_endpoint_name: str | None = None


class ControllerConfigurationSpec(KubeModel):
    group_kind_concurrency: dict[str, Int] | None = None
    cache_sync_timeout: Annotated[Int64, GoType("Duration", "time")] | None = None  # nanoseconds


class TLSOptions(KubeModel):
    min_version: str | None = None
    cipher_suites: list[str] | None = None
    curve_preferences: list[Int32] | None = None


class InternalCertManagement(KubeModel):
    enable: Bool | None = None
    webhook_service_name: str | None = None
    webhook_secret_name: str | None = None


class ClientConnection(KubeModel):
    """Kueue's own ``ClientConnection`` (not component-base's)."""

    qps: Float32 | None = None
    burst: Int32 | None = None


class ExecEnvVar(KubeModel):
    go_type: ClassVar[GoType] = GoType("ExecEnvVar", "api")

    name: str | None = None
    value: str | None = None


class ExecConfig(KubeModel):
    """client-go ``clientcmdapi.ExecConfig`` as its json tags name it."""

    go_type: ClassVar[GoType] = GoType("ExecConfig", "api")
    command: str | None = None
    args: list[str] | None = None
    env: list[ExecEnvVar] | None = None
    api_version: str | None = None
    install_hint: str | None = None
    provide_cluster_info: Bool | None = None
    interactive_mode: Annotated[str, GoType("ExecInteractiveMode", "api")] | None = None


class ClusterProfileAccessProvider(KubeModel):
    name: str | None = None
    exec_config: ExecConfig | None = None


class ClusterProfile(KubeModel):  # v1beta2 only
    access_providers: list[ClusterProfileAccessProvider] | None = None
    credentials_providers: list[ClusterProfileAccessProvider] | None = None


class IncrementalDispatcherConfig(KubeModel):  # v1beta2 only
    step_size: Int32 | None = None


class MultiKueueExternalFramework(KubeModel):
    name: str | None = None


class MultiKueue(KubeModel):
    gc_interval: DurationPtr | None = None
    origin: str | None = None
    worker_lost_timeout: DurationPtr | None = None
    dispatcher_name: str | None = None
    external_frameworks: list[MultiKueueExternalFramework] | None = None
    cluster_profile: ClusterProfile | None = None  # v1beta2 only
    incremental_dispatcher_config: IncrementalDispatcherConfig | None = None  # v1beta2 only


class VisibilityServerConfiguration(KubeModel):  # v1beta2 only
    bind_address: str | None = None
    bind_port: Int32 | None = None


class ClusterQueueVisibility(KubeModel):  # v1beta1 only
    max_count: Int32 | None = None


class QueueVisibility(KubeModel):  # v1beta1 only
    cluster_queues: ClusterQueueVisibility | None = None
    update_interval_seconds: Int32 | None = None


class PodIntegrationOptions(KubeModel):  # v1beta1 only (integrations.podOptions)
    namespace_selector: LabelSelector | None = None
    pod_selector: LabelSelector | None = None


# Fields one version declares and the other does not; ``*`` is every item of a list. v1beta1's
# ``Configuration`` has no ``visibilityServer``, its ``MultiKueue`` no ``clusterProfile`` nor
# ``incrementalDispatcherConfig``, its ``Resources`` no ``quotaCheckStrategy``, its
# ``DeviceClassMapping`` no ``sources``, its ``ControllerMetricsCustomLabel`` no ``sourceKind`` nor
# ``trackedValues``; v1beta2 dropped
# ``waitForPodsReady.enable``, ``fairSharing.enable``, ``integrations.podOptions`` and
# ``queueVisibility`` (configuration_types.go of each version).
V1BETA1_ONLY: tuple[tuple[str, ...], ...] = (
    ("waitForPodsReady", "enable"),
    ("fairSharing", "enable"),
    ("integrations", "podOptions"),
    ("queueVisibility",),
)
V1BETA2_ONLY: tuple[tuple[str, ...], ...] = (
    ("visibilityServer",),
    ("multiKueue", "clusterProfile"),
    ("multiKueue", "incrementalDispatcherConfig"),
    ("resources", "quotaCheckStrategy"),
    ("resources", "deviceClassMappings", "*", "sources"),
    ("metrics", "customLabels", "*", "sourceKind"),
    ("metrics", "customLabels", "*", "trackedValues"),
)
# ``waitForPodsReady.timeout`` is a ``*metav1.Duration`` in v1beta1, a ``metav1.Duration`` in v1beta2
# (configuration_types.go of each): ``null`` unsets the first (then defaulted) and is
# ``time: invalid duration ""`` for the second
V1BETA1_POINTERS: tuple[tuple[str, ...], ...] = (("waitForPodsReady", "timeout"),)
