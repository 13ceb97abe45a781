"""Kueue's component configuration: ``config.kueue.x-k8s.io`` ``Configuration`` (v1beta2; v1beta1 accepted).

Upstream: kubernetes-sigs/kueue ``apis/config/v1beta2/{configuration_types,defaults}.go``,
``apis/config/v1beta1/{defaults,configuration_conversion}.go`` and ``pkg/config/validation.go`` at
v0.19.2. Decoding is strict (unknown fields are errors, as Kueue's ``EnableStrict`` codec, and
v1beta1's fields are unknown to a v1beta2 file) and every field has its Go type
(:mod:`kbatch.api.gotypes`: ``"true"`` is no ``bool``, ``"5"`` or ``3.5`` no ``int32``, a string
no ``float64``), a value of another JSON type refused before validation, as Go's decoder refuses it
(``UnmarshalTypeError``); a v1beta1 file is defaulted as v1beta1 and
converted (``waitForPodsReady.enable`` / ``fairSharing.enable`` false → the feature off); a
v1beta2 file gets v1beta2's defaults, under which waitForPodsReady is on (30m timeout and recovery
timeout) unless the ``DisableWaitForPodsReady`` gate is on; a v1beta1
``waitForPodsReady.enable`` without a timeout gets v1beta1's 5m.

The fields kbatch acts on are modelled; the ones about the manager process (webhook server,
leader election, TLS, client connection, MultiKueue, visibility server, internal certs) are decoded
as strictly (:mod:`kbatch.api.kueue_config_process`) though not acted on, the rules Kueue's manager
applies to some of them checked by :mod:`kbatch.api.kueue_config_checks`. :func:`load` returns a
:class:`KueueConfig`, the settled values the manager and the webhooks read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import ValidationError

from kbatch.api.base import KubeModel, wire_validate
from kbatch.api.cron import go_duration_seconds
from kbatch.api.errors import BadRequest, FieldError, Invalid
from kbatch.api.go_unmarshal import declared_type_error, marshalled_numbers
from kbatch.api.gonull import resolve_nulls
from kbatch.api.gotypes import (
    GO_DECODE,
    Bool,
    Duration,
    DurationPtr,
    Float64,
    GoQuantity,
    GoType,
    Int32,
    ResourceName,
)
from kbatch.api.kueue_config_checks import (
    external_framework_errors,
    internal_cert_errors,
    multikueue_errors,
    transformation_input_errors,
    visibility_server_errors,
)
from kbatch.api.kueue_config_dra import DeviceClassMapping, DeviceClassMappingModel, device_class_mappings
from kbatch.api.kueue_config_metrics import ControllerMetrics, custom_label_errors
from kbatch.api.kueue_config_process import (
    V1BETA1_ONLY,
    V1BETA1_POINTERS,
    V1BETA2_ONLY,
    ClientConnection,
    ControllerConfigurationSpec,
    ControllerHealth,
    ControllerWebhook,
    InternalCertManagement,
    LeaderElectionConfiguration,
    MultiKueue,
    PodIntegrationOptions,
    QueueVisibility,
    TLSOptions,
    VisibilityServerConfiguration,
)
from kbatch.api.meta import LabelSelector, LabelSelectorRequirement
from kbatch.api.selectors import Selector, selector_from_model
from kbatch.api.validation import validate_label_selector

__all__ = [
    "DEFAULT_FRAMEWORKS",
    "SHIPPED_FRAMEWORKS",
    "AdmissionFairSharingConfig",
    "KueueConfig",
    "WaitForPodsReadyConfig",
    "load",
    "shipped",
]

GROUP = "config.kueue.x-k8s.io"
DEFAULT_NAMESPACE = "kueue-system"
DEFAULT_FRAMEWORKS = ("batch/job",)  # the API default (apis/config/v1beta2/defaults.go)
# config/components/manager/controller_manager_config.yaml: what a Kueue installation runs with
SHIPPED_FRAMEWORKS = (
    "batch/job",
    "kubeflow.org/mpijob",
    "ray.io/rayjob",
    "ray.io/raycluster",
    "ray.io/rayservice",
    "jobset.x-k8s.io/jobset",
    "workload.codeflare.dev/appwrapper",
    "trainer.kubeflow.org/trainjob",
    "pod",
    "deployment",
    "statefulset",
    "leaderworkerset.x-k8s.io/leaderworkerset",
)
KNOWN_FRAMEWORKS = (
    *SHIPPED_FRAMEWORKS,
    "kubeflow.org/paddlejob",
    "kubeflow.org/pytorchjob",
    "kubeflow.org/tfjob",
    "kubeflow.org/xgboostjob",
    "kubeflow.org/jaxjob",
    "sparkoperator.k8s.io/sparkapplication",
)
VALID_STRATEGY_SETS = (
    ("LessThanOrEqualToFinalShare",),
    ("LessThanInitialShare",),
    ("LessThanOrEqualToFinalShare", "LessThanInitialShare"),
)


# --- wire models -------------------------------------------------------------------------------


class RequeuingStrategy(KubeModel):
    timestamp: Annotated[str, GoType("RequeuingTimestamp")] | None = None
    backoff_limit_count: Int32 | None = None
    backoff_base_seconds: Int32 | None = None
    backoff_max_seconds: Int32 | None = None


class WaitForPodsReady(KubeModel):
    enable: Bool | None = None  # v1beta1 only
    timeout: Duration | None = None  # v1beta1: a pointer (V1BETA1_POINTERS)
    block_admission: Bool | None = None
    requeuing_strategy: RequeuingStrategy | None = None
    recovery_timeout: DurationPtr | None = None


class Integrations(KubeModel):
    frameworks: list[str] | None = None
    external_frameworks: list[str] | None = None
    label_keys_to_copy: list[str] | None = None
    pod_options: PodIntegrationOptions | None = None  # v1beta1 only


class FairSharing(KubeModel):
    enable: Bool | None = None  # v1beta1 only
    preemption_strategies: list[Annotated[str, GoType("PreemptionStrategy")]] | None = None


class AdmissionFairSharing(KubeModel):
    usage_half_life_time: Duration | None = None
    usage_sampling_interval: Duration | None = None
    resource_weights: dict[ResourceName, Float64] | None = None


class ResourceTransformation(KubeModel):
    input: ResourceName = ""  # absent decodes as "", which validation does not refuse
    strategy: Annotated[str, GoType("ResourceTransformationStrategy")] | None = None
    multiply_by: ResourceName | None = None
    outputs: Annotated[dict[str, GoQuantity], GoType("ResourceList", "v1")] | None = None


class Resources(KubeModel):
    quota_check_strategy: Annotated[str, GoType("QuotaCheckStrategy")] | None = None
    exclude_resource_prefixes: list[str] | None = None
    transformations: list[ResourceTransformation] | None = None
    device_class_mappings: list[DeviceClassMappingModel] | None = None


class WorkloadRetentionPolicy(KubeModel):
    after_finished: DurationPtr | None = None
    after_deactivated_by_kueue: DurationPtr | None = None


class ObjectRetentionPolicies(KubeModel):
    workloads: WorkloadRetentionPolicy | None = None


class Configuration(KubeModel):
    api_version: str | None = None
    kind: str | None = None
    namespace: str | None = None
    manage_jobs_without_queue_name: Bool | None = None
    managed_jobs_namespace_selector: LabelSelector | None = None
    wait_for_pods_ready: WaitForPodsReady | None = None
    integrations: Integrations | None = None
    fair_sharing: FairSharing | None = None
    admission_fair_sharing: AdmissionFairSharing | None = None
    resources: Resources | None = None
    feature_gates: dict[str, Bool] | None = None
    object_retention_policies: ObjectRetentionPolicies | None = None
    metrics: ControllerMetrics | None = None  # acted on (kueue_config_metrics)
    # the manager process's settings: decoded strictly, not acted on (kueue_config_process)
    webhook: ControllerWebhook | None = None
    leader_election: LeaderElectionConfiguration | None = None
    health: ControllerHealth | None = None
    pprof_bind_address: str | None = None
    controller: ControllerConfigurationSpec | None = None
    tls: TLSOptions | None = None
    internal_cert_management: InternalCertManagement | None = None
    client_connection: ClientConnection | None = None
    multi_kueue: MultiKueue | None = None
    visibility_server: VisibilityServerConfiguration | None = None  # v1beta2 only
    queue_visibility: QueueVisibility | None = None  # v1beta1 only


# --- settled values ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WaitForPodsReadyConfig:
    timeout: float
    recovery_timeout: float | None  # None: disabled ("0s")
    block_admission: bool
    requeuing_timestamp: str  # Eviction | Creation
    backoff_limit_count: int | None
    backoff_base_seconds: int
    backoff_max_seconds: int


@dataclass(frozen=True, slots=True)
class AdmissionFairSharingConfig:
    usage_half_life_time: float
    usage_sampling_interval: float
    resource_weights: Mapping[str, float]


@dataclass(frozen=True, slots=True)
class KueueConfig:
    """What the Kueue manager and webhooks act on (defaults applied, validated)."""

    api_version: str = f"{GROUP}/v1beta2"
    namespace: str = DEFAULT_NAMESPACE
    manage_jobs_without_queue_name: bool = False
    managed_jobs_namespace_selector: LabelSelector | None = None
    wait_for_pods_ready: WaitForPodsReadyConfig | None = None
    frameworks: tuple[str, ...] = DEFAULT_FRAMEWORKS
    label_keys_to_copy: tuple[str, ...] = ()
    fair_sharing_strategies: tuple[str, ...] | None = None  # None: fair sharing off
    admission_fair_sharing: AdmissionFairSharingConfig | None = None
    quota_check_strategy: str = "BlockUndeclared"
    exclude_resource_prefixes: tuple[str, ...] = ()
    transformations: tuple[ResourceTransformation, ...] = ()
    device_class_mappings: tuple[DeviceClassMapping, ...] = ()
    feature_gates: Mapping[str, bool] = field(default_factory=dict)
    retention_after_finished: float | None = None
    retention_after_deactivated: float | None = None
    # ``metrics`` as decoded (``ControllerMetrics``: ``enableClusterQueueResources``,
    # ``localQueueMetrics``, ``customLabels`` checked by kueue_config_metrics), read by
    # kbatch.controllers.kueue.metrics; the rest of it is the process's
    metrics: Mapping[str, Any] = field(default_factory=dict)
    # ``multiKueue`` as given (gcInterval, origin, workerLostTimeout, dispatcherName), settled by
    # kbatch.controllers.kueue.multikueue.options
    multi_kueue: Mapping[str, Any] = field(default_factory=dict)

    @property
    def namespace_selector(self) -> Selector | None:
        return (
            selector_from_model(self.managed_jobs_namespace_selector)
            if self.managed_jobs_namespace_selector is not None
            else None
        )

    @property
    def fair_sharing(self) -> bool:
        return self.fair_sharing_strategies is not None


def _seconds(text: str | None) -> float | None:
    """A decoded ``metav1.Duration`` (parsed at decoding: :data:`~kbatch.api.gotypes.Duration`)."""
    return None if text is None else go_duration_seconds(text)


def _default_selector(namespace: str) -> LabelSelector:
    return LabelSelector(
        match_expressions=[
            LabelSelectorRequirement(
                key="kubernetes.io/metadata.name", operator="NotIn", values=["kube-system", namespace]
            )
        ]
    )


def _field_path(loc: tuple[Any, ...]) -> str:
    """A decoder location as ``sigs.k8s.io/json`` names it: ``a.b[0].c``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _split_off(node: Any, path: tuple[str, ...], where: str, found: list[str]) -> Any:
    """``node`` without the field at ``path`` (``*``: in every list item), copied along the way
    only; each field removed is named in ``found``. The other version's fields are unknown to this
    version's decoder, which does not look inside them: their contents are neither decoded nor
    reported."""
    head, rest = path[0], path[1:]
    if head == "*":
        if not isinstance(node, list):
            return node
        return [_split_off(item, rest, f"{where}[{i}]", found) for i, item in enumerate(node)]
    if not isinstance(node, Mapping) or head not in node:
        return node
    here = f"{where}.{head}" if where else head
    out = dict(node)
    if rest:
        out[head] = _split_off(node[head], rest, here, found)
    else:
        del out[head]
        found.append(here)
    return out


