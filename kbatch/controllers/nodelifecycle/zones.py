"""Zones, zone states and per-zone eviction rates, pure (upstream
``pkg/controller/nodelifecycle/node_lifecycle_controller.go``: ``ComputeZoneState``,
``handleDisruption``, ``setLimiterInZone``, ``HealthyQPSFunc``, ``ReducedQPSFunc``; the docs page
"Nodes", section "Rate limits on eviction").

A node's zone is its region and zone labels together (``topology.kubernetes.io/region`` and
``topology.kubernetes.io/zone``, the deprecated ``failure-domain.beta.kubernetes.io/*`` labels
first, as upstream ``GetZoneKey``); a node with neither is in the zone ``""``. Nodes labelled
``node.kubernetes.io/exclude-disruption`` are not counted.

A zone is ``FullDisruption`` when none of its counted nodes is ``Ready`` (and it has some),
``PartialDisruption`` when more than two are not ready and they are at least
``unhealthy_zone_threshold`` (0.55) of it, ``Normal`` otherwise; a zone seen for the first time
starts ``Initial``. Each zone's NoExecute tainting is rate-limited: ``node_eviction_rate`` (0.1
nodes/s) when ``Normal`` or ``FullDisruption``; ``secondary_node_eviction_rate`` (0.01/s) when
``PartialDisruption`` and the zone has more than ``large_cluster_size_threshold`` (50) nodes, else
0 (tainting stops). When *every* zone is fully disrupted the controller assumes the control plane
lost the nodes, not the nodes their health ("master disruption mode"): it removes the not-ready /
unreachable NoExecute taints from all nodes and stops tainting; when some zone recovers it gives
every node a fresh grace period and sets each zone's rate for its new state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "EXCLUDE_DISRUPTION",
    "FULL",
    "INITIAL",
    "NORMAL",
    "PARTIAL",
    "Disruption",
    "EvictionConfig",
    "handle_disruption",
    "zone_key",
    "zone_rate",
    "zone_state",
]

INITIAL, NORMAL, PARTIAL, FULL = "Initial", "Normal", "PartialDisruption", "FullDisruption"
EXCLUDE_DISRUPTION = "node.kubernetes.io/exclude-disruption"
_REGION = ("failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region")
_ZONE = ("failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone")


def _first(labels: Mapping[str, str], keys: tuple[str, str]) -> str:
    for key in keys:
        if key in labels:
            return labels[key]
    return ""


def zone_key(labels: Mapping[str, str] | None) -> str:
    """The node's zone (upstream ``nodetopology.GetZoneKey``): region and zone joined by
    ``":\\0:"``, or ``""`` when the node has neither label."""
    if not labels:
        return ""
    region, zone = _first(labels, _REGION), _first(labels, _ZONE)
    return "" if not region and not zone else f"{region}:\x00:{zone}"


@dataclass(frozen=True, slots=True)
class EvictionConfig:
    """kube-controller-manager's ``--node-eviction-rate``, ``--secondary-node-eviction-rate``,
    ``--unhealthy-zone-threshold`` and ``--large-cluster-size-threshold`` (upstream defaults)."""

    node_eviction_rate: float = 0.1
    secondary_node_eviction_rate: float = 0.01
    unhealthy_zone_threshold: float = 0.55
    large_cluster_size_threshold: int = 50

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> EvictionConfig:
        """The settings found in a controller's options (others ignored); ValueError if negative."""
        fields, defaults = cls.__dataclass_fields__, cls()
        config = cls(**{k: type(getattr(defaults, k))(v) for k, v in options.items() if k in fields})
        for name in fields:
            if getattr(config, name) < 0:
                raise ValueError(f"node-lifecycle option {name} must not be negative")
        return config


def zone_state(ready: int, not_ready: int, threshold: float) -> str:
    """``ComputeZoneState`` from a zone's counts of Ready and not-Ready nodes."""
    if ready == 0 and not_ready > 0:
        return FULL
    if not_ready > 2 and not_ready / (not_ready + ready) >= threshold:
        return PARTIAL
    return NORMAL


def zone_rate(state: str, size: int, config: EvictionConfig) -> float:
    """Nodes per second the zone may taint in ``state`` (``setLimiterInZone``); ``size`` is the
    number of counted nodes in the zone."""
    if state == PARTIAL:
        return config.secondary_node_eviction_rate if size > config.large_cluster_size_threshold else 0.0
    return config.node_eviction_rate


@dataclass(frozen=True, slots=True)
class Disruption:
    """What one ``handleDisruption`` pass decided: the zone states to remember, the zones whose
    rate changes (zone -> nodes per second), and whether the cluster enters master disruption
    mode (remove every node's NoExecute condition taints) or leaves it (reset probe times)."""

    states: dict[str, str]
    rates: dict[str, float]
    enter_full: bool = False
    exit_full: bool = False


def handle_disruption(previous: Mapping[str, str], counts: Mapping[str, tuple[int, int]],
                      config: EvictionConfig) -> Disruption:
    """The pass over zone ``counts`` (zone -> (ready, not ready)) given the ``previous`` states.

    Zones no longer present are forgotten (upstream may keep some while it stops at the first zone
    not fully disrupted, in random map order; kbatch forgets all of them). Zones are visited in
    sorted order."""
    new = {z: zone_state(r, n, config.unhealthy_zone_threshold) for z, (r, n) in sorted(counts.items())}
    states = {z: previous.get(z, INITIAL) for z in new}
    all_are = all(s == FULL for s in new.values())
    all_were = all(s == FULL for s in states.values())
    if all_are and all_were:
        return Disruption(states, {})
    if all_are:
        return Disruption(dict.fromkeys(states, FULL), dict.fromkeys(states, 0.0), enter_full=True)
    sizes = {z: r + n for z, (r, n) in counts.items()}
    changed = new if all_were else {z: s for z, s in new.items() if states[z] != s}
    rates = {z: zone_rate(s, sizes[z], config) for z, s in changed.items()}
    return Disruption({**states, **changed}, rates, exit_full=all_were)
