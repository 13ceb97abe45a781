"""Updates of bound pods: the scheduler derives the new PodInfo from the last one instead of
converting the pod again; the result is what a full conversion gives."""

from __future__ import annotations

from dataclasses import fields
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st
from kubelet.cluster import get_pod, pod_yaml, sim_cluster

from kbatch.api.core_v1 import Pod
from kbatch.controllers.scheduler.controller import _bound_update
from kbatch.controllers.scheduler.convert import pod_info

LABELS = st.dictionaries(st.sampled_from(["app", "tier", "zone"]), st.sampled_from(["a", "b"]), max_size=2)
TOLERATION = st.fixed_dictionaries({"key": st.sampled_from(["k1", "k2"]), "operator": st.just("Exists"),
                                    "effect": st.sampled_from(["NoSchedule", "NoExecute"])})
TOLERATIONS = st.lists(TOLERATION, max_size=2)


def model(labels, tolerations, phase, deleted, nominated, spread, node="n1", uid="u1") -> Pod:
    spec = {"nodeName": node, "tolerations": tolerations,
            "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}]}
    if spread:
        spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable":
                                              "DoNotSchedule", "labelSelector": {"matchLabels": {"x": "y"}},
                                              "matchLabelKeys": ["app"]}]
    meta = {"name": "p", "namespace": "default", "uid": uid, "labels": labels}
    if deleted:
        meta["deletionTimestamp"] = datetime(2024, 1, 1, tzinfo=UTC)
    return Pod.model_validate({"metadata": meta, "spec": spec,
                               "status": {"phase": phase, "nominatedNodeName": nominated}})


def same(a, b) -> bool:
    return all(getattr(a, f.name) == getattr(b, f.name) for f in fields(a))


STATES = st.tuples(LABELS, TOLERATIONS, st.sampled_from(["Pending", "Running", "Succeeded", "Failed"]),
                   st.booleans(), st.sampled_from([None, "n2"]))


@settings(max_examples=100, deadline=None)
@given(STATES, STATES, st.booleans())
def test_a_bound_pods_derived_info_equals_a_full_conversion(before, after, spread) -> None:
    labels, tolerations, *rest = after
    tolerations = before[1] + tolerations  # tolerations may only be added (ValidatePodUpdate)
    old = pod_info(model(*before, spread), seq=7, creation=3.0)
    new_model = model(labels, tolerations, *rest, spread)
    derived = _bound_update(old, new_model)
    expected = pod_info(new_model, seq=7, creation=3.0)
    if derived is None:
        assert spread and labels != before[0], "only a spread pod whose labels changed is converted again"
    else:
        assert same(derived, expected)
        assert (derived is old) == same(old, expected), "unchanged: the same object, no work"


def test_a_pod_that_is_not_bound_there_is_converted_again() -> None:
    running = model({}, [], "Running", False, None, False)
    assert _bound_update(pod_info(model({}, [], "Pending", False, None, False, node=None)), running) is None
    assert _bound_update(pod_info(model({}, [], "Running", False, None, False, node="n2")), running) is None
    other = model({}, [], "Running", False, None, False, uid="u2")
    assert _bound_update(pod_info(running), other) is None, "same name, another pod"


def test_finished_pods_run_no_scheduling_cycle_when_nothing_waits() -> None:
    cp = sim_cluster(1)
    for name in ("a", "b", "c"):
        cp.apply(pod_yaml(name, "sleep 10"))
    scheduler = cp.manager.get("scheduler")
    cycles = scheduler.reconciles
    cp.advance(10)
    assert {get_pod(cp, n).status.phase for n in ("a", "b", "c")} == {"Succeeded"}
    assert scheduler.reconciles == cycles, "freed resources matter only to pods that wait for them"
    assert scheduler.reconciler._infos == {}, "finished pods are forgotten: they hold nothing"
    assert all(not node.pods for node in scheduler.reconciler.snapshot)


def test_a_bound_pod_failed_by_another_writer_frees_its_share_of_the_node() -> None:
    cp = sim_cluster(1, controllers="scheduler")
    cp.apply(pod_yaml("p", "sleep 10"))
    scheduler = cp.manager.get("scheduler").reconciler
    assert [info.key for node in scheduler.snapshot for info in node.pods.values()] == ["default/p"]
    cp.client.patch_status(Pod, "p", {"status": {"phase": "Failed"}}, "default")
    cp.run_until_idle()
    assert all(not node.pods for node in scheduler.snapshot) and scheduler._infos == {}