def _unset_null(node: Any, path: tuple[str, ...]) -> Any:
    """``node`` without the field at ``path`` if it is ``null`` (a pointer: nil, unset)."""
    head, rest = path[0], path[1:]
    if not isinstance(node, Mapping) or head not in node:
        return node
    if rest:
        return {**node, head: _unset_null(node[head], rest)}
    return {k: v for k, v in node.items() if k != head or v is not None}


def _document_order(node: Any, loc: tuple[Any, ...]) -> tuple[int, ...]:
    """Where ``loc`` is in ``node`` as the decoder reads it: key by key, item by item."""
    order: list[int] = []
    for part in loc:
        if isinstance(node, Mapping) and part in node:
            order.append(list(node).index(part))
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            order.append(part)
        else:
            break
        node = node[part]
    return tuple(order)


def _decode(data: Mapping[str, Any], v1beta1: bool) -> Configuration:
    """Strict decoding, as Kueue's codec (``serializer.EnableStrict``): a value's own decoder
    failing (``metav1.Duration``'s, :mod:`kbatch.api.gotypes`) ends it at once with that error,
    the first in the file; else the first value of the wrong type in the file fails, with Go's
    ``UnmarshalTypeError`` (:func:`~kbatch.api.go_unmarshal.declared_type_error`; the serializer
    returns it without the strict errors); otherwise every unknown field is reported at once,
    sorted, as ``runtime.NewStrictDecodingError`` prints them. ``null`` is decoded as Go decodes it
    (:mod:`kbatch.api.gonull`); a number as the YAML serializer hands it over (a whole float an
    integer, :func:`~kbatch.api.go_unmarshal.marshalled`) unless JSON text gave it
    (:class:`~kbatch.api.go_unmarshal.JsonNumber`, :func:`kbatch.controllers.kueue.config.parse_config`)."""
    unknown: list[str] = []
    data = marshalled_numbers(data)
    for path in V1BETA2_ONLY if v1beta1 else V1BETA1_ONLY:
        data = _split_off(data, path, "", unknown)
    for path in V1BETA1_POINTERS if v1beta1 else ():
        data = _unset_null(data, path)
    data = resolve_nulls(Configuration, data)
    try:
        cfg = wire_validate(Configuration, dict(data))
    except ValidationError as err:
        errors = err.errors()
        fatal = [e for e in errors if e.get("type") == GO_DECODE]
        if fatal:
            first = min(fatal, key=lambda e: _document_order(data, tuple(e.get("loc", ()))))
            raise Invalid(f"invalid Kueue configuration: {first.get('msg')}") from None
        wrong = [e for e in errors if e.get("type") != "extra_forbidden"]
        if wrong:
            first = min(wrong, key=lambda e: _document_order(data, tuple(e.get("loc", ()))))
            message = declared_type_error(Configuration, first, "v1beta1" if v1beta1 else "v1beta2")
            if message is None:
                where = ".".join(str(p) for p in first.get("loc", ()))
                message = f"{where}: {first.get('msg')}"
            raise Invalid(f"invalid Kueue configuration: {message}") from None
        unknown += [_field_path(tuple(e.get("loc", ()))) for e in errors]
        cfg = None
    if unknown:
        listed = ", ".join(f'unknown field "{name}"' for name in sorted(set(unknown)))
        raise Invalid(f"invalid Kueue configuration: strict decoding error: {listed}")
    assert cfg is not None
    return cfg


