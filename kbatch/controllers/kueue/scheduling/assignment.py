"""What the flavor assigner decides: per pod set and resource, a flavor and a mode.

Upstream: kubernetes-sigs/kueue ``pkg/scheduler/flavorassigner/{flavorassigner,
flavor_assigner_attempts}.go`` (v0.19.2): ``Assignment``, ``PodSetAssignment``, ``FlavorAssignment``,
``Status`` and their messages, the modes (``NoFit < Preempt < DeferredFit < Fit``), the flavors
considered (for the ``QuotaReserved`` event) and the no-fit reason resolution (with
``UnadmittedWorkloadsObservability``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kbatch.api.kueue_v1beta2.constants import Reason
from kbatch.controllers.kueue.model.requests import FlavorResource, format_amount

if TYPE_CHECKING:
    from kbatch.controllers.kueue.tas.placement import Placement

__all__ = [
    "DEFERRED_FIT",
    "FIT",
    "MODE_NAMES",
    "NO_FIT",
    "PREEMPT",
    "Assignment",
    "Attempt",
    "FlavorAssignment",
    "LastState",
    "PodSetAssignment",
    "Status",
    "format_attempts",
    "merge_attempts_for_resource",
    "most_severe",
]

NO_FIT, PREEMPT, DEFERRED_FIT, FIT = range(4)
MODE_NAMES = {NO_FIT: "NoFit", PREEMPT: "Preempt", DEFERRED_FIT: "DeferredFit", FIT: "Fit"}
_SEVERITY = {
    Reason.NO_MATCHING_FLAVOR: 4,
    Reason.EXCEEDS_MAX_QUOTA: 3,
    Reason.WAITING_FOR_QUOTA: 2,
    "TopologyPlacementFailed": 1,
}


def most_severe(a: str, b: str) -> str:
    return a if _SEVERITY.get(a, 0) >= _SEVERITY.get(b, 0) else b


@dataclass
class Status:
    reasons: list[str] = field(default_factory=list)
    err: str | None = None
    no_fit_reason: str = ""

    def is_fit(self) -> bool:
        return self.err is None and not self.reasons

    def message(self) -> str:
        return self.err if self.err is not None else ", ".join(sorted(self.reasons))


@dataclass
class FlavorAssignment:
    name: str
    mode: int
    tried_flavor_idx: int = 0
    borrow: int = 0


@dataclass
class Attempt:
    """``FlavorAssignmentAttempt``; ``possibility`` is a preemption possibility name or ``None``."""

    flavor: str
    mode: int
    borrow: int = 0
    possibility: str | None = None
    reasons: list[str] = field(default_factory=list)
    no_fit_reason: str = ""


@dataclass
class PodSetAssignment:
    name: str
    flavors: dict[str, FlavorAssignment]
    status: Status
    requests: dict[str, int]
    count: int
    attempts: list[Attempt] = field(default_factory=list)
    topology: Placement | None = None  # the TAS step's placement (``TopologyAssignment``)
    delayed: str | None = None  # ``DelayedTopologyRequest`` (TAS after a ProvisioningRequest check)

    def representative_mode(self) -> int:
        if self.status.is_fit():
            return FIT
        if self.status.err is not None or not self.flavors:
            return NO_FIT
        return min(f.mode for f in self.flavors.values())


@dataclass
class LastState:
    """``AssignmentClusterQueueState``: where the flavor scan stopped, per pod set and resource."""

    tried: list[dict[str, int]] = field(default_factory=list)
    cq_generation: int = 0
    cycle: int = 0
    scheduling_hash: str = ""

    def pending_flavors(self) -> bool:
        return any(idx != -1 for per_ps in self.tried for idx in per_ps.values())

    def next_flavor(self, ps: int, resource: str) -> int:
        if ps >= len(self.tried) or resource not in self.tried[ps]:
            return 0
        return self.tried[ps][resource] + 1


@dataclass
class Assignment:
    pod_sets: list[PodSetAssignment] = field(default_factory=list)
    borrowing: int = 0
    usage: dict[FlavorResource, int] = field(default_factory=dict)
    last_state: LastState = field(default_factory=LastState)
    no_fit_reason: str = ""
    forced_mode: int | None = None

    def representative_mode(self) -> int:
        if not self.pod_sets:
            return NO_FIT
        if self.forced_mode is not None:
            return self.forced_mode
        return min(ps.representative_mode() for ps in self.pod_sets)

    def set_representative_mode(self, mode: int) -> None:
        self.forced_mode = mode
        for ps in self.pod_sets:
            for fa in ps.flavors.values():
                fa.mode = mode

    def message(self) -> str:
        parts = []
        for ps in self.pod_sets:
            if ps.status.is_fit():
                continue
            if ps.status.err is not None:
                return f"failed to assign flavors to pod set {ps.name}: {ps.status.err}"
            parts.append(f"couldn't assign flavors to pod set {ps.name}: {ps.status.message()}")
        return "; ".join(parts)

    def append(self, requests: Mapping[str, int], psa: PodSetAssignment) -> None:
        self.pod_sets.append(psa)
        tried: dict[str, int] = {}
        for res, fa in psa.flavors.items():
            self.borrowing = max(self.borrowing, fa.borrow)
            fr = (fa.name, res)
            self.usage[fr] = self.usage.get(fr, 0) + requests.get(res, 0)
            tried[res] = fa.tried_flavor_idx
        self.last_state.tried.append(tried)

    def flavor_resources_needing_preemption(self) -> frozenset[FlavorResource]:
        return frozenset(
            (fa.name, res) for ps in self.pod_sets for res, fa in ps.flavors.items() if fa.mode == PREEMPT
        )

    def total_requests_for(
        self, pod_sets: Iterable[object], ignore_undeclared: bool = False
    ) -> dict[FlavorResource, int]:
        """``TotalRequestsFor``: the workload's requests at the assigned counts, by flavor."""
        usage: dict[FlavorResource, int] = {}
        for ps, psa in zip(pod_sets, self.pod_sets, strict=False):
            scaled = ps.scaled_to(psa.count)  # type: ignore[attr-defined]
            for res, q in scaled.requests.items():
                if q == 0:
                    continue
                fa = psa.flavors.get(res)
                if fa is None:
                    if ignore_undeclared:
                        continue
                    raise KeyError(f"no flavor assigned to {res} of pod set {psa.name}")
                usage[(fa.name, res)] = usage.get((fa.name, res), 0) + q
        return usage

    def to_api(self) -> list[dict[str, object]]:
        """``ToAPI``: the admission's ``podSetAssignments`` as wire dicts."""
        out = []
        for ps in self.pod_sets:
            names = sorted(ps.flavors)
            api: dict[str, object] = {
                "name": ps.name,
                "flavors": {r: ps.flavors[r].name for r in names},
                "resourceUsage": {r: format_amount(r, ps.requests.get(r, 0)) for r in names},
                "count": ps.count,
            }
            if ps.topology is not None:
                api["topologyAssignment"] = ps.topology.to_api()
            if ps.delayed is not None:
                api["delayedTopologyRequest"] = ps.delayed
            out.append(api)
        return out

    def flavor_mapping(self) -> dict[str, dict[str, str]]:
        return {ps.name: {r: fa.name for r, fa in ps.flavors.items()} for ps in self.pod_sets}

    def resolve_no_fit_reason(self, rg_flavors: list[tuple[str, ...]]) -> None:
        """``resolveNoFitReason``: the most severe reason across pod sets, the least severe among a
        resource group's alternative flavors."""
        if self.representative_mode() != NO_FIT:
            return
        overall = ""
        for ps in self.pod_sets:
            if ps.representative_mode() != NO_FIT:
                continue
            if not ps.attempts:
                overall = most_severe(overall, Reason.NO_MATCHING_FLAVOR)
                continue
            per_rg: dict[int, str] = {}
            for i, att in enumerate(ps.attempts):
                if att.mode != NO_FIT:
                    continue
                groups = [g for g, flavors in enumerate(rg_flavors) if att.flavor in flavors] or [-1 - i]
                for g in groups:
                    existing = per_rg.get(g)
                    if existing is None or _SEVERITY.get(att.no_fit_reason, 0) < _SEVERITY.get(existing, 0):
                        per_rg[g] = att.no_fit_reason
            reason = ""
            for g in sorted(per_rg):
                reason = most_severe(reason, per_rg[g])
            overall = most_severe(overall, reason)
        self.no_fit_reason = overall


