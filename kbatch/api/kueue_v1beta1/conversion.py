"""Conversion between kueue.x-k8s.io/v1beta1 and v1beta2, on wire dicts, both ways.

What Kueue's conversion webhook does (kubernetes-sigs/kueue ``apis/kueue/v1beta1/*_conversion.go``
and the generated ``zz_generated.conversion.go``, v0.19.2): fields of the same name are copied, the
renamed ones are mapped, and a field one version lacks is dropped (the conversion is lossy for it, as
upstream's is):

* ClusterQueue: ``spec.cohort`` ↔ ``spec.cohortName``; a non-empty v1beta1 ``spec.admissionChecks``
  becomes ``spec.admissionChecksStrategy.admissionChecks[].name``; ``whenCanBorrow: Borrow`` and
  ``whenCanPreempt: Preempt`` become ``MayStopSearch``;
* LocalQueue: ``status.flavorUsage`` ↔ ``status.flavorsUsage`` (v1beta1 ``status.flavors`` dropped);
* Workload: ``spec.priorityClassName`` + ``priorityClassSource`` ↔ ``spec.priorityClassRef``
  (``kueue.x-k8s.io/workloadpriorityclass`` ↔ group ``kueue.x-k8s.io``, kind
  ``WorkloadPriorityClass``; ``scheduling.k8s.io/priorityclass`` ↔ ``scheduling.k8s.io``,
  ``PriorityClass``); ``status.accumulatedPastExexcutionTimeSeconds`` ↔
  ``accumulatedPastExecutionTimeSeconds``; topology assignments ``domains`` ↔ ``slices`` (up: Kueue's
  compact encoding, :mod:`.topology`);
* AdmissionCheck: ``spec.retryDelayMinutes`` dropped;
* MultiKueueCluster: ``spec.kubeConfig`` ↔ ``spec.clusterSource.kubeConfig`` (and the profile
  reference); MultiKueueConfig: ``spec.quotaManagement`` dropped going down;
* Cohort: ``status.fairSharing.admissionFairSharingStatus`` dropped going up (v1beta2's
  ``FairSharingStatus`` has no such field; ``apis/kueue/v1beta1/cohort_conversion.go`` uses the
  generated conversion, which drops it).

The functions accept partial objects (server-side apply configurations, patches' results): only the
fields present are touched. They never change their argument.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from kbatch.api.kueue_v1beta1 import models as v1
from kbatch.api.kueue_v1beta1.topology import domains_to_slices, slices_to_domains
from kbatch.api.meta import Resource
from kbatch.api.versions import ServedVersion

__all__ = ["CONVERSIONS", "DEPRECATION_WARNING", "Conversion"]

Obj = dict[str, Any]
DEPRECATION_WARNING = "This version is deprecated. Use v1beta2 instead."
V1BETA1 = "kueue.x-k8s.io/v1beta1"
V1BETA2 = "kueue.x-k8s.io/v1beta2"
WPC_SOURCE = "kueue.x-k8s.io/workloadpriorityclass"
POD_PC_SOURCE = "scheduling.k8s.io/priorityclass"


def Conversion(model: type[Resource], up: Callable[[Obj], Obj], down: Callable[[Obj], Obj]) -> ServedVersion:
    """v1beta1 of a kind: served, deprecated with the CRDs' warning."""
    return ServedVersion(model, up, down, DEPRECATION_WARNING)


def _with_version(obj: Obj, api_version: str) -> Obj:
    out = copy.deepcopy(obj)
    if "apiVersion" in out or "kind" in out:
        out["apiVersion"] = api_version
    return out


def _rename(d: Obj | None, old: str, new: str) -> None:
    if isinstance(d, dict) and old in d:
        d[new] = d.pop(old)


def _drop(d: Obj | None, *names: str) -> None:
    if isinstance(d, dict):
        for name in names:
            d.pop(name, None)


