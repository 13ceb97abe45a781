"""One reconcile of a parent and its Variants, decided on copies: the ordered list of effects.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/concurrentadmission/controller.go``
``Reconcile``, in its order (KEP ``keps/8691-concurrent-admission``):

1. the Variants, sorted by their flavor's position in the ClusterQueue's first resource group;
2. a Variant for each flavor without one (``createVariants``, ``generateVariant``);
3. a Variant whose flavor left the ClusterQueue is deleted (``deleteStaleVariants``);
4. an evicted Variant holding quota: the parent is evicted (``VariantEvicted``) and the reconcile
   stops while the parent holds quota; otherwise the Variant gives its quota up
   (``syncVariantEvictionStatus``);
5. deactivation (``deactivateVariants``): every Variant of an inactive parent; with a Variant
   admitted, every other one (``RetainFirstAdmission``), or those below ``lastAcceptableFlavorName``
   and those below the admitted one (``TryPreferredFlavors``); an evicted deactivated Variant
   holding quota gives it up;
6. activation (``activateVariants``, active parent only): all Variants when none is admitted; under
   ``TryPreferredFlavors`` those above the admitted one (and not below ``lastAcceptableFlavorName``);
7. the parent follows (``syncAdmissionStatus``): a finished parent finishes its Variants; the
   admitted Variant's admission is copied to an unadmitted parent; an admitted parent without an
   admitted Variant is evicted (``ConcurrentAdmission``); the parent's PodsReady condition is
   copied to the admitted Variant;
8. preemption gates open one at a time in flavor order (``selectVariantToOpenPreemptionGate``): the
   first admissible Variant whose gate is closed and that is blocked on it, once the newest open
   gate is :data:`PREEMPTION_TIMEOUT` old; a more favourable Variant not evaluated yet holds the
   rest back. The reconcile comes back when the timeout ends.

Each effect is applied to the planner's copies as it is emitted (:func:`.effects.mutate_status`),
so later steps see earlier ones, as upstream's in-place patches make them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from kbatch.api import edit
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.kueue_v1beta2.constants import Cond
from kbatch.api.meta import ObjectMeta, OwnerReference
from kbatch.controllers.kueue import preemption_gates as gates
from kbatch.controllers.kueue import workloads as W
from kbatch.controllers.kueue.concurrent_admission import variants as V
from kbatch.controllers.kueue.concurrent_admission.effects import (
    AdmitParent,
    ClearVariant,
    CreateVariant,
    DeleteVariant,
    Effect,
    EvictParent,
    FinishVariant,
    OpenGate,
    SetActive,
    SyncPodsReady,
    mutate_status,
)
from kbatch.controllers.kueue.queues import admissible

__all__ = ["PREEMPTION_TIMEOUT", "Inputs", "Plan", "generate_variant", "plan", "sort_variants"]

PREEMPTION_TIMEOUT = 300.0  # ``preemptionTimeout``: 5 minutes, in seconds


@dataclass(frozen=True)
class Inputs:
    flavors: tuple[str, ...]  # the ClusterQueue's first resource group, in order
    policy: V.Policy
    now: datetime
    observability: bool = False
    explicit: bool = False
    admission_gated_by: bool = True
    short_names: bool = False  # ShortWorkloadNames: Variant names of at most 63 characters
    gvk: tuple[str, str] = V.READ_GVK  # what the parent's (kind, group) read as (``variant_name``)


@dataclass
class Plan:
    """The effects in order, the requeue delay, and the parent and Variants as the planner's copies
    end (the Variants created appended): what the controller's writes make of them."""

    effects: list[Effect] = field(default_factory=list)
    requeue_after: float = 0.0  # seconds; 0: no requeue
    parent: Workload | None = None
    variants: list[Workload] = field(default_factory=list)


def _key(wl: Workload) -> str:
    return f"{wl.metadata.namespace}/{wl.metadata.name}"  # klog.KObj


def _active(wl: Workload) -> bool:
    return wl.spec is None or wl.spec.active is not False


def sort_variants(variants: list[Workload], order: dict[str, int]) -> list[Workload]:
    """``sortVariantsByFlavorOrder`` (a flavor not in the ClusterQueue counts as the first, as a
    missing map key reads 0 upstream); ties by name (upstream's sort is unstable)."""
    return sorted(variants, key=lambda v: (order.get(V.variant_flavor(v), 0), v.metadata.name or ""))


