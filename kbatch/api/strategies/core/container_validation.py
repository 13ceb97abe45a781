"""Validation of containers: names, images, policies, ports, env, mounts, probes, resources.

Upstream: kubernetes ``pkg/apis/core/validation/validation.go`` (validateContainers,
validateInitContainers, validateContainerPorts, checkHostPortConflicts, ValidateEnv, ValidateEnvFrom,
ValidateVolumeMounts, validatePullPolicy, validateResizePolicy, validateContainersOnlyForPod);
probes and lifecycle hooks are :mod:`.probe_validation`'s, the security context
:mod:`.security_context_validation`'s. Messages are upstream's.
"""

from __future__ import annotations

import functools
from collections.abc import Set as AbstractSet

from kbatch.api.core_v1 import (
    Container,
    ContainerPort,
    ContainerResizePolicy,
    ContainerRestartRule,
    EnvFromSource,
    EnvVar,
    EnvVarSource,
    ObjectFieldSelector,
    VolumeMount,
)
from kbatch.api.errors import FieldError
from kbatch.api.strategies.core.configmap import config_key_errors
from kbatch.api.strategies.core.env_selectors import (
    ENV_FIELD_PATHS,
    field_selector_errors,
    resource_selector_errors,
)
from kbatch.api.strategies.core.port_names import is_valid_port_name
from kbatch.api.strategies.core.probe_validation import validate_lifecycle, validate_probes
from kbatch.api.strategies.core.security_context_validation import container_security_context_errors
from kbatch.api.strategies.core.volume_sources import local_descending_path_errors
from kbatch.api.validation import (
    _is_dns1123_label,
    child,
    index,
    is_dns1123_subdomain,
    resource_requirements_plain,
    validate_resource_requirements,
)

__all__ = [
    "is_valid_port_name",
    "plain_container_valid",
    "validate_container_common",
    "validate_containers",
    "validate_containers_only_for_pod",
    "validate_init_containers",
]

PULL_POLICIES = ["Always", "IfNotPresent", "Never"]
MESSAGE_POLICIES = ["File", "FallbackToLogsOnError"]
PROTOCOLS = ["SCTP", "TCP", "UDP"]
RESIZE_RESOURCES = ["cpu", "memory"]
RESIZE_POLICIES = ["NotRequired", "RestartContainer"]


def _port_number_errors(value: int, path: str) -> list[FieldError]:
    if 1 <= value <= 65535:
        return []
    return [FieldError.invalid(path, value, "must be between 1 and 65535, inclusive")]


