"""Pins the scheduler's decisions on :mod:`.spread_scenario` (issue 22): optimisations of
PodTopologySpread and of the feasible-node search must leave every placement, every scheduling
instant and the whole trace as they are. The values were recorded with SchedulerPopFromBackoffQ
implemented and PodTopologySpread counting node by node, and are unchanged by the kept counts
(:mod:`kbatch.controllers.scheduler.selector_counts`). A deliberate change of scheduling semantics
updates them, and says which upstream behaviour made it. Re-recorded once for kbatch's rule that a
pod leaves the back-off queue early at most once per virtual instant (the previous values are
reproduced exactly with that rule switched off)."""

from __future__ import annotations

from collections import Counter

from .spread_scenario import placement_digest, placements, run

PLACEMENTS = "81d1038be9bd3affd796c78b96fc301e3527f69de3a5793b368d189201311a4d"
TRACE = "87f0474a98a2db0f0c0416a36d158b2670a2df8ab210ce0639b86fef3f1946ec"


def test_mid_size_spread_scenario_places_every_pod_as_pinned() -> None:
    cp = run()
    found = placements(cp)
    assert all(node for _, node, _ in found)  # every pod was placed ...
    assert len(Counter(when for _, _, when in found)) == 3  # ... some of them only after waiting
    assert placement_digest(cp) == PLACEMENTS
    assert cp.trace.digest() == TRACE
