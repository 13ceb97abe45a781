"""coordination.k8s.io/v1: Lease (k8s.io/api ``coordination/v1/types.go``).

A Lease is a lightweight lock with a holder and a renewal time. The kubelet keeps one per node in
the ``kube-node-lease`` namespace, named after the node, and renews it as its heartbeat (KEP-589,
"Efficient node heartbeats"); the node lifecycle controller reads ``renewTime`` to tell a silent
node. ``acquireTime`` and ``renewTime`` are MicroTimes (microsecond precision on the wire).
A Lease has no status; validation is :mod:`kbatch.api.strategies.coordination`. The coordinated
leader election fields (``strategy``, ``preferredHolder``, KEP-4355, beta) are modelled for
round-trips only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo, KubeModel, MicroTime
from kbatch.api.meta import Resource

if TYPE_CHECKING:
    pass

__all__ = ["NODE_LEASE_NAMESPACE", "Lease", "LeaseSpec"]

NODE_LEASE_NAMESPACE = "kube-node-lease"  # corev1.NamespaceNodeLease


class LeaseSpec(KubeModel):
    holder_identity: str | None = None
    lease_duration_seconds: int | None = None
    acquire_time: MicroTime | None = None
    renew_time: MicroTime | None = None
    lease_transitions: int | None = None
    strategy: str | None = None
    preferred_holder: str | None = None


class Lease(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="coordination.k8s.io", version="v1", kind="Lease", plural="leases", namespaced=True,
        singular="lease", subresources=(),
    )

    spec: LeaseSpec = Field(default_factory=LeaseSpec)
