"""Kueue's webhooks for its own kinds, as an admission plugin (``KueueWebhooks``).

Upstream: kubernetes-sigs/kueue ``pkg/webhooks/{clusterqueue,cohort,resourceflavor,workload,
common}_webhook.go`` (v0.19.2). Mutating: ClusterQueues and ResourceFlavors get the
``kueue.x-k8s.io/resource-in-use`` finalizer when created; a Workload's ``minCount`` is dropped
unless ``PartialAdmission``. Validating (what the CRD schema cannot say; the schema's own rules are
:mod:`kbatch.api.strategies.kueue`):

* ClusterQueue/Cohort: resource groups (duplicate resources and flavors, quota names matching
  ``coveredResources``, non-negative quantities, limits only under a cohort/parent, a lending
  limit at most the nominal quota for ClusterQueues), preemption (``reclaimWithinCohort=Never`` with
  ``borrowWithinCohort``), fungibility ``preference`` (both policies ``TryNextFlavor``), fair-sharing
  weight, at most 256 flavors and covered resources, 512 flavor-resource pairs per group,
  ``onFlavors`` of admission checks (unchanged legacy rules kept unless
  ``RejectUpdatesToCQWithInvalidOnFlavors``), ``concurrentAdmissionPolicy``
  (:mod:`.concurrent_admission`);
* ResourceFlavor: node labels, taints (valid keys/values, unique by key and effect), tolerations;
* Workload (and its status): at most one pod set with ``minCount``, no ``pods`` resource and no
  negative quantity in templates, the admission (required while ``QuotaReserved``, known pod sets,
  usage a multiple of the count), reclaimable pods, admission check pod set updates; on update,
  pod sets immutable while quota is reserved, the admission immutable, reclaimable pods not
  decreasing, ready checks' pod set updates immutable.

A denial is ``Forbidden``: ``admission webhook "<name>" denied the request: <errors>`` — the errors
as Go's ``ToAggregate`` joins them.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.errors import FieldError, Forbidden
from kbatch.api.kueue_v1beta2 import ClusterQueue, Cohort, ResourceFlavor, Workload
from kbatch.api.kueue_v1beta2.constants import RESOURCE_IN_USE_FINALIZER
from kbatch.api.quantity import Quantity
from kbatch.api.validation import (
    is_qualified_name,
    is_valid_label_value,
    validate_annotations,
    validate_label_name,
    validate_label_selector,
    validate_labels,
)
from kbatch.controllers.kueue.config import settings_for
from kbatch.controllers.kueue.model.info import PRIORITY_BOOST, parse_priority_boost
from kbatch.controllers.kueue.model.requests import amount
from kbatch.controllers.kueue.tas import slice_annotations
from kbatch.controllers.kueue.webhooks.admission_gated_by import admission_gated_by_errors
from kbatch.controllers.kueue.webhooks.concurrent_admission import (
    concurrent_admission_errors,
    concurrent_admission_update_errors,
)
from kbatch.controllers.kueue.workloadslicing import enabled as slice_enabled

__all__ = ["deny", "install"]

NEGATIVE = "must be greater than or equal to 0"


def deny(webhook: str, errors: list[FieldError]) -> None:
    """Refuse with ``errors`` as ``ErrorList.ToAggregate`` reports them: each message once."""
    if not errors:
        return
    rendered = list(dict.fromkeys(str(e) for e in errors))
    body = rendered[0] if len(rendered) == 1 else "[" + ", ".join(rendered) + "]"
    raise Forbidden(f'admission webhook "{webhook}" denied the request: {body}')


def _negative(q: Quantity | None, path: str) -> list[FieldError]:
    if q is not None and q.sign() < 0:
        return [FieldError.invalid(path, str(q), NEGATIVE)]
    return []


def _fair_sharing(fs: Any, path: str) -> list[FieldError]:
    if fs is None or fs.weight is None:
        return []
    w = fs.weight.as_fraction()
    errs = _negative(fs.weight, path)
    from fractions import Fraction

    if 0 < w <= Fraction(1, 10**9):
        errs.append(FieldError.invalid(path, str(fs.weight), "When not 0, weight must be > 10e-9"))
    return errs


def _resource_groups(groups: Any, has_parent: bool, is_cohort: bool, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    resources: set[str] = set()
    flavors: set[str] = set()
    parent_word = "parent" if is_cohort else "cohort"
    for i, rg in enumerate(groups or ()):
        rpath = f"{path}[{i}]"
        covered = list(rg.covered_resources or ())
        for j, name in enumerate(covered):
            p = f"{rpath}.coveredResources[{j}]"
            errs += [FieldError.invalid(p, name, m) for m in is_qualified_name(name)]
            if name in resources:
                errs.append(FieldError.duplicate(p, name))
            resources.add(name)
        for j, fq in enumerate(rg.flavors or ()):
            fpath = f"{rpath}.flavors[{j}]"
            for k, rq in enumerate(fq.resources or ()):
                if k >= len(covered):
                    break
                p = f"{fpath}.resources[{k}]"
                if rq.name != covered[k]:
                    errs.append(
                        FieldError.invalid(f"{p}.name", rq.name, "must match the name in coveredResources")
                    )
                errs += _negative(rq.nominal_quota, f"{p}.nominalQuota")
                if rq.borrowing_limit is not None:
                    if not has_parent:
                        errs.append(
                            FieldError.invalid(
                                f"{p}.borrowingLimit",
                                str(rq.borrowing_limit),
                                f"must be nil when {parent_word} is empty",
                            )
                        )
                    errs += _negative(rq.borrowing_limit, f"{p}.borrowingLimit")
                if rq.lending_limit is not None:
                    errs += _negative(rq.lending_limit, f"{p}.lendingLimit")
                    if not has_parent:
                        errs.append(
                            FieldError.invalid(
                                f"{p}.lendingLimit",
                                str(rq.lending_limit),
                                f"must be nil when {parent_word} is empty",
                            )
                        )
                    if (
                        not is_cohort
                        and rq.nominal_quota is not None
                        and rq.lending_limit.as_fraction() > rq.nominal_quota.as_fraction()
                    ):
                        errs.append(
                            FieldError.invalid(
                                f"{p}.lendingLimit",
                                str(rq.lending_limit),
                                "must be less than or equal to the nominalQuota",
                            )
                        )
            if fq.name in flavors:
                errs.append(FieldError.duplicate(f"{fpath}.name", fq.name))
            flavors.add(fq.name or "")
    return errs


def _totals(groups: Any, path: str) -> list[FieldError]:
    errs = []
    flavors = sum(len(rg.flavors or ()) for rg in groups or ())
    if flavors > 256:
        errs.append(
            FieldError.invalid(
                path,
                flavors,
                f"total number of flavors across all resourceGroups must be ≤ 256, got {flavors}",
            )
        )
    covered = sum(len(rg.covered_resources or ()) for rg in groups or ())
    if covered > 256:
        errs.append(
            FieldError.invalid(
                path,
                covered,
                f"total number of covered resources across all resourceGroups must be ≤ 256, got {covered}",
            )
        )
    for i, rg in enumerate(groups or ()):
        pairs = sum(len(f.resources or ()) for f in rg.flavors or ())
        if pairs > 512:
            errs.append(
                FieldError.invalid(
                    f"{path}[{i}]",
                    pairs,
                    f"number of flavor-resource combinations in a resourceGroup must be ≤ 512, got {pairs}",
                )
            )
    return errs


def validate_cluster_queue(
    cq: ClusterQueue, old: ClusterQueue | None = None, gates: Any = None
) -> list[FieldError]:
    """``ValidateClusterQueue`` (``old`` None) or ``ValidateClusterQueueUpdate``; ``gates`` are
    Kueue's (``None``: every gate off)."""
    spec = cq.spec
    if spec is None:
        return []
    errs = _resource_groups(spec.resource_groups, bool(spec.cohort_name), False, "spec.resourceGroups")
    errs += validate_label_selector(spec.namespace_selector, "spec.namespaceSelector")
    pre = spec.preemption
    if (
        pre is not None
        and (pre.reclaim_within_cohort or "Never") == "Never"
        and pre.borrow_within_cohort is not None
        and (pre.borrow_within_cohort.policy or "Never") != "Never"
    ):
        errs.append(
            FieldError.invalid(
                "spec.preemption",
                pre.to_dict(),
                "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never",
            )
        )
    ff = spec.flavor_fungibility
    if (
        ff is not None
        and ff.preference is not None
        and (ff.when_can_borrow != "TryNextFlavor" or ff.when_can_preempt != "TryNextFlavor")
    ):
        errs.append(
            FieldError.invalid(
                "spec.flavorFungibility.preference",
                ff.preference,
                f'preference "{ff.preference}" requires both whenCanBorrow and '
                "whenCanPreempt to be TryNextFlavor",
            )
        )
    errs += _fair_sharing(spec.fair_sharing, "spec.fairSharing")
    errs += _totals(spec.resource_groups, "spec.resourceGroups")
    errs += concurrent_admission_errors(cq, gates)
    reject_legacy = gates is not None and gates.enabled("RejectUpdatesToCQWithInvalidOnFlavors")
    errs += _on_flavors(cq, None if reject_legacy else old)
    if old is not None:
        errs += concurrent_admission_update_errors(cq, old)
    return errs