def generate_variant(
    parent: Workload, flavor: str, short: bool = False, gvk: tuple[str, str] = V.READ_GVK
) -> Workload:
    """``generateVariant`` and ``SetControllerReference``: the parent's spec with the
    concurrent-admission preemption gate added, its labels but the parent label, its annotations
    with the allowed flavor, owned by the parent."""
    spec = edit(parent.spec) if parent.spec is not None else None
    if spec is not None:
        spec.preemption_gates = gates.with_gate(spec.preemption_gates, gates.CONCURRENT_ADMISSION_GATE)
    labels = {k: v for k, v in (parent.metadata.labels or {}).items() if k != V.PARENT_LABEL}
    annotations = {**(parent.metadata.annotations or {}), V.ALLOWED_FLAVORS_ANNOTATION: flavor}
    owner = OwnerReference(
        api_version=V.WORKLOAD_API_VERSION,
        kind="Workload",
        name=parent.metadata.name or "",
        uid=parent.metadata.uid or "",
        controller=True,
        block_owner_deletion=True,
    )
    meta = ObjectMeta(
        name=V.variant_name(parent, flavor, short=short, gvk=gvk),
        namespace=parent.metadata.namespace,
        labels=labels or None,
        annotations=annotations,
        owner_references=[owner],
    )
    return Workload(metadata=meta, spec=spec)


class _Sim:
    """The planner's copies and the effects emitted so far."""

    def __init__(self, parent: Workload, variants: list[Workload], inputs: Inputs) -> None:
        self.parent = edit(parent)
        self.variants = [edit(v) for v in variants]
        self.inputs = inputs
        self.effects: list[Effect] = []

    def _find(self, name: str) -> Workload | None:
        if name == self.parent.metadata.name:
            return self.parent
        return next((v for v in self.variants if v.metadata.name == name), None)

    def emit(self, e: Effect) -> None:
        self.effects.append(e)
        if isinstance(e, (CreateVariant, DeleteVariant)):
            return
        wl = self._find(e.name)
        assert wl is not None
        if isinstance(e, SetActive):
            assert wl.spec is not None
            wl.spec.active = e.active
            return
        status = W.status_of(wl)
        inp = self.inputs
        if mutate_status(e, status, wl, inp.now, inp.observability, inp.explicit):
            wl.status = status

    def admitted(self) -> Workload | None:
        """``getAdmittedVariant``: the first Variant (in flavor order) with Admitted=True."""
        return next((v for v in self.variants if W.has(v.status, Cond.ADMITTED)), None)


def _create(sim: _Sim) -> None:
    have = {V.variant_flavor(v) for v in sim.variants}
    for flavor in sim.inputs.flavors:
        if flavor not in have:
            variant = generate_variant(sim.parent, flavor, sim.inputs.short_names, sim.inputs.gvk)
            sim.emit(CreateVariant(variant, flavor))


def _delete_stale(sim: _Sim, order: dict[str, int]) -> None:
    fresh = []
    for v in sim.variants:
        flavor = V.variant_flavor(v)
        if flavor in order:
            fresh.append(v)
        else:
            sim.emit(DeleteVariant(v.metadata.name or "", flavor))
    sim.variants = fresh


def _sync_eviction(sim: _Sim) -> bool:
    """``syncVariantEvictionStatus``: whether the parent is (being) evicted and the reconcile stops."""
    for v in sim.variants:
        evicted = W.find(v.status, Cond.EVICTED)
        if evicted is None or evicted.status != "True" or not W.has(v.status, Cond.QUOTA_RESERVED):
            continue
        if W.has(sim.parent.status, Cond.QUOTA_RESERVED):
            if not W.has(sim.parent.status, Cond.EVICTED):
                message = "Admitted variant was evicted"
                sim.emit(EvictParent(sim.parent.metadata.name or "", "VariantEvicted", message))
            return True
        sim.emit(ClearVariant(v.metadata.name or "", evicted.reason or "", evicted.message or ""))
        return False
    return False


def _deactivate_matching(sim: _Sim, message: str, match: Callable[[Workload], bool]) -> None:
    """``deactivateMatchingVariants``/``deactivateVariant``."""
    for v in sim.variants:
        if not match(v):
            continue
        if _active(v):
            sim.emit(SetActive(v.metadata.name or "", False, message))
        evicted = W.find(v.status, Cond.EVICTED)
        if evicted is not None and evicted.status == "True" and W.has(v.status, Cond.QUOTA_RESERVED):
            sim.emit(ClearVariant(v.metadata.name or "", evicted.reason or "", evicted.message or ""))


def _deactivate(sim: _Sim, order: dict[str, int]) -> None:
    if not _active(sim.parent):
        _deactivate_matching(sim, f'Parent Workload "{_key(sim.parent)}" not active', lambda _: True)
        return
    admitted = sim.admitted()
    if admitted is None:
        return
    name, rank = admitted.metadata.name, order.get(V.variant_flavor(admitted), 0)
    policy = sim.inputs.policy
    if policy.mode == V.RETAIN_FIRST_ADMISSION:
        message = f'RetainFirstAdmission: another Variant "{_key(admitted)}" is admitted'
        _deactivate_matching(sim, message, lambda v: v.metadata.name != name)
        return
    last = policy.last_acceptable
    if last is not None:
        message = (
            f'being below lastAcceptableFlavor: "{last}" and another Variant admitted "{_key(admitted)}"'
        )
        last_rank = order.get(last, 0)
        _deactivate_matching(
            sim,
            message,
            lambda v: v.metadata.name != name and order.get(V.variant_flavor(v), 0) > last_rank,
        )
    message = f'being lower priority than admitted Variant "{_key(admitted)}"'
    _deactivate_matching(sim, message, lambda v: order.get(V.variant_flavor(v), 0) > rank)


