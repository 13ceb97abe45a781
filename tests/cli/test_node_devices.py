"""describe node's DRA lines: node-local ResourceSlices per pool, devices held by the node's pods."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kbatch.families.core.node_devices import MAX_POOLS, allocated_device_rows, slice_pool_rows


def _pod(uid: str) -> dict[str, Any]:
    return {"metadata": {"name": uid, "uid": uid}}


def _claim(results: list[dict[str, Any]], holders: list[str], requests: list[dict[str, Any]] | None = None
           ) -> dict[str, Any]:
    requests = requests or [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]
    return {"spec": {"devices": {"requests": requests}},
            "status": {"allocation": {"devices": {"results": results}},
                       "reservedFor": [{"resource": "pods", "name": u, "uid": u} for u in holders]}}


def _result(device: str, driver: str = "gpu.example.com", request: str = "r", **extra: Any) -> dict[str, Any]:
    return {"request": request, "driver": driver, "pool": "p", "device": device, **extra}


@given(st.lists(st.tuples(st.integers(1, 4), st.sets(st.sampled_from(["a", "b", "c", "x"]))), max_size=8))
def test_each_claim_counts_once_when_a_pod_on_the_node_holds_it(claims: list[tuple[int, set[str]]]) -> None:
    """Pods a, b, c are on the node, x elsewhere: a claim counts when one of a, b, c holds it, once
    however many of them share it."""
    objs = [_claim([_result(f"d{i}-{j}") for j in range(n)], sorted(holders)) for i, (n, holders) in
            enumerate(claims)]
    rows = allocated_device_rows(objs, [_pod("a"), _pod("b"), _pod("c")])
    expected = sum(n for n, holders in claims if holders & {"a", "b", "c"})
    assert rows == ([("gpu", "gpu.example.com", expected)] if expected else [])


def test_classes_of_first_available_and_admin_access() -> None:
    requests = [{"name": "r", "firstAvailable": [{"name": "big", "deviceClassName": "gpu-big"},
                                                 {"name": "small", "deviceClassName": "gpu-small"}]},
                {"name": "n", "exactly": {"deviceClassName": "nic"}}]
    claim = _claim([_result("g0", request="r/small"), _result("n0", driver="nic.example.com", request="n"),
                    _result("n1", driver="nic.example.com", request="n", adminAccess=True)], ["a"], requests)
    unallocated = {"spec": claim["spec"], "status": {"reservedFor": [{"resource": "pods", "uid": "a"}]}}
    assert allocated_device_rows([claim, unallocated], [_pod("a")]) == \
        [("gpu-small", "gpu.example.com", 1), ("nic", "nic.example.com", 1)]


def test_slice_pools_are_grouped_sorted_and_capped() -> None:
    slices = [{"spec": {"driver": f"d{i % 12:02}.example.com", "pool": {"name": "node-0"},
                        "devices": [{"name": "x"}] * (i % 3)}} for i in range(24)]
    lines = slice_pool_rows(slices)
    assert lines[:3] == ["Node-Local ResourceSlices:", "  Driver\tPool\tSlices\tDevices",
                         "  ------\t----\t------\t-------"]
    assert lines[3:5] == ["  d00.example.com\tnode-0\t2\t0",  # slices 0 and 12: no devices
                          "  d01.example.com\tnode-0\t2\t2"]  # slices 1 and 13: one device each
    assert len(lines) == 3 + MAX_POOLS + 1 and lines[-1] == "  ...and 2 more pools"
    assert slice_pool_rows([]) == []