def _on_flavors(cq: ClusterQueue, old: ClusterQueue | None) -> list[FieldError]:
    """``validateAdmissionCheckOnFlavors``; on update (``old`` given only while
    ``RejectUpdatesToCQWithInvalidOnFlavors`` is off), rules unchanged since an identical flavor set
    are not re-checked."""
    strategy = cq.spec.admission_checks_strategy if cq.spec else None
    if strategy is None:
        return []
    valid = {f.name for rg in (cq.spec.resource_groups or ()) for f in rg.flavors or ()}  # type: ignore[union-attr]
    old_rules: dict[str, set[str]] = {}
    if old is not None and old.spec is not None and old.spec.admission_checks_strategy is not None:
        old_valid = {f.name for rg in old.spec.resource_groups or () for f in rg.flavors or ()}
        if old_valid == valid:
            old_rules = {
                r.name or "": set(r.on_flavors or ())
                for r in old.spec.admission_checks_strategy.admission_checks or ()
            }
    errs = []
    for i, rule in enumerate(strategy.admission_checks or ()):
        if rule.name in old_rules and old_rules[rule.name or ""] == set(rule.on_flavors or ()):
            continue
        for j, flavor in enumerate(rule.on_flavors or ()):
            if flavor not in valid:
                errs.append(
                    FieldError.not_supported(
                        f"spec.admissionChecksStrategy.admissionChecks[{i}].onFlavors[{j}]",
                        flavor,
                        sorted(v for v in valid if v),
                    )
                )
    return errs


