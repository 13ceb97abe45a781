"""Pins the scheduler's decisions on :mod:`.spread_scenario` (issue 22): optimisations of
PodTopologySpread and of the feasible-node search must leave every placement, every scheduling
instant and the whole trace as they are. The values were recorded with SchedulerPopFromBackoffQ
implemented and PodTopologySpread counting node by node, and are unchanged by the kept counts
(:mod:`kbatch.controllers.scheduler.selector_counts`). A deliberate change of scheduling semantics
updates them, and says which upstream behaviour made it. Re-recorded once for kbatch's rule that a
pod leaves the back-off queue early at most once per virtual instant (the previous values are
reproduced exactly with that rule switched off). Re-recorded for NodeResourcesBalancedAllocation in the
default profile (upstream ``default_plugins.go``, weight 1): the previous values are reproduced
exactly with that plugin removed from the profile. Re-recorded (trace only; placements equal) when
Nodes, Namespaces and Leases stopped carrying ``metadata.generation``, as their upstream strategies
(``tests/apiserver/test_generation_by_kind.py``): the same digests as the commit that did it alone.
Re-recorded (trace only; placements equal) when a fresh control plane began to hold RBAC's
``cluster-admin`` ClusterRole and binding: two more writes at start move every resourceVersion.
Re-recorded (trace only; placements equal) when it began to hold the rest of policy.go's user-facing
roles (admin/edit/view, their aggregate-to parts, discovery and basic-user): more writes at start.
Re-recorded (trace only; placements equal) when it began to hold the whole bootstrap policy
(component, ``system:controller:*`` and kube-system roles and bindings) and a new cluster the default
StorageClass ``standard`` (the default-storage-class add-on, docs/storage.md): more writes at start.
Re-recorded (trace only; placements equal) when nodes registered with kind's addresses, one per node
(172.18.0.2, .3, ...: kbatch/sim/nodes.py) instead of one shared 10.0.0.1; node IPAM and pod
addresses are off by default, so no pod status changed.
Re-recorded (trace only; placements equal) when the scheduler began recording through events.k8s.io/v1
as kube-scheduler does (client-go tools/events: eventTime, reportingController/Instance, action, a
repeat a series written at its second occurrence and at the broadcaster's sweeps, no count)."""

from __future__ import annotations

from collections import Counter

from .spread_scenario import placement_digest, placements, run

PLACEMENTS = "b801b3117180d79a9220d42f3880730226dbbd96f4929e49416b084e889e9147"
# TRACE re-recorded when the API server began writing default/kubernetes's Endpoints and EndpointSlice
TRACE = "857516a5ac8c83931a3cbffb05cd8387853a1a041eee5aa7db69c5d0740cb976"


def test_mid_size_spread_scenario_places_every_pod_as_pinned() -> None:
    cp = run()
    found = placements(cp)
    assert all(node for _, node, _ in found)  # every pod was placed ...
    assert len(Counter(when for _, _, when in found)) == 3  # ... some of them only after waiting
    assert placement_digest(cp) == PLACEMENTS
    assert cp.trace.digest() == TRACE
