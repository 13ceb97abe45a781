"""kbatch: a pure-Python reference implementation of the Kubernetes batch control plane.

``ControlPlane`` is the one-line entry point (store, API server, virtual clock, seeded random
source and controllers); ``report(cp)`` tells what happened in a run (docs/report.md);
``kbatch.testing`` holds the pytest plugin and builders. Names here are
loaded lazily so ``import kbatch`` stays cheap for the CLI.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kbatch.reporting import report as report
    from kbatch.runtime.controlplane import ControlPlane as ControlPlane
    from kbatch.store import MemoryStore as MemoryStore

__all__ = ["ControlPlane", "MemoryStore", "__version__", "report"]

__version__ = "0.1.0"

_LAZY = {
    "ControlPlane": "kbatch.runtime.controlplane",
    "MemoryStore": "kbatch.store",
    "report": "kbatch.reporting",  # kbatch.report(cp): what happened, as records (docs/report.md)
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kbatch' has no attribute {name!r}")
    return getattr(import_module(module), name)
