"""``ValidatePodSetGroupingTopology``: the pod sets sharing ``kueue.x-k8s.io/podset-group-name``.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobframework/tas_validation.go``
(``ValidatePodSetGroupingTopology``, ``topologyRequestsValid``), called by the JobSet webhook
(``pkg/controller/jobs/jobset/jobset_webhook.go`` ``validateTopologyRequest``, with each replicated
job's template annotations as the path). A group (in order of first appearance) must have exactly
two pod sets, at least one of them of one pod (the leader), and both must ask for the same
``required`` or the same ``preferred`` level (KEP 2724, "Co-locating leader and workers").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kbatch.api.errors import FieldError, FieldErrorType
from kbatch.api.kueue_v1beta2 import PodSetTopologyRequest
from kbatch.controllers.kueue.tas.request import PREFERRED, REQUIRED
from kbatch.controllers.kueue.tas.slice_annotations import GROUP_NAME

__all__ = ["GroupedPodSet", "grouping_errors"]


@dataclass(frozen=True, slots=True)
class GroupedPodSet:
    """What the check reads of a pod set: its name, pod count and topology request."""

    name: str
    count: int
    request: PodSetTopologyRequest | None


def _consistent(a: PodSetTopologyRequest, b: PodSetTopologyRequest) -> bool:
    """``topologyRequestsValid``: each has a required or preferred level, and they are equal."""
    if (a.required is None and a.preferred is None) or (b.required is None and b.preferred is None):
        return False
    return a.required == b.required and a.preferred == b.preferred


def grouping_errors(pod_sets: Sequence[GroupedPodSet], paths: Mapping[str, str]) -> list[FieldError]:
    """The errors of every group; ``paths``: each pod set's annotations path by name."""
    groups: dict[str, list[GroupedPodSet]] = {}
    for ps in pod_sets:
        if ps.request is not None and ps.request.pod_set_group_name is not None:
            groups.setdefault(ps.request.pod_set_group_name, []).append(ps)
    errs: list[FieldError] = []
    for name, members in groups.items():
        if len(members) != 2:
            detail = f"can only define groups of exactly 2 pod sets, got: {len(members)} pod set(s)"
            errs += [FieldError.invalid(f"{paths[m.name]}[{GROUP_NAME}]", name, detail) for m in members]
            continue
        first, second = members
        path1, path2 = paths[first.name], paths[second.name]
        if first.count != 1 and second.count != 1:
            detail = (
                "can only define groups where at least one pod set has only 1 replica, got: "
                f"{first.count} replica(s) and {second.count} replica(s) in the group"
            )
            errs += [FieldError.invalid(f"{p}[{GROUP_NAME}]", name, detail) for p in (path1, path2)]
        assert first.request is not None and second.request is not None
        if not _consistent(first.request, second.request):
            template = (
                f"must specify '{REQUIRED}' or '{PREFERRED}' topology consistent with '{{}}' "
                f"in group '{name}'"
            )
            errs += [
                FieldError(FieldErrorType.INVALID, path1, template.format(path2)),  # field.OmitValueType
                FieldError(FieldErrorType.INVALID, path2, template.format(path1)),
            ]
    return errs