def _wait_for_pods_ready(
    cfg: Configuration, v1beta1: bool, errs: list[FieldError]
) -> WaitForPodsReadyConfig | None:
    w = cfg.wait_for_pods_ready
    if v1beta1:
        if w is None or not w.enable:
            return None
    elif w is None:
        w = WaitForPodsReady()
    timeout = _seconds(w.timeout)
    if timeout is None or (timeout == 0 and not v1beta1):
        # v1beta1 defaults an absent timeout to 5 minutes (``defaultPodsReadyTimeout``, also in
        # ``Convert_v1beta1_WaitForPodsReady_To_v1beta2_WaitForPodsReady``) and keeps an explicit
        # 0, which validation then refuses; v1beta2's timeout is a plain Duration whose zero value
        # is defaulted to 30 minutes (``DefaultWaitForPodsReadyTimeout``). Upstream v0.19.2
        # ``apis/config/{v1beta1,v1beta2}/defaults.go``.
        timeout = 300.0 if v1beta1 else 1800.0
    if timeout == 0:
        errs.append(FieldError.required("waitForPodsReady.timeout", "must be specified"))
    elif timeout < 0:
        errs.append(
            FieldError.invalid("waitForPodsReady.timeout", w.timeout, "must be greater than or equal to 0")
        )
    recovery = _seconds(w.recovery_timeout)
    if recovery is not None and recovery < 0:
        errs.append(
            FieldError.invalid(
                "waitForPodsReady.recoveryTimeout", w.recovery_timeout, "must be greater than or equal to 0"
            )
        )
    rs = w.requeuing_strategy or RequeuingStrategy()
    ts = rs.timestamp or "Eviction"
    if ts not in ("Creation", "Eviction"):
        errs.append(
            FieldError.not_supported(
                "waitForPodsReady.requeuingStrategy.timestamp", ts, ["Creation", "Eviction"]
            )
        )
    for name, value in (
        ("backoffLimitCount", rs.backoff_limit_count),
        ("backoffBaseSeconds", rs.backoff_base_seconds),
        ("backoffMaxSeconds", rs.backoff_max_seconds),
    ):
        if value is not None and value < 0:
            errs.append(
                FieldError.invalid(
                    f"waitForPodsReady.requeuingStrategy.{name}", value, "must be greater than or equal to 0"
                )
            )
    block = w.block_admission if w.block_admission is not None else (bool(v1beta1))
    return WaitForPodsReadyConfig(
        timeout=timeout,
        recovery_timeout=(timeout if recovery is None else (recovery or None)),
        block_admission=block,
        requeuing_timestamp=ts,
        backoff_limit_count=rs.backoff_limit_count,
        backoff_base_seconds=60 if rs.backoff_base_seconds is None else rs.backoff_base_seconds,
        backoff_max_seconds=3600 if rs.backoff_max_seconds is None else rs.backoff_max_seconds,
    )


