"""Pins the scheduler's decisions on :mod:`.spread_scenario` (issue 22): optimisations of
PodTopologySpread and of the feasible-node search must leave every placement, every scheduling
instant and the whole trace as they are. The values were recorded with SchedulerPopFromBackoffQ
implemented and PodTopologySpread counting node by node, and are unchanged by the kept counts
(:mod:`kbatch.controllers.scheduler.selector_counts`). A deliberate change of scheduling semantics
updates them, and says which upstream behaviour made it."""

from __future__ import annotations

from collections import Counter

from .spread_scenario import placement_digest, placements, run

PLACEMENTS = "15e1b7fe297bf608392646db5928d46fcfafb8609d07bcfbdde31af5ef6344c9"
TRACE = "7f778fda5d2ef939429308377bb00e4f7a3f17f99dd341ffda3eb688aa9168c4"


def test_mid_size_spread_scenario_places_every_pod_as_pinned() -> None:
    cp = run()
    found = placements(cp)
    assert all(node for _, node, _ in found)  # every pod was placed ...
    assert len(Counter(when for _, _, when in found)) == 3  # ... some of them only after waiting
    assert placement_digest(cp) == PLACEMENTS
    assert cp.trace.digest() == TRACE
