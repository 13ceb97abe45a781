"""Pod defaulting, as upstream's ``SetDefaults_*`` (kubernetes ``pkg/apis/core/v1/defaults.go``).

``default_pod_spec`` is what every pod template gets (Job, JobSet, ...); ``default_pod`` adds what
only a Pod gets (``enableServiceLinks``; requests copied from limits; pod-level resources defaulted
as KEP-2837 says, see :func:`default_pod_level_resources`).
"""

from __future__ import annotations

import functools

from kbatch.api.base import set_fields
from kbatch.api.core_v1 import (
    Container,
    HTTPGetAction,
    Pod,
    PodSecurityContext,
    PodSpec,
    Probe,
    Volume,
)
from kbatch.api.core_v1.volume import EmptyDirVolumeSource
from kbatch.api.model_copy import template_factory
from kbatch.api.quantity import Quantity
from kbatch.api.validation import (
    is_hugepage_resource_name,
    is_overcommit_allowed,
    is_supported_pod_level_resource,
)

__all__ = [
    "aggregate_container_resources",
    "default_container",
    "default_pod",
    "default_pod_level_resources",
    "default_pod_spec",
    "default_probe",
    "image_pull_policy_for",
]

DEFAULT_SCHEDULER = "default-scheduler"
DEFAULT_GRACE_SECONDS = 30
DEFAULT_TERMINATION_MESSAGE_PATH = "/dev/termination-log"
_DEFAULT_MODE = 0o644  # 420
# Copied, not constructed, for every defaulted spec (a structural copy skips pydantic's validation)
_EMPTY_SECURITY_CONTEXT = PodSecurityContext()
_new_security_context = template_factory(_EMPTY_SECURITY_CONTEXT)


@functools.lru_cache(maxsize=4096)
def image_pull_policy_for(image: str | None) -> str:
    """``Always`` when the tag is ``latest`` or absent (and there is no digest), else ``IfNotPresent``
    (memoised: pods repeat a few images, and every container of every pod create asks)."""
    ref = image or ""
    if "@" in ref:
        ref = ref.split("@", 1)[0]
        has_digest = True
    else:
        has_digest = False
    last = ref.rsplit("/", 1)[-1]
    tag = last.rsplit(":", 1)[1] if ":" in last else ("" if has_digest else "latest")
    return "Always" if tag == "latest" else "IfNotPresent"


def default_probe(probe: Probe | None) -> None:
    """``SetDefaults_Probe`` and ``SetDefaults_HTTPGetAction``. The probe's int32 fields are not
    pointers upstream, so an explicit 0 is unset and takes the default as well."""
    if probe is None:
        return
    if not probe.timeout_seconds:
        probe.timeout_seconds = 1
    if not probe.period_seconds:
        probe.period_seconds = 10
    if not probe.success_threshold:
        probe.success_threshold = 1
    if not probe.failure_threshold:
        probe.failure_threshold = 3
    _default_http_get(probe.http_get)


def _default_http_get(action: HTTPGetAction | None) -> None:
    if action is None:
        return
    if not action.path:
        action.path = "/"
    if not action.scheme:
        action.scheme = "HTTP"


def default_container(container: Container) -> None:
    """``SetDefaults_Container`` plus its ports, env field refs, probes and lifecycle hooks."""
    current = container.__dict__
    values: dict[str, object] = {}  # assigned at once (set_fields): the state per-field assignment leaves
    if not current["image_pull_policy"]:
        values["image_pull_policy"] = image_pull_policy_for(container.image)
    if not current["termination_message_path"]:
        values["termination_message_path"] = DEFAULT_TERMINATION_MESSAGE_PATH
    if not current["termination_message_policy"]:
        values["termination_message_policy"] = "File"
    if values:
        set_fields(container, values)
    for port in current["ports"] or ():
        if not port.protocol:
            port.protocol = "TCP"
    for env in current["env"] or ():
        ref = env.value_from.field_ref if env.value_from else None
        if ref is not None and not ref.api_version:
            ref.api_version = "v1"
    for probe in (current["liveness_probe"], current["readiness_probe"], current["startup_probe"]):
        if probe is not None:
            default_probe(probe)
    lifecycle = current["lifecycle"]
    if lifecycle is not None:
        for handler in (lifecycle.post_start, lifecycle.pre_stop):
            if handler is not None:
                _default_http_get(handler.http_get)


def _default_volume(volume: Volume) -> None:
    """``SetDefaults_Volume`` (no source means emptyDir) and the sources' ``defaultMode`` 0644."""
    if not volume.source_names():
        volume.empty_dir = EmptyDirVolumeSource()
    for source in (volume.secret, volume.config_map, volume.downward_api, volume.projected):
        if source is not None and source.default_mode is None:
            source.default_mode = _DEFAULT_MODE
    if volume.host_path is not None and volume.host_path.type is None:
        volume.host_path.type = ""
    files = list(volume.downward_api.items or ()) if volume.downward_api else []
    for projection in volume.projected.sources or () if volume.projected else ():
        token = projection.service_account_token
        if token is not None and token.expiration_seconds is None:
            token.expiration_seconds = 3600
        if projection.downward_api is not None:
            files += projection.downward_api.items or ()
    for item in files:  # SetDefaults_ObjectFieldSelector, in a volume's or a projection's files
        if item.field_ref is not None and not item.field_ref.api_version:
            item.field_ref.api_version = "v1"