# --- ClusterQueue ------------------------------------------------------------------------------


def _cq_up(obj: Obj) -> Obj:
    out = _with_version(obj, V1BETA2)
    spec = out.get("spec")
    if isinstance(spec, dict):
        _rename(spec, "cohort", "cohortName")
        checks = spec.pop("admissionChecks", None)
        if checks:
            spec["admissionChecksStrategy"] = {"admissionChecks": [{"name": c} for c in checks]}
        ff = spec.get("flavorFungibility")
        if isinstance(ff, dict):
            if ff.get("whenCanBorrow") == "Borrow":
                ff["whenCanBorrow"] = "MayStopSearch"
            if ff.get("whenCanPreempt") == "Preempt":
                ff["whenCanPreempt"] = "MayStopSearch"
    status = out.get("status")
    if isinstance(status, dict):
        _drop(status, "pendingWorkloadsStatus")
        _drop(status.get("fairSharing"), "admissionFairSharingStatus")
    return out


def _cq_down(obj: Obj) -> Obj:
    out = _with_version(obj, V1BETA1)
    spec = out.get("spec")
    if isinstance(spec, dict):
        _rename(spec, "cohortName", "cohort")
        _drop(spec, "concurrentAdmissionPolicy")
    return out


# --- LocalQueue --------------------------------------------------------------------------------


def _lq_up(obj: Obj) -> Obj:
    out = _with_version(obj, V1BETA2)
    status = out.get("status")
    _rename(status, "flavorUsage", "flavorsUsage")
    _drop(status, "flavors")
    return out


def _lq_down(obj: Obj) -> Obj:
    out = _with_version(obj, V1BETA1)
    _rename(out.get("status"), "flavorsUsage", "flavorUsage")
    return out


# --- Workload ----------------------------------------------------------------------------------


def _each_assignment(status: Any, fn: Callable[[Obj], Obj]) -> None:
    admission = status.get("admission") if isinstance(status, dict) else None
    for psa in (admission or {}).get("podSetAssignments") or []:
        if isinstance(psa, dict) and isinstance(psa.get("topologyAssignment"), dict):
            psa["topologyAssignment"] = fn(psa["topologyAssignment"])


def _wl_up(obj: Obj) -> Obj:
    out = _with_version(obj, V1BETA2)
    spec = out.get("spec")
    if isinstance(spec, dict):
        name = spec.pop("priorityClassName", None)
        source = spec.pop("priorityClassSource", None)
        if source == WPC_SOURCE:
            spec["priorityClassRef"] = {
                "group": "kueue.x-k8s.io",
                "kind": "WorkloadPriorityClass",
                "name": name,
            }
        elif source == POD_PC_SOURCE:
            spec["priorityClassRef"] = {"group": "scheduling.k8s.io", "kind": "PriorityClass", "name": name}
    status = out.get("status")
    if isinstance(status, dict):
        _rename(status, "accumulatedPastExexcutionTimeSeconds", "accumulatedPastExecutionTimeSeconds")
        _each_assignment(status, domains_to_slices)
    return out


def _wl_down(obj: Obj) -> Obj:
    out = _with_version(obj, V1BETA1)
    spec = out.get("spec")
    if isinstance(spec, dict):
        ref = spec.pop("priorityClassRef", None)
        _drop(spec, "preemptionGates")
        for ps in spec.get("podSets") or []:
            _drop(
                ps.get("topologyRequest") if isinstance(ps, dict) else None,
                "podsetSliceRequiredTopologyConstraints",
            )
        if isinstance(ref, dict):
            group_kind = (ref.get("group"), ref.get("kind"))
            if group_kind == ("kueue.x-k8s.io", "WorkloadPriorityClass"):
                spec["priorityClassSource"], spec["priorityClassName"] = WPC_SOURCE, ref.get("name")
            elif group_kind == ("scheduling.k8s.io", "PriorityClass"):
                spec["priorityClassSource"], spec["priorityClassName"] = POD_PC_SOURCE, ref.get("name")
    status = out.get("status")
    if isinstance(status, dict):
        _rename(status, "accumulatedPastExecutionTimeSeconds", "accumulatedPastExexcutionTimeSeconds")
        _drop(status, "preemptionGates")
        _each_assignment(status, slices_to_domains)
    return out


