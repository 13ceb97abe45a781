"""Helpers for runtime tests: a registry holding the kinds these tests use, and a control plane.

Until every API module installs itself into ``builtin_registry()``, the core kinds are added here.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.registry import Registry
from kbatch.families import builtin_registry
from kbatch.runtime.controlplane import ControlPlane


def full_registry() -> Registry:
    from kbatch.api import core_v1

    registry = builtin_registry()
    for model in (core_v1.Namespace, core_v1.Pod, core_v1.Node, core_v1.Event):
        if model not in registry:
            registry.register(model)
    return registry


def make_cp(**kwargs: Any) -> ControlPlane:
    kwargs.setdefault("controllers", "garbage-collector,ttl-after-finished")
    return ControlPlane(registry=full_registry(), **kwargs)
