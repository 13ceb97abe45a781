"""Upstream's concurrent-admission controller rows, against kbatch's planner.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/concurrentadmission/controller_test.go``
``TestReconcile`` (every row but "workload not found" and "workload is not parent or variant",
which are the controller's and live in ``test_concurrent_admission_controller.py``),
``TestFirstCandidateVariant``, ``TestClusterQueueFlavorsChanged``. Each row runs
:func:`~kbatch.controllers.kueue.concurrent_admission.plan.plan` on the parent and Variants and
compares the end state of its copies (what the controller's writes make of the objects), its
events and its requeue delay with the row's ``want…``.

Translation notes: upstream's fake client keeps ``status.admission`` of a Variant whose reservation
was cleared (an apply patch that omits the field); ``UnsetQuotaReservationWithCondition`` clears
it, and so does kbatch. Condition times are not compared (upstream ignores them too); gate times are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.concurrent_admission import variants as V
from kbatch.controllers.kueue.concurrent_admission.controller import FlavorsChanged
from kbatch.controllers.kueue.concurrent_admission.effects import event_of
from kbatch.controllers.kueue.concurrent_admission.plan import PREEMPTION_TIMEOUT, Inputs, _candidate, plan
from kbatch.controllers.kueue.preemption_gates import CONCURRENT_ADMISSION_GATE as CA_GATE

from .concurrent_rows import (
    MINUTE,
    NOW,
    PARENT,
    blocked,
    cond,
    digest,
    evaluated,
    wl,
)

RESERVATION_FIRST = ("reservation", "on-demand", "spot")
QUEUES: dict[str, tuple[tuple[str, ...], V.Policy]] = {
    "lq": (("on-demand", "spot"), V.Policy()),
    "lq-migration": (RESERVATION_FIRST, V.Policy(last_acceptable="reservation")),
    "lq-migration-no-constraint": (RESERVATION_FIRST, V.Policy()),
    "lq-hold": (RESERVATION_FIRST, V.Policy(V.RETAIN_FIRST_ADMISSION)),
    "lq-spot-only": (("spot",), V.Policy()),
}
TIMEOUT = PREEMPTION_TIMEOUT
UNTYPED = ("", "")  # the (kind, group) the fake client leaves on a typed object


@dataclass
class Row:
    parent: Workload
    variants: list[Workload]
    want_parent: Workload
    want_variants: list[Workload]
    events: list[tuple[str, str, str]] = field(default_factory=list)
    requeue: float = 0.0


def _parent(queue: str = "lq", **kw: Any) -> Workload:
    return wl(PARENT, queue=queue, parent=True, **kw)


def _v(flavor: str, queue: str = "lq", name: str | None = None, **kw: Any) -> Workload:
    return wl(name or f"wl-variant-{flavor}", flavor, queue=queue, **kw)


def _parent_admitted(queue: str, cq: str, flavor: str, variant: str, **kw: Any) -> Workload:
    conds = [
        cond("QuotaReserved", "True", "QuotaReserved", f"Quota reserved in ClusterQueue {cq}"),
        cond("Admitted", "True", "Admitted", f"The variant {variant} is admitted"),
        *kw.pop("conds", []),
    ]
    p = _parent(queue, conds=conds, **kw)
    from .concurrent_rows import admission

    return Workload.model_validate(
        {**p.to_dict(), "status": {**p.status.to_dict(), "admission": admission(cq, flavor)}}
    )


def _deleted(flavor: str) -> str:
    key = f"default/wl-variant-{flavor}"
    return f'Variant Workload "{key}" deleted; flavor "{flavor}" no longer in ClusterQueue'


def _deactivated(name: str, message: str) -> tuple[str, str, str]:
    return name, "DeactivatedVariant", f"Variant Workload deactivated due to {message}"


def _ungated(name: str) -> tuple[str, str, str]:
    return name, "PreemptionUngatedVariant", f'Opened preemption gate for variant workload "default/{name}"'


PREEMPTED = cond("Evicted", "True", "Preempted", "Evicted by preemption")


def _rows() -> dict[str, Row]:
    rows: dict[str, Row] = {}
    rows["parent workload without variants creates them"] = Row(
        _parent(),
        [],
        _parent(),
        [_v("spot", name="wl-variant-spot-a2342"), _v("on-demand", name="wl-variant-on-demand-480a3")],
        [
            (PARENT, "CreatedVariant", 'Variant Workload "default/wl-variant-spot-a2342" created'),
            (PARENT, "CreatedVariant", 'Variant Workload "default/wl-variant-on-demand-480a3" created'),
        ],
    )
    rows["parent workload with missing variants; creates missing"] = Row(
        _parent(),
        [_v("spot")],
        _parent(),
        [_v("spot"), _v("on-demand", name="wl-variant-on-demand-480a3")],
        [(PARENT, "CreatedVariant", 'Variant Workload "default/wl-variant-on-demand-480a3" created')],
    )
    rows["flavor removed from ClusterQueue; variant is deleted"] = Row(
        _parent(),
        [_v("on-demand"), _v("spot"), _v("stale")],
        _parent(),
        [_v("on-demand"), _v("spot")],
        [
            (
                PARENT,
                "DeletedVariant",
                _deleted("stale"),
            )
        ],
    )
    so = "lq-spot-only"
    rows["admitted variant's flavor removed; variant deleted and parent evicted"] = Row(
        _parent_admitted(so, "cq-spot-only", "on-demand", "x"),
        [_v("on-demand", so, reserve=("cq-spot-only", "on-demand"), is_admitted=True), _v("spot", so)],
        _parent_admitted(
            so,
            "cq-spot-only",
            "on-demand",
            "x",
            conds=[cond("Evicted", "True", "ConcurrentAdmission", "No variant is running")],
        ),
        [_v("spot", so)],
        [
            (
                PARENT,
                "DeletedVariant",
                _deleted("on-demand"),
            )
        ],
    )
    rows["deleting the variant holding the open preemption gate opens the next one's gate"] = Row(
        _parent(so),
        [_v("on-demand", so, gate=("Open", NOW), conds=[blocked()]), _v("spot", so, conds=[blocked()])],
        _parent(so),
        [_v("spot", so, gate=("Open", NOW), conds=[blocked()])],
        [
            (
                PARENT,
                "DeletedVariant",
                _deleted("on-demand"),
            ),
            _ungated("wl-variant-spot"),
        ],
        TIMEOUT,
    )
    elapsed = NOW - 5 * MINUTE
    rows["ungates the next-preferred variant once the open gate's preemption timeout elapses"] = Row(
        _parent(),
        [_v("on-demand", gate=("Open", elapsed), conds=[blocked()]), _v("spot", conds=[blocked()])],
        _parent(),
        [
            _v("on-demand", gate=("Open", elapsed), conds=[blocked()]),
            _v("spot", gate=("Open", NOW), conds=[blocked()]),
        ],
        [_ungated("wl-variant-spot")],
        TIMEOUT,
    )
    rows["blocked variant has its preemption gate opened; non-blocked variant stays closed"] = Row(
        _parent(),
        [_v("on-demand", conds=[blocked()]), _v("spot", gate=("Closed", NOW))],
        _parent(),
        [_v("on-demand", gate=("Open", NOW), conds=[blocked()]), _v("spot", gate=("Closed", NOW))],
        [_ungated("wl-variant-on-demand")],
        TIMEOUT,
    )
    closed = [_v("on-demand", gate=("Closed", NOW)), _v("spot", gate=("Closed", NOW))]
    rows["no variant requires preemption; no gate is opened"] = Row(_parent(), closed, _parent(), closed)
    waiting = [_v("on-demand"), _v("spot", conds=[blocked()])]
    rows["waits for a more-preferred variant to be evaluated before ungating a lower-preference variant"] = (
        Row(_parent(), waiting, _parent(), waiting)
    )
    rows["the most-preferred blocked variant is selected for ungating"] = Row(
        _parent(),
        [_v("on-demand", conds=[blocked()]), _v("spot", conds=[blocked()])],
        _parent(),
        [_v("on-demand", gate=("Open", NOW), conds=[blocked()]), _v("spot", conds=[blocked()])],
        [_ungated("wl-variant-on-demand")],
        TIMEOUT,
    )
    recent = [_v("on-demand", gate=("Open", NOW - MINUTE)), _v("spot", conds=[blocked()])]
    rows["a recently opened gate defers ungating the next variant until the timeout"] = Row(
        _parent(), recent, _parent(), recent, requeue=TIMEOUT - 60
    )
    nc = "lq-migration-no-constraint"
    latest = [
        _v("reservation", nc, gate=("Open", NOW - 4 * MINUTE)),
        _v("on-demand", nc, gate=("Open", NOW - MINUTE)),
        _v("spot", nc, conds=[blocked()]),
    ]
    rows["the latest open-gate time among variants determines the wait"] = Row(
        _parent(nc), latest, _parent(nc), latest, requeue=TIMEOUT - 60
    )
    rows[
        "parent with a pre-existing preemption gate; "
        "created variants inherit it plus the ConcurrentAdmission gate"
    ] = Row(
        _parent(gates=["other-gate"]),
        [],
        _parent(gates=["other-gate"]),
        [
            _v("spot", name="wl-variant-spot-a2342", gates=["other-gate", CA_GATE]),
            _v("on-demand", name="wl-variant-on-demand-480a3", gates=["other-gate", CA_GATE]),
        ],
        [
            (PARENT, "CreatedVariant", 'Variant Workload "default/wl-variant-spot-a2342" created'),
            (PARENT, "CreatedVariant", 'Variant Workload "default/wl-variant-on-demand-480a3" created'),
        ],
    )
    spot_admitted = _v("spot", reserve=("cq", "spot"), is_admitted=True)
    rows["admitted variant syncs admission to parent"] = Row(
        _parent(),
        [spot_admitted, _v("on-demand")],
        _parent_admitted("lq", "cq", "spot", "wl-variant-spot"),
        [spot_admitted, _v("on-demand")],
    )
    parent_on_spot = _parent(reserve=("cq", "spot"), is_admitted=True)
    rows["no variant admitted; parent admitted; evict parent"] = Row(
        parent_on_spot,
        [_v("spot"), _v("on-demand")],
        _parent(
            reserve=("cq", "spot"),
            is_admitted=True,
            conds=[cond("Evicted", "True", "ConcurrentAdmission", "No variant is running")],
        ),
        [_v("spot"), _v("on-demand")],
    )
    evicted_spot = _v("spot", reserve=("cq", "spot"), is_admitted=True, conds=[PREEMPTED], active=True)
    rows["admitted variant evicted; parent has quota; evict parent and wait"] = Row(
        parent_on_spot,
        [evicted_spot, _v("on-demand", active=False)],
        _parent(
            reserve=("cq", "spot"),
            is_admitted=True,
            conds=[cond("Evicted", "True", "VariantEvicted", "Admitted variant was evicted")],
        ),
        [evicted_spot, _v("on-demand", active=False)],
    )
    rows["admitted variant evicted; parent has no quota reservation; clear variant reservation"] = Row(
        _parent(),
        [evicted_spot, _v("on-demand", active=False)],
        _parent(),
        [
            _v(
                "spot",
                active=True,
                conds=[
                    cond("QuotaReserved", "False", "Pending", "Evicted by preemption"),
                    cond("Admitted", "False", "NoReservation", "The workload has no reservation"),
                    PREEMPTED,
                    cond("Requeued", "True", "Preempted", "Evicted by preemption"),
                ],
            ),
            _v("on-demand", active=True),
        ],
        [
            (
                "wl-variant-on-demand",
                "ActivatedVariant",
                "Variant Workload activated due to no other Variant being admitted",
            )
        ],
    )
    rows.update(_migration_rows())
    rows.update(_lifecycle_rows())
    return rows


def _three(queue: str, admitted_on: str, cq: str, inactive: tuple[str, ...] = ()) -> list[Workload]:
    out = []
    for f in RESERVATION_FIRST:
        kw: dict[str, Any] = {"reserve": (cq, f), "is_admitted": True} if f == admitted_on else {}
        if f in inactive:
            kw["active"] = False
        out.append(_v(f, queue, gates=[], **kw))
    return out


def _migration_rows() -> dict[str, Row]:
    rows: dict[str, Row] = {}
    cases = [
        (
            "with minTargetFlavor=reservation, variant admitted on spot, deactivate on-demand",
            "lq-migration",
            "cq-migration",
            "spot",
            ("on-demand",),
            "below",
        ),
        (
            "with minTargetFlavor=reservation, variant admitted on on-demand, deactivate spot",
            "lq-migration",
            "cq-migration",
            "on-demand",
            ("spot",),
            "below",
        ),
        (
            "with minTargetFlavor=reservation, variant admitted on reservation, "
            "deactivate spot and on-demand",
            "lq-migration",
            "cq-migration",
            "reservation",
            ("on-demand", "spot"),
            "below",
        ),
        (
            "without minTargetFlavor, variant admitted on spot, nothing deactivated",
            "lq-migration-no-constraint",
            "cq-migration-no-constraint",
            "spot",
            (),
            "lower",
        ),
        (
            "without minTargetFlavor, variant admitted on on-demand, deactivate spot",
            "lq-migration-no-constraint",
            "cq-migration-no-constraint",
            "on-demand",
            ("spot",),
            "lower",
        ),
        (
            "without minTargetFlavor, variant admitted on reservation, deactivate spot and on-demand",
            "lq-migration-no-constraint",
            "cq-migration-no-constraint",
            "reservation",
            ("on-demand", "spot"),
            "lower",
        ),
        (
            "RetainFirstAdmission, variant admitted on spot, deactivate reservation and on-demand",
            "lq-hold",
            "cq-hold",
            "spot",
            ("reservation", "on-demand"),
            "retain",
        ),
    ]
    for title, lq, cq, on, off, why in cases:
        by = f'"default/wl-variant-{on}"'
        message = {
            "below": f'being below lastAcceptableFlavor: "reservation" and another Variant admitted {by}',
            "lower": f"being lower priority than admitted Variant {by}",
            "retain": f"RetainFirstAdmission: another Variant {by} is admitted",
        }[why]
        rows[title] = Row(
            _parent(lq),
            _three(lq, on, cq),
            _parent_admitted(lq, cq, on, f"wl-variant-{on}"),
            _three(lq, on, cq, off),
            [_deactivated(f"wl-variant-{f}", message) for f in off],
        )
    return rows


def _ready(status: str) -> dict[str, Any]:
    if status == "True":
        return cond("PodsReady", "True", "PodsReady", "Pods are ready")
    return cond("PodsReady", "False", "PodsNotReady", "Pods are not ready")


def _lifecycle_rows() -> dict[str, Row]:
    rows: dict[str, Row] = {}
    done = cond("Finished", "True", "Succeeded", "Job finished successfully")
    rows["parent marked finished, mark all variants finished"] = Row(
        _parent(conds=[done]),
        [_v("on-demand"), _v("spot")],
        _parent(conds=[done]),
        [_v("on-demand", conds=[done]), _v("spot", conds=[done])],
    )
    message = f'Parent Workload "default/{PARENT}" not active'
    rows["parent is not active, propagating deactivation to all variants"] = Row(
        _parent(active=False),
        [_v("spot"), _v("on-demand")],
        _parent(active=False),
        [_v("spot", active=False), _v("on-demand", active=False)],
        [_deactivated("wl-variant-spot", message), _deactivated("wl-variant-on-demand", message)],
    )
    for old, new in (("False", "True"), ("True", "False")):
        parent = _parent(reserve=("cq", "spot"), is_admitted=True, conds=[_ready(new)])
        rows[f"parent changes WaitForPodsReady from {old} to {new}, syncs to admitted variant"] = Row(
            parent,
            [_v("spot", reserve=("cq", "spot"), is_admitted=True, conds=[_ready(old)]), _v("on-demand")],
            parent,
            [_v("spot", reserve=("cq", "spot"), is_admitted=True, conds=[_ready(new)]), _v("on-demand")],
        )
    rows[
        "parent not admitted, variant admitted, parent changes WaitForPodsReady from True to False, "
        "syncs to variant and admits parent"
    ] = Row(
        _parent(conds=[_ready("False")]),
        [_v("spot", reserve=("cq", "spot"), is_admitted=True, conds=[_ready("True")]), _v("on-demand")],
        _parent_admitted("lq", "cq", "spot", "wl-variant-spot", conds=[_ready("False")]),
        [_v("spot", reserve=("cq", "spot"), is_admitted=True, conds=[_ready("False")]), _v("on-demand")],
    )
    return rows


ROWS = _rows()


def _inputs(queue: str) -> Inputs:
    flavors, policy = QUEUES[queue]
    # upstream's rows read the parent through the fake client, which clears its TypeMeta
    # (``ensureTypeMeta``): their Variant names hash an empty kind and group
    return Inputs(flavors, policy, NOW, gvk=UNTYPED)


@pytest.mark.parametrize("name", list(ROWS))
def test_reconcile(name: str) -> None:
    row = ROWS[name]
    queue = row.parent.spec.queue_name if row.parent.spec else "lq"
    out = plan(row.parent, row.variants, _inputs(queue or "lq"))
    assert out.parent is not None
    assert digest(out.parent) == digest(row.want_parent)
    assert sorted(digest(v) for v in out.variants) == sorted(digest(v) for v in row.want_variants)
    events = [e for e in (event_of(x, row.parent) for x in out.effects) if e is not None]
    assert sorted(events) == sorted(row.events)
    assert out.requeue_after == row.requeue


# --- TestFirstCandidateVariant --------------------------------------------------------------------


def test_first_candidate_waits_when_the_preferred_variant_has_no_evaluation_condition() -> None:
    first = wl("preferred", "on-demand")
    assert _candidate([first, wl("blocked", "spot", conds=[blocked()])]) is None


def test_first_candidate_skips_a_preferred_variant_with_a_quota_reservation_condition() -> None:
    first = wl("preferred", "on-demand", conds=[evaluated()])
    second = wl("blocked", "spot", conds=[blocked()])
    assert _candidate([first, second]) is second


# --- TestClusterQueueFlavorsChanged ---------------------------------------------------------------


def _cq(flavors: list[str], cpu: str = "5") -> Any:
    from kbatch.api.kueue_v1beta2 import ClusterQueue

    return ClusterQueue.model_validate(
        {
            "apiVersion": V.WORKLOAD_API_VERSION,
            "kind": "ClusterQueue",
            "metadata": {"name": "cq"},
            "spec": {
                "resourceGroups": [
                    {
                        "coveredResources": ["cpu"],
                        "flavors": [
                            {"name": f, "resources": [{"name": "cpu", "nominalQuota": cpu}]} for f in flavors
                        ],
                    }
                ]
            },
        }
    )


@pytest.mark.parametrize(
    ("new", "want"),
    [
        (_cq(["on-demand", "spot", "reservation"]), True),  # flavor added
        (_cq(["on-demand"]), True),  # flavor removed
        (_cq(["spot", "on-demand"]), True),  # flavors reordered
        (_cq(["on-demand", "spot"]), False),  # flavors unchanged
        (_cq(["on-demand", "spot"], cpu="99"), False),  # only quota changed
    ],
)
def test_cluster_queue_flavors_changed(new: Any, want: bool) -> None:
    assert FlavorsChanged().update(_cq(["on-demand", "spot"]), new) is want


def test_cluster_queue_flavors_changed_ignores_create_and_delete() -> None:
    base = _cq(["on-demand", "spot"])
    assert FlavorsChanged().create(base) is False
    assert FlavorsChanged().delete(base) is False