def validate_cohort(cohort: Cohort) -> list[FieldError]:
    spec = cohort.spec
    if spec is None:
        return []
    return _fair_sharing(spec.fair_sharing, "spec.fairSharing") + _resource_groups(
        spec.resource_groups, bool(spec.parent_name), True, "spec.resourceGroups"
    )


def validate_resource_flavor(rf: ResourceFlavor) -> list[FieldError]:
    spec = rf.spec
    if spec is None:
        return []
    errs = validate_labels(spec.node_labels, "spec.nodeLabels")
    seen: dict[str, set[str]] = {}
    for i, taint in enumerate(spec.node_taints or ()):
        p = f"spec.nodeTaints[{i}]"
        errs += validate_label_name(taint.key or "", f"{p}.key")
        value_errs = is_valid_label_value(taint.value or "")
        if value_errs:
            errs.append(FieldError.invalid(f"{p}.value", taint.value or "", ";".join(value_errs)))
        keys = seen.setdefault(taint.effect or "", set())
        if taint.key in keys:
            errs.append(
                FieldError(
                    FieldError.duplicate(p, taint.to_dict()).type,
                    p,
                    "taints must be unique by key and effect pair",
                    taint.to_dict(),
                )
            )
            continue
        keys.add(taint.key or "")
    for i, tol in enumerate(spec.tolerations or ()):
        if tol.key:
            errs += validate_label_name(tol.key, f"spec.tolerations[{i}].key")
    return errs


