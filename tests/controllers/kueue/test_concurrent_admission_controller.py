"""The concurrent-admission controller on a running control plane (gate ``ConcurrentAdmission``).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/concurrentadmission/controller_test.go``
(rows "workload not found", "workload is not parent or variant", ``TestParentsForClusterQueue``) and
the behaviour its integration test ``test/integration/singlecluster/controller/concurrentadmission``
and the KEP ``keps/8691-concurrent-admission`` describe: the parent labelled by the workload
controller, one Variant per flavor, admission on the preferred flavor that fits, the parent
following, gates opened one at a time after ``preemptionTimeout`` (virtual clock), stale Variants
deleted, and with the gate off no Variant at all.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.kueue_v1beta2 import ClusterQueue, LocalQueue, Workload
from kbatch.controllers.kueue.concurrent_admission import variants as V
from kbatch.controllers.kueue.concurrent_admission.controller import CONTROLLER, ParentsOfClusterQueue
from kbatch.controllers.kueue.preemption_gates import CONCURRENT_ADMISSION_GATE
from kbatch.runtime.reconcile import Request

from .helpers import World, cluster_queue, flavor, local_queue, quota, workload

ON = "ConcurrentAdmission=true"
TRY = {"migration": {"mode": "TryPreferredFlavors"}}


def _world(on_demand: str = "2", spot: str = "4", gates: str = ON, policy: Any = TRY, **spec: Any) -> World:
    cq = cluster_queue(
        "cq", (["cpu"], [("on-demand", [quota("cpu", on_demand)]), ("spot", [quota("cpu", spot)])]), **spec
    )
    if policy is not None:
        cq["spec"]["concurrentAdmissionPolicy"] = policy
    return World(flavor("on-demand"), flavor("spot"), cq, local_queue("lq", "cq"), feature_gates=gates)


def _variants(w: World, parent: str) -> dict[str, Workload]:
    """The parent's Variants by flavor."""
    uid = w.wl(parent).metadata.uid
    return {
        V.variant_flavor(x): x for x in w.cp.client.list(Workload, "default").items if V.parent_uid(x) == uid
    }


def _reserved_cpu(w: World) -> dict[str, str]:
    st = w.cq("cq").status
    return {f.name: str(f.resources[0].total) for f in (st.flavors_reservation if st else None) or ()}


def test_reconcile_of_a_missing_workload_or_a_plain_one_does_nothing() -> None:
    w = _world(policy=None)
    w.apply(workload("wl", "lq"))
    w.cp.run_until_idle()
    reconciler = w.cp.manager.get(CONTROLLER).reconciler
    assert reconciler.reconcile(Request("default", "non-existing")) is None
    assert reconciler.reconcile(Request("default", "wl")) is None
    assert [x.metadata.name for x in w.cp.client.list(Workload, "default").items] == ["wl"]


def test_a_workload_is_admitted_on_the_preferred_flavor_through_its_variant() -> None:
    w = _world()
    w.apply(workload("wl-a", "lq", cpu="1"))
    w.settle(rounds=2)
    parent = w.wl("wl-a")
    assert (parent.metadata.labels or {}).get(V.PARENT_LABEL) == "true"
    variants = _variants(w, "wl-a")
    assert sorted(variants) == ["on-demand", "spot"]
    preferred = variants["on-demand"]
    assert [g.name for g in preferred.spec.preemption_gates] == [CONCURRENT_ADMISSION_GATE]
    assert preferred.metadata.owner_references[0].controller is True
    assert w.admitted(preferred.metadata.name)
    assert w.admitted("wl-a")
    assert w.wl("wl-a").status.admission == preferred.status.admission
    assert w.cond("wl-a", "Admitted").message == f"The variant {preferred.metadata.name} is admitted"
    assert variants["spot"].spec.active is False  # below the admitted one (TryPreferredFlavors)
    assert _reserved_cpu(w) == {"on-demand": "1", "spot": "0"}  # the parent's copy holds no quota
    assert (
        "Normal",
        "CreatedVariant",
        f'Variant Workload "default/{preferred.metadata.name}" created',
    ) in w.events("wl-a")


