"""Device binding conditions (KEP-5007, ``DRADeviceBindingConditions``, beta and on by default since
Kubernetes 1.36): pure decisions the DynamicResources plugin's PreBind and Filter take.

Upstream ``pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go``:
``isClaimReadyForBinding`` (every binding condition of every allocated device True in the claim's
``status.devices[].conditions``, no binding failure condition True), ``isClaimTimeout``
(``allocationTimestamp`` + ``bindingTimeout`` before now, for a claim with binding conditions) and
``hasBindingConditions``. PreBind polls them every 5 s (``wait.PollUntilContextTimeout``) for up to
``bindingTimeout`` (DynamicResourcesArgs, default 600 s); here in virtual time.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

__all__ = [
    "BINDING_TIMEOUT_DEFAULT",
    "POLL_INTERVAL",
    "TIMEOUT_MESSAGE",
    "claim_ready",
    "claim_timed_out",
    "has_binding_conditions",
]

POLL_INTERVAL = 5.0  # upstream PreBind: wait.PollUntilContextTimeout(ctx, 5*time.Second, …)
BINDING_TIMEOUT_DEFAULT = 600.0  # upstream BindingTimeoutDefaultSeconds
TIMEOUT_MESSAGE = "device binding timeout"  # PreBind's error when its poll's context expires


def _results(claim: Any) -> list[Any]:
    allocation = claim.status.allocation if claim.status is not None else None
    devices = allocation.devices if allocation is not None else None
    return list(devices.results or ()) if devices is not None else []


def has_binding_conditions(claims: Iterable[Any]) -> bool:
    """Upstream ``hasBindingConditions``: some allocated device of these claims has binding conditions."""
    return any(result.binding_conditions for claim in claims for result in _results(claim))


def _device_status(claim: Any, result: Any) -> Any:
    """Upstream ``getAllocatedDeviceStatus``: the ``status.devices`` entry of this result's device."""
    for device in claim.status.devices or ():
        if (device.driver, device.pool, device.device) == (result.driver, result.pool, result.device):
            return device
    return None


def _condition(conditions: Any, type_: str) -> Any:
    return next((c for c in conditions or () if c.type == type_), None)


def claim_ready(claim: Any) -> tuple[bool, str]:
    """Upstream ``isClaimReadyForBinding``: ``(ready, error)``. Not allocated, or a device with no
    status entry or a binding condition not True: not ready. A binding failure condition True: the
    error, in upstream's words."""
    if claim.status is None or claim.status.allocation is None:
        return False, ""
    for result in _results(claim):
        if not result.binding_conditions:
            continue
        status = _device_status(claim, result)
        if status is None:
            return False, ""
        for name in result.binding_failure_conditions or ():
            failed = _condition(status.conditions, name)
            if failed is not None and failed.status == "True":
                message = '"' + (failed.message or "").replace("\\", "\\\\").replace('"', '\\"') + '"'
                return False, (
                    f"claim {claim.metadata.name} binding failed: reason={failed.reason or ''}, "
                    f"message={message}"
                )
        for name in result.binding_conditions:
            condition = _condition(status.conditions, name)
            if condition is None or condition.status != "True":
                return False, ""
    return True, ""


def claim_timed_out(claim: Any, timeout: float, now: datetime) -> bool:
    """Upstream ``isClaimTimeout``: the claim has a device with binding conditions and its
    ``allocationTimestamp`` plus ``timeout`` is before ``now``."""
    allocation = claim.status.allocation if claim.status is not None else None
    if allocation is None or allocation.allocation_timestamp is None:
        return False
    if not any(result.binding_conditions is not None for result in _results(claim)):
        return False
    return allocation.allocation_timestamp + timedelta(seconds=timeout) < now
