"""The Pod strategy: defaulting, create/update/status validation, QoS class on create.

Upstream: kubernetes ``pkg/registry/core/pod/strategy.go`` (PrepareForCreate sets phase Pending and
the QoS class and merges matchLabelKeys/mismatchLabelKeys into selectors, :mod:`.pod_label_keys`;
main writes keep status and status writes keep spec), ``pkg/apis/core/validation``
(``ValidatePodUpdate``: the spec is immutable except images, activeDeadlineSeconds, added
tolerations, removed scheduling gates; ``ValidatePodStatusUpdate``) and ``pkg/apis/core/helper/qos``.
Generic metadata checks are the API server's (``kbatch.apiserver.meta_validation``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kbatch.api.core_v1 import (
    Container,
    Pod,
    PodSpec,
    PodStatus,
    Toleration,
)
from kbatch.api.errors import FieldError
from kbatch.api.gates import drop_disabled_pod_fields, pod_fields_to_drop, restart_all_allowed
from kbatch.api.go_equal import go_equal
from kbatch.api.model_copy import template_factory
from kbatch.api.quantity import Quantity
from kbatch.api.strategies.core.container_validation import validate_containers_only_for_pod
from kbatch.api.strategies.core.pod_defaults import default_pod
from kbatch.api.strategies.core.pod_deletion_cost import deletion_cost_errors
from kbatch.api.strategies.core.pod_gated_update import gated_update_errors, pod_affinities
from kbatch.api.strategies.core.pod_label_keys import merge_label_keys
from kbatch.api.strategies.core.pod_profile_annotations import (
    annotation_update_errors,
    profile_annotation_errors,
    profile_annotations_match_errors,
)
from kbatch.api.strategies.core.pod_status_validation import validate_pod_status_update
from kbatch.api.strategies.core.pod_validation import validate_pod_spec
from kbatch.api.strategies.core.pod_validation_options import STRICT, PodValidationOptions, options_from_old
from kbatch.api.strategies.core.pod_warnings import pod_spec_warnings
from kbatch.api.strategy import DefaultStrategy, GateBound
from kbatch.api.validation import child, index, is_dns1123_label
from kbatch.api.wire_zeros import Node, tree_of

__all__ = ["PodStrategy", "pod_qos_class", "validate_pod_spec_update", "validate_pod_status_update"]

_MAX_INT32 = 2**31 - 1
UPDATABLE_POD_SPEC_FIELDS = (
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
)
_PENDING = PodStatus(phase="Pending", qos_class="BestEffort")  # copied per create (no re-validation)
_new_pending = template_factory(_PENDING)
_QOS_RESOURCES = ("cpu", "memory")
_NO_RESTART_ALL = replace(STRICT, allow_restart_all_containers=False)  # a create, the gate off
_MAY_CHANGE = frozenset({"active_deadline_seconds", "tolerations", "scheduling_gates"})


def pod_qos_class(spec: PodSpec) -> str:
    """``Guaranteed`` / ``Burstable`` / ``BestEffort`` from cpu and memory requests and limits
    (``ComputePodQOS``, pkg/apis/core/helper/qos). With pod-level resources (``spec.resources``;
    PodLevelResources, beta and on by default since 1.34) only those count, as one container's would.
    A pod with a container lacking a non-zero cpu or memory limit cannot be Guaranteed, so no totals
    are needed: it is Burstable when any cpu or memory quantity is non-zero (the usual pod; agrees
    with :func:`_qos_from_totals`, property-tested)."""
    if spec.resources is not None:
        return _qos_from_totals([Container.model_construct(resources=spec.resources)])
    containers = spec.all_containers()
    for c in containers:
        limits = c.resources.limits if c.resources is not None else None
        if limits:
            cpu, memory = limits.get("cpu"), limits.get("memory")
            if cpu is not None and not cpu.is_zero() and memory is not None and not memory.is_zero():
                continue  # both limits non-zero: this container keeps Guaranteed possible
        return "Burstable" if _any_nonzero_in(containers) else "BestEffort"
    return _qos_from_totals(containers)


def _any_nonzero(quantities: dict[str, Quantity] | None) -> bool:
    if not quantities:
        return False
    cpu, memory = quantities.get("cpu"), quantities.get("memory")
    return (cpu is not None and not cpu.is_zero()) or (memory is not None and not memory.is_zero())


def _any_nonzero_in(containers: list[Container]) -> bool:
    for c in containers:
        res = c.resources
        if res is not None and (_any_nonzero(res.requests) or _any_nonzero(res.limits)):
            return True
    return False


def _qos_from_totals(containers: list[Container]) -> str:
    """``GetPodQOS`` in full: totals compared exactly in nano units (which parsed quantities never go
    below)."""
    requests: dict[str, int] = {}
    limits: dict[str, int] = {}
    guaranteed = True
    for c in containers:
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
    """Same toleration but for ``tolerationSeconds``, which may take any value (upstream compares a
    copy of the old toleration given the new one's seconds)."""
    mine, theirs = old.__dict__, new.__dict__
    return type(old) is type(new) and all(
        mine[name] == theirs[name] for name in mine if name != "toleration_seconds")


def _only_added_tolerations(new: PodSpec, old: PodSpec, path: str) -> list[FieldError]:
    """``validateOnlyAddedTolerations``: every old toleration stays; the first one missing gives the
    one error, at ``spec.tolerations`` itself."""
    for tol in old.tolerations or ():
        if not any(_still_tolerated(tol, t) for t in new.tolerations or ()):
            return [FieldError.forbidden(path, "existing toleration can not be modified except its "
                                         "tolerationSeconds")]
    return []


def _only_removed_gates(new: PodSpec, old: PodSpec, path: str) -> list[FieldError]:
    old_names = {g.name for g in old.scheduling_gates or ()}
    return [FieldError.forbidden(child(index(path, i), "name"),
                                 f"only deletion is allowed, but found new scheduling gate '{g.name}'")
            for i, g in enumerate(new.scheduling_gates or ()) if g.name not in old_names]


def _spec_node(name: str) -> Node | None:
    """The pod spec field's place in the wire-zero tree (:func:`kbatch.api.go_equal.go_equal`)."""
    tree = tree_of("v1", "Pod")
    spec = tree.fields.get("spec") if tree is not None else None
    return spec.fields.get(name) if spec is not None else None


def _differs(old: Any, new: Any, alias: str) -> bool:
    """``old != new`` as upstream's ``Semantic.DeepEqual`` sees it (an explicit empty value a custom
    resource's template carried equals the unset one a client sends back)."""
    return old != new and not go_equal(old, new, _spec_node(alias))


def _differs_but_image(old: Container, new: Container, node: Node | None) -> bool:
    if type(old) is not type(new):
        return True
    with_image = old.model_copy(update={"image": new.image})
    return with_image != new and not go_equal(with_image, new, node)


def _containers_differ(old: list[Container] | None, new: list[Container] | None, alias: str) -> bool:
    """Whether the lists differ in more than their images (absent and empty are the same, as in Go)."""
    if not old or not new:
        return bool(old) or bool(new)
    list_node = _spec_node(alias)
    each = list_node.each if list_node is not None else None
    return len(old) != len(new) or any(_differs_but_image(o, n, each) for o, n in zip(old, new, strict=True))


def _changed_fields(new: PodSpec, old: PodSpec) -> list[str]:
    """Wire names of the fields that differ once every field an update may change is taken from
    ``new`` (images, activeDeadlineSeconds, tolerations, schedulingGates; nodeSelector and node
    affinity of a gated pod, checked by :func:`gated_update_errors`; terminationGracePeriodSeconds
    from negative to 1), compared field by field
    instead of on a masked copy of ``old``."""
    mine, theirs = old.__dict__, new.__dict__
    gated = bool(old.scheduling_gates)
    changed = []
    for name, field in PodSpec.__pydantic_fields__.items():
        if name in _MAY_CHANGE or (gated and name == "node_selector"):
            continue
        if gated and name == "affinity":  # node affinity: pod_gated_update; pod (anti-)affinity fixed
            differs = pod_affinities(mine[name]) != pod_affinities(theirs[name])
        elif name in ("containers", "init_containers"):
            differs = _containers_differ(mine[name], theirs[name], field.alias or name)
        elif name == "termination_grace_period_seconds":
            before, after = mine[name], theirs[name]
            differs = before != after and not (before is not None and before < 0 and after == 1)
        else:
            differs = _differs(mine[name], theirs[name], field.alias or name)
        if differs:
            changed.append(field.alias or name)
    return sorted(changed)


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
    if old.scheduling_gates:
        errs += gated_update_errors(new, old, path)
    changed = _changed_fields(new, old)
    if changed:
        errs.append(FieldError.forbidden(path, "pod updates may not change fields other than "
                                         + ",".join(UPDATABLE_POD_SPEC_FIELDS)
                                         + "\nchanged: " + ", ".join(f"spec.{c}" for c in changed)))
    return errs


class PodStrategy(GateBound, DefaultStrategy):
    """Pods: upstream defaulting and validation; status starts ``Pending`` with its QoS class."""

    # pods/status keeps ownerReferences (old kubelets corrupted them) and backfills an emptied QoS class
    # (immutable, set at creation): pkg/registry/core/pod/strategy.go, podStatusStrategy.PrepareForUpdate.
    # A write clearing status.observedGeneration or a condition's observedGeneration keeps the stored
    # value (preserveOldObservedGeneration; KEP-5067 Pod Generation, PodObservedGenerationTracking, beta
    # and on by default since 1.34); any other value, lower ones included, is taken as written.
    status_kept_meta = ("owner_references",)
    status_backfilled = ("qos_class", "observed_generation")
    status_condition_backfilled = ("observed_generation",)
    update_revalidates = False  # validate_update validates the new pod itself, relaxed by the old one

    def default(self, obj: Pod) -> None:  # type: ignore[override]
        default_pod(obj)

    def prepare_for_create(self, obj: Pod) -> None:  # type: ignore[override]
        if pod_fields_to_drop(obj.spec):
            drop_disabled_pod_fields(obj.spec, None, self.gates)
        status = _new_pending()
        status.__dict__["qos_class"] = pod_qos_class(obj.spec)  # already in its fields set
        obj.status = status
        if obj.spec.affinity is not None or obj.spec.topology_spread_constraints:
            merge_label_keys(obj.spec, obj.metadata.labels)  # create only: updates keep what was merged

    def prepare_for_update(self, new: Pod, old: Pod) -> None:  # type: ignore[override]
        super().prepare_for_update(new, old)
        if pod_fields_to_drop(new.spec):
            drop_disabled_pod_fields(new.spec, old.spec, self.gates)

    def validate(self, obj: Pod) -> list[FieldError]:  # type: ignore[override]
        """``ValidatePodCreate``: the seccomp/AppArmor annotations, the spec, what only a Pod's
        containers must satisfy, then the create-only rules: no ephemeral containers (only the
        ephemeralcontainers subresource adds them), no ``nodeName`` while scheduling gates remain,
        annotations and profile fields agree."""
        spec = obj.spec
        errs = self._validate(obj, STRICT if restart_all_allowed(self.gates, None) else _NO_RESTART_ALL)
        if spec.ephemeral_containers:
            errs.append(FieldError.forbidden("spec.ephemeralContainers", "cannot be set on create"))
        if spec.node_name and spec.scheduling_gates:
            errs.append(FieldError.forbidden("spec.nodeName",
                                             "cannot be set until all schedulingGates have been cleared"))
        return errs + profile_annotations_match_errors(obj.metadata.annotations, spec)

    @staticmethod
    def _validate(obj: Pod, opts: PodValidationOptions) -> list[FieldError]:
        """``validatePodMetadataAndSpec`` and the trimmed images: what create and update share."""
        spec, annotations = obj.spec, obj.metadata.annotations
        errs = [] if opts.allow_invalid_pod_deletion_cost else deletion_cost_errors(annotations,
                                                                                     "metadata.annotations")
        return (errs + profile_annotation_errors(annotations, spec)
                + validate_pod_spec(spec, "spec", opts)
                + validate_containers_only_for_pod(spec.containers, "spec.containers")
                + validate_containers_only_for_pod(spec.init_containers, "spec.initContainers"))

    def validate_update(self, new: Pod, old: Pod) -> list[FieldError]:  # type: ignore[override]
        """The new pod validated as on create but with the options computed from the old one
        (pkg/registry/core/pod/strategy.go ``ValidateUpdate`` with
        ``GetValidationOptionsFromPodSpecAndMeta``: a rule the stored pod already broke does not
        refuse the update), then the annotation rules of ``ValidatePodUpdate``
        (``ValidatePodSpecificAnnotationUpdates``) and what a spec update may change."""
        opts = options_from_old(old.spec, old.metadata.annotations)
        if not restart_all_allowed(self.gates, old.spec):
            opts = replace(opts, allow_restart_all_containers=False)
        errs = self._validate(new, opts)
        errs += annotation_update_errors(new.metadata.annotations, old.metadata.annotations, new.spec)
        return errs + validate_pod_spec_update(new.spec, old.spec)

    def validate_status_update(self, new: Pod, old: Pod) -> list[FieldError]:  # type: ignore[override]
        return validate_pod_status_update(new, old)

    def warnings_on_create(self, obj: Pod) -> list[str]:  # type: ignore[override]
        """A name that is no DNS label, then the pod spec warnings (pkg/registry/core/pod/strategy.go
        ``WarningsOnCreate``). Updates answer none upstream (no ``warnings_on_update``): pods are
        rarely written by people, and the update path is hot."""
        warnings = []
        if msgs := is_dns1123_label(obj.metadata.name or ""):
            warnings.append("metadata.name: this is used in the Pod's hostname, which can result in "
                            f"surprising behavior; a DNS label is recommended: [{' '.join(msgs)}]")
        return warnings + pod_spec_warnings(obj.spec, obj.metadata.annotations)
