"""What an update may keep that a create may not: the pod validation options computed from the OLD
pod or pod template.

Upstream: kubernetes ``pkg/api/pod/util.go`` ``GetValidationOptionsFromPodSpecAndMeta`` /
``GetValidationOptionsFromPodTemplate`` (read at the 1.35+ stored copy, which has
``AllowRestartAllContainers`` and ``AllowTaintTolerationComparisonOperators``) and the
``PodValidationOptions`` fields of ``pkg/apis/core/validation/validation.go`` they feed. A create
validates with :data:`STRICT`; an update computes :func:`options_from_old` once, from the old spec, so
that a value an older server stored (or a rule added since) does not make every later write of that
object fail. Only the options for rules kbatch checks are modelled; options whose gate is on by
default in 1.37 relax nothing kbatch checks (RelaxedDNSSearchValidation, the env var name rules,
PodLevelResources, InPlacePodVerticalScaling), so they have no field here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kbatch.api.core_v1 import PodAffinityTerm, PodSpec
from kbatch.api.meta import LabelSelector
from kbatch.api.strategies.core.pod_deletion_cost import deletion_cost_invalid
from kbatch.api.strategies.core.pod_label_keys import spread_label_keys_invalid
from kbatch.api.strategies.core.sysctl_names import sysctl_namespace
from kbatch.api.strategies.core.volume_sources import local_non_reserved_errors
from kbatch.api.validation import is_valid_label_value, validate_label_selector

__all__ = ["STRICT", "PodValidationOptions", "options_from_old"]


@dataclass(frozen=True, slots=True)
class PodValidationOptions:
    """The relaxations of ``PodValidationOptions`` kbatch models; all off for a create."""

    # a sysctl of the network (IPC) namespace in a hostNetwork (hostIPC) pod (ValidateHostSysctl)
    allow_namespaced_sysctls_for_host_net_and_host_ipc: bool = False
    # a required node affinity value that is no label value
    allow_invalid_label_value_in_required_node_affinity: bool = False
    # a pod (anti-)affinity term selector value that is no label value
    allow_invalid_label_value_in_selector: bool = False
    # a topology spread constraint selector value that is no label value
    allow_invalid_topology_spread_constraint_label_selector: bool = False
    # a projected serviceAccountToken path that is not local (ValidateLocalNonReservedPath)
    allow_non_local_projected_token_path: bool = False
    # a topology spread constraint's matchLabelKeys breaking ValidateMatchLabelKeysAndMismatchLabelKeys
    old_pod_violates_match_label_keys_validation: bool = False
    # a pod-deletion-cost annotation that is no canonical int32
    allow_invalid_pod_deletion_cost: bool = False
    # seLinuxChangePolicy limited to Recursive (SELinuxMount off and no old MountOption)
    allow_only_recursive_selinux_change_policy: bool = True
    # the RestartAllContainers rule action, and rules on sidecars (KEP-5532): the gate
    # RestartAllContainersOnContainerExits, on by default, or an old spec already using the action
    # (restartAllContainersActionInUse); the strategy turns it off (kbatch.api.gates.restart_all_allowed)
    allow_restart_all_containers: bool = True


STRICT = PodValidationOptions()


def _bad_values(values: list[str] | None) -> bool:
    return any(is_valid_label_value(v) for v in values or ())


def _selector_invalid(selector: LabelSelector | None) -> bool:
    """Whether the strict ``ValidateLabelSelector`` finds any error (upstream asks exactly that of
    the old selector, though the option only lifts the value check)."""
    return selector is not None and bool(validate_label_selector(selector, ""))


def _affinity_selector_invalid(spec: PodSpec) -> bool:
    """``hasInvalidLabelValueInAffinitySelector``: any pod (anti-)affinity term, required or
    preferred, whose label or namespace selector is invalid (``ValidatePodAffinityTermSelector``)."""
    affinity = spec.affinity
    if affinity is None:
        return False
    terms: list[PodAffinityTerm] = []
    for part in (affinity.pod_affinity, affinity.pod_anti_affinity):
        if part is not None:
            terms += part.required_during_scheduling_ignored_during_execution or []
            terms += [w.pod_affinity_term
                      for w in part.preferred_during_scheduling_ignored_during_execution or ()]
    return any(_selector_invalid(t.label_selector) or _selector_invalid(t.namespace_selector)
               for t in terms)


def _node_affinity_invalid(spec: PodSpec) -> bool:
    """``hasInvalidLabelValueInRequiredNodeAffinity``: a required term's expression value."""
    node = spec.affinity.node_affinity if spec.affinity is not None else None
    required = node.required_during_scheduling_ignored_during_execution if node is not None else None
    if required is None:
        return False
    return any(_bad_values(req.values)
               for term in required.node_selector_terms or () for req in term.match_expressions or ())


def _host_sysctl_invalid(spec: PodSpec) -> bool:
    """A sysctl ``ValidateHostSysctl`` refuses: network namespace with hostNetwork, IPC with hostIPC."""
    sc = spec.security_context
    for sysctl in (sc.sysctls if sc is not None else None) or ():
        namespace = sysctl_namespace(sysctl.name)
        if (spec.host_network and namespace == "Net") or (spec.host_ipc and namespace == "IPC"):
            return True
    return False


def _non_local_token_path(spec: PodSpec) -> bool:
    """``hasNonLocalProjectedTokenPath``."""
    for volume in spec.volumes or ():
        for source in (volume.projected.sources or ()) if volume.projected is not None else ():
            token = source.service_account_token
            if token is not None and local_non_reserved_errors(token.path, ""):
                return True
    return False


def _mount_option_in_use(spec: PodSpec) -> bool:
    """``useOnlyRecursiveSELinuxChangePolicy`` is false when the old spec used ``MountOption``."""
    sc = spec.security_context
    return sc is not None and sc.se_linux_change_policy == "MountOption"


def _may_relax(spec: PodSpec) -> bool:
    """Whether the spec sets any field an option looks at (most pods set none: no further scan)."""
    sc = spec.security_context
    return (spec.affinity is not None or bool(spec.topology_spread_constraints) or bool(spec.volumes)
            or (sc is not None and (bool(sc.sysctls) or sc.se_linux_change_policy is not None)))


def options_from_old(old: PodSpec, old_annotations: Mapping[str, str] | None = None) -> PodValidationOptions:
    """The options an update of a pod (template) whose old spec is ``old`` (and old metadata
    annotations ``old_annotations``) validates with: each rule the old object already broke is not
    applied to the new one. Called only on update."""
    cost = deletion_cost_invalid(old_annotations)
    if not _may_relax(old):
        return PodValidationOptions(allow_invalid_pod_deletion_cost=True) if cost else STRICT
    return PodValidationOptions(
        allow_invalid_pod_deletion_cost=cost,
        allow_namespaced_sysctls_for_host_net_and_host_ipc=_host_sysctl_invalid(old),
        allow_invalid_label_value_in_required_node_affinity=_node_affinity_invalid(old),
        allow_invalid_label_value_in_selector=_affinity_selector_invalid(old),
        allow_invalid_topology_spread_constraint_label_selector=any(
            _selector_invalid(c.label_selector) for c in old.topology_spread_constraints or ()),
        allow_non_local_projected_token_path=_non_local_token_path(old),
        old_pod_violates_match_label_keys_validation=spread_label_keys_invalid(old),
        allow_only_recursive_selinux_change_policy=not _mount_option_in_use(old),
    )
