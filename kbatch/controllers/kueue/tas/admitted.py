"""The admitted Workloads' TAS usage, read once per cycle for every TAS flavor's snapshot.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/cache/scheduler/snapshot.go`` (``Cache.Snapshot``: with
``TASHandleOverlappingFlavors`` the usage of every flavor whose lowest level is the hostname is
summed once, ``snapshotTopologyDomainUsages``, and that one map is given to each such flavor's
``TASFlavorCache.snapshot``) and ``tas_flavor.go`` (``snapshot``: the flavor's own usage otherwise,
added by ``addTASUsageForHeldDomains``, which skips the domains the flavor does not hold).

One walk over the Workloads holding quota indexes their TAS pod sets by the flavors the admission
names (:func:`admitted_pod_sets`), without decoding any; a flavor's snapshot then asks for the usage
of the pod sets on its flavors (:meth:`AdmittedPodSets.usage`: its own, or, for the flavors sharing
nodes, all of theirs, each pod set once), keyed by the domain values as the assignments name them (a
pod set's one-pod requests, and one ``pods``, times each domain's count). Only the pod sets a
requested flavor holds are decoded, each once per usage asked for, so N flavors cost one walk and
N passes over the summed domains instead of N walks, and a cycle that needs one flavor's snapshot
decodes that flavor's pod sets alone.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.tas.cluster import PodSetUsage, assigned_pod_sets
from kbatch.controllers.kueue.tas.snapshot import DomainValues, add_pods

__all__ = ["AdmittedPodSets", "Usage", "admitted_pod_sets"]

Usage = dict[DomainValues, dict[str, int]]  # per assignment domain (its values), resource -> amount
Reader = Callable[[], PodSetUsage]  # a pod set's domains and one pod's requests, decoded when called


@dataclass(frozen=True, slots=True)
class AdmittedPodSets:
    by_flavor: dict[str, list[Reader]]  # the TAS pod sets admitted on each flavor, walk order

    def usage(self, flavors: Collection[str]) -> Usage:
        """The summed usage of the pod sets on any of ``flavors``, each pod set once (one on two of
        them is one reader in both lists)."""
        readers = dict.fromkeys(r for f in flavors for r in self.by_flavor.get(f, ()))
        out: Usage = {}
        for read in readers:
            domains, one = read()
            add_pods(out, domains, one)
        return out


def admitted_pod_sets(workloads: Iterable[Workload], tas_flavors: Collection[str]) -> AdmittedPodSets:
    """The one walk: each admitted TAS pod set under every flavor of ``tas_flavors`` its admission
    names (a pod set on none of them is not kept)."""
    by_flavor: dict[str, list[Reader]] = {}
    for wl in workloads:
        for flavors, read in assigned_pod_sets(wl):
            for f in dict.fromkeys(flavors):  # each flavor once
                if f in tas_flavors:
                    by_flavor.setdefault(f, []).append(read)
    return AdmittedPodSets(by_flavor)
