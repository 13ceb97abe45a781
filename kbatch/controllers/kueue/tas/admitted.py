"""The admitted Workloads' TAS usage, read once per cycle for every TAS flavor's snapshot.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/cache/scheduler/snapshot.go`` (``Cache.Snapshot``: with
``TASHandleOverlappingFlavors`` the usage of every flavor whose lowest level is the hostname is
summed once, ``snapshotTopologyDomainUsages``, and that one map is given to each such flavor's
``TASFlavorCache.snapshot``) and ``tas_flavor.go`` (``snapshot``: the flavor's own usage otherwise,
added by ``addTASUsageForHeldDomains``, which skips the domains the flavor does not hold).

One walk over the Workloads holding quota yields both sums, keyed by the domain values as the
assignments name them (a pod set's one-pod requests, and one ``pods``, times each domain's count):

* ``own``: per flavor that does not share (a non-hostname lowest level, or the gate off), the pod
  sets admitted on it;
* ``shared``: the pod sets admitted on any of the sharing flavors, each once.

A pod set on none of these flavors is not decoded.

A flavor's snapshot then adds one of them (:meth:`~.snapshot.TASFlavorSnapshot.add_summed_usage`),
so N flavors cost one walk and N passes over the summed domains instead of N walks.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.tas.cluster import assigned_pod_sets
from kbatch.controllers.kueue.tas.snapshot import DomainValues, add_pods

__all__ = ["AdmittedUsage", "Usage", "admitted_usage"]

Usage = dict[DomainValues, dict[str, int]]  # per assignment domain (its values), resource -> amount


@dataclass(frozen=True, slots=True)
class AdmittedUsage:
    own: Mapping[str, Usage]  # per flavor that does not share nodes
    shared: Usage  # on any flavor sharing nodes, each pod set once

    def of(self, flavor: str, shares_nodes: bool) -> Usage:
        """What ``flavor``'s snapshot starts with."""
        return self.shared if shares_nodes else self.own.get(flavor, {})


def admitted_usage(
    workloads: Iterable[Workload], sharing: Collection[str], owning: Collection[str]
) -> AdmittedUsage:
    """The one walk: ``sharing`` names the flavors whose usage is shared per node, ``owning`` those
    that keep their own."""
    own: dict[str, Usage] = {}
    shared: Usage = {}
    for wl in workloads:
        for flavors, read in assigned_pod_sets(wl):
            owners = [f for f in dict.fromkeys(flavors) if f in owning]  # each flavor once
            shares = any(f in sharing for f in flavors)
            if not owners and not shares:
                continue
            domains, one = read()
            for f in owners:
                add_pods(own.setdefault(f, {}), domains, one)
            if shares:
                add_pods(shared, domains, one)
    return AdmittedUsage(own, shared)