# --- Cohort ------------------------------------------------------------------------------------


def _cohort_up(obj: Obj) -> Obj:
    out = _with_version(obj, V1BETA2)
    status = out.get("status")
    if isinstance(status, dict):
        _drop(status.get("fairSharing"), "admissionFairSharingStatus")
    return out


# --- AdmissionCheck and the kinds that are the same in both versions ---------------------------


def _ac_up(obj: Obj) -> Obj:
    out = _with_version(obj, V1BETA2)
    _drop(out.get("spec"), "retryDelayMinutes")
    return out


# --- MultiKueue (apis/kueue/v1beta1/multikueue_conversion.go) -----------------------------------


def _mkc_up(obj: Obj) -> Obj:
    """``spec.kubeConfig`` (when its location is set) and ``spec.clusterProfileRef`` move under
    ``spec.clusterSource``."""
    out = _with_version(obj, V1BETA2)
    spec = out.get("spec")
    if isinstance(spec, dict):
        kube_config = spec.pop("kubeConfig", None)
        profile = spec.pop("clusterProfileRef", None)
        source: Obj = {}
        if isinstance(kube_config, dict) and kube_config.get("location"):
            source["kubeConfig"] = kube_config
        if profile is not None:
            source["clusterProfileRef"] = profile
        if source or "clusterSource" not in spec:
            spec["clusterSource"] = source
    return out


def _mkc_down(obj: Obj) -> Obj:
    out = _with_version(obj, V1BETA1)
    spec = out.get("spec")
    if isinstance(spec, dict):
        source = spec.pop("clusterSource", None) or {}
        kube_config = source.get("kubeConfig")
        # v1beta1's kubeConfig is a by-value struct: Go writes it, empty, when the source is a profile
        spec["kubeConfig"] = kube_config if kube_config is not None else {"location": "", "locationType": ""}
        if source.get("clusterProfileRef") is not None:
            spec["clusterProfileRef"] = source["clusterProfileRef"]
    return out


def _mkconf_down(obj: Obj) -> Obj:
    out = _with_version(obj, V1BETA1)
    _drop(out.get("spec"), "quotaManagement")
    return out


def _same_up(obj: Obj) -> Obj:
    return _with_version(obj, V1BETA2)


def _same_down(obj: Obj) -> Obj:
    return _with_version(obj, V1BETA1)


CONVERSIONS: dict[str, ServedVersion] = {
    "ClusterQueue": Conversion(v1.ClusterQueue, _cq_up, _cq_down),
    "LocalQueue": Conversion(v1.LocalQueue, _lq_up, _lq_down),
    "Workload": Conversion(v1.Workload, _wl_up, _wl_down),
    "AdmissionCheck": Conversion(v1.AdmissionCheck, _ac_up, _same_down),
    "Cohort": Conversion(v1.Cohort, _cohort_up, _same_down),
    "ResourceFlavor": Conversion(v1.ResourceFlavor, _same_up, _same_down),
    "WorkloadPriorityClass": Conversion(v1.WorkloadPriorityClass, _same_up, _same_down),
    "Topology": Conversion(v1.Topology, _same_up, _same_down),
    "ProvisioningRequestConfig": Conversion(v1.ProvisioningRequestConfig, _same_up, _same_down),
    "MultiKueueCluster": Conversion(v1.MultiKueueCluster, _mkc_up, _mkc_down),
    "MultiKueueConfig": Conversion(v1.MultiKueueConfig, _same_up, _mkconf_down),
}
"""By kind: the v1beta1 conversion."""
