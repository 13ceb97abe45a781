"""A pod set's topology placement as the admission records it.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/flavorassigner/flavorassigner.go``
(``PodSetAssignment.toAPI``: ``tas.V1Beta2From``) and ``apis/kueue/v1beta2/workload_types.go``
(``TopologyAssignment``: ``levels`` and ``slices``, each slice a ``domainCount``, per level either one
``universal`` value or ``individual`` roots between a common ``prefix`` and ``suffix``, and
``podCounts`` universal or individual). The encoding is :mod:`kbatch.api.kueue_v1beta1.topology`'s
(the same one the v1beta1 conversion writes; the hostname-prefix runs as the
``TASAssignmentsEncodingByHostnamePrefix`` gate says).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kbatch.api.kueue_v1beta1.topology import domains_to_slices
from kbatch.controllers.kueue.tas.snapshot import TopologyResult

__all__ = ["Placement"]


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a pod set's pods go (``result``), on which TAS flavor, with one pod's requests (its
    TAS usage per pod)."""

    flavor: str
    result: TopologyResult
    single_pod: Mapping[str, int]
    by_hostname_prefix: bool = True  # TASAssignmentsEncodingByHostnamePrefix (beta, on)

    def to_api(self) -> dict[str, Any]:
        """The v1beta2 ``topologyAssignment``."""
        domains = [{"values": list(values), "count": count} for values, count in self.result.domains]
        ta = {"levels": list(self.result.levels), "domains": domains}
        return domains_to_slices(ta, self.by_hostname_prefix)
