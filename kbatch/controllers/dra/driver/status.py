"""What a simulated node driver reports in a claim's ``status.devices`` (KEP-4817,
``keps/sig-node/4817-resource-claim-device-status``; ``AllocatedDeviceStatus`` in
``k8s.io/api/resource/v1/types.go``, 1.37): a pure decision, :func:`wanted_entries`, and the merge
into the claim's list, :func:`merged`.

A driver reports the devices it prepared: the allocated devices of its pools (on its node) while the
claim is reserved for some consumer (kbatch's kubelet prepares a claim for a pod only once it is
reserved for it). Each entry gets the condition ``Ready`` (``True``, reason ``DevicePrepared``; the
API's documentation: "If the device has been configured according to the class and claim config
references, the `Ready` condition should be True"), ``data`` (the driver's own description of the
device: its model, its UUID, the driver's version, as the example driver's GPUs carry) and, for
network devices, ``networkData``: the interface name, an address on the device's network (one /24
per interface index, ``10.200.<index>.0/24``, the node's host number from its InternalIP) and a
locally administered MAC address derived from the node and device names. Entries of other drivers,
or of other pools, are left as they are; an entry of the driver's that it no longer reports (the
claim lost its last consumer: upstream's ``NodeUnprepareResources``) is removed. Deallocation clears
``status.devices`` with the allocation (the resourceclaim controller's and the scheduler's writes).
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["DriverPool", "entry_key", "merged", "wanted_entries"]

READY, PREPARED = "Ready", "DevicePrepared"
NETWORK_PREFIX = "10.200"
_NAMESPACE = uuid.UUID("6f2a0e4c-5b1d-4c1e-9a57-4b8d3f0c2a11")  # kbatch's, for deterministic UUIDs


@dataclass(frozen=True, slots=True)
class DriverPool:
    """A pool whose driver reports device status: its node, whether its devices are network
    interfaces, the node's host number (for addresses) and the devices' attributes by name."""

    node: str
    network: bool
    host: int
    attributes: Mapping[str, Mapping[str, Any]]


def entry_key(entry: Mapping[str, Any]) -> tuple[str, str, str, str]:
    get = entry.get
    return (get("driver", ""), get("pool", ""), get("device", ""), get("shareID") or "")


def wanted_entries(claim: Any, pools: Mapping[tuple[str, str], DriverPool], now: str) -> dict[tuple, dict]:
    """The entries the pools' drivers report for the claim, by :func:`entry_key`, in allocation
    order; none when it is not allocated or reserved for nobody."""
    status = claim.status
    allocation = status.allocation if status is not None else None
    if allocation is None or not status.reserved_for or allocation.devices is None:
        return {}
    out: dict[tuple, dict] = {}
    for result in allocation.devices.results or ():
        pool = pools.get((result.driver, result.pool))
        if pool is None:
            continue
        entry = _entry(result, pool, now)
        out[entry_key(entry)] = entry
    return out


def _entry(result: Any, pool: DriverPool, now: str) -> dict[str, Any]:
    attributes = pool.attributes.get(result.device, {})
    seed = f"{pool.node}/{result.driver}/{result.device}"
    data: dict[str, Any] = {"uuid": str(uuid.uuid5(_NAMESPACE, seed)), "node": pool.node}
    for name in ("model", "driverVersion", "index"):
        if name in attributes:
            data[name] = attributes[name]
    entry: dict[str, Any] = {
        "driver": result.driver, "pool": result.pool, "device": result.device,
        "conditions": [{"type": READY, "status": "True", "reason": PREPARED,
                        "message": "", "lastTransitionTime": now}],
        "data": data,
    }
    if result.share_id:
        entry["shareID"] = result.share_id
    if pool.network:
        index = int(attributes.get("index", 0))
        digest = hashlib.sha256(seed.encode()).digest()
        entry["networkData"] = {
            "interfaceName": f"net{index + 1}",
            "ips": [f"{NETWORK_PREFIX}.{index % 256}.{pool.host}/24"],
            "hardwareAddress": ":".join(f"{b:02x}" for b in (0x02, *digest[:5])),
        }
    return entry


def _same(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Equal but for the conditions' transition times (a condition that did not change keeps its
    time, as apimachinery's ``SetStatusCondition``)."""
    def strip(entry: Mapping[str, Any]) -> dict[str, Any]:
        conditions = [{k: v for k, v in c.items() if k != "lastTransitionTime"}
                      for c in entry.get("conditions") or ()]
        return {**entry, "conditions": conditions}
    return strip(old) == strip(new)


def merged(current: Sequence[Mapping[str, Any]], wanted: Mapping[tuple, dict],
           ours: set[tuple[str, str]]) -> list[dict[str, Any]] | None:
    """``status.devices`` with the drivers' entries as ``wanted`` (``ours``: the (driver, pool) pairs
    they report for), others kept in place; None when nothing changes."""
    out: list[dict[str, Any]] = []
    seen: set[tuple] = set()
    changed = False
    for entry in current:
        key = entry_key(entry)
        if (key[0], key[1]) not in ours:
            out.append(dict(entry))
            continue
        new = wanted.get(key)
        if new is None:
            changed = True  # unprepared: the driver takes its entry out
            continue
        seen.add(key)
        if _same(entry, new):
            out.append(dict(entry))
        else:
            out.append(new)
            changed = True
    for key, new in wanted.items():
        if key not in seen:
            out.append(new)
            changed = True
    return out if changed else None
