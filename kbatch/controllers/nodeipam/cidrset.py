"""The cluster CIDR cut into per-node ranges: upstream ``pkg/controller/nodeipam/ipam/cidrset``
(``cidr_set.go``), IPv4.

A :class:`CidrSet` is the cluster CIDR (``--cluster-cidr``, kind's ``10.244.0.0/16``) split into
``2 ** (node_mask - cluster_mask)`` ranges of ``--node-cidr-mask-size`` (24 for IPv4). As upstream:

* :meth:`CidrSet.allocate_next` scans from ``next_candidate`` (one past the last range handed out),
  wrapping around, so a released range is not handed out again at once (``AllocateNext``);
* :meth:`CidrSet.occupy` marks a range already on a node (a restart, a node created with
  ``spec.podCIDR``) as used; :meth:`CidrSet.release` frees a deleted node's range (``Occupy``,
  ``Release``: both accept a range that is not exactly one node range and mark every node range
  it covers);
* no range overlaps another: each is one index of the same bitmap (a Python ``int`` here, a
  ``big.Int`` upstream).

Pure: no clock, no randomness, no I/O; the same calls give the same ranges.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

__all__ = ["CidrSet", "CidrSetError", "RangeExhausted"]


class CidrSetError(ValueError):
    """A range outside the cluster CIDR, or a cluster CIDR / mask size upstream refuses."""


class RangeExhausted(CidrSetError):
    """``ErrCIDRRangeNoCIDRsRemaining``: every node range is in use."""

    def __init__(self) -> None:
        super().__init__("CIDR allocation failed; there are no remaining CIDRs left to allocate in the "
                         "accepted range")


@dataclass
class CidrSet:
    cluster: ipaddress.IPv4Network
    node_mask: int
    used: int = 0  # bit i set: node range i is taken
    next_candidate: int = 0
    allocated: int = field(default=0)

    @classmethod
    def parse(cls, cluster_cidr: str, node_mask: int) -> CidrSet:
        """``NewCIDRSet``; a node mask shorter than the cluster's, or past 32 bits, is refused (the
        flags' validation upstream; IPv6's ``clusterSubnetMaxDiff`` does not apply)."""
        try:
            cluster = ipaddress.ip_network(cluster_cidr, strict=False)
        except ValueError as err:
            raise CidrSetError(f"invalid cluster CIDR {cluster_cidr!r}: {err}") from None
        if not isinstance(cluster, ipaddress.IPv4Network):
            raise CidrSetError(f"cluster CIDR {cluster_cidr}: only IPv4 is simulated")
        if not cluster.prefixlen <= node_mask <= 32:
            raise CidrSetError("New CIDR set failed; the node CIDR size is too big")
        return cls(cluster, node_mask)

    @property
    def size(self) -> int:
        """``maxCIDRs``: how many node ranges the cluster CIDR holds."""
        return 1 << (self.node_mask - self.cluster.prefixlen)

    def block(self, index: int) -> ipaddress.IPv4Network:
        """``indexToCIDRBlock``."""
        base = int(self.cluster.network_address) | (index << (32 - self.node_mask))
        return ipaddress.IPv4Network((base, self.node_mask))

    def allocate_next(self) -> ipaddress.IPv4Network:
        if self.allocated == self.size:
            raise RangeExhausted()
        candidate = self.next_candidate
        while self.used >> candidate & 1:
            candidate = (candidate + 1) % self.size
        self.next_candidate = (candidate + 1) % self.size
        self.used |= 1 << candidate
        self.allocated += 1
        return self.block(candidate)

    def _indices(self, cidr: str) -> range:
        """``getBeginningAndEndIndices``: the node ranges ``cidr`` covers."""
        try:
            net = ipaddress.ip_network(cidr, strict=False)
        except ValueError as err:
            raise CidrSetError(f"invalid CIDR {cidr!r}: {err}") from None
        if not isinstance(net, ipaddress.IPv4Network) or not (
                net.overlaps(self.cluster)):
            raise CidrSetError(f"cidr {cidr} is out the range of cluster cidr {self.cluster}")
        shift = 32 - self.node_mask
        first = max(int(net.network_address), int(self.cluster.network_address))
        last = min(int(net.broadcast_address), int(self.cluster.broadcast_address))
        base = int(self.cluster.network_address)
        return range((first - base) >> shift, ((last - base) >> shift) + 1)

    def occupy(self, cidr: str) -> None:
        for i in self._indices(cidr):
            if not self.used >> i & 1:
                self.used |= 1 << i
                self.allocated += 1

    def release(self, cidr: str) -> None:
        for i in self._indices(cidr):
            if self.used >> i & 1:
                self.used &= ~(1 << i)
                self.allocated -= 1
