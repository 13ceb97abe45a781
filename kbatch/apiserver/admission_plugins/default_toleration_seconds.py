"""``DefaultTolerationSeconds`` admission (upstream ``plugin/pkg/admission/defaulttolerationseconds``).

On create and update of a pod (not its subresources), a pod that does not already tolerate
``node.kubernetes.io/not-ready:NoExecute`` gets ``{key: node.kubernetes.io/not-ready, operator:
Exists, effect: NoExecute, tolerationSeconds: 300}``, and likewise for
``node.kubernetes.io/unreachable``. A toleration counts when its key is that key or empty (any key)
and its effect is ``NoExecute`` or empty (any effect) — whatever its operator or seconds. So a pod on
a failed node is evicted by the taint manager after five minutes instead of at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbatch.api.core_v1 import Pod
from kbatch.api.core_v1.common import Toleration
from kbatch.api.model_copy import template_factory
from kbatch.apiserver.admission import AdmissionRequest

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["DEFAULT_SECONDS", "NOT_READY", "UNREACHABLE", "DefaultTolerationSeconds", "install"]

NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"
DEFAULT_SECONDS = 300  # upstream's --default-not-ready-toleration-seconds / -unreachable-


def _tolerates(tolerations: list[Toleration], key: str) -> bool:
    return any((not t.key or t.key == key) and (not t.effect or t.effect == "NoExecute")
               for t in tolerations)


class DefaultTolerationSeconds:
    """A mutating hook; ``not_ready_seconds`` / ``unreachable_seconds`` as upstream's flags."""

    def __init__(self, not_ready_seconds: int = DEFAULT_SECONDS,
                 unreachable_seconds: int = DEFAULT_SECONDS) -> None:
        self.not_ready_seconds = not_ready_seconds
        self.unreachable_seconds = unreachable_seconds
        # each pod gets a structural copy of these (constructing a Toleration validates it again)
        self._added = tuple(
            Toleration(key=key, operator="Exists", effect="NoExecute", toleration_seconds=seconds)
            for key, seconds in ((NOT_READY, not_ready_seconds), (UNREACHABLE, unreachable_seconds)))
        self._fresh = tuple((toleration.key, template_factory(toleration)) for toleration in self._added)

    def __call__(self, request: AdmissionRequest) -> None:
        pod = request.obj
        if request.subresource or not isinstance(pod, Pod):
            return
        if not pod.spec.tolerations:  # the usual create: nothing to look through
            pod.spec.tolerations = [fresh() for _, fresh in self._fresh]
            return
        tolerations = list(pod.spec.tolerations)
        added = False
        for key, fresh in self._fresh:
            if not _tolerates(tolerations, key):  # type: ignore[arg-type]
                tolerations.append(fresh())
                added = True
        if added:
            pod.spec.tolerations = tolerations


def install(server: APIServer) -> None:
    """Add the plugin's hook for pods (when the Pod kind is served); subresource writes are left alone."""
    if Pod in server.registry:
        server.admission.add_mutating(Pod, DefaultTolerationSeconds(), main_resource_only=True)
