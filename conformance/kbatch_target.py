"""The in-process kbatch :class:`~conformance.target.Target`: a fresh ``ControlPlane`` in virtual time.

The only conformance module that imports kbatch. By default only the workload controllers (``job``,
``cronjob``, ``jobset``), the garbage collector and the namespace-readying ``serviceaccount`` and
``root-ca-cert-publisher`` run, so pod outcomes are driven through the API
(patching pod status, as upstream's Job integration tests do with the Job controller alone).
:func:`with_nodes` builds the other kind: every default controller (the simulated scheduler and
kubelet among them) and a couple of nodes, so pod outcomes come from the container command (the
``kubelet`` capability), as on a real cluster.

Capabilities: ``virtual-clock`` and ``faults`` (kbatch's fault commands, the same ones
``kbatch serve`` offers under ``/apis/kbatch.dev/v1alpha1/actions``) always; ``kubelet`` with nodes;
``feature-gate:<Name>`` for each alpha gate turned on (``feature_gates``: :data:`FEATURE_GATES` plus
what a check needs, :func:`with_gates`).
The control plane's seed is the run's (``KBATCH_CONFORMANCE_SEED``, default 0), so a run is
reproducible.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from datetime import datetime
from typing import Any

from conformance.isolation import run_seed
from conformance.target import FAULTS, KUBELET, KUEUE, VIRTUAL_CLOCK, Obj, feature_gate

__all__ = ["FEATURE_GATES", "PLAYED_KUBELET", "KbatchTarget", "with_gates", "with_nodes"]

# The controllers of the checks that play the kubelet: the workload controllers, the garbage
# collector (JobSet restarts delete Jobs in the foreground) and the two every cluster runs to ready a
# new namespace for pods (``serviceaccount``: without a ``default`` ServiceAccount the ServiceAccount
# admission plugin refuses every pod; ``root-ca-cert-publisher``: the ``kube-root-ca.crt`` the pods'
# projected volume reads; upstream's e2e framework waits for both after creating its namespace,
# test/e2e/framework/framework.go); no scheduler, no kubelet.
PLAYED_KUBELET = "job,cronjob,jobset,garbage-collector,serviceaccount,root-ca-cert-publisher"
# Beta APIs off by default upstream whose families the suite checks: the target turns them on, as a
# cluster under test would need (GenericWorkload and --runtime-config=scheduling.k8s.io/v1beta1)
FEATURE_GATES = "GenericWorkload=true"


class KbatchTarget:
    def __init__(self, controllers: str = PLAYED_KUBELET, seed: int | None = None,
                 nodes: int = 0, feature_gates: str | None = None) -> None:
        from kbatch.api.errors import NotFound
        from kbatch.api.kube_version import KUBERNETES_VERSION
        from kbatch.runtime.controlplane import ControlPlane

        self._not_found = NotFound
        self.cp = ControlPlane(seed=run_seed() if seed is None else seed, controllers=controllers,
                               feature_gates=FEATURE_GATES if feature_gates is None else feature_gates)
        if nodes:
            from kbatch.sim import create_nodes

            create_nodes(self.cp, nodes)
        kubelet = bool(nodes) and {"scheduler", "kubelet"} <= set(self.cp.enabled)
        self.capabilities = frozenset({VIRTUAL_CLOCK, FAULTS} | ({KUBELET} if kubelet else set())
                                      | ({KUEUE} if "kueue" in self.cp.enabled else set())
                                      | {feature_gate(s.name) for s in self.cp.features.specs
                                         if s.stage == "ALPHA" and self.cp.features.enabled(s.name)})
        self.kubernetes_version = KUBERNETES_VERSION
        pods = f", {nodes} nodes: pods run by the kubelet" if kubelet else ""
        self.description = f"kbatch in-process (virtual clock, controllers {controllers}{pods})"

    def _model(self, kind: str) -> Any:
        return self.cp.registry.for_name(kind).model

    def create(self, manifest: Obj, namespace: str = "default") -> Obj:
        namespaced = self.cp.registry.for_name(manifest["kind"]).info.namespaced
        out, _ = self.cp.server.unstructured.create(manifest, namespace=namespace if namespaced else None)
        self.cp.run_until_idle()
        return out

    def apply(self, manifest: Obj | str, namespace: str = "default") -> Obj:
        applied = self.cp.apply(manifest, namespace=namespace)
        return applied[0].to_dict()

    def get(self, kind: str, name: str, namespace: str = "default") -> Obj | None:
        try:
            return self.cp.client.get(self._model(kind), name, namespace).to_dict()
        except self._not_found:
            return None

    def list(self, kind: str, namespace: str = "default", label_selector: str | None = None) -> list[Obj]:
        items = self.cp.client.list(self._model(kind), namespace, label_selector=label_selector).items
        return sorted((i.to_dict() for i in items), key=lambda o: o["metadata"]["name"])

    def patch(self, kind: str, name: str, patch: Obj, namespace: str = "default") -> Obj:
        out = self.cp.client.patch(self._model(kind), name, patch, namespace).to_dict()
        self.cp.run_until_idle()
        return out

    def patch_status(self, kind: str, name: str, patch: Obj, namespace: str = "default") -> Obj:
        out = self.cp.client.patch_status(self._model(kind), name, patch, namespace).to_dict()
        self.cp.run_until_idle()
        return out

    def delete(self, kind: str, name: str, namespace: str = "default",
               propagation_policy: str | None = None, grace_period_seconds: int | None = None) -> None:
        with contextlib.suppress(self._not_found):
            self.cp.client.delete(self._model(kind), name, namespace, propagation_policy=propagation_policy,
                                  grace_period_seconds=grace_period_seconds)
        self.cp.run_until_idle()

    def fault(self, name: str, args: Obj) -> Obj:
        """kbatch's fault command ``name`` (``kbatch.server.actions``), then settle."""
        from kbatch.server.facade import ControlPlaneBackend

        out = ControlPlaneBackend(self.cp).action(name, args)
        self.cp.run_until_idle()
        return out

    def now(self) -> datetime:
        return self.cp.now()

    def advance(self, seconds: float) -> None:
        self.cp.advance(seconds)

    def settle(self) -> None:
        self.cp.run_until_idle()

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 600) -> bool:
        try:
            self.cp.wait_for(predicate, timeout)
        except TimeoutError:
            return bool(predicate())
        return bool(predicate())


def with_nodes(nodes: int = 2, feature_gates: str | None = None) -> KbatchTarget:
    """In-process kbatch with the default controllers and ``nodes`` simulated nodes (``runs_pods``)."""
    return KbatchTarget(controllers="*", nodes=nodes, feature_gates=feature_gates)


def with_gates(factory: Callable[..., KbatchTarget], gates: list[str]) -> Callable[[], KbatchTarget]:
    """``factory`` (:class:`KbatchTarget` or :func:`with_nodes`) with ``gates`` turned on besides
    :data:`FEATURE_GATES`: what the suite hands a check that needs ``feature-gate:<Name>``."""
    return functools.partial(factory, feature_gates=",".join([FEATURE_GATES, *(f"{g}=true" for g in gates)]))
