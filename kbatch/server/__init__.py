"""``kbatch serve``: the Kubernetes REST API over a control plane, for kubectl and client libraries.

:class:`KbatchApp` is the ASGI application, written against the small :class:`Backend` protocol
(wire-level dicts); :class:`ControlPlaneBackend` implements it over an in-process ``ControlPlane``
(the CLI's local mode uses it too). The ``kubectl get`` columns live in :mod:`kbatch.server.printers`.
:class:`ServeProcess` runs ``kbatch serve`` as a child process (tests, benchmarks, tools).

Names are imported on first use (PEP 562), so that ``kbatch --help`` does not pay for the server.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "Backend",
    "ControlPlaneBackend",
    "DeleteOptions",
    "KbatchApp",
    "ServeProcess",
    "WatchOptions",
    "WriteOptions",
    "build_table",
    "restore_control_plane",
    "save_control_plane",
]

_WHERE = {
    "Backend": "backend", "DeleteOptions": "backend", "WatchOptions": "backend", "WriteOptions": "backend",
    "ControlPlaneBackend": "facade", "restore_control_plane": "facade", "save_control_plane": "facade",
    "KbatchApp": "app", "ServeProcess": "process", "build_table": "table",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'kbatch.server' has no attribute {name!r}")
    return getattr(importlib.import_module(f"kbatch.server.{module}"), name)


def __dir__() -> list[str]:
    return sorted(__all__)
