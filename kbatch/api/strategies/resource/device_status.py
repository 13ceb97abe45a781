"""Validation of one ``status.devices[]`` entry's driver-written fields (KEP-4817,
``DRAResourceClaimDeviceStatus``, GA in 1.37): ``conditions``, ``data`` and ``networkData``, after
``validateDeviceStatus`` / ``validateNetworkDeviceData`` in ``pkg/apis/resource/validation/
validation.go`` and the limits ``k8s.io/api/resource/v1/types.go`` documents (at most 8 conditions,
``data`` a JSON object of at most 10 Ki, ``interfaceName`` at most 256 bytes, at most 16 ``ips``,
unique, each an interface address in canonical CIDR form, ``hardwareAddress`` at most 128 bytes).
Which entries may exist (allocated devices, each once) is :mod:`.claim_validation`'s.
"""

from __future__ import annotations

import ipaddress
import json
from typing import Any

from kbatch.api.errors import FieldError
from kbatch.api.resource_v1 import AllocatedDeviceStatus, NetworkDeviceData
from kbatch.api.strategies.policy import validate_conditions
from kbatch.api.validation import child, index

__all__ = ["validate_device_status_fields"]

CONDITIONS_MAX = 8
DATA_MAX_LENGTH = 10 * 1024
INTERFACE_NAME_MAX_LENGTH = 256
IPS_MAX = 16
HARDWARE_ADDRESS_MAX_LENGTH = 128
CIDR_FORM = "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)"


def validate_device_status_fields(device: AllocatedDeviceStatus, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    conditions = device.conditions or []
    if len(conditions) > CONDITIONS_MAX:
        errs.append(FieldError.too_many(child(path, "conditions"), len(conditions), CONDITIONS_MAX))
    errs += validate_conditions(conditions, child(path, "conditions"))
    if device.data is not None:
        errs += _validate_data(device.data, child(path, "data"))
    if device.network_data is not None:
        errs += _validate_network(device.network_data, child(path, "networkData"))
    return errs


def _validate_data(data: Any, path: str) -> list[FieldError]:
    """``validateRawExtension``: a JSON object of at most 10 Ki."""
    if len(json.dumps(data, separators=(",", ":"))) > DATA_MAX_LENGTH:
        return [FieldError.too_long(path, DATA_MAX_LENGTH)]
    if not isinstance(data, dict):
        return [FieldError.invalid(path, "<value omitted>", "must be a valid JSON object")]
    return []


def _validate_network(data: NetworkDeviceData, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if len((data.interface_name or "").encode()) > INTERFACE_NAME_MAX_LENGTH:
        errs.append(FieldError.too_long(child(path, "interfaceName"), INTERFACE_NAME_MAX_LENGTH))
    if len((data.hardware_address or "").encode()) > HARDWARE_ADDRESS_MAX_LENGTH:
        errs.append(FieldError.too_long(child(path, "hardwareAddress"), HARDWARE_ADDRESS_MAX_LENGTH))
    ips = data.ips or []
    at = child(path, "ips")
    if len(ips) > IPS_MAX:
        return [*errs, FieldError.too_many(at, len(ips), IPS_MAX)]
    seen: set[str] = set()
    for i, address in enumerate(ips):
        errs += _validate_interface_address(address, index(at, i))
        if address in seen:
            errs.append(FieldError.duplicate(index(at, i), address))
        seen.add(address)
    return errs


def _validate_interface_address(address: str, path: str) -> list[FieldError]:
    """apimachinery ``IsValidInterfaceAddress``: an address with its prefix length, canonical."""
    try:
        parsed = ipaddress.ip_interface(address)
    except ValueError:
        return [FieldError.invalid(path, address, CIDR_FORM)]
    if "/" not in address:
        return [FieldError.invalid(path, address, CIDR_FORM)]
    canonical = parsed.with_prefixlen
    if canonical != address:
        return [FieldError.invalid(path, address, f'must be in canonical form ("{canonical}")')]
    return []
