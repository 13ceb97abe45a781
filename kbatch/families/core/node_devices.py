"""A node's DRA devices in ``describe node``: the node-local ResourceSlices and the allocated devices.

* "Node-Local ResourceSlices" is kubectl's block (k8s.io/kubectl ``pkg/describe/describe.go``,
  ``describeNodeResourceSlices``, since kubectl 1.36): the slices listed with the field selector
  ``spec.nodeName=NODE``, grouped by driver and pool (sorted by ``driver/pool``), each with its number
  of slices and devices; at most ten pools, then ``...and N more pools``.
* The allocated devices are kbatch's: kubectl's "Allocated resources" sums the pods' container
  requests only, so a device a pod got through a ResourceClaim never shows there. kbatch adds the
  devices allocated to the claims that the node's non-terminated pods hold (``status.reservedFor``),
  counted once per claim (a claim several pods share on the node is one allocation), per device class
  and driver. A result with ``adminAccess`` is left out: admin access does not take the device from
  anyone (KEP-5018). The class of a result is its request's ``exactly.deviceClassName``, or for
  ``firstAvailable`` the chosen subrequest's (the result names it ``request/subrequest``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["MAX_POOLS", "allocated_device_rows", "slice_pool_rows"]

Obj = dict[str, Any]
MAX_POOLS = 10


def slice_pool_rows(slices: list[Obj]) -> list[str]:
    """kubectl's "Node-Local ResourceSlices" lines (tab-separated cells; none without slices)."""
    pools: dict[str, list[Any]] = {}
    for item in slices:
        spec = item.get("spec") or {}
        driver, pool = spec.get("driver", ""), (spec.get("pool") or {}).get("name", "")
        entry = pools.setdefault(f"{driver}/{pool}", [driver, pool, 0, 0])
        entry[2] += 1
        entry[3] += len(spec.get("devices") or ())
    if not pools:
        return []
    lines = ["Node-Local ResourceSlices:", "  Driver\tPool\tSlices\tDevices",
             "  ------\t----\t------\t-------"]
    for shown, key in enumerate(sorted(pools)):
        if shown >= MAX_POOLS:
            lines.append(f"  ...and {len(pools) - MAX_POOLS} more pools")
            break
        driver, pool, count, devices = pools[key]
        lines.append(f"  {driver}\t{pool}\t{count}\t{devices}")
    return lines


def _request_classes(claim: Obj) -> dict[str, str]:
    """Request name (``req`` or ``req/sub``) → device class name."""
    out: dict[str, str] = {}
    for request in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ():
        name = request.get("name", "")
        if request.get("exactly") is not None:
            out[name] = request["exactly"].get("deviceClassName", "")
        for sub in request.get("firstAvailable") or ():
            out[f"{name}/{sub.get('name', '')}"] = sub.get("deviceClassName", "")
    return out


def _holds(claim: Obj, pod_uids: set[str]) -> bool:
    return any(r.get("resource") == "pods" and r.get("uid") in pod_uids
               for r in (claim.get("status") or {}).get("reservedFor") or ())


def allocated_device_rows(claims: list[Obj], pods: list[Obj]) -> list[tuple[str, str, int]]:
    """``(device class, driver, devices)`` allocated to the claims ``pods`` hold, sorted."""
    uids = {(p.get("metadata") or {}).get("uid", "") for p in pods}
    counts: dict[tuple[str, str], int] = {}
    for claim in claims:
        allocation = (claim.get("status") or {}).get("allocation")
        if not allocation or not _holds(claim, uids):
            continue
        classes = _request_classes(claim)
        for result in (allocation.get("devices") or {}).get("results") or ():
            if result.get("adminAccess"):
                continue
            key = (classes.get(result.get("request", ""), ""), result.get("driver", ""))
            counts[key] = counts.get(key, 0) + 1
    return sorted((cls, driver, n) for (cls, driver), n in counts.items())