def test_a_workload_falls_back_to_the_next_flavor_when_the_preferred_one_is_full() -> None:
    w = _world(on_demand="1")
    w.apply(workload("wl-a", "lq", cpu="2"))
    w.settle(rounds=2)
    variants = _variants(w, "wl-a")
    assert w.admitted(variants["spot"].metadata.name)
    assert not w.reserved(variants["on-demand"].metadata.name)
    assert variants["on-demand"].spec.active is not False  # above the admitted one: stays in the race
    assert w.flavors("wl-a") == {"cpu": "spot"}


def test_with_the_gate_off_a_policy_is_data_and_no_variant_is_created() -> None:
    w = _world(gates="")
    w.apply(workload("wl-a", "lq", cpu="1"))
    w.settle(rounds=2)
    assert [x.metadata.name for x in w.cp.client.list(Workload, "default").items] == ["wl-a"]
    assert V.PARENT_LABEL not in (w.wl("wl-a").metadata.labels or {})
    assert w.flavors("wl-a") == {"cpu": "on-demand"}


def test_preemption_gates_open_one_at_a_time_in_flavor_order_after_the_timeout() -> None:
    """Both flavors are full of low-priority work; the high-priority parent's Variants need to
    preempt. The scheduler marks the on-demand Variant blocked on its gate and the controller opens
    it; that Variant preempts, but the evicted holder keeps its quota (no job releases it), and as
    its queue's sticky preemptor it stays the head. The spot Variant, marked blocked too (as the
    scheduler would once it evaluates it; upstream's unit rows set the condition the same way), has
    its gate opened only when the on-demand gate has been open for 300 s (virtual clock)."""
    w = _world(on_demand="2", spot="2", preemption={"withinClusterQueue": "LowerPriority"})
    w.apply(workload("low-a", "lq", cpu="2", priority=0), workload("low-b", "lq", cpu="2", priority=0))
    w.settle(rounds=2)
    w.apply(workload("wl-high", "lq", cpu="2", priority=100))
    w.cp.run_until_idle()
    opened = _gate_times(w, "wl-high")
    assert list(opened) == ["on-demand"]
    start = opened["on-demand"]
    preferred = _variants(w, "wl-high")["on-demand"].metadata.name
    assert w.cond(preferred, "BlockedOnPreemptionGates").status == "True"
    _mark_blocked(w, _variants(w, "wl-high")["spot"])
    w.cp.advance(250)
    w.cp.run_until_idle()
    assert list(_gate_times(w, "wl-high")) == ["on-demand"]
    w.cp.advance(60)
    w.cp.run_until_idle()
    opened = _gate_times(w, "wl-high")
    assert sorted(opened) == ["on-demand", "spot"]
    assert (opened["spot"] - start).total_seconds() == 300


def _mark_blocked(w: World, variant: Workload) -> None:
    blocked = {
        "type": "BlockedOnPreemptionGates",
        "status": "True",
        "reason": "PreemptionGated",
        "message": "Workload requires preemption, but it's gated",
        "lastTransitionTime": w.cp.now().isoformat(),
    }
    conds = [c.to_dict() for c in (variant.status.conditions if variant.status else None) or ()]
    w.cp.client.patch_status(
        Workload, variant.metadata.name, {"status": {"conditions": [*conds, blocked]}}, "default"
    )
    w.cp.run_until_idle()


def _gate_times(w: World, parent: str) -> dict[str, Any]:
    out = {}
    for f, v in _variants(w, parent).items():
        for s in (v.status.preemption_gates if v.status else None) or ():
            if s.name == CONCURRENT_ADMISSION_GATE and s.position == "Open":
                out[f] = s.last_transition_time
    return out


def test_a_flavor_removed_from_the_cluster_queue_deletes_its_variant() -> None:
    w = _world(on_demand="1", spot="1")
    w.apply(workload("wl-a", "lq", cpu="2"))  # fits nowhere: both Variants stay
    w.settle(rounds=2)
    assert sorted(_variants(w, "wl-a")) == ["on-demand", "spot"]
    cq = w.cq("cq").to_dict()
    cq["spec"]["resourceGroups"][0]["flavors"] = cq["spec"]["resourceGroups"][0]["flavors"][1:]
    w.cp.client.update(ClusterQueue.model_validate(cq))
    w.settle(rounds=2)
    assert sorted(_variants(w, "wl-a")) == ["spot"]
    assert any(r == "DeletedVariant" for _, r, _ in w.events("wl-a"))