def _activate(sim: _Sim, order: dict[str, int]) -> None:
    if not _active(sim.parent):
        return
    admitted = sim.admitted()
    if admitted is None:
        for v in sim.variants:
            if not _active(v):
                sim.emit(SetActive(v.metadata.name or "", True, "no other Variant being admitted"))
        return
    if sim.inputs.policy.mode == V.RETAIN_FIRST_ADMISSION:
        return
    rank = order.get(V.variant_flavor(admitted), 0)
    last = sim.inputs.policy.last_acceptable
    if last is not None:
        bound = order.get(last, 0)
        message = (
            f'being at least lastAcceptableFlavor: "{last}" and higher priority than admitted '
            f'Variant "{_key(admitted)}"'
        )
    else:
        bound = len(order)
        message = f'being higher priority than admitted Variant "{_key(admitted)}"'
    for v in sim.variants:
        at = order.get(V.variant_flavor(v), 0)
        if at <= bound and at < rank and not _active(v):
            sim.emit(SetActive(v.metadata.name or "", True, message))


def _sync_admission(sim: _Sim) -> None:
    parent = sim.parent
    finished = W.find(parent.status, Cond.FINISHED)
    if finished is not None and finished.status == "True":
        for v in sim.variants:
            if not W.has(v.status, Cond.FINISHED):
                sim.emit(FinishVariant(v.metadata.name or "", finished.reason or "", finished.message or ""))
        return
    admitted = sim.admitted()
    parent_admitted = W.has(parent.status, Cond.ADMITTED)
    if admitted is None:
        if parent_admitted:
            sim.emit(EvictParent(parent.metadata.name or "", "ConcurrentAdmission", "No variant is running"))
        return
    ready = W.find(parent.status, Cond.PODS_READY)
    if ready is not None:
        sim.emit(SyncPodsReady(admitted.metadata.name or "", ready))
    if not parent_admitted and admitted.status is not None and admitted.status.admission is not None:
        admission = admitted.status.admission
        sim.emit(AdmitParent(parent.metadata.name or "", admission, admitted.metadata.name or ""))


def _candidate(admissible_variants: list[Workload]) -> Workload | None:
    """``firstCandidateVariant``."""
    for v in admissible_variants:
        if gates.is_open(v.status, gates.CONCURRENT_ADMISSION_GATE):
            continue
        if gates.blocked_condition(v.status) is None:
            if W.find(v.status, Cond.QUOTA_RESERVED) is None:
                return None  # not evaluated for admission yet: wait for it
            continue
        return v
    return None


def _latest_open(admissible_variants: list[Workload]) -> datetime | None:
    """``latestOpenGateTime``."""
    times = [
        s.last_transition_time
        for v in admissible_variants
        if (s := gates.find_state(v.status, gates.CONCURRENT_ADMISSION_GATE)) is not None
        and s.position == gates.OPEN
        and s.last_transition_time is not None
    ]
    return max(times) if times else None


def _open_gate(sim: _Sim) -> float:
    """``selectVariantToOpenPreemptionGate`` and ``openPreemptionGate``; the requeue delay."""
    gated_by = sim.inputs.admission_gated_by
    ready = [v for v in sim.variants if admissible(v, gated_by)]
    candidate = _candidate(ready)
    if candidate is None:
        return 0.0
    latest = _latest_open(ready)
    if latest is not None:
        wait = PREEMPTION_TIMEOUT - (sim.inputs.now - latest).total_seconds()
        if wait > 0:
            return wait
    sim.emit(OpenGate(candidate.metadata.name or ""))
    return PREEMPTION_TIMEOUT


def plan(parent: Workload, variants: list[Workload], inputs: Inputs) -> Plan:
    """See the module docstring; ``variants`` are those the parent owns, in any order."""
    order = {f: i for i, f in enumerate(inputs.flavors)}
    sim = _Sim(parent, sort_variants(variants, order), inputs)
    _create(sim)
    _delete_stale(sim, order)
    wait = 0.0
    if not _sync_eviction(sim):
        _deactivate(sim, order)
        _activate(sim, order)
        _sync_admission(sim)
        wait = _open_gate(sim)
    created = [e.workload for e in sim.effects if isinstance(e, CreateVariant)]
    return Plan(sim.effects, wait, sim.parent, [*sim.variants, *created])
