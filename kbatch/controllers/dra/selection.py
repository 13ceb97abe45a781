"""Selector evaluation for the allocator, memoised across allocations.

A selector's answer for a device is a pure function of the expression and the device's data
(driver, attributes, capacity, allowMultipleAllocations), so kbatch keeps the answers of every
(expression, slice uid, slice resourceVersion, device index) it evaluated, bounded. Upstream caches
per ``Allocate`` call only (``deviceMatchesRequest``) and compiled expressions in ``cel.Cache``; the
answers are the same, evaluated less often. The CEL activations of the devices evaluated last are
kept too (a few: the runtime's activation is kilobytes), so that the class's selectors and the
request's, evaluated one after the other on a device, read one conversion of it.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.cel import DeviceInput, PreparedDevice, compile_selector, prepare_device

__all__ = ["SelectorCache"]

_LIMIT = 1 << 18
_DEVICE_LIMIT = 256

_DeviceKey = tuple[str, str, int]


class SelectorCache:
    def __init__(self) -> None:
        self._answers: dict[tuple[str, _DeviceKey], bool] = {}
        self._devices: dict[_DeviceKey, PreparedDevice] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {}  # answers are recomputed after a pickle round trip

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._answers, self._devices = {}, {}

    def __call__(self, expression: str, candidate: Any) -> bool:
        meta = candidate.slice.metadata
        device_key = (meta.uid or meta.name or "", meta.resource_version or "", candidate.index)
        key = (expression, device_key)
        known = self._answers.get(key)
        if known is not None:
            return known
        answer = compile_selector(expression).matches(self._prepared(device_key, candidate))
        if len(self._answers) >= _LIMIT:
            self._answers.clear()
        self._answers[key] = answer
        return answer

    def _prepared(self, key: _DeviceKey, candidate: Any) -> PreparedDevice:
        prepared = self._devices.get(key)
        if prepared is None:
            device = candidate.device
            prepared = prepare_device(
                DeviceInput(
                    candidate.pool.driver,
                    device.attributes or {},
                    {n: c.value for n, c in (device.capacity or {}).items()},
                    bool(device.allow_multiple_allocations),
                )
            )
            if len(self._devices) >= _DEVICE_LIMIT:
                self._devices.clear()
            self._devices[key] = prepared
        return prepared