# --- Workload -------------------------------------------------------------------------------------


def _resource_list(resources: Any, path: str, non_negative: bool) -> list[FieldError]:
    errs = []
    for name in sorted(resources or {}):
        if name == "pods":
            errs.append(
                FieldError.invalid(f"{path}[{name}]", "pods", "the key is reserved for internal kueue use")
            )
        if non_negative:
            errs += _negative(resources[name], f"{path}[{name}]")
    return errs


def validate_workload(wl: Workload, old: Workload | None, gates: Any) -> list[FieldError]:
    errs: list[FieldError] = []
    pod_sets = (wl.spec.pod_sets if wl.spec else None) or []
    non_negative = gates.enabled("WorkloadValidateResourcesAreNonNegative")
    for i, ps in enumerate(pod_sets):
        p = f"spec.podSets[{i}]"
        t = ps.template
        if t is None:
            continue
        if gates.enabled("WorkloadValidationForPodSetMetadata") and t.metadata is not None:
            errs += validate_labels(t.metadata.labels, f"{p}.template.metadata.labels")
            errs += validate_annotations(t.metadata.annotations, f"{p}.template.metadata.annotations")
        for kind in ("initContainers", "containers"):
            containers = t.spec.init_containers if kind == "initContainers" else t.spec.containers
            for j, c in enumerate(containers or ()):
                res = c.resources
                if res is None:
                    continue
                errs += _resource_list(
                    res.requests, f"{p}.template.spec.{kind}[{j}].resources.requests", non_negative
                )
                errs += _resource_list(
                    res.limits, f"{p}.template.spec.{kind}[{j}].resources.limits", non_negative
                )
        if t.spec.resources is not None:
            errs += _resource_list(
                t.spec.resources.requests, f"{p}.template.spec.resources.requests", non_negative
            )
            errs += _resource_list(
                t.spec.resources.limits, f"{p}.template.spec.resources.limits", non_negative
            )
        if gates.enabled("TASValidateWorkloadSliceSize"):
            errs += slice_annotations.workload_errors(ps.topology_request, f"{p}.topologyRequest")
    variable = sum(1 for ps in pod_sets if ps.min_count is not None)
    if variable > 1:
        errs.append(FieldError.invalid("spec.podSets", variable, "at most one podSet can use minCount"))
    elastic = slice_enabled(wl, gates.enabled("ElasticJobsViaWorkloadSlices"))
    if variable > 0 and elastic:
        errs.append(
            FieldError.invalid(
                "spec.podSets", variable, "partial admission and elastic job cannot be used together"
            )
        )
    status = wl.status
    reserved = _has(wl, "QuotaReserved")
    if reserved:
        errs += _admission(wl, old)
    errs += _reclaimable(wl, old if elastic else None)
    names = [ps.name or "" for ps in pod_sets]
    for i, check in enumerate((status.admission_checks if status else None) or ()):
        for k, psu in enumerate(check.pod_set_updates or ()):
            p = f"status.admissionChecks[{i}].podSetUpdates[{k}]"
            if psu.name not in names:
                errs.append(FieldError.not_supported(f"{p}.name", psu.name, sorted(set(names))))
            for ti, tol in enumerate(psu.tolerations or ()):
                if tol.key:
                    errs += validate_label_name(tol.key, f"{p}.tolerations[{ti}].key")
            errs += validate_annotations(psu.annotations, f"{p}.annotations")
            errs += validate_labels(psu.node_selector, f"{p}.nodeSelector")
            errs += validate_labels(psu.labels, f"{p}.labels")
    if gates.enabled("AdmissionGatedBy"):
        errs += _admission_gated_by(wl, old)
    if gates.enabled("PriorityBoost"):
        errs += _priority_boost(wl)
    if old is not None:
        errs += _update(wl, old, gates.enabled("TopologyAwareScheduling"),
                        gates.enabled("ElasticJobsViaWorkloadSlices"), elastic)
    return errs