def _frameworks(cfg: Configuration, errs: list[FieldError]) -> tuple[str, ...]:
    ints = cfg.integrations or Integrations()
    frameworks = tuple(ints.frameworks or DEFAULT_FRAMEWORKS)
    seen: set[str] = set()
    for i, name in enumerate(frameworks):
        if name not in KNOWN_FRAMEWORKS:
            errs.append(
                FieldError.not_supported(f"integrations.frameworks[{i}]", name, sorted(KNOWN_FRAMEWORKS))
            )
        elif name in seen:
            errs.append(FieldError.duplicate(f"integrations.frameworks[{i}]", name))
        seen.add(name)
    errs += external_framework_errors(frameworks, ints.external_frameworks or ())
    return frameworks


def _fair_sharing(cfg: Configuration, v1beta1: bool, errs: list[FieldError]) -> tuple[str, ...] | None:
    fs = cfg.fair_sharing
    if fs is None or (v1beta1 and not fs.enable):
        return None
    strategies = tuple(fs.preemption_strategies or ())
    if v1beta1 and not strategies:
        strategies = VALID_STRATEGY_SETS[2]
    if not strategies:
        errs.append(FieldError.required("fairSharing.preemptionStrategies", "must be specified"))
    elif strategies not in VALID_STRATEGY_SETS:
        errs.append(
            FieldError.not_supported(
                "fairSharing.preemptionStrategies",
                list(strategies),
                [",".join(s) for s in VALID_STRATEGY_SETS],
            )
        )
    return strategies


