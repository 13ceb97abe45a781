"""Which Target the suite runs against: in-process kbatch unless ``KBATCH_CONFORMANCE_TARGET``
names another factory (``package.module:function`` returning a :class:`conformance.target.Target`),
for example ``conformance.http_target:from_kubeconfig`` (any API server in ``$KUBECONFIG``).

Checks marked ``runs_pods`` get their target from :func:`pod_target_factory`: in-process that is
kbatch with every default controller and a couple of nodes
(:func:`conformance.kbatch_target.with_nodes`); a named factory is used as it is (a real cluster, or
a ``kbatch serve`` started with its default controllers and some nodes).

``gates``: the alpha feature gates a check needs (its ``feature-gate:<Name>`` requirements). The
in-process target turns them on for that check (:func:`conformance.kbatch_target.with_gates`); a
named factory is used as it is, and the check is skipped where the target does not declare them.
"""

from __future__ import annotations

import importlib
import os

from conformance.target import TargetFactory

__all__ = ["pod_target_factory", "target_factory", "target_spec"]


def target_spec() -> str:
    """What ``KBATCH_CONFORMANCE_TARGET`` names, or the in-process default."""
    return os.environ.get("KBATCH_CONFORMANCE_TARGET") or "conformance.kbatch_target:KbatchTarget"


def target_factory(gates: list[str] | None = None) -> TargetFactory:
    spec = os.environ.get("KBATCH_CONFORMANCE_TARGET")
    if not spec:
        from conformance.kbatch_target import KbatchTarget, with_gates

        return with_gates(KbatchTarget, gates) if gates else KbatchTarget
    module, _, attr = spec.partition(":")
    return getattr(importlib.import_module(module), attr or "make_target")


def pod_target_factory(gates: list[str] | None = None) -> TargetFactory:
    """The factory for checks whose pods a scheduler and kubelet run (marked ``runs_pods``)."""
    if not os.environ.get("KBATCH_CONFORMANCE_TARGET"):
        from conformance.kbatch_target import with_gates, with_nodes

        return with_gates(with_nodes, gates) if gates else with_nodes
    return target_factory()
