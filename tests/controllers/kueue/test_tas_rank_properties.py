"""Properties of the TopologyUngater's ranks with a pod index offset
(:mod:`kbatch.controllers.kueue.tas.ranks`): for a pod set of ``n`` pods indexed ``k .. k+n-1``
under ``kueue.x-k8s.io/pod-index-offset: k``, whatever the order the pods come in and whichever
of them are already placed where their rank says, the pods and the assignment's ranks are in
bijection: pod ``k + r`` lands in the domain of rank ``r``, and every domain gets exactly its
count. Without the offset the same pods cannot be ranked (their indexes reach past the pod set)
and the greedy fill still gives every domain its count (upstream ``topology_ungater.go``
``readRanksForLabels``, ``assignGatedPodsToDomainsGreedy``)."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.api.kueue_v1beta1.topology import domains_to_slices
from kbatch.api.kueue_v1beta2 import PodSetAssignment, PodSetTopologyRequest
from kbatch.controllers.kueue.tas.ranks import RankBase, offset_of
from kbatch.controllers.kueue.tas.ungater import pods_to_domains

HOST = "kubernetes.io/hostname"
INDEX = "batch.kubernetes.io/job-completion-index"
REQUEST = PodSetTopologyRequest(pod_index_label=INDEX)


@st.composite
def _cases(draw: st.DrawFn) -> tuple[list[int], int, list[int], set[int]]:
    counts = draw(st.lists(st.integers(1, 4), min_size=1, max_size=5))
    n = sum(counts)
    offset = draw(st.integers(0, 40))
    order = draw(st.permutations(range(n)))
    placed = set(draw(st.sets(st.sampled_from(range(n)), max_size=n)))
    return counts, offset, list(order), placed


def _pod(rank: int, offset: int, ranks: list[str], placed: bool) -> Pod:
    return Pod.model_validate({
        "metadata": {"name": f"p{rank:03d}", "namespace": "ns",
                     "labels": {INDEX: str(rank + offset)}, "annotations": {
                         "kueue.x-k8s.io/pod-index-offset": str(offset)}},
        "spec": {"containers": [{"name": "c"}],
                 "schedulingGates": None if placed else [{"name": "kueue.x-k8s.io/topology"}],
                 "nodeSelector": {HOST: ranks[rank]} if placed else None}})


def _setup(counts: list[int], offset: int, order: list[int], placed: set[int]
           ) -> tuple[PodSetAssignment, list[str], list[Pod]]:
    domains = [{"values": [f"h{i}"], "count": c} for i, c in enumerate(counts)]
    psa = PodSetAssignment.model_validate({"name": "main", "count": sum(counts), "topologyAssignment":
                                           domains_to_slices({"levels": [HOST], "domains": domains})})
    ranks = [f"h{i}" for i, c in enumerate(counts) for _ in range(c)]
    return psa, ranks, [_pod(r, offset, ranks, r in placed) for r in order]


@settings(max_examples=150, deadline=None)
@given(_cases())
def test_with_the_offset_pods_and_ranks_are_in_bijection(
    case: tuple[list[int], int, list[int], set[int]],
) -> None:
    counts, offset, order, placed = case
    psa, ranks, pods = _setup(counts, offset, order, placed)
    base = RankBase(0, len(ranks)).shifted(offset_of(pods))
    chosen = {p.metadata.name: labels[HOST] for p, labels in pods_to_domains(pods, psa, REQUEST, base=base)}
    assert set(chosen) == {f"p{r:03d}" for r in range(len(ranks)) if r not in placed}
    assert all(host == ranks[int(name[1:])] for name, host in chosen.items())
    filled = Counter(chosen.values()) + Counter(ranks[r] for r in placed)
    assert filled == Counter(ranks)


@settings(max_examples=100, deadline=None)
@given(_cases())
def test_without_the_offset_the_greedy_fill_still_fills_every_domain(
    case: tuple[list[int], int, list[int], set[int]],
) -> None:
    counts, offset, order, _ = case
    psa, ranks, pods = _setup(counts, offset, order, set())
    chosen = pods_to_domains(pods, psa, REQUEST)
    assert Counter(labels[HOST] for _, labels in chosen) == Counter(ranks)
    assert len({p.metadata.name for p, _ in chosen}) == len(ranks)
