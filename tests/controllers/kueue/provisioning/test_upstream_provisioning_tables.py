"""Tables of kueue v0.19.2 ``pkg/controller/admissionchecks/provisioning`` tests on the pure parts:
``TestReqIsNeeded``, ``TestMergePodSetsSkipsZeroCounts``, ``TestActiveOrLastPRForChecks``'s naming
rules, ``TestUpdateCheckMessage``, the ``syncCheckStates`` rows of ``TestReconcile`` (on
:func:`~kbatch.controllers.kueue.provisioning.checkstate.next_state`), the podSetMergePolicy rows, and
``admissioncheck_reconciler_test.go`` ``TestReconcileAdmissionCheck`` through the API."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.autoscaling_x_v1 import ProvisioningRequest
from kbatch.api.kueue_v1beta2 import AdmissionCheck, AdmissionCheckState, ProvisioningRequestConfig, Workload
from kbatch.controllers.kueue.provisioning.checkstate import Facts, next_state, requeue_seconds
from kbatch.controllers.kueue.provisioning.naming import attempt_of, matches, pod_template_name, request_name
from kbatch.controllers.kueue.provisioning.podsets import (
    InconsistentAssignments,
    merge_pod_sets,
    request_needed,
)

from .world import CONTROLLER

CPU1 = {"requests": {"cpu": "1"}}


def _ps(name: str, count: int, resources: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    container = {"name": "c", "image": "busybox", "resources": resources or CPU1}
    return {"name": name, "count": count, "template": {"spec": {"containers": [container], **spec}}}


def _wl(*pod_sets: dict[str, Any], assignments: list[dict[str, Any]] | None = None) -> Workload:
    status = (
        {} if assignments is None else {"admission": {"clusterQueue": "q", "podSetAssignments": assignments}}
    )
    return Workload.model_validate(
        {"metadata": {"name": "wl", "namespace": "ns"}, "spec": {"podSets": list(pod_sets)}, "status": status}
    )


# --- TestReqIsNeeded --------------------------------------------------------------------------


def _req_wl(spec_count: int, admission_count: int | None, with_assignment: bool) -> Workload:
    psa: dict[str, Any] = {"name": "ps"}
    if admission_count is not None:
        psa["count"] = admission_count
    return _wl(_ps("ps", spec_count), assignments=[psa] if with_assignment else [])


@pytest.mark.parametrize(
    ("wl", "want"),
    [
        pytest.param(_req_wl(1, 1, True), True, id="positive admitted count needs request"),
        pytest.param(_req_wl(1, None, True), True, id="missing admitted count falls back to spec count"),
        pytest.param(_req_wl(1, 0, True), False, id="zero admitted count does not need request"),
        pytest.param(_req_wl(0, None, False), False, id="zero spec count does not require assignment"),
        pytest.param(
            _req_wl(1, None, False),
            InconsistentAssignments,
            id="missing assignment returns inconsistency error",
        ),
        pytest.param(
            _wl(_ps("ps1", 1), _ps("ps2", 1), assignments=[{"name": "ps1", "count": 1}]),
            True,
            id="needed podset short circuits later missing assignment",
        ),
    ],
)
def test_req_is_needed(wl: Workload, want: Any) -> None:
    if want is InconsistentAssignments:
        with pytest.raises(InconsistentAssignments):
            request_needed(wl, ["cpu"])
    else:
        assert request_needed(wl, ["cpu"]) is want


def test_merge_pod_sets_skips_zero_counts() -> None:
    wl = _wl(_ps("a", 2), _ps("b", 3), assignments=[{"name": "a", "count": 0}, {"name": "b", "count": 3}])
    assert [(m.name, m.count) for m in merge_pod_sets(wl, [], None)] == [("b", 3)]


# --- podSetMergePolicy ------------------------------------------------------------------------


def _three() -> Workload:
    other = {"requests": {"cpu": "1"}, "limits": {"cpu": "2"}}  # requests equal, template not
    return _wl(
        _ps("ps1", 3),
        _ps("ps2", 4),
        _ps("ps3", 2, other),
        assignments=[{"name": n} for n in ("ps1", "ps2", "ps3")],
    )


@pytest.mark.parametrize(
    ("policy", "want"),
    [
        (None, [("ps1", 3), ("ps2", 4), ("ps3", 2)]),
        ("IdenticalPodTemplates", [("ps1", 7), ("ps3", 2)]),
        ("IdenticalWorkloadSchedulingRequirements", [("ps1", 9)]),
    ],
)
def test_pod_set_merge_policy(policy: str | None, want: list[tuple[str, int]]) -> None:
    assert [(m.name, m.count) for m in merge_pod_sets(_three(), [], policy)] == want


def test_merge_without_assignments_is_inconsistent() -> None:
    """ "with podSetMergePolicy but no PodSetAssignments"."""
    with pytest.raises(InconsistentAssignments):
        merge_pod_sets(_wl(_ps("ps1", 1), assignments=[]), [], "IdenticalPodTemplates")


# --- names ------------------------------------------------------------------------------------


def test_names_attempts_and_the_hashed_limit() -> None:
    assert request_name("wl", "check", 3) == "wl-check-3"
    assert pod_template_name("wl-check-3", "main") == "ppt-wl-check-3-main"
    assert matches("wl-check-12", "wl", "check") and attempt_of("wl-check-12", "wl", "check") == 12
    assert not matches("wl-check-x", "wl", "check") and attempt_of("other", "wl", "check") == 1
    assert not matches("wl-2-check-1", "wl", "check")
    long = request_name("w" * 250, "check", 1)
    assert len(long) == 253 and long[:247] == "w" * 247 and long[247] == "-"
    assert request_name("w" * 250, "check", 1) != request_name("w" * 250, "check", 2)
    assert matches(request_name("w" * 250, "check", 2), "w" * 250, "check") is False  # hashed: no suffix


def test_backoff_seconds() -> None:
    """``UpdateAdmissionCheckRequeueState``: ``base·2^retryCount``, capped after the first step."""
    assert [requeue_seconds(n, 60, 1800) for n in range(7)] == [60, 120, 240, 480, 960, 1800, 1800]
    assert requeue_seconds(0, 100, 50) == 100 and requeue_seconds(1, 100, 50) == 50
    assert requeue_seconds(3, 0, 1800) == 0


# --- syncCheckStates --------------------------------------------------------------------------

_PRC = ProvisioningRequestConfig.model_validate(
    {
        "metadata": {"name": "config1"},
        "spec": {
            "provisioningClassName": "class1",
            "retryStrategy": {"backoffLimitCount": 2, "backoffBaseSeconds": 60, "backoffMaxSeconds": 1800},
        },
    }
)
_WL = _wl(_ps("main", 1), assignments=[{"name": "main"}])


def _pr(attempt: int, *conds: tuple[str, str, str]) -> ProvisioningRequest:
    return ProvisioningRequest.model_validate(
        {
            "metadata": {"name": f"wl-check1-{attempt}", "namespace": "ns"},
            "spec": {
                "provisioningClassName": "class1",
                "podSets": [{"podTemplateRef": {"name": f"ppt-wl-check1-{attempt}-main"}, "count": 1}],
            },
            "status": {
                "conditions": [
                    {
                        "type": t,
                        "status": s,
                        "reason": "R",
                        "message": m,
                        "lastTransitionTime": "2026-01-01T00:00:00Z",
                    }
                    for t, s, m in conds
                ]
            },
        }
    )


def _state(state: str = "Pending", message: str = "", retry: int | None = None) -> AdmissionCheckState:
    return AdmissionCheckState(
        name="check1",
        state=state,
        message=message,
        retry_count=retry,
        last_transition_time="2026-01-01T00:00:00Z",
    )


def _facts(admitted: bool = False, finished: bool = False) -> Facts:
    return Facts(_WL, admitted, True, finished)


ROWS: list[Any] = [
    (
        "when request fails and is retried",
        _state(),
        _facts(),
        _pr(1, ("Failed", "True", "oops")),
        ("Retry", "Retrying after failure: oops", 60),
    ),
    (
        "when request fails, and there is no retry",
        _state(retry=2),
        _facts(),
        _pr(3, ("Failed", "True", "oops")),
        ("Rejected", "oops", None),
    ),
    (
        "a failure of an older attempt does not retry again",
        _state(retry=1),
        _facts(),
        _pr(1, ("Failed", "True", "oops")),
        ("Pending", "Retrying after failure: oops", None),
    ),
    (
        "when request is provisioned",
        _state(),
        _facts(),
        _pr(1, ("Provisioned", "True", "ok")),
        ("Ready", "ok", None),
    ),
    (
        "CapacityRevoked on an unfinished workload rejects",
        _state("Ready"),
        _facts(admitted=True),
        _pr(1, ("Provisioned", "True", "ok"), ("CapacityRevoked", "True", "revoked")),
        ("Rejected", "revoked", None),
    ),
    (
        "CapacityRevoked on a finished workload does nothing",
        _state("Ready", "ok"),
        _facts(True, True),
        _pr(1, ("Provisioned", "True", "ok"), ("CapacityRevoked", "True", "revoked")),
        ("Ready", "ok", None),
    ),
    (
        "BookingExpired when admitted does nothing",
        _state("Ready", "ok"),
        _facts(admitted=True),
        _pr(1, ("Provisioned", "True", "ok"), ("BookingExpired", "True", "late")),
        ("Ready", "ok", None),
    ),
    (
        "BookingExpired before admission retries",
        _state(),
        _facts(),
        _pr(1, ("Provisioned", "True", "ok"), ("BookingExpired", "True", "late")),
        ("Retry", "Retrying after booking expired: late", 60),
    ),
    (
        "BookingExpired past the limit rejects",
        _state(retry=2),
        _facts(),
        _pr(3, ("BookingExpired", "True", "late")),
        ("Rejected", "late", None),
    ),
    (
        "when the request has no conditions yet the previous check message is cleared",
        _state(message="Error creating ProvisioningRequest"),
        _facts(),
        _pr(1),
        ("Pending", "", None),
    ),
    (
        "accepted with a Provisioned=False condition carries its message",
        _state(),
        _facts(),
        _pr(1, ("Accepted", "True", "a"), ("Provisioned", "False", "ETA 5m")),
        ("Pending", "ETA 5m", None),
    ),
]


@pytest.mark.parametrize(("current", "facts", "pr", "want"), [pytest.param(*r[1:], id=r[0]) for r in ROWS])
def test_sync_check_states(
    current: AdmissionCheckState, facts: Facts, pr: ProvisioningRequest, want: tuple[str, str, int | None]
) -> None:
    got = next_state(current, facts, _PRC, True, pr)
    assert got is not None
    assert (got.state, got.message, got.requeue_after_seconds) == want
    assert got.last_transition_time == current.last_transition_time
    assert current.state == _state(current.state or "").state  # the input is not changed


def test_inactive_not_needed_and_missing_request() -> None:
    assert next_state(_state(), _facts(), None, True, None).message == "the check is not active"
    ready = next_state(_state(), _facts(), _PRC, False, None)
    assert (ready.state, ready.message) == ("Ready", "the provisioning request is not needed")
    assert next_state(_state(), _facts(), _PRC, True, None) is None


# --- TestReconcileAdmissionCheck --------------------------------------------------------------


def _check(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "AdmissionCheck",
        "metadata": {"name": "check1"},
        "spec": {"controllerName": CONTROLLER, **spec},
    }


def _params(group: str = "kueue.x-k8s.io", kind: str = "ProvisioningRequestConfig") -> dict[str, Any]:
    return {"parameters": {"apiGroup": group, "kind": kind, "name": "config1"}}


CONFIG = {
    "apiVersion": "kueue.x-k8s.io/v1beta2",
    "kind": "ProvisioningRequestConfig",
    "metadata": {"name": "config1"},
    "spec": {"provisioningClassName": "class1"},
}


@pytest.mark.parametrize(
    ("objects", "want"),
    [
        pytest.param(
            [{**_check(), "spec": {"controllerName": "other-controller"}}], None, id="unrelated check"
        ),
        pytest.param(
            [_check()],
            ("False", "BadParametersRef", "missing parameters reference"),
            id="no parameters specified",
        ),
        pytest.param(
            [_check(**_params(group="bad.group"))],
            (
                "False",
                "BadParametersRef",
                'wrong group "bad.group", expecting "kueue.x-k8s.io": bad parameters reference',
            ),
            id="bad ref group",
        ),
        pytest.param(
            [_check(**_params(kind="BadKind"))],
            (
                "False",
                "BadParametersRef",
                'wrong kind "BadKind", expecting "ProvisioningRequestConfig": bad parameters reference',
            ),
            id="bad ref kind",
        ),
        pytest.param(
            [_check(**_params())],
            ("False", "BadParametersRef", 'provisioningrequestconfigs.kueue.x-k8s.io "config1" not found'),
            id="config missing",
        ),
        pytest.param(
            [_check(**_params()), CONFIG],
            ("True", "Active", "The admission check is active"),
            id="config found",
        ),
    ],
)
def test_reconcile_admission_check(objects: list[dict[str, Any]], want: tuple[str, str, str] | None) -> None:
    cp = ControlPlane(seed=1, controllers="kueue")
    cp.apply(objects)
    cp.run_until_idle()
    conds = cp.client.get(AdmissionCheck, "check1").status
    active = next((c for c in (conds.conditions if conds else None) or () if c.type == "Active"), None)
    if want is None:
        assert active is None
    else:
        assert (active.status, active.reason, active.message, active.observed_generation) == (*want, 1)


def test_a_config_created_later_activates_the_check() -> None:
    """The admission check controller watches configs (``prcHandler``)."""
    cp = ControlPlane(seed=1, controllers="kueue")
    cp.apply([_check(**_params())])
    cp.run_until_idle()
    cp.apply([CONFIG])
    cp.run_until_idle()
    active = next(c for c in cp.client.get(AdmissionCheck, "check1").status.conditions if c.type == "Active")
    assert (active.status, active.reason) == ("True", "Active")
