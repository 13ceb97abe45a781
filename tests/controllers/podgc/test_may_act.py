"""Property: the sweep builds facts only for pods :func:`may_act` keeps; dropping the others never
changes what the three decisions pick (upstream gc_controller.go gcTerminated, gcOrphaned,
gcUnscheduledTerminating)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.controllers.podgc.decisions import (
    PodFacts,
    may_act,
    orphaned,
    terminated_to_delete,
    unscheduled_terminating,
)

NODES = ["", "n1", "n2", "n3"]

pod_facts = st.builds(
    PodFacts,
    namespace=st.sampled_from(["a", "b"]),
    name=st.text(alphabet="xyz", min_size=1, max_size=3),
    creation=st.integers(0, 5).map(float),
    phase=st.sampled_from(["Pending", "Running", "Succeeded", "Failed", "Unknown"]),
    node_name=st.sampled_from(NODES),
    terminating=st.booleans(),
    reason=st.sampled_from(["", "Evicted"]),
)


@settings(max_examples=300, deadline=None)
@given(pods=st.lists(pod_facts, max_size=25), nodes=st.sets(st.sampled_from(NODES[1:])),
       threshold=st.integers(0, 6), now=st.integers(0, 100).map(float),
       since=st.dictionaries(st.sampled_from(NODES[1:]), st.integers(0, 100).map(float)))
def test_only_pods_that_may_act_matter(pods: list[PodFacts], nodes: set[str], threshold: int, now: float,
                                       since: dict[str, float]) -> None:
    kept = [p for p in pods if may_act(p.phase, p.node_name, p.terminating, nodes)]
    assert terminated_to_delete(kept, threshold) == terminated_to_delete(pods, threshold)
    assert orphaned(kept, nodes, since, now) == orphaned(pods, nodes, since, now)
    assert unscheduled_terminating(kept) == unscheduled_terminating(pods)


def test_running_pod_on_a_known_node_cannot_be_acted_on() -> None:
    assert not may_act("Running", "n1", False, {"n1"})
    assert may_act("Running", "gone", False, {"n1"})
    assert may_act("Succeeded", "n1", False, {"n1"})
    assert may_act("Pending", "", True, {"n1"})