def _validate_ports(ports: list[ContainerPort] | None, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, port in enumerate(ports or ()):
        at = index(path, i)
        if port.name:
            bad = is_valid_port_name(port.name)
            errs += [FieldError.invalid(child(at, "name"), port.name, m) for m in bad]
            if not bad and port.name in names:
                errs.append(FieldError.duplicate(child(at, "name"), port.name))
            names.add(port.name)
        if port.container_port == 0:
            errs.append(FieldError.required(child(at, "containerPort")))
        else:
            errs += _port_number_errors(port.container_port, child(at, "containerPort"))
        if port.host_port:
            errs += _port_number_errors(port.host_port, child(at, "hostPort"))
        if not port.protocol:
            errs.append(FieldError.required(child(at, "protocol")))
        elif port.protocol not in PROTOCOLS:
            errs.append(FieldError.not_supported(child(at, "protocol"), port.protocol, PROTOCOLS))
    return errs


def _validate_value_from(env: EnvVar, path: str) -> list[FieldError]:
    source = env.value_from
    if source is None:
        return []
    errs: list[FieldError] = []
    refs = [r for r in (source.field_ref, source.resource_field_ref, source.config_map_key_ref,
                        source.secret_key_ref, source.file_key_ref) if r is not None]
    if source.field_ref is not None:
        errs += field_selector_errors(source.field_ref, ENV_FIELD_PATHS, child(path, "fieldRef"))
    if source.resource_field_ref is not None:
        errs += resource_selector_errors(source.resource_field_ref, child(path, "resourceFieldRef"))
    key_refs = (("configMapKeyRef", source.config_map_key_ref), ("secretKeyRef", source.secret_key_ref))
    for ref_name, key_ref in key_refs:  # validateConfigMapKeySelector / validateSecretKeySelector
        if key_ref is not None:
            at = child(path, ref_name)
            name = key_ref.name or ""  # an empty name fails the subdomain check (no Required)
            errs += [FieldError.invalid(child(at, "name"), name, m) for m in is_dns1123_subdomain(name)]
            if not key_ref.key:
                errs.append(FieldError.required(child(at, "key")))
            else:
                errs += [FieldError.invalid(child(at, "key"), key_ref.key, m)
                         for m in config_key_errors(key_ref.key)]
    if not refs:
        errs.append(FieldError.invalid(path, "", "must specify one of: `fieldRef`, `resourceFieldRef`, "
                                       "`configMapKeyRef` or `secretKeyRef`"))
    elif env.value:
        errs.append(FieldError.invalid(path, "", "may not be specified when `value` is not empty"))
    elif len(refs) > 1:
        errs.append(FieldError.invalid(path, "", "may not have more than one field specified at a time"))
    return errs


def _env_name_errors(name: str, path: str) -> list[FieldError]:
    """``IsRelaxedEnvVarName`` (RelaxedEnvironmentVariableValidation, GA since 1.34)."""
    if any(not (" " <= ch <= "~") or ch == "=" for ch in name):
        return [FieldError.invalid(path, name, "a valid environment variable name "
                                   "must consist only of printable ASCII characters other than '='")]
    return []


def plain_env(env: list[EnvVar]) -> bool:
    """Whether :func:`_validate_env` certainly finds nothing, decided without a path: every name
    printable ASCII without ``=`` (for ASCII, ``str.isprintable`` is exactly ``" " <= ch <= "~"``),
    every value literal or a ``fieldRef`` alone whose selector is valid (as the Job controller's
    ``JOB_COMPLETION_INDEX`` of every Indexed Job pod). ``False`` only means "take the general path"."""
    for var in env:
        d = var.__dict__
        name, source = d["name"], d["value_from"]
        if not name or not name.isascii() or not name.isprintable() or "=" in name:
            return False
        if source is not None and (d["value"] or not _field_ref_only(source)):
            return False
    return True


def _field_ref_only(source: EnvVarSource) -> bool:
    d = source.__dict__
    ref = d["field_ref"]
    if ref is None or any(v is not None for k, v in d.items() if k != "field_ref"):
        return False
    return _field_ref_valid(ref.api_version, ref.field_path)


@functools.lru_cache(maxsize=1024)
def _field_ref_valid(api_version: str | None, field_path: str) -> bool:
    """Whether ``validateObjectFieldSelector`` accepts the pair (memoised: a Job's pods share theirs)."""
    ref = ObjectFieldSelector(api_version=api_version, field_path=field_path)
    return not field_selector_errors(ref, ENV_FIELD_PATHS, "fieldRef")


def _validate_env(env: list[EnvVar] | None, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, var in enumerate(env or ()):
        at = index(path, i)
        if not var.name:
            errs.append(FieldError.required(child(at, "name")))
        else:
            errs += _env_name_errors(var.name, child(at, "name"))
        errs += _validate_value_from(var, child(at, "valueFrom"))
    return errs


def _validate_env_from(sources: list[EnvFromSource], path: str) -> list[FieldError]:
    """``ValidateEnvFrom``: a valid prefix, exactly one of configMapRef / secretRef, each naming a
    ConfigMap or Secret (DNS subdomain); the count errors sit at ``envFrom`` itself, as upstream's."""
    errs: list[FieldError] = []
    for i, source in enumerate(sources):
        at = index(path, i)
        if source.prefix:
            errs += _env_name_errors(source.prefix, child(at, "prefix"))
        refs = [(n, r) for n, r in (("configMapRef", source.config_map_ref), ("secretRef", source.secret_ref))
                if r is not None]
        for name, ref in refs:
            name_path = child(child(at, name), "name")
            if not ref.name:
                errs.append(FieldError.required(name_path))
            else:
                errs += [FieldError.invalid(name_path, ref.name, m) for m in is_dns1123_subdomain(ref.name)]
        if not refs:
            errs.append(FieldError.invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"))
        elif len(refs) > 1:
            errs.append(FieldError.invalid(path, "", "may not have more than one field specified at a time"))
    return errs


def _validate_mounts(mounts: list[VolumeMount] | None, volumes: set[str], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    mount_points: set[str] = set()
    for i, mount in enumerate(mounts or ()):
        at = index(path, i)
        if not mount.name:
            errs.append(FieldError.required(child(at, "name")))
        if mount.name not in volumes:
            errs.append(FieldError.not_found(child(at, "name"), mount.name))
        if not mount.mount_path:
            errs.append(FieldError.required(child(at, "mountPath")))
        if mount.mount_path in mount_points:
            errs.append(FieldError.invalid(child(at, "mountPath"), mount.mount_path, "must be unique"))
        mount_points.add(mount.mount_path)
        # upstream reports these at volumeMounts.subPath / .subPathExpr (no index), as here
        if mount.sub_path:
            errs += local_descending_path_errors(mount.sub_path, child(path, "subPath"))
        if mount.sub_path_expr:
            if mount.sub_path:
                errs.append(FieldError.invalid(child(at, "subPathExpr"), mount.sub_path_expr,
                                               "subPathExpr and subPath are mutually exclusive"))
            errs += local_descending_path_errors(mount.sub_path_expr, child(path, "subPathExpr"))
    return errs


def _validate_resize_policy(policies: list[ContainerResizePolicy], path: str,
                            pod_restart: str | None) -> list[FieldError]:
    """``validateResizePolicy``: one entry per resource (cpu or memory), a known restart policy,
    ``NotRequired`` only under a pod ``restartPolicy: Never``. Upstream reports the name and policy
    errors at the list's path, not the entry's."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, p in enumerate(policies):
        if p.resource_name in seen:
            errs.append(FieldError.duplicate(index(path, i), p.resource_name))
        seen.add(p.resource_name)
        for value, supported in ((p.resource_name, RESIZE_RESOURCES), (p.restart_policy, RESIZE_POLICIES)):
            if not value:
                errs.append(FieldError.required(path))
            elif value not in supported:
                errs.append(FieldError.not_supported(path, value, supported))
        if pod_restart == "Never" and p.restart_policy != "NotRequired":
            errs.append(FieldError.invalid(path, p.restart_policy,
                                           "must be 'NotRequired' when `restartPolicy` is 'Never'"))
    return errs


def _validate_common(c: Container, path: str, volumes: set[str], claims: set[str],
                     pod: tuple[str | None, bool] = (None, True)) -> list[FieldError]:
    """What every kind of container must satisfy (``validateContainerCommon``); ``pod`` is the pod's
    ``restartPolicy`` and whether it uses the host's user namespace. A template's image may carry
    whitespace (upstream keeps that for backward compatibility); a Pod's may not
    (:func:`validate_containers_only_for_pod`)."""
    errs: list[FieldError] = []
    if not c.name:
        errs.append(FieldError.required(child(path, "name")))
    elif bad := _is_dns1123_label(c.name):  # memoised; no list built for a valid name
        errs += [FieldError.invalid(child(path, "name"), c.name, m) for m in bad]
    if not c.image:
        errs.append(FieldError.required(child(path, "image")))
    if not c.termination_message_policy:
        errs.append(FieldError.required(child(path, "terminationMessagePolicy")))
    elif c.termination_message_policy not in MESSAGE_POLICIES:
        errs.append(FieldError.not_supported(child(path, "terminationMessagePolicy"),
                                             c.termination_message_policy, MESSAGE_POLICIES))
    # absent lists validate to nothing: skip the calls (and their paths) on this hot path
    if c.ports:
        errs += _validate_ports(c.ports, child(path, "ports"))
    if c.env:
        errs += _validate_env(c.env, child(path, "env"))
    if c.env_from:
        errs += _validate_env_from(c.env_from, child(path, "envFrom"))
    if c.volume_mounts:
        errs += _validate_mounts(c.volume_mounts, volumes, child(path, "volumeMounts"))
    if not c.image_pull_policy:
        errs.append(FieldError.required(child(path, "imagePullPolicy")))
    elif c.image_pull_policy not in PULL_POLICIES:
        errs.append(FieldError.not_supported(child(path, "imagePullPolicy"), c.image_pull_policy,
                                             PULL_POLICIES))
    errs += validate_resource_requirements(c.resources, child(path, "resources"), pod_claim_names=claims)
    if c.resize_policy:
        errs += _validate_resize_policy(c.resize_policy, child(path, "resizePolicy"), pod[0])
    if c.security_context is not None:
        errs += container_security_context_errors(c.security_context, child(path, "securityContext"), pod[1])
    return errs


def validate_container_common(c: Container, path: str, volumes: set[str], claims: set[str],
                              pod: tuple[str | None, bool]) -> list[FieldError]:
    """``validateContainerCommon`` alone (an ephemeral container's: :mod:`.pod_ephemeral`)."""
    return _validate_common(c, path, volumes, claims, pod)


def plain_container_valid(c: Container, names: set[str], mount: VolumeMount | None = None,
                          claims: AbstractSet[str] = frozenset()) -> bool:
    """Whether :func:`validate_containers` certainly finds nothing wrong with ``c`` (a regular
    container without ports, env only as :func:`plain_env` accepts, no mount but ``mount``, a mount
    of a volume known valid; adds its name to ``names`` then): the same checks as
    :func:`_validate_common` without paths; ``claims`` are the pod's claim names its resources may
    use. ``False`` only means "take the general path"."""
    d = c.__dict__
    mounts = d["volume_mounts"]
    name, image = d["name"], d["image"]
    if (not name or _is_dns1123_label(name) or name in names or not image or image != image.strip()
            or d["termination_message_policy"] not in MESSAGE_POLICIES
            or d["image_pull_policy"] not in PULL_POLICIES
            or d["ports"] or (d["env"] and not plain_env(d["env"])) or d["env_from"]
            or (mounts and (mount is None or len(mounts) != 1 or mounts[0] != mount))
            or d["restart_policy"] is not None or d["restart_policy_rules"] is not None
            or d["lifecycle"] is not None or d["liveness_probe"] is not None
            or d["readiness_probe"] is not None or d["startup_probe"] is not None
            or d["resize_policy"] or d["security_context"] is not None
            or not resource_requirements_plain(d["resources"], claims)):
        return False
    names.add(name)
    return True


def _host_port_conflicts(containers: list[Container], path: str, first: int = 0) -> list[FieldError]:
    """``checkHostPortConflicts``: a protocol/hostIP/hostPort triple used once across ``containers``
    (indexed from ``first``); ports without a host port are not counted."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, c in enumerate(containers, first):
        for j, port in enumerate(c.ports or ()):
            if not port.host_port:
                continue
            ident = f"{port.protocol or ''}/{port.host_ip or ''}/{port.host_port}"
            if ident in seen:
                at = child(index(child(index(path, i), "ports"), j), "hostPort")
                errs.append(FieldError.duplicate(at, ident))
            seen.add(ident)
    return errs


def validate_containers(containers: list[Container], path: str, names: set[str], volumes: set[str],
                        claims: set[str], grace: int | None = None,
                        pod: tuple[str | None, bool] = (None, True),
                        restart_all: bool = True) -> list[FieldError]:
    """Regular containers; ``names`` collects their names for the init containers' check. Host
    ports are unique across them (they run together). ``pod``: see :func:`_validate_common`;
    ``restart_all``: the ``RestartAllContainers`` action is allowed (``AllowRestartAllContainers``)."""
    if not containers:
        return [FieldError.required(path)]
    errs: list[FieldError] = []
    for i, c in enumerate(containers):
        at = index(path, i)
        errs += _validate_common(c, at, volumes, claims, pod)
        if c.name in names:
            errs.append(FieldError.duplicate(child(at, "name"), c.name))
        names.add(c.name)
        errs += validate_lifecycle(c.lifecycle, grace, child(at, "lifecycle"))
        errs += validate_probes(c, grace, at)
        errs += validate_container_restart_policy(c, at, restart_all)
    return errs + _host_port_conflicts(containers, path)


CONTAINER_RESTART_POLICIES = ["Always", "Never", "OnFailure"]
RESTART_RULE_OPERATORS = ["In", "NotIn"]
RESTART_RULE_ACTIONS, RESTART_RULE_ACTIONS_ALL = ["Restart"], ["Restart", "RestartAllContainers"]
MAX_RESTART_RULES, MAX_RULE_EXIT_CODES = 20, 255


def validate_container_restart_policy(c: Container, path: str, restart_all: bool = True) -> list[FieldError]:
    """A container's own ``restartPolicy`` and ``restartPolicyRules`` (KEP-5307; upstream
    ``validateContainerRestartPolicy``, reached while the ContainerRestartRules gate is on: with it
    off :func:`kbatch.api.gates.drop_disabled_pod_fields` has removed both already). Rules need the
    container's own policy; each rule's action is ``Restart``, or ``RestartAllContainers`` when
    ``restart_all`` (KEP-5532, ``AllowRestartAllContainers``), on exit codes ``In``/``NotIn`` a list
    of at most 255 values; at most 20 rules."""
    errs: list[FieldError] = []
    rules = c.restart_policy_rules or []
    if c.restart_policy is None:
        if rules:
            errs.append(FieldError.required(child(path, "restartPolicy"),
                                            "must specify restartPolicy when restart rules are used"))
    elif c.restart_policy not in CONTAINER_RESTART_POLICIES:
        errs.append(FieldError.not_supported(child(path, "restartPolicy"), c.restart_policy,
                                             CONTAINER_RESTART_POLICIES))
    at = child(path, "restartPolicyRules")
    if len(rules) > MAX_RESTART_RULES:
        errs.append(FieldError.too_many(at, len(rules), MAX_RESTART_RULES))
    actions = RESTART_RULE_ACTIONS_ALL if restart_all else RESTART_RULE_ACTIONS
    for i, rule in enumerate(rules):
        errs += _restart_rule_errors(rule, index(at, i), actions)
    return errs


def _restart_rule_errors(rule: ContainerRestartRule, path: str, actions: list[str]) -> list[FieldError]:
    errs: list[FieldError] = []
    if rule.action not in actions:
        errs.append(FieldError.not_supported(child(path, "action"), rule.action, actions))
    codes = rule.exit_codes
    if codes is None:
        return [*errs, FieldError.required(child(path, "exitCodes"), "must be specified")]
    if codes.operator not in RESTART_RULE_OPERATORS:
        errs.append(FieldError.not_supported(child(child(path, "exitCodes"), "operator"), codes.operator,
                                             RESTART_RULE_OPERATORS))
    if len(codes.values or ()) > MAX_RULE_EXIT_CODES:
        errs.append(FieldError.too_many(child(child(path, "exitCodes"), "values"), len(codes.values or ()),
                                        MAX_RULE_EXIT_CODES))
    return errs


def _init_restart_policy_errors(c: Container, path: str, restart_all: bool) -> list[FieldError]:
    """Upstream ``validateInitContainerRestartPolicy`` with the ContainerRestartRules gate on (off,
    the API server has dropped every policy but a sidecar's ``Always`` and every rule): rules need a
    policy; a sidecar (``Always``) may have rules only with ``AllowRestartAllContainers`` (KEP-5532);
    any other policy is a regular init container's own (KEP-5307), validated as a regular
    container's."""
    if c.restart_policy is None:
        return [FieldError.required(child(path, "restartPolicy"),
                                    "must specify restartPolicy when restart rules are used")
                ] if c.restart_policy_rules else []
    if c.restart_policy != "Always" or restart_all:
        return validate_container_restart_policy(c, path, restart_all)
    if c.restart_policy_rules:
        return [FieldError.forbidden(child(path, "restartPolicyRules"),
                                     "restartPolicyRules are not allowed for init containers with "
                                     "restart policy Always")]
    return []


_INIT_ONLY = "may not be set for init containers without restartPolicy=Always"


def validate_init_containers(containers: list[Container] | None, path: str, names: set[str],
                             volumes: set[str], claims: set[str], grace: int | None = None,
                             pod: tuple[str | None, bool] = (None, True),
                             restart_all: bool = True) -> list[FieldError]:
    """Init containers, after the regular ones (``names`` holds theirs): their own restart policy
    and rules (:func:`_init_restart_policy_errors`); only sidecars (``restartPolicy: Always``) have
    probes and hooks (validated as a regular container's). Each runs alone, so host ports only
    conflict within one."""
    errs: list[FieldError] = []
    for i, c in enumerate(containers or ()):
        at = index(path, i)
        errs += _validate_common(c, at, volumes, claims, pod)
        errs += _init_restart_policy_errors(c, at, restart_all)
        if c.name in names:
            errs.append(FieldError.duplicate(child(at, "name"), c.name))
        elif c.name:
            names.add(c.name)
        errs += _host_port_conflicts([c], path, i)
        if c.restart_policy == "Always":
            errs += validate_lifecycle(c.lifecycle, grace, child(at, "lifecycle"))
            errs += validate_probes(c, grace, at)
            continue
        for name, probe in (("lifecycle", c.lifecycle), ("livenessProbe", c.liveness_probe),
                            ("readinessProbe", c.readiness_probe), ("startupProbe", c.startup_probe)):
            if probe is not None:
                errs.append(FieldError.forbidden(child(at, name), _INIT_ONLY))
    return errs


def validate_containers_only_for_pod(containers: list[Container] | None, path: str) -> list[FieldError]:
    """``validateContainersOnlyForPod``: a Pod's (not a template's) images must be trimmed."""
    return [FieldError.invalid(child(index(path, i), "image"), c.image,
                               "must not have leading or trailing whitespace")
            for i, c in enumerate(containers or ()) if c.image and c.image != c.image.strip()]