def default_pod_spec(spec: PodSpec) -> None:
    """``SetDefaults_PodSpec`` and everything nested in it, in place (pods and pod templates)."""
    _default_pod_spec(spec, {})


def _default_pod_spec(spec: PodSpec, values: dict[str, object]) -> None:
    """:func:`default_pod_spec`, the spec's own defaults added to ``values`` and assigned at once."""
    current = spec.__dict__
    if not current["dns_policy"]:
        values["dns_policy"] = "ClusterFirst"
    if not current["restart_policy"]:
        values["restart_policy"] = "Always"
    if current["host_network"]:
        _default_host_network_ports(spec)
    if current["security_context"] is None:
        values["security_context"] = _new_security_context()
    if current["termination_grace_period_seconds"] is None:
        values["termination_grace_period_seconds"] = DEFAULT_GRACE_SECONDS
    if not current["scheduler_name"]:
        values["scheduler_name"] = DEFAULT_SCHEDULER
    if values:
        set_fields(spec, values)
    for container in [*(spec.init_containers or ()), *spec.containers, *(spec.ephemeral_containers or ())]:
        default_container(container)
    for volume in spec.volumes or ():
        _default_volume(volume)


def _default_host_network_ports(spec: PodSpec) -> None:
    """With host networking a container port is also the host port (``defaultHostNetworkPorts``)."""
    for container in [*(spec.init_containers or ()), *spec.containers]:
        for port in container.ports or ():
            if port.host_port is None:
                port.host_port = port.container_port


def _default_requests_from_limits(container: Container) -> None:
    resources = container.resources
    if resources is None or not resources.limits:
        return
    requests = dict(resources.requests or {})
    for name, limit in resources.limits.items():
        requests.setdefault(name, limit)
    resources.requests = requests


def _add(total: dict[str, Quantity], amounts: dict[str, Quantity]) -> None:
    for name, q in amounts.items():
        total[name] = total[name].add(q) if name in total else q


def _max(total: dict[str, Quantity], amounts: dict[str, Quantity]) -> None:
    for name, q in amounts.items():
        if name not in total or q.cmp(total[name]) > 0:
            total[name] = q


def aggregate_container_resources(spec: PodSpec, which: str) -> dict[str, Quantity]:
    """The containers' total ``requests`` or ``limits`` (``which``), as component-helpers/resource
    ``AggregateContainerRequests`` / ``AggregateContainerLimits``: regular and sidecar (restartable
    init) containers summed; an init container counts with the sidecars started before it, and the
    largest such amount wins where it exceeds the sum (KEP-753 resource calculation)."""
    total: dict[str, Quantity] = {}
    for c in spec.containers:
        _add(total, getattr(c.resources, which) or {} if c.resources is not None else {})
    sidecars: dict[str, Quantity] = {}
    init_peak: dict[str, Quantity] = {}
    for c in spec.init_containers or ():
        amounts = getattr(c.resources, which) or {} if c.resources is not None else {}
        running = dict(sidecars)
        _add(running, amounts)
        if c.restart_policy == "Always":
            _add(total, amounts)
            sidecars = running
        _max(init_peak, running)
    _max(total, init_peak)
    return total


def default_pod_level_resources(spec: PodSpec) -> None:
    """Pod-level resources defaulting (pkg/apis/core/v1/defaults.go ``defaultHugePagePodLimits`` then
    ``defaultPodRequests``; KEP-2837 "Proposed Validation & Defaulting Rules"), after the
    containers' requests were defaulted from their limits. Only when ``spec.resources`` sets
    something: a hugepage the containers limit gets the containers' total as its pod-level limit
    (unless the pod requests it); then, when pod-level limits are set, each pod-level request left
    unset is the containers' total (cpu, memory) or else the pod-level limit (supported resources)."""
    res = spec.resources
    if res is None or not (res.limits or res.requests):
        return
    limits = dict(res.limits or {})
    requests = res.requests or {}
    hugepages = {name: q for name, q in aggregate_container_resources(spec, "limits").items()
                 if is_hugepage_resource_name(name) and name not in requests and name not in limits}
    if hugepages:
        limits.update(hugepages)
        res.limits = limits
    if not limits:
        return
    pod_requests = dict(requests)
    for name, q in aggregate_container_resources(spec, "requests").items():
        if name not in pod_requests and is_supported_pod_level_resource(name) and is_overcommit_allowed(name):
            pod_requests[name] = q
    for name, q in limits.items():
        if name not in pod_requests and is_supported_pod_level_resource(name):
            pod_requests[name] = q
    if pod_requests:
        res.requests = pod_requests


def default_pod(pod: Pod) -> None:
    """``SetDefaults_Pod``: the spec defaults, ``enableServiceLinks: true``, for each container
    with limits, requests defaulted from them, then the pod-level resources (only for a Pod, not for
    pod templates)."""
    spec = pod.spec
    _default_pod_spec(spec, {"enable_service_links": True} if spec.enable_service_links is None else {})
    for container in spec.all_containers():
        _default_requests_from_limits(container)
    if spec.resources is not None:
        default_pod_level_resources(spec)