# --- flavors considered -----------------------------------------------------------------------------


def _merge_unique(a: Iterable[str], b: Iterable[str]) -> list[str]:
    return sorted(set(a) | set(b))


def merge_attempts(dst: dict[str, Attempt], src: list[Attempt], observability: bool) -> None:
    for at in src:
        have = dst.get(at.flavor)
        if have is None:
            dst[at.flavor] = Attempt(
                at.flavor, at.mode, at.borrow, at.possibility, _merge_unique(at.reasons, ()), at.no_fit_reason
            )
            continue
        possibility = have.possibility
        if at.possibility is not None and (possibility is None or _POSS[at.possibility] < _POSS[possibility]):
            possibility = at.possibility
        dst[at.flavor] = Attempt(
            at.flavor,
            min(at.mode, have.mode),
            max(at.borrow, have.borrow),
            possibility,
            _merge_unique(have.reasons, at.reasons),
            most_severe(have.no_fit_reason, at.no_fit_reason) if observability else "",
        )


_POSS = {"NoCandidates": 0, "Preempt": 1, "Reclaim": 2}


def merge_attempts_for_resource(
    dst: dict[str, Attempt],
    src: list[Attempt],
    resource: str,
    rg_flavors: tuple[str, ...] | None,
    observability: bool,
) -> None:
    """``mergeFlavorAttemptsForResource``: a flavor of the resource's group tried for another
    resource but not for this one does not provide it."""
    merge_attempts(dst, src, observability)
    if not src or rg_flavors is None:
        return
    present = {a.flavor for a in src}
    for flavor in sorted(dst):
        if flavor not in rg_flavors or flavor in present:
            continue
        at = dst[flavor]
        at.mode = NO_FIT
        at.reasons = _merge_unique(at.reasons, (f"flavor {flavor} does not provide resource {resource}",))
        if observability:
            at.no_fit_reason = Reason.NO_MATCHING_FLAVOR


def format_attempts(assignment: Assignment) -> str:
    """``FormatFlavorAssignmentAttemptsForEvents``."""
    out = []
    for ps in assignment.pod_sets:
        parts = []
        for att in ps.attempts:
            if att.mode == FIT and att.borrow == 0:
                continue
            text = (
                f"preemptionMode={att.possibility}" if att.possibility is not None else MODE_NAMES[att.mode]
            )
            if att.borrow > 0:
                text += f";borrow={att.borrow}"
            if att.reasons:
                text += ";" + ";".join(att.reasons)
            parts.append(f"{att.flavor}({text})")
        if parts:
            out.append(f"{ps.name}: {', '.join(parts)}")
    return " | ".join(out)


def quantity_text(resource: str, value: int) -> str:
    return format_amount(resource, value)
