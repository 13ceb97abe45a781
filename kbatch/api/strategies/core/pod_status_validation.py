"""What a write to ``pods/status`` may change (kubernetes ``pkg/apis/core/validation/validation.go``
``ValidatePodStatusUpdate``, read at the 1.35+ stored copy 000f2605).

In upstream's order: the pod-specific annotation rules (``ValidatePodSpecificAnnotationUpdates``:
a status write carries metadata too), custom condition types (qualified names, reported at
upstream's own ``metadata.conditions[i].Type``), ``nominatedNodeName`` (checked only when the write
changes it, so a stored value stays writable), the immutable QoS class, the container state
transitions (an old terminated container that will not restart stays terminated; reported at the
OLD status's index, as upstream), and ``resourceClaimStatuses``. A terminal phase stays terminal.
Pod and host IPs and the allocated-resources status rules are not modelled (kbatch's kubelet writes
none of them wrongly; listed in docs/apiserver.md).

The path is hot (every kubelet status write): each check returns at once when its field is unset or
unchanged.
"""

from __future__ import annotations

from kbatch.api.container_restart import container_should_restart, may_restart_all, own_restart
from kbatch.api.core_v1 import (
    Container,
    ContainerStatus,
    Pod,
    PodCondition,
    PodResourceClaimStatus,
    PodStatus,
)
from kbatch.api.errors import FieldError
from kbatch.api.strategies.core.pod_deletion_cost import deletion_cost_errors, deletion_cost_invalid
from kbatch.api.strategies.core.pod_profile_annotations import annotation_update_errors
from kbatch.api.validation import child, index, is_dns1123_subdomain, is_qualified_name

__all__ = ["validate_pod_status_update"]

_TERMINAL = ("Succeeded", "Failed")
# validatePodConditions skips these; the other built-in types are valid qualified names already
_SYSTEM_CONDITIONS = frozenset({"PodScheduled", "Ready", "Initialized"})
_KNOWN_VALID_CONDITIONS = _SYSTEM_CONDITIONS | {
    "ContainersReady", "PodReadyToStartContainers", "DisruptionTarget", "PodResizePending",
    "PodResizeInProgress"}


def _condition_errors(conditions: list[PodCondition] | None) -> list[FieldError]:
    """``validatePodConditions``: a custom condition type is a qualified name."""
    errs: list[FieldError] = []
    for i, cond in enumerate(conditions or ()):
        if cond.type not in _KNOWN_VALID_CONDITIONS:
            at = child(index("metadata.conditions", i), "Type")
            errs += [FieldError.invalid(at, cond.type, m) for m in is_qualified_name(cond.type)]
    return errs


def _restartable(name: str, init_containers: list[Container] | None) -> bool:
    """Whether the init container named ``name`` is a sidecar (``restartPolicy: Always``)."""
    return any(c.name == name and c.restart_policy == "Always" for c in init_containers or ())


def _restarts_itself(name: str, exit_code: int, containers: list[Container],
                     pod_policy: str | None) -> bool:
    """Whether the container ``name`` (regular, or a regular init container) has a policy of its own
    that restarts it after ``exit_code``."""
    for c in containers:
        if c.name == name:
            own = own_restart(c)
            return own is not None and container_should_restart(own, pod_policy, exit_code)
    return False


def _state_transition_errors(new: list[ContainerStatus] | None, old: list[ContainerStatus],
                             restart_policy: str | None, path: str,
                             init_containers: list[Container] | None = None,
                             containers: list[Container] | None = None) -> list[FieldError]:
    """``ValidateContainerStateTransition`` / ``ValidateInitContainerStateTransition``: an old
    terminated container that will not restart may not become non-terminated (error at the old
    status's index). Pods that always restart, failed containers of OnFailure pods and sidecars
    (``init_containers`` given) may, and so may a regular container (``containers`` given) its own
    restart policy or rules restart after its exit code (KEP-5307, ``ContainerShouldRestart``)."""
    if restart_policy == "Always":
        return []
    errs: list[FieldError] = []
    for i, before in enumerate(old):
        done = before.state.terminated if before.state is not None else None
        if done is None or (done.exit_code != 0 and restart_policy == "OnFailure"):
            continue
        if init_containers is not None and _restartable(before.name, init_containers):
            continue
        if containers is not None and _restarts_itself(before.name, done.exit_code, containers,
                                                       restart_policy):
            continue
        errs += [FieldError.forbidden(child(index(path, i), "state"),
                                      "may not be transitioned to non-terminated state")
                 for status in new or ()
                 if status.name == before.name and (status.state is None or status.state.terminated is None)]
    return errs


