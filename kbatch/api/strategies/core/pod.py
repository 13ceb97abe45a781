"""The Pod strategy: defaulting, create/update/status validation, QoS class on create.

Upstream: kubernetes ``pkg/registry/core/pod/strategy.go`` (PrepareForCreate sets phase Pending and
the QoS class; main writes keep status and status writes keep spec), ``pkg/apis/core/validation``
(``ValidatePodUpdate``: the spec is immutable except images, activeDeadlineSeconds, added
tolerations, removed scheduling gates; ``ValidatePodStatusUpdate``) and ``pkg/apis/core/helper/qos``.
Generic metadata checks are the API server's (``kbatch.apiserver.meta_validation``).
"""

from __future__ import annotations

from kbatch.api.core_v1 import ContainerStatus, Pod, PodSpec, PodStatus, Toleration
from kbatch.api.errors import FieldError
from kbatch.api.model_copy import copy_model
from kbatch.api.quantity import Quantity
from kbatch.api.strategies.core.pod_defaults import default_pod
from kbatch.api.strategies.core.pod_validation import validate_pod_spec
from kbatch.api.strategy import DefaultStrategy
from kbatch.api.validation import child, index, is_dns1123_subdomain

__all__ = ["PodStrategy", "pod_qos_class", "validate_pod_spec_update", "validate_pod_status_update"]

_MAX_INT32 = 2**31 - 1
UPDATABLE_POD_SPEC_FIELDS = (
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
)
_TERMINAL = ("Succeeded", "Failed")
_PENDING = PodStatus(phase="Pending", qos_class="BestEffort")  # copied per create (no re-validation)
_QOS_RESOURCES = ("cpu", "memory")


def pod_qos_class(spec: PodSpec) -> str:
    """``Guaranteed`` / ``Burstable`` / ``BestEffort`` from cpu and memory requests and limits
    (``GetPodQOS``; totals compared exactly in nano units, which parsed quantities never go below)."""
    requests: dict[str, int] = {}
    limits: dict[str, int] = {}
    guaranteed = True
    for c in spec.all_containers():
        res = c.resources
        if res is None:
            guaranteed = False
            continue
        if res.requests:
            _add_qos_totals(res.requests, requests)
        if not res.limits or _add_qos_totals(res.limits, limits) != len(_QOS_RESOURCES):
            guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if guaranteed and requests.keys() == limits.keys() and all(limits[n] == v for n, v in requests.items()):
        return "Guaranteed"
    return "Burstable"


def _add_qos_totals(quantities: dict[str, Quantity], totals: dict[str, int]) -> int:
    """Add the non-zero cpu and memory quantities to ``totals`` (nano units); how many there were."""
    found = 0
    for name, q in quantities.items():
        if name in _QOS_RESOURCES and not q.is_zero():
            totals[name] = totals.get(name, 0) + q.scaled_value(-9)
            found += 1
    return found


def _active_deadline_errors(new: int | None, old: int | None, path: str) -> list[FieldError]:
    if new is not None:
        if not 0 <= new <= _MAX_INT32:
            return [FieldError.invalid(path, new, f"must be between 0 and {_MAX_INT32}, inclusive")]
        if old is not None and old < new:
            return [FieldError.invalid(path, new, "must be less than or equal to previous value")]
    elif old is not None:
        return [FieldError.invalid(path, None, "must not update from a positive integer to nil value")]
    return []


def _still_tolerated(old: Toleration, new: Toleration) -> bool:
    """Same toleration, with ``tolerationSeconds`` unchanged or (when set) not larger."""
    # every other field equal (what comparing copies with tolerationSeconds cleared would say)
    mine, theirs = old.__dict__, new.__dict__
    if type(old) is not type(new) or any(
            mine[name] != theirs[name] for name in mine if name != "toleration_seconds"):
        return False
    if old.toleration_seconds is None or new.toleration_seconds is None:
        return old.toleration_seconds == new.toleration_seconds
    return new.toleration_seconds <= old.toleration_seconds


def _only_added_tolerations(new: PodSpec, old: PodSpec, path: str) -> list[FieldError]:
    """Every old toleration stays (only a ``tolerationSeconds`` may shrink)."""
    return [FieldError.forbidden(index(path, i), "existing toleration can not be modified except its "
                                 "tolerationSeconds")
            for i, tol in enumerate(old.tolerations or ())
            if not any(_still_tolerated(tol, t) for t in new.tolerations or ())]


def _only_removed_gates(new: PodSpec, old: PodSpec, path: str) -> list[FieldError]:
    old_names = {g.name for g in old.scheduling_gates or ()}
    return [FieldError.forbidden(child(index(path, i), "name"),
                                 f"only deletion is allowed, but found new scheduling gate '{g.name}'")
            for i, g in enumerate(new.scheduling_gates or ()) if g.name not in old_names]


