"""The TopologyUngater's ranks: which rank of a pod set's topology assignment each pod takes.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/tas/topology_ungater.go`` (``Reconcile``'s
rank offsets, ``readRanksIfAvailable``, ``readRanksForLabels``) and ``pkg/util/pod``
(``ReadUIntFromLabelBelowBound``). A pod's rank is its pod index label (a decimal number below the
pod set's *maximum rank*) less the pod set's *offset*; with a sub-group label (a JobSet's
``jobset.sigs.k8s.io/job-index``), ``index + sub-group x (count / sub-groups) - offset``, the index
below one sub-group's size. The offset and maximum rank start at 0 and the pod set's count; then

* two pod sets sharing ``topologyRequest.podSetGroupName`` (a leader and its workers) number their
  pods as one: the one with fewer pods (the first on a tie) keeps offset 0, the other's offset and
  maximum rank grow by that count (its indexes continue the leader's);
* ``kueue.x-k8s.io/pod-index-offset`` on the pod set's first pod (a Go ``Atoi`` number) adds to both
  (upstream's MPIJob and LeaderWorkerSet webhooks set it to 1 on their workers); a value ``Atoi``
  refuses fails the reconcile ("failed to parse offset annotation"; it is retried).

Ranks are used only when every pod has one in ``[0, count)``, no two share one, and each one has a
domain; otherwise the ungater falls back to its greedy fill.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kbatch.api.core_v1 import Pod
from kbatch.api.kueue_v1beta2 import PodSetAssignment, PodSetTopologyRequest

__all__ = ["OFFSET_ANNOTATION", "OffsetError", "RankBase", "by_rank", "offset_of", "rank_bases"]

OFFSET_ANNOTATION = "kueue.x-k8s.io/pod-index-offset"  # kueue.PodIndexOffsetAnnotation
_ATOI = re.compile(r"[+-]?[0-9]+")
_INT64 = 1 << 63


class OffsetError(ValueError):
    """``errParseOffsetAnnotation``."""


@dataclass(frozen=True, slots=True)
class RankBase:
    """A pod set's rank offset and the bound of its pods' indexes."""

    offset: int
    max_rank: int

    def shifted(self, by: int) -> RankBase:
        return RankBase(_int32(self.offset + by), _int32(self.max_rank + by))


def _int32(value: int) -> int:
    """Go's ``int32(x)`` conversion: wraps."""
    return (value + (1 << 31)) % (1 << 32) - (1 << 31)


def rank_bases(
    psas: Sequence[PodSetAssignment], requests: Mapping[str, PodSetTopologyRequest | None]
) -> dict[str, RankBase]:
    """The offsets and maximum ranks before any offset annotation, grouped by
    ``podSetGroupName`` (each pod set alone otherwise)."""
    groups: dict[str, list[PodSetAssignment]] = {}
    for i, psa in enumerate(psas):
        req = requests.get(psa.name or "")
        key = req.pod_set_group_name if req is not None and req.pod_set_group_name is not None else str(i)
        groups.setdefault(key, []).append(psa)
    out: dict[str, RankBase] = {}
    for members in groups.values():
        if len(members) == 1:
            out[members[0].name or ""] = RankBase(0, _count(members[0]))
            continue
        smaller, larger = members[0], members[1]
        if _count(smaller) > _count(larger):
            smaller, larger = larger, smaller
        out[smaller.name or ""] = RankBase(0, _count(smaller))
        out[larger.name or ""] = RankBase(_count(smaller), _count(larger) + _count(smaller))
    return out


def _count(psa: PodSetAssignment) -> int:
    return psa.count if psa.count is not None else 1


def offset_of(pods: Sequence[Pod]) -> int:
    """The first pod's ``kueue.x-k8s.io/pod-index-offset`` (0 without one); ``OffsetError`` when
    Go's ``strconv.Atoi`` would refuse it."""
    if not pods:
        return 0
    text = (pods[0].metadata.annotations or {}).get(OFFSET_ANNOTATION)
    if text is None:
        return 0
    value = int(text) if _ATOI.fullmatch(text) else None
    if value is None or not -_INT64 <= value < _INT64:
        raise OffsetError(f"failed to parse offset annotation {OFFSET_ANNOTATION}={text!r}")
    return value


def _uint_below(pod: Pod, label: str, bound: int) -> int | None:
    """``ReadUIntFromLabelBelowBound``."""
    text = (pod.metadata.labels or {}).get(label)
    if text is None or not text.isascii() or not text.isdigit():
        return None
    value = int(text)
    return value if value < bound else None


def _pod_rank(pod: Pod, request: PodSetTopologyRequest, count: int, base: RankBase) -> int | None:
    """``readRanksForLabels`` for one pod; ``None`` where upstream returns an error."""
    index = _uint_below(pod, request.pod_index_label or "", base.max_rank)
    if index is None:
        return None
    rank = index - base.offset
    if request.sub_group_index_label is not None:
        groups = request.sub_group_count or 0
        if groups <= 0:
            return None  # ``errInvalidSubGroupCount``
        group = _uint_below(pod, request.sub_group_index_label, groups)
        size = count // groups
        if group is None or index >= size:
            return None
        rank = index + group * size - base.offset
    return rank if 0 <= rank < count else None


def by_rank(
    pods: Sequence[Pod],
    request: PodSetTopologyRequest,
    count: int,
    domains: int,
    base: RankBase,
) -> dict[int, Pod] | None:
    """``readRanksForLabels`` over the pod set: rank → pod, or ``None`` (a pod without a valid
    rank, two pods on one rank, or a rank past the ``domains`` ranks the assignment holds)."""
    out: dict[int, Pod] = {}
    for pod in pods:
        rank = _pod_rank(pod, request, count, base)
        if rank is None or rank in out or rank >= domains:
            return None
        out[rank] = pod
    return out
