"""Properties of concurrent admission (gate ``ConcurrentAdmission``).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/concurrentadmission/controller.go`` and
``pkg/scheduler/scheduler.go``; KEP ``keps/8691-concurrent-admission`` ("at most one Variant is
admitted", "the parent mirrors the admitted Variant", "Variants below the admitted one are
deactivated").

The planner's properties run on generated families (a parent and Variants in any state the system
can reach); the system's run a control plane on generated queues and workloads:

* at most one Variant of a parent holds quota at any time;
* an admitted parent's admission is its admitted Variant's, and its copy holds no quota (the
  ClusterQueue's reservation is the Variants' alone);
* under ``TryPreferredFlavors`` no Variant below the admitted one stays active (below
  ``lastAcceptableFlavorName`` neither), under ``RetainFirstAdmission`` none but it;
* a plan is a function of the family, whatever order the Variants are listed in, and opens at most
  one gate, never while another opened less than ``preemptionTimeout`` ago;
* a Variant's name (``GetWorkloadNameForVariant``) is the parent's name up to its last ``-``,
  ``-variant-`` and the flavor, cut to ``maxPrefixLength``, then ``-`` and 5 hex digits, so it is at
  most 63 characters with ``ShortWorkloadNames`` (253 without); a parent name without ``-`` is an
  error (upstream's slice panics).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.kueue_v1beta2.constants import Cond
from kbatch.controllers.kueue import workloads as W
from kbatch.controllers.kueue.concurrent_admission import variants as V
from kbatch.controllers.kueue.concurrent_admission.effects import OpenGate
from kbatch.controllers.kueue.concurrent_admission.plan import PREEMPTION_TIMEOUT, Inputs, Plan, plan
from kbatch.controllers.kueue.queues import admissible

from .concurrent_rows import NOW, PARENT, blocked, cond, wl
from .helpers import World, cluster_queue, flavor, local_queue, quota, workload

FLAVORS = ("f0", "f1", "f2", "f3")
PLANNER = settings(max_examples=150, deadline=None)
SYSTEM = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def families(draw: Any) -> tuple[Workload, list[Workload], Inputs]:
    n = draw(st.integers(1, 4))
    flavors = FLAVORS[:n]
    mode = draw(st.sampled_from([V.TRY_PREFERRED_FLAVORS, V.RETAIN_FIRST_ADMISSION]))
    last = draw(st.none() | st.sampled_from(flavors)) if mode == V.TRY_PREFERRED_FLAVORS else None
    present = draw(st.lists(st.sampled_from([*flavors, "stale"]), unique=True))
    admitted_on = draw(st.none() | st.sampled_from(present)) if present else None
    variants = [_variant(draw, f, f == admitted_on) for f in present]
    parent_admitted = admitted_on is not None and draw(st.booleans())
    conds = (
        [cond("Finished", "True", "Succeeded", "done")] if draw(st.booleans()) and draw(st.booleans()) else []
    )
    parent = wl(
        PARENT,
        parent=True,
        active=draw(st.booleans()) or None,
        conds=conds,
        reserve=("cq", admitted_on) if parent_admitted and admitted_on else None,
        is_admitted=parent_admitted,
    )
    return parent, variants, Inputs(flavors, V.Policy(mode, last), NOW)


def _variant(draw: Any, flavor: str, admitted: bool) -> Workload:
    conds = []
    if admitted and draw(st.booleans()):
        conds.append(cond("Evicted", "True", draw(st.sampled_from(["Preempted", "FlavorMigration"])), "x"))
    if not admitted and draw(st.booleans()):
        conds.append(blocked())
    elif not admitted and draw(st.booleans()):
        conds.append(cond("QuotaReserved", "False", "Pending", "does not fit"))
    age = draw(st.none() | st.integers(0, 600))
    gate = ("Open", NOW - timedelta(seconds=age)) if age is not None else None
    return wl(
        f"wl-variant-{flavor}",
        flavor,
        active=draw(st.booleans()) or None,
        conds=conds,
        gate=gate,
        reserve=("cq", flavor) if admitted else None,
        is_admitted=admitted,
    )


def _rank(v: Workload, flavors: tuple[str, ...]) -> int:
    f = V.variant_flavor(v)
    return flavors.index(f) if f in flavors else 0


def _stopped(out: Plan) -> bool:
    """The parent waits to lose its quota after its admitted Variant was evicted: the reconcile
    stops before deactivating or syncing (``syncVariantEvictionStatus``)."""
    assert out.parent is not None
    if not W.has(out.parent.status, Cond.QUOTA_RESERVED):
        return False
    return any(W.has(v.status, Cond.EVICTED) and W.has(v.status, Cond.QUOTA_RESERVED) for v in out.variants)


def _settled(parent: Workload, variants: list[Workload], inputs: Inputs) -> Plan:
    """Reconciles until nothing is left to do (a Variant created by one reconcile is seen by the
    next, as the create event brings the parent back)."""
    out = plan(parent, variants, inputs)
    for _ in range(4):
        if not out.effects or out.parent is None:
            break
        out = plan(out.parent, out.variants, inputs)
    return out


def _admitted(out: Plan) -> Workload | None:
    return next((v for v in out.variants if W.has(v.status, Cond.ADMITTED)), None)


@PLANNER
@given(families())
def test_no_variant_below_the_admitted_one_stays_active(family: Any) -> None:
    parent, variants, inputs = family
    out = _settled(parent, variants, inputs)
    got = _admitted(out)
    if _stopped(out) or got is None or parent.spec.active is False:
        return
    flavors, policy = inputs.flavors, inputs.policy
    for v in out.variants:
        if V.variant_flavor(v) not in flavors or v.metadata.name == got.metadata.name:
            continue
        rank = _rank(v, flavors)
        if (
            policy.mode == V.RETAIN_FIRST_ADMISSION
            or rank > _rank(got, flavors)
            or (policy.last_acceptable is not None and rank > flavors.index(policy.last_acceptable))
        ):
            assert v.spec.active is False, V.variant_flavor(v)


@PLANNER
@given(families())
def test_the_parents_admission_is_its_admitted_variants(family: Any) -> None:
    parent, variants, inputs = family
    out = _settled(parent, variants, inputs)
    got = _admitted(out)
    finished = W.has(parent.status, Cond.FINISHED)
    if _stopped(out) or got is None or finished:
        return
    assert out.parent is not None
    assert W.has(out.parent.status, Cond.ADMITTED)
    assert out.parent.status.admission == got.status.admission


@PLANNER
@given(families(), st.randoms(use_true_random=False))
def test_a_plan_does_not_depend_on_the_variants_order_and_opens_at_most_one_gate(
    family: Any, rnd: Any
) -> None:
    parent, variants, inputs = family
    out = plan(parent, variants, inputs)
    shuffled = list(variants)
    rnd.shuffle(shuffled)
    assert plan(parent, shuffled, inputs).effects == out.effects
    opened = [e for e in out.effects if isinstance(e, OpenGate)]
    assert len(opened) <= 1
    if opened:  # any other gate of a Variant still competing opened at least a timeout ago
        for v in out.variants:
            if v.metadata.name == opened[0].name or not admissible(v):
                continue
            for s in (v.status.preemption_gates if v.status else None) or ():
                if s.position == "Open":
                    assert (NOW - s.last_transition_time).total_seconds() >= PREEMPTION_TIMEOUT


@PLANNER
@given(families())
def test_every_flavor_has_exactly_one_variant_after_a_plan(family: Any) -> None:
    parent, variants, inputs = family
    out = plan(parent, variants, inputs)
    assert sorted(V.variant_flavor(v) for v in out.variants) == sorted(inputs.flavors)


# --- the system -------------------------------------------------------------------------------------


@st.composite
def scenarios(draw: Any) -> tuple[list[int], list[tuple[int, int]], list[int]]:
    quotas = draw(st.lists(st.integers(1, 3), min_size=2, max_size=3))
    jobs = draw(st.lists(st.tuples(st.integers(1, 2), st.integers(0, 2)), min_size=1, max_size=4))
    finishes = draw(st.lists(st.integers(0, len(jobs) - 1), max_size=2))
    return quotas, jobs, finishes


def _check(w: World) -> None:
    items = w.cp.client.list(Workload, "default").items
    by_uid = {x.metadata.uid: x for x in items}
    holding: dict[str, list[str]] = {}
    used: dict[str, int] = {}
    for x in items:
        if not W.has(x.status, Cond.QUOTA_RESERVED) or W.has(x.status, Cond.FINISHED):
            continue
        if V.is_variant(x):
            holding.setdefault(V.parent_uid(x), []).append(x.metadata.name)
            psa = x.status.admission.pod_set_assignments[0]
            f = psa.flavors["cpu"]
            used[f] = used.get(f, 0) + psa.resource_usage["cpu"].milli_value()
    for uid, names in holding.items():
        assert len(names) == 1, names
        parent = by_uid[uid]
        if W.has(parent.status, Cond.ADMITTED):
            (name,) = names
            assert parent.status.admission == w.wl(name).status.admission
    mgr = w.cp.manager.get("kueue-scheduler").reconciler.mgr  # the cache's usage: the Variants' only
    cached = {fr[0]: q for fr, q in mgr.cache.cluster_queues["cq"].usage.items() if q}
    assert cached == used


@SYSTEM
@given(scenarios(), st.sampled_from([V.TRY_PREFERRED_FLAVORS, V.RETAIN_FIRST_ADMISSION]))
def test_at_most_one_variant_holds_quota_and_the_parent_mirrors_it(scenario: Any, mode: str) -> None:
    quotas, jobs, finishes = scenario
    names = [f"fl{i}" for i in range(len(quotas))]
    cq = cluster_queue(
        "cq",
        (["cpu"], [(n, [quota("cpu", str(q))]) for n, q in zip(names, quotas, strict=True)]),
        preemption={"withinClusterQueue": "LowerPriority"},
    )
    cq["spec"]["concurrentAdmissionPolicy"] = {"migration": {"mode": mode}}
    w = World(
        *[flavor(n) for n in names], cq, local_queue("lq", "cq"), feature_gates="ConcurrentAdmission=true"
    )
    for i, (cpu, prio) in enumerate(jobs):
        w.apply(workload(f"w{i}-x", "lq", cpu=str(cpu), priority=prio))
        w.cp.run_until_idle()
        _check(w)
    for step in range(4):
        w.settle(rounds=1)
        _check(w)
        if step < len(finishes):
            target = f"w{finishes[step]}-x"
            if W.has(w.wl(target).status, Cond.ADMITTED) and not W.has(w.wl(target).status, Cond.FINISHED):
                w.finish(target)
                _check(w)


# --- names ---------------------------------------------------------------------------------------

_LABEL = st.text("abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=120).filter(
    lambda x: x[0] != "-" and x[-1] != "-"
)


@settings(max_examples=200, deadline=None)
@given(_LABEL, st.text("abcdefghijklmnopqrstuvwxyz0123456789-.", min_size=1, max_size=70), st.booleans())
def test_a_variant_name_is_the_parents_base_the_flavor_and_a_hash(
    name: str, flavor: str, short: bool
) -> None:
    parent = Workload.model_validate({"metadata": {"name": name, "namespace": "default", "uid": "u-1"}})
    if "-" not in name:
        try:
            V.variant_name(parent, flavor, short=short)
        except ValueError:
            return
        raise AssertionError("a parent name without '-' must fail as upstream's slice panics")
    got = V.variant_name(parent, flavor, short=short)
    limit = (63 if short else 253) - 6
    prefix = f"{name[: name.rindex('-')]}-variant-{flavor}"[:limit]
    assert got[: len(prefix)] == prefix
    assert got[len(prefix)] == "-" and len(got) == len(prefix) + 6
    assert all(c in "0123456789abcdef" for c in got[-5:])
    assert len(got) <= (63 if short else 253)
    assert V.variant_name(parent, flavor, short=short) == got  # no state, no clock