# --- TestParentsForClusterQueue --------------------------------------------------------------------


def _lq(name: str, ns: str, cq: str) -> dict[str, Any]:
    return local_queue(name, cq, ns)


def _parent(name: str, ns: str, lq: str) -> dict[str, Any]:
    doc = workload(name, lq, namespace=ns)
    doc["metadata"]["labels"] = {V.PARENT_LABEL: "true"}
    return doc


def _variant(name: str, ns: str, lq: str) -> dict[str, Any]:
    doc = workload(name, lq, namespace=ns)
    doc["metadata"]["annotations"] = {V.ALLOWED_FLAVORS_ANNOTATION: "spot"}
    doc["metadata"]["ownerReferences"] = [
        {
            "apiVersion": V.WORKLOAD_API_VERSION,
            "kind": "Workload",
            "name": "parent",
            "uid": "u",
            "controller": True,
        }
    ]
    return doc


def _ns(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


@pytest.mark.parametrize(
    ("objects", "want"),
    [
        pytest.param(
            [
                _lq("lq", "default", "cq"),
                _parent("parent-a", "default", "lq"),
                _parent("parent-b", "default", "lq"),
            ],
            [("default", "parent-a"), ("default", "parent-b")],
            id="multiple parents under one ClusterQueue",
        ),
        pytest.param(
            [
                _ns("ns-a"),
                _ns("ns-b"),
                _lq("lq", "ns-a", "cq"),
                _lq("lq", "ns-b", "cq"),
                _parent("parent-a", "ns-a", "lq"),
                _parent("parent-b", "ns-b", "lq"),
            ],
            [("ns-a", "parent-a"), ("ns-b", "parent-b")],
            id="parents across namespaces feeding the same ClusterQueue",
        ),
        pytest.param(
            [
                _lq("lq", "default", "cq"),
                _parent("parent", "default", "lq"),
                _variant("variant", "default", "lq"),
                workload("plain", "lq"),
            ],
            [("default", "parent")],
            id="non-parent workloads are excluded",
        ),
        pytest.param(
            [
                _lq("lq", "default", "cq"),
                _lq("lq-other", "default", "cq-other"),
                _parent("parent", "default", "lq"),
                _parent("parent-other", "default", "lq-other"),
            ],
            [("default", "parent")],
            id="workloads of other ClusterQueues are excluded",
        ),
        pytest.param(
            [_lq("lq", "default", "cq"), workload("plain", "lq")], [], id="no parents returns nothing"
        ),
    ],
)
def test_parents_for_cluster_queue(objects: list[dict[str, Any]], want: list[tuple[str, str]]) -> None:
    w = World(*objects, controllers="")
    w.cp.cache.informer_for(LocalQueue)
    w.cp.cache.informer_for(Workload)
    from kbatch.controllers.kueue.manager import BY_QUEUE, LQ_BY_CQ, _by_queue, _lq_by_cq

    w.cp.cache.add_index(Workload, BY_QUEUE, _by_queue)
    w.cp.cache.add_index(LocalQueue, LQ_BY_CQ, _lq_by_cq)
    w.cp.run_until_idle()
    cq = ClusterQueue.model_validate(
        {"apiVersion": V.WORKLOAD_API_VERSION, "kind": "ClusterQueue", "metadata": {"name": "cq"}, "spec": {}}
    )
    got = sorted((r.namespace, r.name) for r in ParentsOfClusterQueue(w.cp.cache)(cq))
    assert got == want


# --- jobs: the parent's job runs where its admitted Variant is ---------------------------------------


def _job_world() -> World:
    from .test_jobs import node

    cq = cluster_queue("cq", (["cpu"], [("fa", [quota("cpu", "2")]), ("fb", [quota("cpu", "4")])]))
    cq["spec"]["concurrentAdmissionPolicy"] = TRY
    return World(
        node("n-a", "a"),
        node("n-b", "b"),
        flavor("fa", labels={"pool": "a"}),
        flavor("fb", labels={"pool": "b"}),
        cq,
        local_queue("lq", "cq"),
        controllers="*",
        feature_gates=ON,
    )


def test_a_job_migrates_to_the_preferred_flavor_once_it_frees() -> None:
    """A Job admitted on ``fb`` (``fa`` full) moves to ``fa`` when ``fa`` frees: the scheduler
    evicts the ``fb`` Variant (``FlavorMigration``), the parent is evicted (``VariantEvicted``) and
    its job suspended, the ``fb`` Variant gives its quota up, the ``fa`` Variant is admitted and the
    parent, re-admitted with its admission, restarts the job on pool ``a``."""
    from kbatch.api.batch_v1 import Job

    from .test_jobs import job

    w = _job_world()
    w.apply(job("blocker", seconds=30))
    w.cp.run_until_idle()
    w.cp.advance(2)
    w.apply(job("j", seconds=300))
    w.cp.run_until_idle()
    w.cp.advance(2)
    w.cp.run_until_idle()
    assert w.cp.client.get(Job, "j", "default").spec.template.spec.node_selector == {"pool": "b"}
    w.cp.advance(40)  # the blocker finishes; fa frees
    for _ in range(3):
        w.cp.run_until_idle()
        w.cp.advance(5)
    assert w.cp.client.get(Job, "j", "default").spec.template.spec.node_selector == {"pool": "a"}
    parent = next(
        x
        for x in w.cp.client.list(Workload, "default").items
        if (x.metadata.labels or {}).get(V.PARENT_LABEL) and x.metadata.name.startswith("job-j-")
    )
    variants = _variants(w, parent.metadata.name)
    assert w.admitted(variants["fa"].metadata.name)
    assert w.cond(variants["fb"].metadata.name, "Evicted").reason == "FlavorMigration"
    assert variants["fb"].spec.active is False
    assert w.flavors(parent.metadata.name) == {"cpu": "fa"}


def test_metrics_count_the_variants_admission_once_and_the_parent_as_the_finished_workload() -> None:
    """The parent's admission is a copy (upstream patches it; only the scheduler's admission of the
    Variant is reported), and a finished Variant is no finished workload (``AddFinishedWorkload``)."""
    from kbatch.controllers.kueue.metrics.families import ROLE

    w = _world()
    w.apply(workload("wl-a", "lq", cpu="1"))
    w.settle(rounds=2)
    assert w.admitted("wl-a")
    w.finish("wl-a")
    w.settle(rounds=1)
    w.cp.metrics.collect()
    cq = ("cq", "", ROLE)
    assert w.cp.metrics.get("kueue_admitted_workloads_total").value(*cq) == 1  # type: ignore[union-attr]
    assert w.cp.metrics.get("kueue_quota_reserved_workloads_total").value(*cq) == 1  # type: ignore[union-attr]
    assert w.cp.metrics.get("kueue_finished_workloads").value("cq", ROLE) == 1  # type: ignore[union-attr]


# --- errors, batching and names as upstream's live controller has them --------------------------------


def _labelled(name: str, queue: str) -> dict[str, Any]:
    obj = workload(name, queue, cpu="1")
    obj["metadata"]["labels"] = {V.PARENT_LABEL: "true"}
    return obj


@pytest.mark.parametrize(
    ("queue", "later"),
    [
        pytest.param("lq-late", local_queue("lq-late", "cq"), id="LocalQueue created later"),
        pytest.param(
            "lq-cq-late",
            cluster_queue("cq-late", (["cpu"], [("spot", [quota("cpu", "4")])])),
            id="ClusterQueue created later",
        ),
    ],
)
def test_a_parent_whose_queue_is_missing_is_retried_with_back_off(queue: str, later: dict[str, Any]) -> None:
    """``getClusterQueue`` returns an error for a LocalQueue or ClusterQueue the queue manager does
    not know; controller-runtime retries the request with back-off, so the queue created later (an
    event this controller does not watch) is found by a retry."""
    w = _world()
    w.apply(local_queue("lq-cq-late", "cq-late"), _labelled("wl-a", queue))
    w.cp.run_until_idle()
    reconciler = w.cp.manager.get(CONTROLLER).reconciler
    with pytest.raises(LookupError, match="could not find cluster queue for workload default/wl-a"):
        reconciler.reconcile(Request("default", "wl-a"))
    assert _variants(w, "wl-a") == {}
    w.apply(later)
    w.settle(rounds=2)  # the back-off's next retry (virtual clock)
    assert sorted(_variants(w, "wl-a")) == (["on-demand", "spot"] if queue == "lq-late" else ["spot"])


def test_a_flavor_change_reaches_the_parents_after_the_batch_period() -> None:
    """The ClusterQueue handler adds each parent with ``AddAfter(req, UpdatesBatchPeriod)`` (1 s)."""
    w = _world(on_demand="1", spot="1")
    w.apply(flavor("reserved"), workload("wl-a", "lq", cpu="2"))  # fits nowhere: nothing changes
    w.settle(rounds=2)
    cq = w.cq("cq").to_dict()
    cq["spec"]["resourceGroups"][0]["flavors"].append(
        {"name": "reserved", "resources": [{"name": "cpu", "nominalQuota": "1"}]}
    )
    w.cp.client.update(ClusterQueue.model_validate(cq))
    w.cp.run_until_idle()
    w.cp.advance(0.999)
    assert sorted(_variants(w, "wl-a")) == ["on-demand", "spot"]
    w.cp.advance(0.001)
    assert sorted(_variants(w, "wl-a")) == ["on-demand", "reserved", "spot"]


def test_a_parent_name_without_a_dash_fails_its_reconcile_as_upstream_panics() -> None:
    """``getWorkloadBaseName`` slices up to the last ``-``: without one upstream panics, which
    controller-runtime recovers into an error (``RecoverPanic``), retried with back-off; no
    Variant is ever created, so the parent is never admitted."""
    w = _world()
    w.apply(workload("solo", "lq", cpu="1"))
    w.settle(rounds=3)
    assert (w.wl("solo").metadata.labels or {}).get(V.PARENT_LABEL) == "true"
    assert _variants(w, "solo") == {}
    assert not w.admitted("solo")


def test_with_short_workload_names_a_variant_name_fits_a_label_value() -> None:
    """``maxPrefixLength`` is 57 with ``ShortWorkloadNames`` (``shortMaxWorkloadNameLength`` 63)."""
    w = _world(gates=f"{ON},ShortWorkloadNames=true")
    parent = "job-" + "x" * 50 + "-abcde"
    w.apply(workload(parent, "lq", cpu="1"))
    w.settle(rounds=2)
    names = sorted(v.metadata.name or "" for v in _variants(w, parent).values())
    assert [len(n) for n in names] == [63, 63]
    assert {n[:57] for n in names} == {("job-" + "x" * 50 + "-variant-")[:57]}
    assert w.admitted(parent)


def test_a_live_variant_name_hashes_the_workload_kind_and_group() -> None:
    """``GetWorkloadNameForVariant`` hashes ``parent.GroupVersionKind()``: controller-runtime's cache
    reader (``CacheReader.Get``) sets it on the parent the live controller reads, so the hash is of
    ``Workload``/``kueue.x-k8s.io``; upstream's unit rows, through the fake client that clears it,
    hash empty strings (``wl-variant-spot-a2342``)."""
    parent = Workload.model_validate({"metadata": {"name": "wl-12345", "namespace": "default"}})
    assert V.variant_name(parent, "spot") == "wl-variant-spot-6e000"
    assert V.variant_name(parent, "on-demand") == "wl-variant-on-demand-dda31"
    assert V.variant_name(parent, "spot", gvk=("", "")) == "wl-variant-spot-a2342"
    w = _world()
    w.apply(workload("wl-a", "lq", cpu="1"))
    w.settle(rounds=2)
    for flavor_name, variant in _variants(w, "wl-a").items():
        assert variant.metadata.name == V.variant_name(w.wl("wl-a"), flavor_name)
