"""Which Target the suite runs against: in-process kbatch unless ``KBATCH_CONFORMANCE_TARGET``
names another factory (``package.module:function`` returning a :class:`conformance.target.Target`),
for example ``conformance.http_target:from_kubeconfig`` (any API server in ``$KUBECONFIG``).

Checks marked ``runs_pods`` get their target from :func:`pod_target_factory`: in-process that is
kbatch with every default controller and a couple of nodes
(:func:`conformance.kbatch_target.with_nodes`); a named factory is used as it is (a real cluster, or
a ``kbatch serve`` started with its default controllers and some nodes).
"""

from __future__ import annotations

import importlib
import os

from conformance.target import TargetFactory

__all__ = ["pod_target_factory", "target_factory", "target_spec"]


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


def pod_target_factory() -> TargetFactory:
    """The factory for checks whose pods a scheduler and kubelet run (marked ``runs_pods``)."""
    if not os.environ.get("KBATCH_CONFORMANCE_TARGET"):
        from conformance.kbatch_target import with_nodes

        return with_nodes
    return target_factory()
