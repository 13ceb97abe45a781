"""``Priority`` admission (upstream ``plugin/pkg/admission/priority``).

Pods, on create (main resource only):

* a named ``spec.priorityClassName`` resolves to that PriorityClass — a stored object, or one of the
  built-in ``system-cluster-critical`` (2000000000) / ``system-node-critical`` (2000001000) — and an
  unknown name is ``Forbidden``: ``pods "p" is forbidden: no PriorityClass with name x was found``;
* no name: the global default class (the lowest value if several claim it), whose name is written into
  ``spec.priorityClassName``; with none, priority 0 and ``PreemptLowerPriority``;
* ``spec.priority`` becomes the class's value and ``spec.preemptionPolicy`` its policy; a pod that
  already states a different value is ``Forbidden`` (``the integer value of priority (5) must not be
  provided in pod spec; priority admission controller computed 0 from the given PriorityClass name``,
  and the same for ``PreemptionPolicy``).

On update, a priority or preemption policy left out is carried over from the stored pod (validation
then forbids changing them). scheduling.k8s.io PodGroups get the same on create (``spec.priority``
from ``spec.priorityClassName`` or the global default; KEP-5710), when that kind is served; with the
``PodGroupPreemptionPolicy`` gate also ``spec.preemptionPolicy``: the class's policy, or
``PreemptLowerPriority`` when no class gives one (v1beta1 ``PodGroupSpec.PreemptionPolicy``: "populates
this field from PriorityClassName, and defaults to PreemptLowerPriority if value is unset").
CompositePodGroups (v1alpha3, gate CompositePodGroup) likewise (``CompositePodGroupSpec.Priority``:
"The admission controller populates this field from PriorityClassName"). PriorityClasses: creating
a second ``globalDefault`` class, or marking
another one default, is ``Forbidden`` (``PriorityClass x is already marked as default. Only one default
can exist``).

kbatch difference: the two system classes are not stored as objects at start-up (upstream's
bootstrap creates them), so bootstrap writes — and every resourceVersion after them — are unchanged; a
stored class of the same name takes precedence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Forbidden
from kbatch.api.meta import Resource
from kbatch.api.scheduling_v1 import PriorityClass
from kbatch.api.scheduling_v1alpha3 import CompositePodGroup
from kbatch.api.scheduling_v1beta1 import PODGROUP_PREEMPTION_POLICY
from kbatch.api.scheduling_v1beta1 import PodGroup as SchedulingPodGroup
from kbatch.api.strategies.scheduling import gate_declared_on
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.apiserver.watched_range import WatchedRange

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["BUILTIN_CLASSES", "PriorityAdmission", "install"]

PREEMPT_LOWER = "PreemptLowerPriority"
BUILTIN_CLASSES = {"system-cluster-critical": 2_000_000_000, "system-node-critical": 2_000_001_000}


@dataclass(frozen=True, slots=True)
class _Class:
    name: str
    value: int
    preemption_policy: str | None


_NO_CLASS = _Class("", 0, PREEMPT_LOWER)  # no name and no global default: priority 0
_NO_CLASSES: list[PriorityClass] = []  # the stored classes without a PriorityClass kind (never mutated)


def forbidden(resource: str, obj: Resource, why: str) -> Forbidden:
    """Upstream ``admission.NewForbidden``: the name, else the generateName, else ``Unknown``."""
    name = obj.metadata.name or obj.metadata.generate_name or "Unknown"
    return Forbidden(f'{resource} "{name}" is forbidden: {why}')


class _StoredClasses:
    """The stored PriorityClasses, read again only after the store reported a change under their
    prefix (:class:`kbatch.apiserver.watched_range.WatchedRange`). Every pod create asks for the
    list, and a range read costs more than the rest of the plugin together."""

    def __init__(self, server: APIServer) -> None:
        self._server = server
        kind = server.kind(PriorityClass)
        self._start, self._end = kind.keys.prefix(None), kind.keys.range_end(None)
        self._range = WatchedRange(server.store, self._start, self._end)
        self._classes: list[PriorityClass] = []

    def get(self) -> list[PriorityClass]:
        if self._range.changed:
            self._range.rearm()
            get = self._server.decoded.get  # read-only decodes, cached per stored version
            kvs = self._server.store.range(self._start, self._end).kvs
            self._classes = [get(PriorityClass, kv) for kv in kvs]  # type: ignore[misc]
        return self._classes


class PriorityAdmission:
    """The plugin's two hooks over one server (PriorityClasses are read from its store)."""

    def __init__(self, server: APIServer, *, has_classes: bool = True) -> None:
        self._server = server
        self.has_classes = has_classes
        self._classes = _StoredClasses(server) if has_classes else None
        # (the list of stored classes it was resolved from, what a pod without a name resolves to):
        # the list is rebuilt on every change, so its identity tells whether the answer still holds
        self._unnamed: tuple[list[PriorityClass] | None, _Class] = (None, _NO_CLASS)

    def _stored(self) -> list[PriorityClass]:
        return self._classes.get() if self._classes is not None else _NO_CLASSES

    def _default(self, classes: list[PriorityClass]) -> PriorityClass | None:
        chosen: PriorityClass | None = None
        for pc in classes:
            if pc.global_default and (chosen is None or pc.value < chosen.value):
                chosen = pc
        return chosen

    def _resolve(self, pod: Pod | SchedulingPodGroup | CompositePodGroup, resource: str = "pods") -> _Class:
        classes = self._stored()
        name = pod.spec.priority_class_name
        if not name:
            seen, resolved = self._unnamed
            if seen is not classes:
                default = self._default(classes)
                resolved = _NO_CLASS if default is None else _Class(default.name, default.value,
                                                                    default.preemption_policy)
                self._unnamed = (classes, resolved)
            return resolved
        for pc in classes:
            if pc.name == name:
                return _Class(name, pc.value, pc.preemption_policy)
        if name in BUILTIN_CLASSES:
            return _Class(name, BUILTIN_CLASSES[name], PREEMPT_LOWER)
        raise forbidden(resource, pod, f"no PriorityClass with name {name} was found")

    def admit_pod(self, request: AdmissionRequest) -> None:
        pod = request.obj
        if request.subresource or not isinstance(pod, Pod):
            return
        spec = pod.spec
        if request.operation == "UPDATE":
            old = request.old
            if isinstance(old, Pod):
                if spec.priority is None:
                    spec.priority = old.spec.priority
                if spec.preemption_policy is None:
                    spec.preemption_policy = old.spec.preemption_policy
            return
        resolved = self._resolve(pod)
        if not spec.priority_class_name and resolved.name:
            spec.priority_class_name = resolved.name
        if spec.priority is not None and spec.priority != resolved.value:
            raise forbidden("pods", pod, f"the integer value of priority ({spec.priority}) must not be "
                            f"provided in pod spec; priority admission controller computed "
                            f"{resolved.value} from the given PriorityClass name")
        spec.priority = resolved.value
        policy = resolved.preemption_policy
        if policy is not None:
            if spec.preemption_policy is not None and spec.preemption_policy != policy:
                raise forbidden("pods", pod, f"the string value of PreemptionPolicy "
                                f"({spec.preemption_policy}) must not be provided in pod spec; priority "
                                f"admission controller computed {policy} from the given PriorityClass name")
            spec.preemption_policy = policy

    def admit_pod_group(self, request: AdmissionRequest) -> None:
        """scheduling.k8s.io PodGroups, as pods (KEP-5710 "Pod Group priorities"): the class named
        by ``spec.priorityClassName`` (or the global default) gives ``spec.priority`` on create; a
        priority stated otherwise is Forbidden; updates keep the stored one."""
        pg = request.obj
        if request.subresource or not isinstance(pg, SchedulingPodGroup | CompositePodGroup):
            return
        spec = pg.spec
        if request.operation == "UPDATE":
            if spec.priority is None and isinstance(request.old, type(pg)):
                spec.priority = request.old.spec.priority
            return
        resource = f"{pg.api_info.plural}.scheduling.k8s.io"
        resolved = self._resolve(pg, resource)
        if not spec.priority_class_name and resolved.name:
            spec.priority_class_name = resolved.name
        if spec.priority is not None and spec.priority != resolved.value:
            raise forbidden(resource, pg,
                            f"the integer value of priority ({spec.priority}) must not be provided in pod "
                            f"group spec; priority admission controller computed {resolved.value} from the "
                            "given PriorityClass name")
        spec.priority = resolved.value
        if gate_declared_on(self._server.features, PODGROUP_PREEMPTION_POLICY):
            self._pod_group_policy(pg, resolved)

    @staticmethod
    def _pod_group_policy(pg: SchedulingPodGroup | CompositePodGroup, resolved: _Class) -> None:
        spec, policy = pg.spec, resolved.preemption_policy
        if policy is None:
            spec.preemption_policy = spec.preemption_policy or PREEMPT_LOWER
            return
        if spec.preemption_policy is not None and spec.preemption_policy != policy:
            raise forbidden(f"{pg.api_info.plural}.scheduling.k8s.io", pg,
                            f"the string value of PreemptionPolicy ({spec.preemption_policy}) must not be "
                            f"provided in pod group spec; priority admission controller computed {policy} "
                            "from the given PriorityClass name")
        spec.preemption_policy = policy

    def validate_class(self, request: AdmissionRequest) -> None:
        pc = request.obj
        if request.subresource or not isinstance(pc, PriorityClass) or not pc.global_default:
            return
        default = self._default([c for c in self._stored()])
        if default is None:
            return
        if request.operation == "CREATE" or default.name != pc.name:
            raise forbidden("priorityclasses.scheduling.k8s.io", pc,
                            f"PriorityClass {default.name} is already marked as default. Only one default "
                            "can exist")


def install(server: APIServer) -> None:
    """Add the plugin's hooks: pods' priority on create and update (main resource only), and the
    one-global-default rule for PriorityClasses (when that kind is served)."""
    if Pod not in server.registry:
        return
    priority = PriorityAdmission(server, has_classes=PriorityClass in server.registry)
    server.admission.add_mutating(Pod, priority.admit_pod, main_resource_only=True)
    if SchedulingPodGroup in server.registry:  # served with the GenericWorkload gate
        server.admission.add_mutating(SchedulingPodGroup, priority.admit_pod_group, main_resource_only=True)
    if CompositePodGroup in server.registry:  # served with the CompositePodGroup gate
        server.admission.add_mutating(CompositePodGroup, priority.admit_pod_group, main_resource_only=True)
    if priority.has_classes:
        server.admission.add_validating(PriorityClass, priority.validate_class, main_resource_only=True)
