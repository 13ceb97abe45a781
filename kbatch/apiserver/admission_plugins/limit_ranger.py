"""``LimitRanger`` admission (upstream ``plugin/pkg/admission/limitranger``), on pod creates.

Mutating: each container and init container gets the namespace's ``Container`` defaults
(``defaultRequest``, ``default``; the LimitRange's own defaulting fills those from ``max``/``min``)
for what it leaves unset, and the pod is annotated ``kubernetes.io/limit-ranger: LimitRanger plugin
set: cpu, memory request for container c; cpu limit for container c``. Validating: every
LimitRange's ``min``/``max``/``maxLimitRequestRatio`` hold for each container (``Container``) and
for the pod's totals (``Pod``), else ``Forbidden`` with upstream's messages, several joined as
``[a, b]`` (an aggregate error). Updates and subresources are not checked, as upstream (containers'
resources are immutable). PersistentVolumeClaim items are validated but not enforced (docs/quota.md).
A namespace without LimitRanges costs one dict lookup per pod create.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbatch.api.core_v1 import LimitRange, Pod
from kbatch.api.limit_ranges import apply_defaults, pod_errors
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.apiserver.admission_plugins.priority import forbidden
from kbatch.apiserver.watched_range import WatchedRange

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["LimitRanger", "install"]

_NONE: tuple[LimitRange, ...] = ()


class LimitRanger:
    def __init__(self, server: APIServer) -> None:
        self._server = server
        kind = server.kind(LimitRange)
        self._start, self._end = kind.keys.prefix(None), kind.keys.range_end(None)
        self._range = WatchedRange(server.store, self._start, self._end)
        self._by_namespace: dict[str, list[LimitRange]] = {}

    def _ranges(self, namespace: str | None) -> list[LimitRange] | tuple[LimitRange, ...]:
        if self._range.changed:
            self._range.rearm()
            get = self._server.decoded.get
            by_namespace: dict[str, list[LimitRange]] = {}
            for kv in self._server.store.range(self._start, self._end).kvs:  # key order: by name
                lr: LimitRange = get(LimitRange, kv)  # type: ignore[assignment]
                by_namespace.setdefault(lr.metadata.namespace or "", []).append(lr)
            self._by_namespace = by_namespace
        return self._by_namespace.get(namespace or "", _NONE)

    def admit(self, request: AdmissionRequest) -> None:
        pod = request.obj
        if request.operation != "CREATE" or not isinstance(pod, Pod):
            return
        ranges = self._ranges(pod.metadata.namespace)
        if ranges:
            apply_defaults(pod, ranges)

    def validate(self, request: AdmissionRequest) -> None:
        pod = request.obj
        if request.operation != "CREATE" or not isinstance(pod, Pod):
            return
        for lr in self._ranges(pod.metadata.namespace):
            errors = pod_errors(lr, pod)
            if errors:
                text = errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]"
                raise forbidden("pods", pod, text)


def install(server: APIServer) -> None:
    if LimitRange not in server.registry or Pod not in server.registry:
        return
    plugin = LimitRanger(server)
    server.admission.add_mutating(Pod, plugin.admit, main_resource_only=True)
    server.admission.add_validating(Pod, plugin.validate, main_resource_only=True)
