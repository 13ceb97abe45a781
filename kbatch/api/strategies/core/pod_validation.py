"""Pod spec and pod template validation (kubernetes ``pkg/apis/core/validation/validation.go``,
``ValidatePodSpec`` / ``ValidatePodTemplateSpec`` / ``ValidateVolumes``).

``validate_pod_spec`` and ``validate_pod_template_spec`` are what workload kinds (Job, JobSet, ...)
call for their templates; they expect a defaulted spec, as upstream validates after defaulting.
"""

from __future__ import annotations

from kbatch.api.core_v1 import (
    PodResourceClaim,
    PodSchedulingGate,
    PodSchedulingGroup,
    PodSpec,
    PodTemplateSpec,
    ResourceRequirements,
    Volume,
)
from kbatch.api.errors import FieldError
from kbatch.api.strategies.core.api_access_volume import plain_api_access_mount
from kbatch.api.strategies.core.container_validation import (
    plain_container_valid,
    validate_containers,
    validate_init_containers,
)
from kbatch.api.strategies.core.ephemeral_validation import ephemeral_errors
from kbatch.api.strategies.core.pod_deletion_cost import deletion_cost_errors
from kbatch.api.strategies.core.pod_dns_validation import dns_config_errors, host_alias_errors
from kbatch.api.strategies.core.pod_label_keys import validate_spec_label_keys
from kbatch.api.strategies.core.pod_os_validation import host_process_errors, host_users_errors, os_errors
from kbatch.api.strategies.core.pod_profile_annotations import (
    profile_annotation_errors,
    profile_annotations_match_errors,
)
from kbatch.api.strategies.core.pod_resources_validation import validate_pod_resources
from kbatch.api.strategies.core.pod_validation_options import STRICT, PodValidationOptions
from kbatch.api.strategies.core.projected_validation import projected_errors
from kbatch.api.strategies.core.scheduling_validation import (
    tolerations_known_valid,
    validate_affinity,
    validate_tolerations,
    validate_topology_spread_constraints,
)
from kbatch.api.strategies.core.security_context_validation import (
    pod_security_context_errors,
    pod_security_context_set,
)
from kbatch.api.strategies.core.stop_signal_validation import stop_signal_errors
from kbatch.api.strategies.core.volume_sources import volume_source_errors
from kbatch.api.validation import (
    _is_dns1123_label,
    _is_dns1123_subdomain,
    child,
    index,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    validate_annotations,
    validate_labels,
    validate_resource_requirements,
)

__all__ = [
    "plain_spec_valid",
    "validate_pod_spec",
    "validate_pod_template_spec",
    "validate_volumes",
]

RESTART_POLICIES = ["Always", "OnFailure", "Never"]
DNS_POLICIES = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"]
PREEMPTION_POLICIES = ["PreemptLowerPriority", "Never"]
_MAX_INT32 = 2**31 - 1  # ValidatePodSpec bounds activeDeadlineSeconds by math.MaxInt32


def _required_source_fields(volume: Volume, path: str) -> list[FieldError]:
    """The one field each common source cannot do without."""
    checks = (
        (volume.persistent_volume_claim, "persistentVolumeClaim", "claimName"),
        (volume.host_path, "hostPath", "path"),
        (volume.secret, "secret", "secretName"),
        (volume.config_map, "configMap", "name"),
        (volume.csi, "csi", "driver"),
        (volume.nfs, "nfs", "server"),
    )
    errs: list[FieldError] = []
    for source, name, required in checks:
        if source is not None and not getattr(source, _snake(required)):
            errs.append(FieldError.required(child(child(path, name), required)))
    return errs


def _snake(name: str) -> str:
    return "".join("_" + ch.lower() if ch.isupper() else ch for ch in name)


def validate_volumes(volumes: list[Volume] | None, path: str,
                     opts: PodValidationOptions = STRICT) -> tuple[list[FieldError], set[str]]:
    """Volume names (unique DNS-1123 labels) and exactly one source each; returns the names too."""
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, volume in enumerate(volumes or ()):
        at = index(path, i)
        name_path = child(at, "name")
        if not volume.name:
            errs.append(FieldError.required(name_path))
        else:
            errs += [FieldError.invalid(name_path, volume.name, m) for m in is_dns1123_label(volume.name)]
        if volume.name in names:
            errs.append(FieldError.duplicate(name_path, volume.name))
        names.add(volume.name)
        sources = volume.source_names()
        if not sources:
            errs.append(FieldError.required(at, "must specify a volume type"))
        for extra in sources[1:]:
            errs.append(FieldError.forbidden(child(at, extra), "may not specify more than 1 volume type"))
        errs += _required_source_fields(volume, at)
        errs += volume_source_errors(volume, at)
        if volume.projected is not None:
            errs += projected_errors(volume.projected, child(at, "projected"),
                                     opts.allow_non_local_projected_token_path)
        if volume.ephemeral is not None:
            errs += ephemeral_errors(volume.ephemeral, child(at, "ephemeral"))
    return errs, names