_PRIORITY_BOOST_PATH = f"metadata.annotations[{PRIORITY_BOOST}]"


def _admission_gated_by(wl: Workload, old: Workload | None) -> list[FieldError]:
    """The Workload webhook's ``ValidateAdmissionGatedByAnnotationOn{Create,Update}``."""
    before = old.metadata.annotations if old is not None else None
    return admission_gated_by_errors(wl.metadata.annotations, before, update=old is not None)


def _priority_boost(wl: Workload) -> list[FieldError]:
    """``ValidateWorkload``'s KEP-7990 rule: a present priority-boost annotation is a signed integer
    (``ParseInt(value, 10, 32)``); empty is refused ("use \"0\" explicitly")."""
    annotations = wl.metadata.annotations or {}
    if PRIORITY_BOOST not in annotations:
        return []
    value = annotations[PRIORITY_BOOST]
    if value == "":
        detail = 'must be a valid signed integer; use "0" explicitly, empty string is not allowed'
        return [FieldError.invalid(_PRIORITY_BOOST_PATH, value, detail)]
    if parse_priority_boost(value) is None:
        return [FieldError.invalid(_PRIORITY_BOOST_PATH, value, "must be a valid signed integer")]
    return []


def _has(wl: Workload, kind: str) -> bool:
    return any(
        c.type == kind and c.status == "True" for c in (wl.status.conditions if wl.status else None) or ()
    )


def _admission(wl: Workload, old: Workload | None) -> list[FieldError]:
    admission = wl.status.admission if wl.status else None
    if admission is None:
        if (
            old is not None
            and _has(old, "QuotaReserved")
            and (old.status is None or old.status.admission is None)
        ):
            return []
        return [
            FieldError.required("status.admission", "must be set while the QuotaReserved condition is true")
        ]
    errs = []
    names = {ps.name for ps in (wl.spec.pod_sets if wl.spec else None) or ()}
    for i, psa in enumerate(admission.pod_set_assignments or ()):
        p = f"status.admission.podSetAssignments[{i}]"
        if psa.name not in names:
            errs.append(FieldError.not_found(f"{p}.name", psa.name))
        count = psa.count or 0
        if count > 0:
            for res in sorted(psa.resource_usage or {}):
                q = (psa.resource_usage or {})[res]
                if amount(res, q) % count:
                    errs.append(
                        FieldError.invalid(
                            f"{p}.resourceUsage[{res}]", str(q), f"is not a multiple of {count}"
                        )
                    )
    return errs


def _reclaimable(wl: Workload, old: Workload | None = None) -> list[FieldError]:
    """``validateReclaimablePods``; ``old`` (an elastic Workload's previous version): a count over
    its pod set's size that did not change is a scale-down's stale value, let converge (kueue#12670)."""
    pods = {ps.name: ps for ps in (wl.spec.pod_sets if wl.spec else None) or ()}
    stale = {(r.name, r.count) for r in (old.status.reclaimable_pods if old and old.status else None) or ()}
    errs = []
    for rp in (wl.status.reclaimable_pods if wl.status else None) or ():
        p = f"status.reclaimablePods[{rp.name}]"
        ps = pods.get(rp.name)
        if ps is None:
            errs.append(FieldError.not_supported(f"{p}.name", rp.name, [n or "" for n in pods]))
        elif (rp.count or 0) > (ps.count or 0) and (rp.name, rp.count) not in stale:
            errs.append(FieldError.invalid(f"{p}.count", rp.count, f"should be less or equal to {ps.count}"))
    return errs


