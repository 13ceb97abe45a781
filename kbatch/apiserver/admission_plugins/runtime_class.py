"""``RuntimeClass`` admission (upstream ``plugin/pkg/admission/runtimeclass/admission.go``, on by
default; KEP-585 RuntimeClass scheduling, KEP-688 PodOverhead).

Pods, on create only (the plugin's handler admits ``Create``; subresources are ignored):

* a ``spec.runtimeClassName`` naming no stored RuntimeClass is ``Forbidden``:
  ``pods "p" is forbidden: pod rejected: RuntimeClass "x" not found``;
* mutating (``Admit``): the class's ``overhead.podFixed`` becomes ``spec.overhead``; a pod that already
  states a different overhead is ``Forbidden`` (``pod rejected: Pod's Overhead doesn't match
  RuntimeClass's defined Overhead``); the class's ``scheduling.nodeSelector`` is merged into the pod's,
  a key the pod sets to another value being ``Forbidden`` (``conflict:
  runtimeClass.scheduling.nodeSelector[k] = v; pod.spec.nodeSelector[k] = w``); its tolerations are
  merged with the pod's (:func:`merge_tolerations`);
* validating (``Validate``, after every mutating plugin): the pod's overhead must still equal the
  class's; a pod with an overhead and no class overhead is ``Forbidden`` (``pod rejected: Pod Overhead
  set without corresponding RuntimeClass defined Overhead``).

Quantities compare as ``apiequality.Semantic`` does (by value: ``1`` equals ``1000m``), and an empty
overhead equals an absent one. Lookup: the stored class, through the server's decoded-object cache
(upstream reads its informer's lister, then the API on a miss). docs/runtimeclass.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from kbatch.api.core_v1 import Pod, Toleration
from kbatch.api.errors import NotFound
from kbatch.api.node_v1 import RuntimeClass
from kbatch.api.quantity import Quantity
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.apiserver.admission_plugins.priority import forbidden

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["RuntimeClassAdmission", "install", "is_superset", "merge_node_selector", "merge_tolerations",
           "same_resources"]

MISMATCH = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"
WITHOUT_CLASS = "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"


def same_resources(a: Mapping[str, Quantity] | None, b: Mapping[str, Quantity] | None) -> bool:
    """``apiequality.Semantic.DeepEqual`` of two resource lists: the same names, equal values
    (``Quantity.Cmp``); empty and absent are equal."""
    a, b = a or {}, b or {}
    return a.keys() == b.keys() and all(a[k].cmp(b[k]) == 0 for k in a)


def merge_node_selector(pod: dict[str, str] | None, runtime: Mapping[str, str] | None
                        ) -> tuple[dict[str, str] | None, str | None]:
    """``setScheduling``'s selector half: the merged selector, or the conflict message. A pod without
    a selector takes the class's; otherwise each class key is added, a different pod value for it
    being a conflict (the class's keys in sorted order, so the one reported is deterministic)."""
    if pod is None:
        return (dict(runtime) if runtime is not None else None), None
    merged = dict(pod)
    for key in sorted(runtime or {}):
        value = runtime[key]  # type: ignore[index]
        held = merged.get(key)
        if held is not None and held != value:
            return None, (f"conflict: runtimeClass.scheduling.nodeSelector[{key}] = {value}; "
                          f"pod.spec.nodeSelector[{key}] = {held}")
        merged[key] = value
    return merged, None


def is_superset(ss: Toleration, t: Toleration) -> bool:
    """``isSuperset`` (``pkg/util/tolerations``): whether ``ss`` tolerates every taint ``t`` does."""
    if ss == t:
        return True
    if t.key != ss.key and (ss.key or ss.operator != "Exists"):  # "" key + Exists: every key
        return False
    if t.effect != ss.effect and ss.effect:  # "" effect: every effect
        return False
    limit = ss.toleration_seconds if ss.effect == "NoExecute" else None
    if limit is not None and (t.toleration_seconds is None or t.toleration_seconds > limit):
        return False  # a NoExecute toleration for N seconds does not cover a longer or unbounded one
    if ss.operator in ("Equal", "", None):
        return t.operator == "Equal" and (t.value or "") == (ss.value or "")
    return ss.operator == "Exists"


def merge_tolerations(first: Sequence[Toleration], second: Sequence[Toleration]) -> list[Toleration]:
    """``MergeTolerations``: both lists in order, dropping a toleration another one kept covers, or
    one a later, different toleration covers (of equal ones the first stays)."""
    everything = [*first, *second]
    merged: list[Toleration] = []
    for i, t in enumerate(everything):
        if any(is_superset(kept, t) for kept in merged):
            continue
        if any(later != t and is_superset(later, t) for later in everything[i + 1:]):
            continue
        merged.append(t)
    return merged


class RuntimeClassAdmission:
    """The plugin's two hooks over one server."""

    def __init__(self, server: APIServer) -> None:
        self._server = server

    def _class_of(self, pod: Pod) -> RuntimeClass | None:
        """``prepareObjects``: the named class, ``None`` for a pod naming none, ``Forbidden`` for a
        name no class has."""
        name = pod.spec.runtime_class_name
        if name is None:
            return None
        try:
            return self._server.get(RuntimeClass, name)
        except NotFound:
            raise forbidden("pods", pod, f'pod rejected: RuntimeClass "{name}" not found') from None

    def admit(self, request: AdmissionRequest) -> None:
        pod = request.obj
        if request.operation != "CREATE" or request.subresource or not isinstance(pod, Pod):
            return
        rc = self._class_of(pod)
        if rc is None:
            return
        spec = pod.spec
        if rc.overhead is not None:  # setOverhead
            fixed = rc.overhead.pod_fixed
            if spec.overhead is not None and not same_resources(fixed, spec.overhead):
                raise forbidden("pods", pod, MISMATCH)
            spec.overhead = dict(fixed) if fixed is not None else None
        if rc.scheduling is not None:  # setScheduling
            selector, conflict = merge_node_selector(spec.node_selector, rc.scheduling.node_selector)
            if conflict is not None:
                raise forbidden("pods", pod, conflict)
            extra = [t.model_copy() for t in rc.scheduling.tolerations or ()]
            spec.node_selector = selector
            spec.tolerations = merge_tolerations(spec.tolerations or (), extra) or None

    def validate(self, request: AdmissionRequest) -> None:
        pod = request.obj
        if request.operation != "CREATE" or request.subresource or not isinstance(pod, Pod):
            return
        if pod.spec.runtime_class_name is None and pod.spec.overhead is None:
            return  # the usual pod: nothing to look up, nothing to compare
        rc = self._class_of(pod)
        if rc is not None and rc.overhead is not None:  # validateOverhead
            if not same_resources(rc.overhead.pod_fixed, pod.spec.overhead):
                raise forbidden("pods", pod, MISMATCH)
        elif pod.spec.overhead is not None:
            raise forbidden("pods", pod, WITHOUT_CLASS)


def install(server: APIServer) -> None:
    """Add both hooks for pods when Pod and RuntimeClass are served."""
    if Pod in server.registry and RuntimeClass in server.registry:
        plugin = RuntimeClassAdmission(server)
        server.admission.add_mutating(Pod, plugin.admit, main_resource_only=True)
        server.admission.add_validating(Pod, plugin.validate, main_resource_only=True)
