"""Retries of Kueue's ProvisioningRequest check (kueue v0.19.2 ``controller_test.go`` rows "when request
fails and is retried", "when request fails, and there is no retry", "workload retries/rejects the
admission check when is not admitted and receives the provisioning request's BookingExpired
condition", "when retry count is preserved but provisioning request was cleaned up"; the site page's
``retryStrategy``), through the API with the workload controller's eviction, requeue and
deactivation, and a property: attempts only grow and the Workload is never admitted while its check
is not Ready."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ..helpers import World
from .world import answer, check, prov_world, requests, submit


def _drive(w: World, answers: list[str], step: float = 5.0) -> list[str]:
    """Answer each new request with the next of ``answers``; the attempts seen, in order."""
    seen: list[str] = []
    for _ in range(80):
        w.settle(rounds=1, step=step)
        live = [n for n in requests(w) if n not in seen]
        for name in sorted(live):
            seen.append(name)
            if len(seen) <= len(answers):
                answer(w, name, answers[len(seen) - 1], message=f"answer {len(seen)}")
        assert not (w.admitted("wl") and check(w).state != "Ready")
        if w.wl("wl").spec.active is False or len(seen) > len(answers):
            break
    return seen


def test_a_failed_request_is_retried_under_the_next_attempt_then_rejected_past_the_limit() -> None:
    w = prov_world(retryStrategy={"backoffLimitCount": 2, "backoffBaseSeconds": 10, "backoffMaxSeconds": 60})
    submit(w)
    seen = _drive(w, ["Failed", "Failed", "Failed"])
    assert seen == ["wl-check1-1", "wl-check1-2", "wl-check1-3"]
    assert w.wl("wl").spec.active is False  # Rejected: deactivated
    events = [e[2] for e in w.events("wl") if e[1] == "AdmissionCheckUpdated"]
    assert events[0] == (
        "Admission check check1 updated state from Pending to Retry with message: "
        "Retrying after failure: answer 1"
    )
    assert (
        events[-1] == "Admission check check1 updated state from Pending to Rejected with message: answer 3"
    )


def test_the_retry_waits_its_back_off_while_holding_quota() -> None:
    """``requeueAfterSeconds`` (``UpdateAdmissionCheckRequeueState``) moves ``requeueAt``
    (``NeedsRequeueAtUpdate``): the eviction waits for it."""
    w = prov_world(retryStrategy={"backoffLimitCount": 3, "backoffBaseSeconds": 60, "backoffMaxSeconds": 600})
    submit(w)
    reserved_at = w.cond("wl", "QuotaReserved").last_transition_time
    answer(w, "wl-check1-1", "Failed")
    c = check(w)
    assert (c.state, c.requeue_after_seconds, c.message) == ("Retry", 60, "Retrying after failure: msg")
    rs = w.wl("wl").status.requeue_state
    assert rs.requeue_at == c.last_transition_time + timedelta(seconds=60)
    assert c.last_transition_time == reserved_at  # the state change keeps the check's time
    w.cp.advance(30)
    w.cp.run_until_idle()
    assert w.cond("wl", "Evicted") is None
    w.cp.advance(40)
    w.cp.run_until_idle()
    evicted = w.cond("wl", "Evicted")
    assert (evicted.status, evicted.reason) == ("True", "AdmissionCheck")
    assert (check(w).state, check(w).retry_count) == ("Pending", 1)


def test_no_retry_rejects_at_the_first_failure() -> None:
    w = prov_world(retryStrategy={"backoffLimitCount": 0})
    submit(w)
    answer(w, "wl-check1-1", "Failed", message="no capacity")
    w.settle(rounds=2)
    assert w.wl("wl").spec.active is False
    assert list(requests(w)) == []  # cleaned up on the eviction


def test_booking_expired_before_admission_is_retried_then_rejected() -> None:
    w = prov_world(retryStrategy={"backoffLimitCount": 1, "backoffBaseSeconds": 0})
    submit(w)
    seen = _drive(w, ["BookingExpired", "BookingExpired"])
    assert seen == ["wl-check1-1", "wl-check1-2"]
    assert w.wl("wl").spec.active is False
    assert any("Retrying after booking expired: answer 1" in e[2] for e in w.events("wl"))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(["Failed", "BookingExpired", "Provisioned"]), min_size=1, max_size=4),
    st.integers(min_value=0, max_value=3),
)
def test_attempts_grow_and_admission_waits_for_ready(answers: list[str], limit: int) -> None:
    w = prov_world(retryStrategy={"backoffLimitCount": limit, "backoffBaseSeconds": 0})
    submit(w)
    seen = _drive(w, answers)
    attempts = [int(n.rsplit("-", 1)[1]) for n in seen]
    assert attempts == list(range(1, len(attempts) + 1))  # one request per attempt, in order
    assert (len(seen), _final(w)) == _model(answers, limit)


def _final(w: World) -> str:
    if w.admitted("wl"):
        return "admitted"
    return "deactivated" if w.wl("wl").spec.active is False else "waiting"


def _model(answers: list[str], limit: int) -> tuple[int, str]:
    """Attempt i answered Provisioned admits; a failure retries while i <= backoffLimitCount, else
    the check is Rejected; past the answers the next attempt waits."""
    for i, a in enumerate(answers, start=1):
        if a == "Provisioned":
            return i, "admitted"
        if i > limit:
            return i, "deactivated"
    return len(answers) + 1, "waiting"


def test_a_bad_parameters_reference_is_retried_with_the_controllers_back_off() -> None:
    """``Reconcile`` returns ``ConfigForAdmissionCheck``'s error for a reference to another kind:
    controller-runtime retries it with its rate limiter (5 ms doubling), not only on the next
    AdmissionCheck or config event."""
    from kbatch.api.kueue_v1beta2 import AdmissionCheck

    w = prov_world()
    submit(w)
    assert requests(w) and w.reserved("wl")
    (ctl,) = [c for c in w.cp.manager.controllers if c.name == "kueue-provisioning-workload"]
    ref = {"apiGroup": "kueue.x-k8s.io", "kind": "BadKind", "name": "config1"}
    w.cp.client.patch(AdmissionCheck, "check1", {"spec": {"parameters": ref}})
    w.cp.run_until_idle()
    first = ctl.errors
    assert first >= 1
    w.cp.advance(1)  # 5 ms, 10 ms, 20 ms, …: several more attempts within the second
    assert ctl.errors - first >= 5
    conditions = w.cp.client.get(AdmissionCheck, "check1").status.conditions
    active = next(c for c in conditions if c.type == "Active")
    assert (active.status, active.reason, active.message) == (
        "False",
        "BadParametersRef",
        'wrong kind "BadKind", expecting "ProvisioningRequestConfig": bad parameters reference',
    )
