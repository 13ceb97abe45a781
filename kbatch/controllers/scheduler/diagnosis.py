"""Why a pod did not fit: the per-node statuses and the upstream-style message.

Upstream ``pkg/scheduler/framework/types.go`` ``FitError.Error``: "0/N nodes are available: " then
each distinct reason prefixed by the number of nodes that gave it, the strings sorted (so
"1 node(s) had untolerated taint(s)" sorts before "2 Insufficient cpu"), joined by ", ", and a
final "."; the PostFilter (preemption) message follows after a space when there is one. A PreFilter
rejection replaces the histogram with its own message.

    >>> from kbatch.controllers.scheduler.framework import Status
    >>> fit_error_message(3, {"a": Status.unresolvable("T", "node(s) had untolerated taint(s)"),
    ...                       "b": Status.unschedulable("F", "Insufficient cpu"),
    ...                       "c": Status.unschedulable("F", "Insufficient cpu")})
    '0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu.'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kbatch.controllers.scheduler.framework import Status

__all__ = ["Diagnosis", "fit_error_message", "histogram"]


def histogram(statuses: Mapping[str, Status]) -> list[str]:
    counts: dict[str, int] = {}
    for status in statuses.values():
        for reason in status.reasons:
            counts[reason] = counts.get(reason, 0) + 1
    return sorted(f"{count} {reason}" for reason, count in counts.items())


def fit_error_message(
    num_nodes: int,
    statuses: Mapping[str, Status],
    pre_filter: Status | None = None,
    post_filter_message: str = "",
) -> str:
    if pre_filter is not None:
        message = f"0/{num_nodes} nodes are available: {pre_filter.message}."
    else:
        message = f"0/{num_nodes} nodes are available: {', '.join(histogram(statuses))}."
    return f"{message} {post_filter_message}" if post_filter_message else message


@dataclass(slots=True)
class Diagnosis:
    """The record of a failed attempt (upstream ``framework.Diagnosis``)."""

    num_nodes: int
    statuses: dict[str, Status] = field(default_factory=dict)
    pre_filter: Status | None = None
    post_filter_message: str = ""

    @property
    def plugins(self) -> tuple[str, ...]:
        """The plugins that rejected the pod, sorted (upstream ``UnschedulablePlugins``)."""
        names = {s.plugin for s in self.statuses.values()}
        if self.pre_filter is not None:
            names.add(self.pre_filter.plugin)
        return tuple(sorted(names))

    def message(self) -> str:
        return fit_error_message(self.num_nodes, self.statuses, self.pre_filter, self.post_filter_message)