def _masked(new: PodSpec, old: PodSpec) -> PodSpec:
    """``old`` with every field an update may change taken from ``new``."""
    masked = copy_model(old)  # old is a validated, stored spec: a structural copy is exact
    pairs = ((masked.containers, new.containers), (masked.init_containers or [], new.init_containers or []))
    for mine, theirs in pairs:
        for c, n in zip(mine, theirs, strict=False):
            c.image = n.image
    masked.active_deadline_seconds = new.active_deadline_seconds
    masked.tolerations = new.tolerations
    masked.scheduling_gates = new.scheduling_gates
    if old.scheduling_gates:  # a gated pod may still gain scheduling constraints
        masked.node_selector, masked.affinity = new.node_selector, new.affinity
    old_grace = old.termination_grace_period_seconds
    if old_grace is not None and old_grace < 0 and new.termination_grace_period_seconds == 1:
        masked.termination_grace_period_seconds = 1
    return masked


def validate_pod_spec_update(new: PodSpec, old: PodSpec, path: str = "spec") -> list[FieldError]:
    if len(new.containers) != len(old.containers):
        return [FieldError.forbidden(child(path, "containers"),
                                     "pod updates may not add or remove containers")]
    errs = _active_deadline_errors(new.active_deadline_seconds, old.active_deadline_seconds,
                                   child(path, "activeDeadlineSeconds"))
    if errs:
        return errs
    errs += _only_added_tolerations(new, old, child(path, "tolerations"))
    errs += _only_removed_gates(new, old, child(path, "schedulingGates"))
    masked = _masked(new, old)
    if masked != new:
        changed = sorted(f.alias or name for name, f in PodSpec.model_fields.items()
                         if getattr(masked, name) != getattr(new, name))
        errs.append(FieldError.forbidden(path, "pod updates may not change fields other than "
                                         + ",".join(UPDATABLE_POD_SPEC_FIELDS)
                                         + "\nchanged: " + ", ".join(f"spec.{c}" for c in changed)))
    return errs


def _state_transition_errors(new: list[ContainerStatus] | None, old: list[ContainerStatus] | None,
                             restart_policy: str | None, path: str) -> list[FieldError]:
    """A terminated container that will not restart may not become non-terminated."""
    if restart_policy == "Always":
        return []
    errs: list[FieldError] = []
    old_by_name = {s.name: s for s in old or ()}
    for i, status in enumerate(new or ()):
        before = old_by_name.get(status.name)
        done = before.state.terminated if before is not None and before.state else None
        if done is None or (restart_policy == "OnFailure" and done.exit_code != 0):
            continue
        if status.state is None or status.state.terminated is None:
            errs.append(FieldError.forbidden(child(index(path, i), "state"),
                                             "may not be transitioned to non-terminated state"))
    return errs


def validate_pod_status_update(new: Pod, old: Pod) -> list[FieldError]:
    errs: list[FieldError] = []
    status, before = new.status or PodStatus(), old.status or PodStatus()
    if status.nominated_node_name:
        errs += [FieldError.invalid("status.nominatedNodeName", status.nominated_node_name, m)
                 for m in is_dns1123_subdomain(status.nominated_node_name)]
    if before.phase in _TERMINAL and status.phase != before.phase:
        errs.append(FieldError.forbidden("status.phase", "may not be transitioned to non-terminal state"))
    policy = old.spec.restart_policy
    errs += _state_transition_errors(status.container_statuses, before.container_statuses, policy,
                                     "status.containerStatuses")
    errs += _state_transition_errors(status.init_container_statuses, before.init_container_statuses,
                                     policy if policy == "Never" else "OnFailure",
                                     "status.initContainerStatuses")
    return errs


class PodStrategy(DefaultStrategy):
    """Pods: upstream defaulting and validation; status starts ``Pending`` with its QoS class."""

    def default(self, obj: Pod) -> None:  # type: ignore[override]
        default_pod(obj)

    def prepare_for_create(self, obj: Pod) -> None:  # type: ignore[override]
        status = copy_model(_PENDING)
        status.qos_class = pod_qos_class(obj.spec)
        obj.status = status

    def validate(self, obj: Pod) -> list[FieldError]:  # type: ignore[override]
        return validate_pod_spec(obj.spec, "spec")

    def validate_update(self, new: Pod, old: Pod) -> list[FieldError]:  # type: ignore[override]
        return validate_pod_spec_update(new.spec, old.spec)

    def validate_status_update(self, new: Pod, old: Pod) -> list[FieldError]:  # type: ignore[override]
        return validate_pod_status_update(new, old)
