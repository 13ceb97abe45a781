"""Which Target the suite runs against: in-process kbatch unless ``KBATCH_CONFORMANCE_TARGET``
names another factory (``package.module:function`` returning a :class:`conformance.target.Target`),
for example ``conformance.http_target:from_kubeconfig`` (any API server in ``$KUBECONFIG``)."""

from __future__ import annotations

import importlib
import os

from conformance.target import TargetFactory

__all__ = ["target_factory", "target_spec"]


def target_spec() -> str:
    """What ``KBATCH_CONFORMANCE_TARGET`` names, or the in-process default."""
    return os.environ.get("KBATCH_CONFORMANCE_TARGET") or "conformance.kbatch_target:KbatchTarget"


def target_factory() -> TargetFactory:
    spec = os.environ.get("KBATCH_CONFORMANCE_TARGET")
    if not spec:
        from conformance.kbatch_target import KbatchTarget

        return KbatchTarget
    module, _, attr = spec.partition(":")
    return getattr(importlib.import_module(module), attr or "make_target")