def _admission_fair_sharing(cfg: Configuration, errs: list[FieldError]) -> AdmissionFairSharingConfig | None:
    afs = cfg.admission_fair_sharing
    if afs is None:
        return None
    half = _seconds(afs.usage_half_life_time) or 0.0
    sampling = _seconds(afs.usage_sampling_interval)
    sampling = 300.0 if sampling is None or sampling == 0 else sampling
    if half < 0:
        errs.append(
            FieldError.invalid(
                "admissionFairSharing.usageHalfLifeTime",
                afs.usage_half_life_time,
                "must be greater than or equal to 0",
            )
        )
    if sampling <= 0:
        errs.append(
            FieldError.invalid(
                "admissionFairSharing.usageSamplingInterval",
                afs.usage_half_life_time,
                "must be greater than 0",
            )
        )
    weights = dict(afs.resource_weights or {})
    for name in sorted(weights):
        if weights[name] < 0:
            errs.append(
                FieldError.invalid(
                    f"admissionFairSharing.resourceWeights[{name}]",
                    weights,
                    "must be greater than or equal to 0",
                )
            )
    return AdmissionFairSharingConfig(half, sampling, weights)


def _selector(cfg: Configuration, namespace: str, errs: list[FieldError]) -> LabelSelector:
    selector = cfg.managed_jobs_namespace_selector or _default_selector(namespace)
    errs += validate_label_selector(selector, "managedJobsNamespaceSelector")
    try:
        parsed = selector_from_model(selector)
    except BadRequest:  # validateManagedJobsNamespaceSelector: no selector, no namespace check
        return selector
    for ns in ("kube-system", namespace):
        if parsed.matches({"kubernetes.io/metadata.name": ns}):
            errs.append(
                FieldError.invalid(
                    "managedJobsNamespaceSelector",
                    selector.to_dict(),
                    f'should not match the "{ns}" namespace',
                )
            )
    return selector


