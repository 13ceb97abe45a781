"""Emptying a terminating namespace (upstream ``pkg/controller/namespace/deletion/
namespaced_resources_deleter.go``), then the ``kubernetes`` finalize handshake
(``pkg/registry/core/namespace/storage/storage.go``).

One :meth:`NamespaceDeleter.sync` of a namespace being deleted that still carries the ``kubernetes``
spec finalizer: delete every object of every registered namespaced kind in it (background
propagation; pods keep their graceful deletion), count what remains and by which finalizers, write
the five deletion conditions with upstream's reasons and messages, and — once nothing remains —
remove the finalizer through the in-process ``namespaces/finalize``
(:meth:`kbatch.apiserver.namespaces.NamespaceLifecycle.finalize_spec`), which deletes the namespace
when its metadata finalizers are empty too.

A pass also estimates how long the rest will take, as upstream's ``deleteAllContentForGroupVersionResource``
(``ContentTotals.estimate``, seconds): for pods the longest ``terminationGracePeriodSeconds`` of the
non-terminal ones (``estimateGracefulTerminationForPods``), 0 once that long has passed since the
namespace's ``deletionTimestamp``; for a kind with items left and no such estimate, 15 s when one of
them holds a finalizer (``finalizerEstimateSeconds``), else the error "unexpected items still remain
in namespace: NS for gvr: G/V, Resource=R" (reported in ``NamespaceDeletionContentFailure``).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from kbatch.api.core_v1.namespace import Namespace, NamespaceCondition, NamespaceStatus
from kbatch.api.errors import Conflict, NotFound
from kbatch.api.frozen import edit
from kbatch.apiserver.namespaces import KUBERNETES_FINALIZER, spec_finalizers

__all__ = ["CONDITION_TYPES", "FINALIZER_ESTIMATE", "ContentTotals", "NamespaceDeleter",
           "deletion_conditions", "pod_grace_estimate"]

FINALIZER_ESTIMATE = 15  # upstream finalizerEstimateSeconds
_TERMINAL = ("Succeeded", "Failed")

# upstream v1 NamespaceConditionType values, in the order the deleter reports them
CONDITION_TYPES = ("NamespaceDeletionDiscoveryFailure", "NamespaceDeletionGroupVersionParsingFailure",
                   "NamespaceDeletionContentFailure", "NamespaceContentRemaining",
                   "NamespaceFinalizersRemaining")


@dataclass
class ContentTotals:
    """What remains after a deletion pass: items per group-resource, items per finalizer."""

    resources: dict[str, int] = field(default_factory=dict)
    finalizers: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    estimate: int = 0  # seconds until the rest is expected gone (upstream ResourcesRemainingError)

    @property
    def remaining(self) -> bool:
        return any(self.resources.values())


def _condition(kind: str, status: str, reason: str, message: str) -> tuple[str, str, str, str]:
    return kind, status, reason, message


def deletion_conditions(totals: ContentTotals) -> list[tuple[str, str, str, str]]:
    """(type, status, reason, message) per condition, as upstream's namespaceConditionUpdater
    (``deletion/status_condition_utils.go``); kbatch has no discovery or group-version failures."""
    out = [_condition(CONDITION_TYPES[0], "False", "ResourcesDiscovered",
                      "All resources successfully discovered"),
           _condition(CONDITION_TYPES[1], "False", "ParsedGroupVersions",
                      "All legacy kube types successfully parsed")]
    if totals.errors:
        out.append(_condition(CONDITION_TYPES[2], "True", "ContentDeletionFailed",
                              "Failed to delete all resource types, " + f"{len(totals.errors)} remaining: "
                              + ", ".join(sorted(totals.errors))))
    else:
        out.append(_condition(CONDITION_TYPES[2], "False", "ContentDeleted",
                              "All content successfully deleted, may be waiting on finalization"))
    left = sorted(f"{gr} has {n} resource instances" for gr, n in totals.resources.items() if n)
    out.append(_condition(CONDITION_TYPES[3], "True", "SomeResourcesRemain",
                          "Some resources are remaining: " + ", ".join(left)) if left else
               _condition(CONDITION_TYPES[3], "False", "ContentRemoved", "All content successfully removed"))
    held = sorted(f"{f} in {n} resource instances" for f, n in totals.finalizers.items() if n)
    prefix = "Some content in the namespace has finalizers remaining: "
    out.append(_condition(CONDITION_TYPES[4], "True", "SomeFinalizersRemain", prefix + ", ".join(held))
               if held else _condition(CONDITION_TYPES[4], "False", "ContentHasNoFinalizers",
                               "All content-preserving finalizers finished"))
    return out


def _merge_conditions(old: list[NamespaceCondition], new: list[tuple[str, str, str, str]],
                      now: datetime) -> list[NamespaceCondition]:
    """The new conditions; an unchanged status keeps its lastTransitionTime (upstream updateConditions)."""
    by_type = {c.type: c for c in old}
    out = []
    for kind, status, reason, message in new:
        prev = by_type.get(kind)
        since = prev.last_transition_time if prev is not None and prev.status == status else now
        out.append(NamespaceCondition(type=kind, status=status, last_transition_time=since, reason=reason,
                                      message=message))
    return out


def pod_grace_estimate(pods: list[Any], since_deleted: float) -> int:
    """``estimateGracefulTermination`` for pods: the longest grace period of the non-terminal pods,
    or 0 once the namespace has been deleting for at least that long."""
    estimate = 0
    for pod in pods:
        if pod.status is not None and pod.status.phase in _TERMINAL:
            continue
        grace = pod.spec.termination_grace_period_seconds
        if grace is not None and grace > estimate:
            estimate = grace
    return 0 if since_deleted >= estimate else estimate


def _gvr(spec: Any) -> str:
    """Go's ``GroupVersionResource.String()``: ``batch/v1, Resource=jobs``, ``/v1, Resource=pods``."""
    return f"{spec.info.group}/{spec.info.version}, Resource={spec.info.plural}"