def _admission_changed(new: Any, old: Any, tas: bool) -> bool:
    """``validateAdmissionUpdate``: with TopologyAwareScheduling the pod sets' topology assignments
    (and delayed topology requests) may be set or changed (node replacement), nothing else."""
    if new is old or new == old:  # unchanged (every status write after the admission's): allowed
        return False
    if not tas or len(new.pod_set_assignments or ()) != len(old.pod_set_assignments or ()):
        return bool(new != old)
    keep = {"topology_assignment", "delayed_topology_request"}
    moved = old.model_copy(
        update={
            "pod_set_assignments": [
                o.model_copy(update={k: getattr(n, k) for k in keep})
                for o, n in zip(old.pod_set_assignments or (), new.pod_set_assignments or (), strict=True)
            ]
            or old.pod_set_assignments
        }
    )
    return bool(new != moved)


def _update(wl: Workload, old: Workload, tas: bool = False, slices: bool = False,
            elastic: bool = False) -> list[FieldError]:
    """``ValidateWorkloadUpdate``; ``tas``: TopologyAwareScheduling (topology assignments may change:
    node replacement); ``slices``: the ElasticJobsViaWorkloadSlices gate (a reserved Workload's pod
    set may shrink: ``validateImmutablePodSet``), ``elastic``: ``wl`` is an elastic slice (a
    scaled-down pod set's reclaimable count may drop: ``scaledDownPodSetNames``)."""
    errs = []
    new_sets = (wl.spec.pod_sets if wl.spec else None) or []
    old_sets = (old.spec.pod_sets if old.spec else None) or []
    if _has(old, "QuotaReserved"):
        if len(new_sets) != len(old_sets):
            errs.append(
                FieldError.invalid("spec.podSets", [p.to_dict() for p in new_sets], "field is immutable")
            )
        else:
            for i, (a, b) in enumerate(zip(new_sets, old_sets, strict=True)):
                shrunk = slices and (a.count or 0) < (b.count or 0)
                if (a.model_copy(update={"count": b.count}) if shrunk else a) != b:
                    errs.append(FieldError.invalid(f"spec.podSets[{i}]", a.to_dict(), "field is immutable"))
    if _has(wl, "QuotaReserved") and _has(old, "QuotaReserved"):
        errs += _reclaimable_update(wl, old, _scaled_down_pod_sets(wl) if elastic else frozenset())
    new_adm = wl.status.admission if wl.status else None
    old_adm = old.status.admission if old.status else None
    if new_adm is not None and old_adm is not None and _admission_changed(new_adm, old_adm, tas):
        errs.append(FieldError.invalid("status.admission", new_adm.to_dict(), "field is immutable"))
    new_checks = {c.name: c for c in (wl.status.admission_checks if wl.status else None) or ()}
    for i, oc in enumerate((old.status.admission_checks if old.status else None) or ()):
        nc = new_checks.get(oc.name)
        if (
            nc is not None
            and oc.state == "Ready"
            and nc.state == "Ready"
            and nc.pod_set_updates != oc.pod_set_updates
        ):
            errs.append(
                FieldError.invalid(
                    f"status.admissionChecks[{i}].podSetUpdates",
                    [u.to_dict() for u in nc.pod_set_updates or ()],
                    "field is immutable",
                )
            )
    return errs


def _scaled_down_pod_sets(wl: Workload) -> frozenset[str]:
    """``scaledDownPodSetNames``: pod sets whose count is below the admitted one."""
    pod_sets = (wl.spec.pod_sets if wl.spec else None) or ()
    sizes = {ps.name: ps.count if ps.count is not None else 1 for ps in pod_sets}
    admission = wl.status.admission if wl.status else None
    return frozenset(
        psa.name or ""
        for psa in (admission.pod_set_assignments if admission else None) or ()
        if psa.count is not None and psa.count > sizes.get(psa.name, 0)
    )


