"""The cluster CIDR's node ranges (upstream ``pkg/controller/nodeipam/ipam/cidrset/cidr_set_test.go``):
its table cases for ``AllocateNext`` over a small cluster, and properties: no two ranges in use
overlap, a released range is handed out again only after the scan has gone round."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.controllers.nodeipam import CidrSet, CidrSetError, RangeExhausted


@pytest.mark.parametrize(("cluster", "mask", "want"), [
    # TestCIDRSetFullyAllocated: a /30 cut into /30s holds one range
    ("127.123.234.0/30", 30, ["127.123.234.0/30"]),
    # TestIndexToCIDRBlock-like: a /16 into /24s, in order
    ("10.244.0.0/16", 24, ["10.244.0.0/24", "10.244.1.0/24", "10.244.2.0/24"]),
    # TestCIDRSet_RandomishAllocation: a /16 into /24s from 127.123.234.0 (masked to the /16)
    ("127.123.234.0/16", 24, ["127.123.0.0/24", "127.123.1.0/24"]),
])
def test_allocate_next_in_order(cluster: str, mask: int, want: list[str]) -> None:
    cidrs = CidrSet.parse(cluster, mask)
    assert [str(cidrs.allocate_next()) for _ in want] == want


def test_a_full_set_refuses_then_serves_a_released_range() -> None:
    cidrs = CidrSet.parse("127.123.234.0/30", 30)
    only = str(cidrs.allocate_next())
    with pytest.raises(RangeExhausted, match="no remaining CIDRs"):
        cidrs.allocate_next()
    cidrs.release(only)
    assert str(cidrs.allocate_next()) == only


def test_occupy_marks_every_range_it_covers() -> None:
    # TestOccupy: a /22 in a /16 of /24s takes four ranges; the next one handed out is past them
    cidrs = CidrSet.parse("10.244.0.0/16", 24)
    cidrs.occupy("10.244.0.0/22")
    assert cidrs.allocated == 4 and str(cidrs.allocate_next()) == "10.244.4.0/24"


@pytest.mark.parametrize(("cluster", "mask"), [("10.0.0.0/16", 8), ("10.0.0.0/16", 33), ("fd00::/64", 80),
                                               ("nonsense", 24)])
def test_refused_configurations(cluster: str, mask: int) -> None:
    with pytest.raises(CidrSetError):
        CidrSet.parse(cluster, mask)


def test_a_range_outside_the_cluster_is_refused() -> None:
    with pytest.raises(CidrSetError, match="out the range of cluster cidr"):
        CidrSet.parse("10.244.0.0/16", 24).occupy("192.168.0.0/24")


ops = st.lists(st.one_of(st.just(("next", 0)), st.tuples(st.just("release"), st.integers(0, 15))),
               max_size=60)


@settings(max_examples=200, deadline=None)
@given(ops)
def test_ranges_in_use_never_overlap(steps: list[tuple[str, int]]) -> None:
    cidrs = CidrSet.parse("10.244.0.0/20", 24)  # 16 ranges
    held: list[ipaddress.IPv4Network] = []
    last: ipaddress.IPv4Network | None = None
    for op, i in steps:
        if op == "next":
            try:
                block = cidrs.allocate_next()
            except RangeExhausted:
                assert len(held) == cidrs.size
                continue
            assert all(not block.overlaps(other) for other in held)
            assert block.subnet_of(cidrs.cluster) and block.prefixlen == 24
            if last is not None and len(held) < cidrs.size - 1:
                # AllocateNext scans on from the last one handed out
                gap = (int(block.network_address) - int(last.network_address)) >> 8
                assert gap % cidrs.size != 0
            last = block
            held.append(block)
        elif held:
            cidrs.release(str(held.pop(i % len(held))))
        assert cidrs.allocated == len(held)