def _validate_resource_claims(
    claims: list[PodResourceClaim] | None, path: str,
) -> tuple[list[FieldError], set[str]]:
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, claim in enumerate(claims or ()):
        at = index(path, i)
        if not claim.name:
            errs.append(FieldError.required(child(at, "name")))
        elif claim.name in names:
            errs.append(FieldError.duplicate(child(at, "name"), claim.name))
        else:
            errs += [FieldError.invalid(child(at, "name"), claim.name, m)
                     for m in is_dns1123_label(claim.name)]
            names.add(claim.name)
        sources = (claim.resource_claim_name, claim.resource_claim_template_name)
        if sum(s is not None for s in sources) != 1:
            errs.append(FieldError.invalid(at, claim.to_dict(), "must specify exactly one of "
                                           "`resourceClaimName` or `resourceClaimTemplateName`"))
        for field, value in (("resourceClaimName", claim.resource_claim_name),
                             ("resourceClaimTemplateName", claim.resource_claim_template_name)):
            if value is not None:
                errs += [FieldError.invalid(child(at, field), value, m) for m in is_dns1123_subdomain(value)]
    return errs, names


validate_claim_references = _validate_resource_claims
"""A list of ``{name, resourceClaimName | resourceClaimTemplateName}`` (a pod's ``spec.resourceClaims``,
a PodGroup's, upstream ``validatePodResourceClaims``): the errors and the names seen."""