def _resources(cfg: Configuration, errs: list[FieldError]) -> tuple[str, tuple[str, ...], tuple[Any, ...]]:
    res = cfg.resources or Resources()
    strategy = res.quota_check_strategy or "BlockUndeclared"
    if strategy not in ("IgnoreUndeclared", "BlockUndeclared"):
        errs.append(
            FieldError.not_supported(
                "resources.quotaCheckStrategy", strategy, ["IgnoreUndeclared", "BlockUndeclared"]
            )
        )
    elif strategy == "IgnoreUndeclared" and res.exclude_resource_prefixes:
        errs.append(
            FieldError.invalid(
                "resources.quotaCheckStrategy",
                strategy,
                "excludeResourcePrefixes is not allowed when quotaCheckStrategy is IgnoreUndeclared",
            )
        )
    # SetDefaults_Configuration: an absent or empty strategy is DefaultResourceTransformationStrategy
    transformations = tuple(
        t.model_copy(update={"strategy": t.strategy or "Retain"}) for t in res.transformations or ()
    )
    for i, t in enumerate(transformations):
        if t.strategy not in ("Retain", "Replace"):
            errs.append(
                FieldError.not_supported(
                    f"resources.transformations[{i}].strategy", t.strategy, ["Retain", "Replace"]
                )
            )
    errs += transformation_input_errors([t.input for t in res.transformations or ()])
    return strategy, tuple(res.exclude_resource_prefixes or ()), transformations


def _retention(cfg: Configuration, errs: list[FieldError]) -> tuple[float | None, float | None]:
    w = (cfg.object_retention_policies or ObjectRetentionPolicies()).workloads or WorkloadRetentionPolicy()
    path = "objectRetentionPolicies.workloads"
    finished = _seconds(w.after_finished)
    deactivated = _seconds(w.after_deactivated_by_kueue)
    for name, value, text in (
        ("afterFinished", finished, w.after_finished),
        ("afterDeactivatedByKueue", deactivated, w.after_deactivated_by_kueue),
    ):
        if value is not None and value < 0:
            errs.append(FieldError.invalid(f"{path}.{name}", text, "must be greater than or equal to 0"))
    return finished, deactivated


# upstream defaults (pkg/features/kube_features.go, v0.19.2) of the gates the mappings' sources need
_SOURCE_GATES = {
    "KueueDRAIntegrationPartitionableDevices": True,
    "KueueDRAIntegrationConsumableCapacity": False,
}