def _claim_status_errors(statuses: list[PodResourceClaimStatus], pod: Pod) -> list[FieldError]:
    """``validatePodResourceClaimStatuses``: each names a ``spec.resourceClaims`` entry, once; a
    generated claim name is a DNS subdomain (reported at ``name``, as upstream)."""
    names = {c.name for c in pod.spec.resource_claims or ()}
    seen: set[str] = set()
    errs: list[FieldError] = []
    for i, status in enumerate(statuses):
        at = child(index("status.resourceClaimStatuses", i), "name")
        if status.name not in names:
            errs.append(FieldError.invalid(at, status.name,
                                           "must match the name of an entry in `spec.resourceClaims`"))
        if status.name in seen:
            errs.append(FieldError.duplicate(at, status.name))
        seen.add(status.name)
        if status.resource_claim_name is not None:
            errs += [FieldError.invalid(at, status.resource_claim_name, m)
                     for m in is_dns1123_subdomain(status.resource_claim_name)]
    return errs


def _transition_errors(old: Pod, status: PodStatus, before: PodStatus) -> list[FieldError]:
    """Upstream ``ValidateContainerStateTransition`` / ``ValidateInitContainerStateTransition`` (1.36
    copy AIAgentSandox/kubernetes 64149d12): a pod some container of which may restart them all
    (``AllContainersCouldRestart``, KEP-5532; the action is in the spec only while allowed) lets every
    container leave ``terminated``; an init container its own policy restarts may too (KEP-5307)."""
    policy = old.spec.restart_policy
    errs: list[FieldError] = []
    inits = old.spec.init_containers or []
    restart_all = (before.container_statuses or before.init_container_statuses) \
        and may_restart_all([*inits, *old.spec.containers])
    if before.container_statuses and not restart_all:
        errs += _state_transition_errors(status.container_statuses, before.container_statuses, policy,
                                         "status.containerStatuses", containers=old.spec.containers)
    if before.init_container_statuses and not restart_all:
        errs += _state_transition_errors(status.init_container_statuses, before.init_container_statuses,
                                         policy, "status.initContainerStatuses", inits, inits)
    if before.ephemeral_container_statuses:  # never restarted: as under restartPolicy Never
        errs += _state_transition_errors(status.ephemeral_container_statuses,
                                         before.ephemeral_container_statuses, "Never",
                                         "status.ephemeralContainerStatuses")
    return errs


def validate_pod_status_update(new: Pod, old: Pod) -> list[FieldError]:
    """``ValidatePodStatusUpdate`` (``new`` carries the old spec: a status write cannot change it)."""
    errs: list[FieldError] = []
    if new.metadata.annotations or old.metadata.annotations:
        errs += annotation_update_errors(new.metadata.annotations, old.metadata.annotations, new.spec)
        if not deletion_cost_invalid(old.metadata.annotations):  # AllowInvalidPodDeletionCost from old
            errs += deletion_cost_errors(new.metadata.annotations, "metadata.annotations")
    status, before = new.status or PodStatus(), old.status or PodStatus()
    if status.conditions:
        errs += _condition_errors(status.conditions)
    nominated = status.nominated_node_name
    if nominated and nominated != before.nominated_node_name:
        errs += [FieldError.invalid("status.nominatedNodeName", nominated, m)
                 for m in is_dns1123_subdomain(nominated)]
    if status.qos_class != before.qos_class:
        errs.append(FieldError.invalid("status.qosClass", status.qos_class or "", "field is immutable"))
    if before.phase in _TERMINAL and status.phase != before.phase:
        errs.append(FieldError.forbidden("status.phase", "may not be transitioned to non-terminal state"))
    errs += _transition_errors(old, status, before)
    if status.resource_claim_statuses:
        errs += _claim_status_errors(status.resource_claim_statuses, new)
    return errs