def _reclaimable_update(
    wl: Workload, old: Workload, scaled_down: frozenset[str] = frozenset()
) -> list[FieldError]:
    new = {r.name: r.count or 0 for r in (wl.status.reclaimable_pods if wl.status else None) or ()}
    prev = {r.name: r.count or 0 for r in (old.status.reclaimable_pods if old.status else None) or ()}
    if new == prev or not prev:
        return []
    errs = []
    for name, count in new.items():
        if name in prev and count < prev[name] and name not in scaled_down:
            errs.append(
                FieldError.invalid(
                    f"status.reclaimablePods[{name}].count", count, f"cannot be less than {prev[name]}"
                )
            )
    for name in sorted(n or "" for n in prev):
        if name not in new and name not in scaled_down:
            errs.append(FieldError.required(f"status.reclaimablePods[{name}]", "cannot be removed"))
    return errs


# --- the plugin ------------------------------------------------------------------------------------


class _AddFinalizer:
    """``mclusterqueue`` / ``mresourceflavor``: the finalizer on create."""

    def __call__(self, request: Any) -> None:
        if request.operation != "CREATE":
            return
        meta = request.obj.metadata
        if RESOURCE_IN_USE_FINALIZER not in (meta.finalizers or ()):
            meta.finalizers = [*(meta.finalizers or ()), RESOURCE_IN_USE_FINALIZER]


class _DefaultWorkload:
    """``mworkload.kb.io``: on create only (its marker lists ``verbs=create``), drop the pod sets'
    ``minCount`` unless PartialAdmission is on."""

    def __init__(self, server: Any) -> None:
        self.server = server

    def __call__(self, request: Any) -> None:
        if request.operation != "CREATE":
            return
        gates = settings_for(self.server.configurations, self.server.features).gates
        if not gates.enabled("PartialAdmission"):
            for ps in (request.obj.spec.pod_sets if request.obj.spec else None) or ():
                ps.min_count = None


class _Validate:
    def __init__(self, server: Any, kind: str) -> None:
        self.server = server
        self.kind = kind

    def __call__(self, request: Any) -> None:
        obj, old = request.obj, request.old
        if self.kind == "clusterqueue":
            gates = settings_for(self.server.configurations, self.server.features).gates
            deny("vclusterqueue.kb.io", validate_cluster_queue(obj, old, gates))
        elif self.kind == "cohort":
            deny("vcohort.kb.io", validate_cohort(obj))
        elif self.kind == "resourceflavor":
            deny("vresourceflavor.kb.io", validate_resource_flavor(obj))
        else:
            gates = settings_for(self.server.configurations, self.server.features).gates
            deny("vworkload.kb.io", validate_workload(obj, old, gates))


def install(server: Any) -> None:
    settings_for(server.configurations, server.features)  # a bad Kueue configuration fails here
    adm = server.admission
    adm.add_mutating(ClusterQueue, _AddFinalizer(), main_resource_only=True)
    adm.add_mutating(ResourceFlavor, _AddFinalizer(), main_resource_only=True)
    # upstream's mworkload.kb.io lists the ``workloads`` resource and the create verb only
    # (pkg/webhooks/workload_webhook.go): declared so, a status write need not copy the spec for it
    adm.add_mutating(Workload, _DefaultWorkload(server), main_resource_only=True)
    adm.add_validating(ClusterQueue, _Validate(server, "clusterqueue"), main_resource_only=True)
    adm.add_validating(Cohort, _Validate(server, "cohort"), main_resource_only=True)
    adm.add_validating(ResourceFlavor, _Validate(server, "resourceflavor"), main_resource_only=True)
    adm.add_validating(Workload, _Validate(server, "workload"))
