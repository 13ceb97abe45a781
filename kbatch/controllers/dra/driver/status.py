"""What a simulated node driver reports in a claim's ``status.devices`` (KEP-4817,
``keps/sig-node/4817-resource-claim-device-status``; ``AllocatedDeviceStatus`` in
``k8s.io/api/resource/v1/types.go``, 1.37): a pure decision, :func:`wanted_entries`, and the merge
into the claim's list, :func:`merged`.

A driver reports the devices it prepared: the allocated devices of its pools while the node's
kubelet has the claim prepared for a pod (upstream the kubelet calls the driver's
``NodePrepareResources`` when it admits a pod bound to the node that uses the claim, and
``NodeUnprepareResources`` once no pod on the node uses it any more:
``pkg/kubelet/cm/dra/manager.go``; the kubelet plugin helper
``k8s.io/dynamic-resource-allocation/kubeletplugin`` hands both to the driver, which reports what it
prepared). Each entry gets the condition ``Ready`` (``True``, reason ``DevicePrepared``; the API's
documentation: "If the device has been configured according to the class and claim config
references, the `Ready` condition should be True"), ``data`` (the driver's own description of the
device: its model, its UUID, the driver's version, as the example driver's GPUs carry) and, for
network devices, ``networkData``: the interface name, an address on the device's network (one /24
per interface index, ``10.200.<index>.0/24``, the node's host number from its InternalIP) and a
locally administered MAC address derived from the node and device names. Entries of other drivers,
or of other pools, are left as they are, and so are conditions other writers set in the driver's
entries (binding conditions, KEP-5007; :mod:`.entries`); the driver's part of an entry it no longer
reports (unprepared) is removed. Deallocation clears ``status.devices`` with the allocation (the
resourceclaim controller's and the scheduler's writes).
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kbatch.controllers.dra.driver.entries import Owner, entry_key
from kbatch.controllers.dra.driver.entries import merged as merge_entries

__all__ = ["OWNER", "DriverPool", "entry_key", "merged", "wanted_entries"]

READY, PREPARED = "Ready", "DevicePrepared"
NETWORK_PREFIX = "10.200"
_NAMESPACE = uuid.UUID("6f2a0e4c-5b1d-4c1e-9a57-4b8d3f0c2a11")  # kbatch's, for deterministic UUIDs
OWNER = Owner(frozenset({READY}), frozenset({"data", "networkData"}))  # the kubelet plugin's part


@dataclass(frozen=True, slots=True)
class DriverPool:
    """A pool whose driver reports device status: its node, whether its devices are network
    interfaces, the node's host number (for addresses) and the devices' attributes by name."""

    node: str
    network: bool
    host: int
    attributes: Mapping[str, Mapping[str, Any]]


def wanted_entries(claim: Any, pools: Mapping[tuple[str, str], DriverPool], now: str,
                   prepared: Collection[str]) -> dict[tuple, dict]:
    """The entries the pools' drivers report for the claim, by :func:`entry_key`, in allocation
    order: the devices of pools on the nodes in ``prepared`` (where the kubelet prepared the claim
    for a pod); none when it is not allocated."""
    status = claim.status
    allocation = status.allocation if status is not None else None
    if allocation is None or allocation.devices is None or not prepared:
        return {}
    out: dict[tuple, dict] = {}
    for result in allocation.devices.results or ():
        pool = pools.get((result.driver, result.pool))
        if pool is None or pool.node not in prepared:
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


def merged(current: Sequence[Mapping[str, Any]], wanted: Mapping[tuple, dict],
           ours: Collection[tuple[str, str]]) -> list[dict[str, Any]] | None:
    """``status.devices`` with the kubelet plugins' part (``Ready``, ``data``, ``networkData``) of the
    entries of their (driver, pool) pairs ``ours`` as ``wanted``; other drivers' entries, and the
    conditions others set in ours (binding conditions), stay; None when nothing changes."""
    return merge_entries(current, wanted, ours, OWNER)