def _validate_scheduling_gates(gates: list[PodSchedulingGate] | None, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, gate in enumerate(gates or ()):
        errs += [FieldError.invalid(index(path, i), gate.name, m) for m in is_qualified_name(gate.name)]
        if gate.name in seen:
            errs.append(FieldError.duplicate(index(path, i), gate.name))
        seen.add(gate.name)
    return errs


def _enum_errors(value: str | None, supported: list[str], path: str, *, required: bool) -> list[FieldError]:
    if value is None or value == "":
        return [FieldError.required(path)] if required or value == "" else []
    if value not in supported:
        return [FieldError.not_supported(path, value, supported)]
    return []


def _name_fields(spec: PodSpec, path: str) -> list[FieldError]:
    """Optional names: DNS-1123 labels (hostname, subdomain) and subdomains (nodeName, ...)."""
    if _names_valid(spec):  # the usual case: the memoised checks, no (field, value) tuples or lists
        return []
    return _name_field_errors(spec, path)


def _names_valid(spec: PodSpec) -> bool:
    """Every name :func:`_name_field_errors` checks is absent or valid (same memoised checks)."""
    v = spec.__dict__
    return not (
        (v["hostname"] and _is_dns1123_label(v["hostname"]))
        or (v["subdomain"] and _is_dns1123_label(v["subdomain"]))
        or (v["service_account_name"] and _is_dns1123_subdomain(v["service_account_name"]))
        or (v["node_name"] and _is_dns1123_subdomain(v["node_name"]))
        or (v["priority_class_name"] and _is_dns1123_subdomain(v["priority_class_name"])))


def _name_field_errors(spec: PodSpec, path: str) -> list[FieldError]:
    """The errors of :func:`_name_fields`, in upstream's order (the general path). ``schedulerName``
    is not among them: ``ValidatePodSpec`` does not check it (any name is accepted; a pod whose
    scheduler does not run stays Pending)."""
    errs: list[FieldError] = []
    for field, value in (("hostname", spec.hostname), ("subdomain", spec.subdomain)):
        if value:
            errs += [FieldError.invalid(child(path, field), value, m) for m in is_dns1123_label(value)]
    for field, value in (("serviceAccountName", spec.service_account_name), ("nodeName", spec.node_name),
                         ("priorityClassName", spec.priority_class_name)):
        if value:
            errs += [FieldError.invalid(child(path, field), value, m) for m in is_dns1123_subdomain(value)]
    return errs


def plain_spec_valid(spec: PodSpec) -> bool:
    """Whether :func:`validate_pod_spec` certainly returns no error, decided without building a path
    or an error: the usual spec (regular containers without ports or mounts, env as ``plain_env``
    takes it, tolerations already seen valid, valid resource claims, node selector and scheduling
    group, no other
    volumes, init containers, affinity, spread constraints, gates, overhead, pod-level resources or
    deadline; the ServiceAccount plugin's volume and mounts only, :mod:`.api_access_volume`).
    ``False`` only means "take the general path"; property-tested against it
    (tests/api/test_validation_fast_paths.py)."""
    v = spec.__dict__
    mount = None
    if v["volumes"] and (mount := plain_api_access_mount(v["volumes"])) is None:
        return False
    if (v["init_containers"]
            or v["affinity"] is not None or v["topology_spread_constraints"] or v["scheduling_gates"]
            or v["overhead"] or v["resources"] is not None or v["active_deadline_seconds"] is not None
            or v["restart_policy"] not in RESTART_POLICIES
            or v["dns_policy"] not in DNS_POLICIES or v["dns_policy"] == "None" or v["dns_config"] is not None
            or v["host_aliases"] or v["readiness_gates"] or v["runtime_class_name"] is not None
            or v["os"] is not None or v["host_users"] is False
            or (v["share_process_namespace"] and v["host_pid"])
            or pod_security_context_set(v["security_context"])):
        return False
    preemption, tolerations, containers = v["preemption_policy"], v["tolerations"], v["containers"]
    if preemption is not None and preemption not in PREEMPTION_POLICIES:
        return False
    if not containers or (tolerations and not tolerations_known_valid(tolerations)):
        return False
    if v["node_selector"] and validate_labels(v["node_selector"], "spec.nodeSelector"):
        return False  # valid labels are decided without a path (a Kueue flavor's, a user's zone)
    group = v["scheduling_group"]  # a gang member's (a Workload's PodGroup)
    if group is not None and _validate_scheduling_group(group, "spec.schedulingGroup"):
        return False
    claims: set[str] = set()
    if v["resource_claims"]:  # a DRA pod's: cheap, and checked as the general path does
        errs, claims = _validate_resource_claims(v["resource_claims"], "spec.resourceClaims")
        if errs:
            return False
    names: set[str] = set()
    return all(plain_container_valid(c, names, mount, claims) for c in containers) and _names_valid(spec)


def validate_pod_spec(spec: PodSpec, path: str, opts: PodValidationOptions = STRICT) -> list[FieldError]:
    """``ValidatePodSpec`` for a defaulted spec; every error at once. Optional lists and maps that are
    absent or empty validate to nothing, so their validators are not called (this is on the path of
    every pod create). The usual spec is recognised as valid first (:func:`plain_spec_valid`).
    ``opts`` are the update relaxations computed from the old object (:mod:`.pod_validation_options`);
    a create keeps the strict default."""
    if plain_spec_valid(spec):
        return []
    return _validate_pod_spec(spec, path, opts)


def _validate_pod_spec(spec: PodSpec, path: str, opts: PodValidationOptions = STRICT) -> list[FieldError]:
    """:func:`validate_pod_spec`, the general path: every check, every error."""
    errs: list[FieldError] = []
    volumes: set[str] = set()
    claims: set[str] = set()
    if spec.volumes:
        errs, volumes = validate_volumes(spec.volumes, child(path, "volumes"), opts)
    if spec.resource_claims:
        claim_errs, claims = _validate_resource_claims(spec.resource_claims, child(path, "resourceClaims"))
        errs += claim_errs
    names: set[str] = set()  # regular containers first: an init container repeating a name is the duplicate
    grace = spec.termination_grace_period_seconds
    pod = (spec.restart_policy, spec.host_users is not False)
    restart_all = opts.allow_restart_all_containers
    errs += validate_containers(spec.containers, child(path, "containers"), names, volumes, claims, grace,
                                pod, restart_all)
    if spec.init_containers:
        errs += validate_init_containers(spec.init_containers, child(path, "initContainers"), names,
                                         volumes, claims, grace, pod, restart_all)
    errs += stop_signal_errors(spec, path)
    if spec.resources is not None:
        errs += validate_pod_resources(spec, child(path, "resources"))
    if spec.host_network:
        errs += _host_network_port_errors(spec, path)
    errs += _enum_errors(spec.restart_policy, RESTART_POLICIES, child(path, "restartPolicy"), required=True)
    errs += _enum_errors(spec.dns_policy, DNS_POLICIES, child(path, "dnsPolicy"), required=True)
    if spec.node_selector:
        errs += validate_labels(spec.node_selector, child(path, "nodeSelector"))
    errs += pod_security_context_errors(spec, child(path, "securityContext"), opts)
    return errs + _validate_scheduling_fields(spec, path, opts)


def _validate_scheduling_fields(spec: PodSpec, path: str, opts: PodValidationOptions) -> list[FieldError]:
    """The rest of ``ValidatePodSpec``, in upstream's order (affinity, DNS config, readiness gates,
    scheduling gates, spread, HostProcess and user-namespace rules, names, deadline, tolerations,
    host aliases, runtime class, preemption policy, overhead, OS), then the pod's scheduling group."""
    errs: list[FieldError] = []
    if spec.affinity is not None:
        errs += validate_affinity(
            spec.affinity, child(path, "affinity"),
            loose_node_values=opts.allow_invalid_label_value_in_required_node_affinity,
            loose_selector_values=opts.allow_invalid_label_value_in_selector)
    errs += dns_config_errors(spec.dns_config, spec.dns_policy, child(path, "dnsConfig"))
    for i, gate in enumerate(spec.readiness_gates or ()):
        at = child(index(child(path, "readinessGates"), i), "conditionType")
        errs += [FieldError.invalid(at, gate.condition_type, m)
                 for m in is_qualified_name(gate.condition_type)]
    if spec.scheduling_gates:
        errs += _validate_scheduling_gates(spec.scheduling_gates, child(path, "schedulingGates"))
    if spec.topology_spread_constraints:
        errs += validate_topology_spread_constraints(
            spec.topology_spread_constraints, child(path, "topologySpreadConstraints"),
            loose_values=opts.allow_invalid_topology_spread_constraint_label_selector)
    if spec.affinity is not None or spec.topology_spread_constraints:
        errs += validate_spec_label_keys(spec, path, not opts.old_pod_violates_match_label_keys_validation)
    errs += host_process_errors(spec, path) + host_users_errors(spec, path)
    errs += _name_fields(spec, path)
    if spec.active_deadline_seconds is not None and not 1 <= spec.active_deadline_seconds <= _MAX_INT32:
        errs.append(FieldError.invalid(child(path, "activeDeadlineSeconds"), spec.active_deadline_seconds,
                                       f"must be between 1 and {_MAX_INT32}, inclusive"))
    if spec.tolerations:
        errs += validate_tolerations(spec.tolerations, child(path, "tolerations"))
    if spec.host_aliases:
        errs += host_alias_errors(spec.host_aliases, child(path, "hostAliases"))
    if spec.runtime_class_name is not None:  # ValidateRuntimeClassName: a DNS subdomain
        errs += [FieldError.invalid(child(path, "runtimeClassName"), spec.runtime_class_name, m)
                 for m in is_dns1123_subdomain(spec.runtime_class_name)]
    if spec.preemption_policy is not None:
        errs += _enum_errors(spec.preemption_policy, PREEMPTION_POLICIES, child(path, "preemptionPolicy"),
                             required=False)
    if spec.overhead:  # validateOverhead: checked as a container's limits, so under overhead.limits
        errs += validate_resource_requirements(ResourceRequirements(limits=spec.overhead),
                                               child(path, "overhead"))
    errs += os_errors(spec, path)
    if spec.scheduling_group is not None:
        errs += _validate_scheduling_group(spec.scheduling_group, child(path, "schedulingGroup"))
    return errs


def _host_network_port_errors(spec: PodSpec, path: str) -> list[FieldError]:
    """``validatePodHostNetworkDeps``: with ``hostNetwork`` a container's host port, once set (defaulting
    sets it to the container port), must be that port."""
    errs: list[FieldError] = []
    for i, c in enumerate(spec.containers):
        for j, port in enumerate(c.ports or ()):
            if port.host_port and port.host_port != port.container_port:
                at = child(index(child(index(child(path, "containers"), i), "ports"), j), "hostPort")
                errs.append(FieldError.invalid(at, port.host_port,
                                               "must match `containerPort` when `hostNetwork` is true"))
    return errs


def _validate_scheduling_group(group: PodSchedulingGroup, path: str) -> list[FieldError]:
    """``spec.schedulingGroup`` (KEP-4671): ``podGroupName`` required, a PodGroup name (DNS subdomain)."""
    name, at = group.pod_group_name, child(path, "podGroupName")
    if not name:
        return [FieldError.required(at, "")]
    return [FieldError.invalid(at, name, msg) for msg in is_dns1123_subdomain(name)]


def validate_pod_template_spec(template: PodTemplateSpec, path: str,
                               opts: PodValidationOptions = STRICT) -> list[FieldError]:
    """``ValidatePodTemplateSpec``: labels and annotations (at ``<path>.labels``, as upstream; the
    seccomp/AppArmor ones of ``ValidatePodSpecificAnnotations`` too), the spec, annotations and
    profile fields agree, and no ephemeral containers."""
    meta = template.metadata
    annotations = meta.annotations if meta else None
    errs = validate_labels(meta.labels if meta else None, child(path, "labels"))
    errs += validate_annotations(annotations, child(path, "annotations"))
    if not opts.allow_invalid_pod_deletion_cost:
        errs += deletion_cost_errors(annotations, child(path, "annotations"))
    errs += profile_annotation_errors(annotations, template.spec, child(path, "annotations"))
    errs += validate_pod_spec(template.spec, child(path, "spec"), opts)
    errs += profile_annotations_match_errors(annotations, template.spec, child(path, "spec"))
    if template.spec.ephemeral_containers:
        errs.append(FieldError.forbidden(child(child(path, "spec"), "ephemeralContainers"),
                                         "ephemeral containers not allowed in pod template"))
    return errs
