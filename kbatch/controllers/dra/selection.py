"""Selector evaluation for the allocator, memoised across allocations.

A selector's answer for a device is a pure function of the expression and the device's data
(driver, attributes, capacity, allowMultipleAllocations), so kbatch keeps the answers of every
(expression, slice uid, slice resourceVersion, device index) it evaluated, bounded. Upstream caches
per ``Allocate`` call only (``deviceMatchesRequest``) and compiled expressions in ``cel.Cache``; the
answers are the same, evaluated less often.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.cel import DeviceInput, compile_selector

__all__ = ["SelectorCache"]

_LIMIT = 1 << 18


class SelectorCache:
    def __init__(self) -> None:
        self._answers: dict[tuple[str, str, str, int], bool] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {}  # answers are recomputed after a pickle round trip

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._answers = {}

    def __call__(self, expression: str, candidate: Any) -> bool:
        meta = candidate.slice.metadata
        key = (expression, meta.uid or meta.name or "", meta.resource_version or "", candidate.index)
        known = self._answers.get(key)
        if known is not None:
            return known
        device = candidate.device
        answer = compile_selector(expression).matches(
            DeviceInput(
                candidate.pool.driver,
                device.attributes or {},
                {n: c.value for n, c in (device.capacity or {}).items()},
                bool(device.allow_multiple_allocations),
            )
        )
        if len(self._answers) >= _LIMIT:
            self._answers.clear()
        self._answers[key] = answer
        return answer
