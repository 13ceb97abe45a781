"""The scheduler's view of a Variant's siblings: which admitted one is more or less favourable, and
whether migrating to this Variant's flavor is allowed.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/scheduler.go`` (``findAdmittedSibling``,
``findAdmittedSiblingMatching``, ``findAdmittedMoreFavorableSibling``,
``findAdmittedLessFavorableSibling``, ``isMigrationAllowed``, ``resolveFlavorIndex``). Siblings are
the Workloads holding quota in the same ClusterQueue (the snapshot's) with the same parent UID and
``Admitted=True``; favour is the position of their flavor in the ClusterQueue's first resource
group, whether or not it has a ``concurrentAdmissionPolicy``. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from kbatch.api.kueue_v1beta2.constants import Cond
from kbatch.controllers.kueue.concurrent_admission.variants import Policy, parent_uid, variant_flavor
from kbatch.controllers.kueue.model.info import WorkloadInfo, is_true

__all__ = ["BELOW_LAST_ACCEPTABLE", "MORE_FAVORABLE_ADMITTED", "admitted_sibling", "migration_allowed"]

MORE_FAVORABLE_ADMITTED = "A more favorable variant is already admitted"
BELOW_LAST_ACCEPTABLE = "Target flavor is below LastAcceptableFlavorName"


def _index(info: WorkloadInfo, flavors: tuple[str, ...]) -> int | None:
    """``resolveFlavorIndex``: ``None`` without the annotation or for a flavor not in the group."""
    flavor = variant_flavor(info.obj)
    return flavors.index(flavor) if flavor in flavors else None


def admitted_sibling(
    wl: WorkloadInfo,
    admitted: Iterable[WorkloadInfo],
    flavors: tuple[str, ...],
    more_favourable: bool,
) -> WorkloadInfo | None:
    """The first admitted sibling (in ``admitted``'s order) more (``True``) or less favourable than
    ``wl``; ``flavors``: the ClusterQueue's first resource group."""
    uid = parent_uid(wl.obj)
    mine = _index(wl, flavors) if uid else None
    if mine is None:
        return None
    compare: Callable[[int], bool] = (lambda i: i < mine) if more_favourable else (lambda i: i > mine)
    for other in admitted:
        if other.obj.metadata.uid == wl.obj.metadata.uid or parent_uid(other.obj) != uid:
            continue
        if not is_true(other.obj, Cond.ADMITTED):
            continue
        at = _index(other, flavors)
        if at is not None and compare(at):
            return other
    return None


def migration_allowed(wl: WorkloadInfo, flavors: tuple[str, ...], policy: Policy | None) -> bool:
    """``isMigrationAllowed``: no ``lastAcceptableFlavorName``, or this Variant's flavor is not
    below it."""
    if policy is None or policy.last_acceptable is None:
        return True
    mine = _index(wl, flavors)
    if mine is None or policy.last_acceptable not in flavors:
        return False
    return mine <= flavors.index(policy.last_acceptable)