def _default_gate(cfg: Configuration, flags: Mapping[str, bool] | None) -> Callable[[str], bool]:
    """The source gates as ``--feature-gates`` (``flags``) and the Configuration's ``featureGates``
    set them over upstream's defaults: Kueue validates its Configuration after both are applied
    (``cmd/kueue/main.go``)."""
    gates = {**_SOURCE_GATES, **(flags or {}), **(cfg.feature_gates or {})}
    return lambda name: bool(gates.get(name, False))


def _as_given(section: KubeModel | None) -> dict[str, Any]:
    """A decoded section back in wire shape (json names, fields given), as its readers take it."""
    return section.model_dump(exclude_none=True) if section is not None else {}


def load(
    data: Mapping[str, Any] | None = None,
    *,
    disable_wait_for_pods_ready: bool = False,
    flag_gates: Mapping[str, bool] | None = None,
) -> KueueConfig:
    """The settled configuration of ``data`` (a decoded ``Configuration``; ``None``: the API
    defaults); a bad one raises :class:`~kbatch.api.errors.Invalid` with every field error.
    ``flag_gates``: the gates ``--feature-gates`` set (validation reads the DRA source gates)."""
    data = dict(data or {"apiVersion": f"{GROUP}/v1beta2", "kind": "Configuration"})
    api_version = data.get("apiVersion") or f"{GROUP}/v1beta2"
    if (
        api_version not in (f"{GROUP}/v1beta2", f"{GROUP}/v1beta1")
        or (data.get("kind") or "Configuration") != "Configuration"
    ):
        raise Invalid(
            f'invalid Kueue configuration: no kind "{data.get("kind")}" is registered for version '
            f'"{api_version}"; use apiVersion {GROUP}/v1beta2 (or v1beta1), kind Configuration'
        )
    v1beta1 = api_version.endswith("/v1beta1")
    cfg = _decode(data, v1beta1)
    errs: list[FieldError] = []
    namespace = cfg.namespace or DEFAULT_NAMESPACE
    wait = None if disable_wait_for_pods_ready else _wait_for_pods_ready(cfg, v1beta1, errs)
    strategy, prefixes, transformations = _resources(cfg, errs)
    finished, deactivated = _retention(cfg, errs)
    mappings = device_class_mappings(
        (cfg.resources or Resources()).device_class_mappings, _default_gate(cfg, flag_gates), errs
    )
    multi_kueue = _as_given(cfg.multi_kueue)
    errs += multikueue_errors(multi_kueue)
    errs += internal_cert_errors(_as_given(cfg.internal_cert_management))
    errs += visibility_server_errors(_as_given(cfg.visibility_server))
    metrics = _as_given(cfg.metrics)
    errs += custom_label_errors(metrics)
    out = KueueConfig(
        api_version=api_version,
        namespace=namespace,
        manage_jobs_without_queue_name=bool(cfg.manage_jobs_without_queue_name),
        managed_jobs_namespace_selector=_selector(cfg, namespace, errs),
        wait_for_pods_ready=wait,
        frameworks=_frameworks(cfg, errs),
        label_keys_to_copy=tuple((cfg.integrations or Integrations()).label_keys_to_copy or ()),
        fair_sharing_strategies=_fair_sharing(cfg, v1beta1, errs),
        admission_fair_sharing=_admission_fair_sharing(cfg, errs),
        quota_check_strategy=strategy,
        exclude_resource_prefixes=prefixes,
        transformations=transformations,
        device_class_mappings=mappings,
        feature_gates=dict(cfg.feature_gates or {}),
        retention_after_finished=finished,
        retention_after_deactivated=deactivated,
        metrics=metrics,
        multi_kueue=multi_kueue,
    )
    if errs:
        raise Invalid.of("Configuration.config.kueue.x-k8s.io", "", errs)
    return out


def shipped() -> dict[str, Any]:
    """The Configuration a Kueue installation ships with (``controller_manager_config.yaml``'s
    settings kbatch acts on): the API defaults plus its integrations list."""
    return {
        "apiVersion": f"{GROUP}/v1beta2",
        "kind": "Configuration",
        "integrations": {"frameworks": list(SHIPPED_FRAMEWORKS)},
    }
