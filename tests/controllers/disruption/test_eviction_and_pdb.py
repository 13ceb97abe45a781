"""PodDisruptionBudget, pods/eviction and the disruption controller on a ControlPlane (docs/pdb.md)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Forbidden, Invalid, NotFound, StatusError, TooManyRequests
from kbatch.api.frozen import edit
from kbatch.api.policy_v1 import PodDisruptionBudget
from kbatch.apiserver.eviction import MultiplePDBs
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import NodeTemplate, add_pod_condition, create_nodes, evict_pod
from kbatch.testing import make_job, make_pod


def _cluster(pods: int = 3, app: str = "web") -> ControlPlane:
    cp = ControlPlane(seed=0)
    create_nodes(cp, 2, NodeTemplate())
    for i in range(pods):
        cp.client.create(make_pod(f"{app}-{i}").label("app", app).command("sleep 100000").obj())
    cp.advance(5)
    assert all(p.status.phase == "Running" for p in cp.client.list(Pod).items)
    return cp


def _pdb(cp: ControlPlane, name: str = "budget", selector: Any = None, **spec: Any) -> PodDisruptionBudget:
    body = {"metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "web"}} if selector is None else selector, **spec}}
    cp.client.create(PodDisruptionBudget.model_validate(body))
    cp.run_until_idle()
    return cp.client.get(PodDisruptionBudget, name, "default")


def _status(cp: ControlPlane, name: str = "budget") -> dict[str, Any]:
    return cp.client.get(PodDisruptionBudget, name, "default").status.to_dict()


def _gone(cp: ControlPlane, name: str) -> bool:
    try:
        cp.client.get(Pod, name, "default")
    except NotFound:
        return True
    return False


def test_status_counts_ready_pods_and_allows_the_difference() -> None:
    cp = _cluster()
    _pdb(cp, minAvailable=2)
    status = _status(cp)
    assert {k: status[k] for k in ("currentHealthy", "desiredHealthy", "expectedPods", "disruptionsAllowed",
                                   "observedGeneration")} == {
        "currentHealthy": 3, "desiredHealthy": 2, "expectedPods": 3, "disruptionsAllowed": 1,
        "observedGeneration": 1}
    cond = status["conditions"][0]
    assert (cond["type"], cond["status"], cond["reason"]) == ("DisruptionAllowed", "True", "SufficientPods")


def test_eviction_spends_the_budget_then_answers_429_with_the_cause() -> None:
    cp = _cluster()
    _pdb(cp, minAvailable=2)
    evict_pod(cp, "web-0")
    pod = cp.client.get(Pod, "web-0", "default")
    assert pod.metadata.deletion_timestamp is not None
    target = next(c for c in pod.status.conditions if c.type == "DisruptionTarget")
    assert (target.status, target.reason, target.message) == ("True", "EvictionByEvictionAPI",
                                                              "Eviction API: evicting")
    status = _status(cp)
    assert status["disruptionsAllowed"] == 0
    assert status["conditions"][0]["reason"] == "InsufficientPods"
    with pytest.raises(TooManyRequests) as err:
        evict_pod(cp, "web-1")
    assert err.value.message == "Cannot evict pod as it would violate the pod's disruption budget."
    cause = err.value.status.details.causes[0]
    assert (cause.reason, cause.message) == (
        "DisruptionBudget", "The disruption budget budget needs 2 healthy pods and has 2 currently")
    assert cp.client.get(Pod, "web-1", "default").metadata.deletion_timestamp is None


def test_max_unavailable_over_bare_pods_expects_no_pods() -> None:
    cp = ControlPlane(seed=0, controllers="scheduler,kubelet,disruption")
    create_nodes(cp, 1, NodeTemplate())
    for i in range(2):
        cp.client.create(make_pod(f"web-{i}").label("app", "web").command("sleep 100000").obj())
    cp.advance(5)
    _pdb(cp, maxUnavailable=1, selector={"matchLabels": {"app": "web"}})
    # bare pods with maxUnavailable: upstream needs the controllers' scale; unmanaged pods count 0
    assert _status(cp)["expectedPods"] == 0 and _status(cp)["disruptionsAllowed"] == 0


def test_percentages_round_up_for_both_fields() -> None:
    from kbatch.controllers.disruption import expected_pod_count, scaled_value

    assert [scaled_value("50%", 3), scaled_value("1%", 10), scaled_value("100%", 7)] == [2, 1, 7]

    class Spec:
        min_available: Any = None
        max_unavailable: Any = "34%"

    pods: list[Any] = []
    assert expected_pod_count(Spec(), pods, lambda ref, ns: None) == (0, 0, [])


def test_always_allow_evicts_an_unready_pod_without_spending_the_budget() -> None:
    cp = _cluster()
    _pdb(cp, minAvailable=3, unhealthyPodEvictionPolicy="AlwaysAllow")
    add_pod_condition(cp, "web-0", "Ready", status="False")
    assert _status(cp)["currentHealthy"] == 2
    evict_pod(cp, "web-0")
    assert cp.client.get(Pod, "web-0", "default").metadata.deletion_timestamp is not None
    assert "disruptedPods" not in _status(cp)


def test_if_healthy_budget_refuses_an_unready_pod_when_the_budget_is_not_met() -> None:
    cp = _cluster()
    _pdb(cp, minAvailable=3)
    add_pod_condition(cp, "web-0", "Ready", status="False")
    with pytest.raises(TooManyRequests):
        evict_pod(cp, "web-0")
    _pdb(cp, "other", selector={"matchLabels": {"app": "db"}}, minAvailable=1)  # unrelated budget
    cp.client.patch(PodDisruptionBudget, "budget", {"spec": {"minAvailable": 2}}, "default")
    cp.run_until_idle()  # currentHealthy 2 >= desiredHealthy 2 > 0: the unready pod may go
    evict_pod(cp, "web-0")
    assert cp.client.get(Pod, "web-0", "default").metadata.deletion_timestamp is not None
    assert _status(cp)["disruptionsAllowed"] == 0


def test_terminating_and_pending_pods_ignore_the_budget() -> None:
    cp = _cluster()
    _pdb(cp, minAvailable=3)
    cp.client.delete(Pod, "web-0", "default")
    evict_pod(cp, "web-0")  # already terminating: success
    cp.client.create(make_pod("web-pending").label("app", "web").node_selector(none="x").obj())
    cp.run_until_idle()
    evict_pod(cp, "web-pending")
    assert _gone(cp, "web-pending")


def test_two_budgets_for_one_pod_is_a_500() -> None:
    cp = _cluster()
    _pdb(cp, "a", minAvailable=1)
    _pdb(cp, "b", selector={}, minAvailable=1)  # policy/v1: an empty selector selects every pod
    with pytest.raises(MultiplePDBs) as err:
        evict_pod(cp, "web-0")
    assert err.value.status.code == 500 and err.value.status.reason is None
    assert "more than one PodDisruptionBudget" in err.value.message


def test_a_budget_not_yet_observed_is_still_being_processed() -> None:
    cp = ControlPlane(seed=0, controllers="scheduler,kubelet")  # no disruption controller
    create_nodes(cp, 1, NodeTemplate())
    cp.client.create(make_pod("web-0").label("app", "web").command("sleep 1000").obj())
    cp.advance(5)
    _pdb(cp, minAvailable=0)
    with pytest.raises(TooManyRequests) as err:
        evict_pod(cp, "web-0")
    assert err.value.status.details.retry_after_seconds == 10
    assert "is still being processed by the server" in err.value.status.details.causes[0].message


def test_job_pods_with_a_percent_budget_fail_sync_as_upstream() -> None:
    cp = ControlPlane(seed=0)
    create_nodes(cp, 1, NodeTemplate())
    cp.client.create(make_job("train").parallelism(2).completions(2).command("sleep 1000").obj())
    cp.advance(5)
    _pdb(cp, selector={"matchLabels": {"job-name": "train"}}, minAvailable="50%")
    status = _status(cp)
    cond = status["conditions"][0]
    assert (cond["status"], cond["reason"], cond["message"]) == (
        "False", "SyncFailed", "jobs.batch does not implement the scale subresource")
    assert status["disruptionsAllowed"] == 0
    with pytest.raises(TooManyRequests):  # observedGeneration was never set
        evict_pod(cp, cp.client.list(Pod).items[0].metadata.name)
    # an integer minAvailable needs no scale and works for Job pods
    cp.client.patch(PodDisruptionBudget, "budget", {"spec": {"minAvailable": 1}}, "default")
    cp.run_until_idle()
    assert _status(cp)["disruptionsAllowed"] == 1


def test_disrupted_pods_entry_expires_after_two_minutes_and_the_stale_condition_resets() -> None:
    cp = _cluster()
    _pdb(cp, minAvailable=2)
    pod = cp.client.get(Pod, "web-0", "default")
    # the eviction's budget write happened, but the delete never did (a failed apiserver, say)
    pdb = edit(cp.client.get(PodDisruptionBudget, "budget", "default"))
    pdb.status.disruptions_allowed = 0
    pdb.status.disrupted_pods = {"web-0": cp.server.timestamp()}
    cp.client.update_status(pdb)
    cp.client.patch_status(Pod, "web-0", {"status": {"conditions": [
        {"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI",
         "lastTransitionTime": pod.metadata.creation_timestamp.isoformat()}]}}, "default",
        patch_type="strategic")
    cp.run_until_idle()
    assert _status(cp)["currentHealthy"] == 2 and _status(cp)["disruptedPods"]
    cp.advance(timedelta(minutes=2, seconds=1).total_seconds())
    status = _status(cp)
    assert "disruptedPods" not in status
    assert status["currentHealthy"] == 3 and status["disruptionsAllowed"] == 1
    cond = next(c for c in cp.client.get(Pod, "web-0", "default").status.conditions
                if c.type == "DisruptionTarget")
    assert cond.status == "False" and cond.reason is None
    assert cond.observed_generation == 1  # the pod's generation (KEP-5067, syncStalePodDisruption)


@pytest.mark.parametrize(("spec", "message"), [
    ({"minAvailable": 1, "maxUnavailable": 1}, "minAvailable and maxUnavailable cannot be both set"),
    ({"minAvailable": "150%"}, "spec.minAvailable: Invalid value: \"150%\": must not be greater than 100%"),
    ({"maxUnavailable": -1}, "spec.maxUnavailable: Invalid value: -1: must be greater than or equal to 0"),
    ({"maxUnavailable": "x"}, "a valid percent string must be a numeric string followed by an ending '%'"),
    ({"unhealthyPodEvictionPolicy": "Never"}, 'spec.unhealthyPodEvictionPolicy: Unsupported value: "Never"'),
])
def test_validation(spec: dict[str, Any], message: str) -> None:
    cp = ControlPlane(seed=0, controllers="")
    with pytest.raises(Invalid) as err:
        cp.client.create(PodDisruptionBudget.model_validate(
            {"metadata": {"name": "b", "namespace": "default"}, "spec": spec}))
    assert message in err.value.message


def test_status_validation_rejects_negative_counters() -> None:
    cp = ControlPlane(seed=0, controllers="")
    _pdb(cp, minAvailable=1)
    pdb = edit(cp.client.get(PodDisruptionBudget, "budget", "default"))
    pdb.status.disruptions_allowed = -1
    with pytest.raises(Invalid) as err:
        cp.client.update_status(pdb)
    expected = "status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0"
    assert expected in err.value.message


def test_dry_run_eviction_changes_nothing() -> None:
    cp = _cluster()
    _pdb(cp, minAvailable=2)
    before = _status(cp)
    out = cp.client.evict("web-0", "default", dry_run=True)
    assert out.status == "Success"
    assert _status(cp) == before
    assert cp.client.get(Pod, "web-0", "default").metadata.deletion_timestamp is None


def test_negative_disruptions_allowed_is_forbidden() -> None:
    from kbatch.apiserver.eviction import _check_and_decrement

    cp = _cluster()
    pdb = edit(_pdb(cp, minAvailable=2))
    pdb.status.disruptions_allowed = -1
    with pytest.raises(Forbidden) as err:
        _check_and_decrement(cp.server, "web-0", pdb, False)
    assert err.value.message == ('poddisruptionbudget.policy "budget" is forbidden: '
                                 "pdb disruptions allowed is negative")


def test_eviction_name_must_match_the_url() -> None:
    from kbatch.api.policy_v1 import Eviction

    cp = _cluster(1)
    with pytest.raises(StatusError) as err:
        cp.server.evict("web-0", "default", Eviction.model_validate({"metadata": {"name": "other"}}))
    assert err.value.message == "name in URL does not match name in Eviction object"