class NamespaceDeleter:
    """Reads and deletes through ``client``; ``lifecycle`` is the server's NamespaceLifecycle."""

    def __init__(self, client: Any, registry: Any, lifecycle: Any, now: Any) -> None:
        self.client, self.registry, self.lifecycle, self.now = client, registry, lifecycle, now

    def sync(self, name: str) -> ContentTotals | None:
        """One pass over a namespace; None once the ``kubernetes`` finalizer was removed (or absent),
        else what remains (``errors`` and ``estimate`` say when to look again)."""
        try:
            ns = self.client.get(Namespace, name)
        except NotFound:
            return None
        deleted = ns.metadata.deletion_timestamp
        if deleted is None or KUBERNETES_FINALIZER not in spec_finalizers(ns):
            return None
        totals = self.delete_content(name, (self.now() - deleted).total_seconds())
        self._write_conditions(ns, totals)
        if totals.remaining or totals.errors or totals.estimate:
            return totals
        self.lifecycle.finalize_spec(name)
        return None

    def _kinds(self) -> list[Any]:
        return sorted((spec for spec in self.registry if spec.info.namespaced),
                      key=lambda spec: spec.info.group_resource)

    def delete_content(self, namespace: str, since_deleted: float = 0.0) -> ContentTotals:
        """Delete everything not already being deleted, then count what is left (upstream
        deleteAllContent: deleteCollection per resource, then list to see what remains);
        ``since_deleted`` is how long the namespace has been terminating."""
        totals = ContentTotals()
        for spec in self._kinds():
            items = self.client.list(spec.model, namespace).items
            estimate = pod_grace_estimate(items, since_deleted) if spec.info.group_resource == "pods" else 0
            for obj in items:
                if obj.metadata.deletion_timestamp is not None:
                    continue
                try:
                    self.client.delete(spec.model, obj.metadata.name, namespace,
                                       propagation_policy="Background")
                except NotFound:
                    pass
                except Conflict as err:
                    totals.errors.append(str(err))
            left = self.client.list(spec.model, namespace).items
            if left:
                totals.resources[spec.info.group_resource] = len(left)
            for obj in left:
                for finalizer in obj.metadata.finalizers or ():
                    totals.finalizers[finalizer] = totals.finalizers.get(finalizer, 0) + 1
            if left and not estimate:
                if any(obj.metadata.finalizers for obj in left):
                    estimate = FINALIZER_ESTIMATE
                else:
                    totals.errors.append(f"unexpected items still remain in namespace: {namespace} "
                                         f"for gvr: {_gvr(spec)}")
            totals.estimate = max(totals.estimate, estimate)
        return totals

    def _write_conditions(self, ns: Namespace, totals: ContentTotals) -> None:
        status = ns.status or NamespaceStatus(phase="Terminating")
        merged = _merge_conditions(list(status.conditions or ()), deletion_conditions(totals),
                                   self.now())
        if merged == list(status.conditions or ()) and status.phase == "Terminating":
            return
        ns = edit(ns)
        ns.status = NamespaceStatus(phase="Terminating", conditions=merged)
        with contextlib.suppress(Conflict, NotFound):  # the next event brings the new state
            self.client.update_status(ns)
