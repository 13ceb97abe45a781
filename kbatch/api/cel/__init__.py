"""CEL for Kubernetes APIs: DRA device selectors compiled and evaluated with the CEL team's runtime
(cel-expr-python) plus Kubernetes' quantity, semver and lists libraries (docs/dependencies.md says
why this library). The runtime is imported on first use, not when kbatch starts.
"""

from __future__ import annotations

from kbatch.api.cel.cost import estimate_cost
from kbatch.api.cel.selector import (
    CompileError,
    DeviceInput,
    PreparedDevice,
    Selector,
    SelectorRuntimeError,
    compile_selector,
    prepare_device,
    split_qualified_name,
)

__all__ = [
    "CompileError",
    "DeviceInput",
    "PreparedDevice",
    "Selector",
    "SelectorRuntimeError",
    "compile_selector",
    "estimate_cost",
    "prepare_device",
    "split_qualified_name",
]
