"""Updates of bound pods: the scheduler derives the new PodInfo from the last one instead of
converting the pod again; the result is what a full conversion gives."""

from __future__ import annotations

from dataclasses import fields
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st
from kubelet.cluster import get_pod, pod_yaml, sim_cluster

from kbatch.api.core_v1 import Pod
from kbatch.api.frozen import edit
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


# -- the binding: a pending pod's info carried over to its bound version ------------------------
UPDATES = st.lists(st.sampled_from(["labels", "toleration", "ungate", "image", "nominate", "deadline"]),
                   max_size=4)


def _pending_pod(gated: bool, spread: bool) -> Pod:
    spec: dict = {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}],
                  "nodeSelector": {"zone": "a"}}
    if gated:
        spec["schedulingGates"] = [{"name": "g"}]
    if spread:
        spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable":
                                              "DoNotSchedule", "labelSelector": {"matchLabels": {"x": "y"}},
                                              "matchLabelKeys": ["app"]}]
    return Pod.model_validate({"metadata": {"name": "p", "namespace": "default", "labels": {"app": "a"}},
                               "spec": spec})


def _update(cp, step: str, n: int) -> None:
    pod = edit(cp.client.get(Pod, "p", "default"))
    if step == "nominate":
        cp.client.patch_status(Pod, "p", {"status": {"nominatedNodeName": f"n{n}"}}, "default")
        return
    if step == "labels":
        pod.metadata.labels = {"app": f"v{n}"}
    elif step == "toleration":
        pod.spec.tolerations = [*(pod.spec.tolerations or ()),
                                Pod.model_validate({"spec": {"containers": [], "tolerations": [
                                    {"key": f"k{n}", "operator": "Exists"}]}}).spec.tolerations[0]]
    elif step == "ungate":
        pod.spec.scheduling_gates = None
    elif step == "image":
        pod.spec.containers[0].image = f"i{n}"
    else:
        pod.spec.active_deadline_seconds = 1000 - n  # may only decrease
    cp.client.update(pod)


@settings(max_examples=60, deadline=None)
@given(st.booleans(), st.booleans(), UPDATES, UPDATES)
def test_a_bound_pods_info_derived_from_any_pending_version_equals_a_full_conversion(
        gated, spread, before, after) -> None:
    """Whatever happened to the pending pod (spec updates, labels, status), deriving the bound info
    from the info of any earlier pending version gives what converting the bound pod gives, and
    the derivation is used whenever only the binding changed the pod."""
    from kbatch.runtime.controlplane import ControlPlane

    cp = ControlPlane(seed=0, controllers="")
    cp.client.create(_pending_pod(gated, spread))
    versions = [cp.client.get(Pod, "p", "default")]
    for n, step in enumerate([*before, "ungate", *after]):
        _update(cp, step, n)
        versions.append(cp.client.get(Pod, "p", "default"))
    bound = cp.client.bind("p", "default", "n1", uid=versions[0].metadata.uid)
    expected = pod_info(bound, seq=7, creation=3.0)
    for version in versions:
        old = pod_info(version, seq=7, creation=3.0)
        derived = _bound_update(old, bound)
        if derived is not None:
            assert same(derived, expected)
    derived = _bound_update(pod_info(versions[-1], seq=7, creation=3.0), bound)
    assert derived is not None or (spread and bound.metadata.labels != versions[-1].metadata.labels)


def test_a_spec_change_since_the_pending_info_means_a_new_conversion() -> None:
    from kbatch.runtime.controlplane import ControlPlane

    cp = ControlPlane(seed=0, controllers="")
    cp.client.create(_pending_pod(False, False))
    first = pod_info(cp.client.get(Pod, "p", "default"))
    _update(cp, "toleration", 1)
    bound = cp.client.bind("p", "default", "n1")
    assert _bound_update(first, bound) is None
    assert pod_info(bound).tolerations != first.tolerations
