"""Warnings for objects kbatch stores but whose behaviour no kbatch controller provides.

Kueue's documented examples include objects that only act through a controller kbatch does not
model (docs/kueue.md, "Not modelled"): an AdmissionCheck is made Active by its controller, a third
party's (Kueue's ``kueue.x-k8s.io/provisioning-request`` and ``kueue.x-k8s.io/multikueue`` run in
kbatch: :mod:`kbatch.controllers.kueue.provisioning`, :mod:`kbatch.controllers.kueue.multikueue`).
Upstream without that controller behaves alike (the AdmissionCheck stays inactive, so the
ClusterQueues naming it admit nothing), but a user trying the examples on kbatch should hear at once
that nothing here will change that, rather than find a ClusterQueue inactive. (A ResourceFlavor with
``spec.topologyName`` is acted on: topology-aware scheduling, ``kbatch.controllers.kueue.tas``.) As
:mod:`kbatch.sim.unmodelled` does for container commands, ``kbatch serve`` and the CLI send one
``Warning`` per such field on create (and on a server-side apply that creates), naming its path as
kube-apiserver's warnings do. A deliberate kbatch addition.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["inert_warnings"]

_KUEUE = "kueue.x-k8s.io/"
MULTIKUEUE = "kueue.x-k8s.io/multikueue"
# admission check controllers kbatch runs
_RUN_HERE = frozenset({"kueue.x-k8s.io/provisioning-request", MULTIKUEUE})


def inert_warnings(obj: Mapping[str, Any]) -> list[str]:
    """The warnings for ``obj``'s fields that only a controller kbatch does not run acts on."""
    api_version, kind = str(obj.get("apiVersion") or ""), obj.get("kind")
    spec = obj.get("spec")
    if not api_version.startswith(_KUEUE) or not isinstance(spec, Mapping):
        return []
    if kind == "AdmissionCheck":
        controller = spec.get("controllerName")
        if controller in _RUN_HERE:
            return []
        return [f'spec.controllerName: kbatch runs no admission check controller ("{controller}"): '
                "nothing sets this AdmissionCheck's Active condition, so the ClusterQueues that use it "
                "stay inactive, nor the check's state on Workloads (set them by hand: kbatch patch ... "
                "--subresource status; docs/kueue.md)"]
    return []
