"""The ``kueue`` conformance family: Kueue (kueue.x-k8s.io v1beta2, v0.19) admitting batch/v1 Jobs —
suspended on creation, admitted through LocalQueue -> ClusterQueue quota, unsuspended and run, quota
freed when they finish, waiting with upstream's reason while the quota is used, preempted by a
higher priority, borrowing within a cohort — plain Pods and pod groups (the ``pod`` integration:
gated at creation, admitted, ungated, finished), the maximum execution time and HoldAndDrain,
and Kueue's webhook refusals.

The checks need Kueue's manager (marker ``needs_kueue``: the ``kueue`` capability, which kbatch
targets declare when their ``kueue`` controller runs and HTTP targets when discovery serves
``kueue.x-k8s.io/v1beta2``, i.e. Kueue is installed) and, for the Job checks, a kubelet
(``runs_pods``). Cluster-scoped objects (ResourceFlavor, ClusterQueue, WorkloadPriorityClass) are
named after the check's namespace and deleted at the end. The webhook check needs only Kueue's API
and webhooks (kbatch serves them whatever controllers run) and skips where the kinds are not served.
"""

from __future__ import annotations

from conformance.requirements import Requirement, register
from conformance.target import KUEUE

register(
    "needs_kueue",
    Requirement(
        needs=frozenset({KUEUE}),
        reason="needs Kueue's manager (kueue.x-k8s.io served and acted on); this target has none",
        doc="Kueue admits the check's workloads; skipped on targets without the kueue capability",
    ),
)
