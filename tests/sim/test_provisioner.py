"""The simulated cluster-autoscaler's answers to ProvisioningRequests (kbatch.sim.provisioner): the
decision table (kubernetes/autoscaler ``checkcapacity/provisioningclass.go``, ``conditions.go``,
``processors/provreq/provisioning_request_processor.go``), the capacity count, and the controller on a
cluster: capacity found or not as the scheduler counts it, retried every loop, the booking expiring
after 10 minutes unless the pods consume it, and no work at all without requests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch import ControlPlane
from kbatch.api.autoscaling_x_v1 import ProvisioningRequest
from kbatch.sim.provisioner.answer import answer
from kbatch.sim.provisioner.capacity import FreeNode, PodShape, all_fit

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _pr(
    cls: str = "check-capacity.autoscaling.x-k8s.io",
    *conds: tuple[str, str, datetime],
    params: dict[str, str] | None = None,
) -> ProvisioningRequest:
    return ProvisioningRequest.model_validate(
        {
            "metadata": {
                "name": "pr",
                "namespace": "default",
                "generation": 1,
                "creationTimestamp": T0.isoformat(),
            },
            "spec": {
                "provisioningClassName": cls,
                "parameters": params or {},
                "podSets": [{"podTemplateRef": {"name": "pt"}, "count": 2}],
            },
            "status": {
                "conditions": [
                    {
                        "type": t,
                        "status": s,
                        "reason": "R",
                        "message": "",
                        "lastTransitionTime": at.isoformat(),
                    }
                    for t, s, at in conds
                ]
            },
        }
    )


def _summary(pr: ProvisioningRequest, now: datetime, found: bool | None, consumed: bool = False) -> Any:
    a = answer(pr, now, found, consumed)
    return [(c.type, c.status, c.reason, c.message) for c in a.conditions], a.requeue_after


@pytest.mark.parametrize(
    ("pr", "now", "found", "consumed", "want"),
    [
        pytest.param(
            _pr(),
            T0,
            True,
            False,
            (
                [
                    ("Accepted", "True", "Accepted", "ProvisioningRequest is accepted by ClusterAutoscaler"),
                    ("Provisioned", "True", "CapacityIsFound", "Capacity is found in the cluster"),
                ],
                600.0,
            ),
            id="found",
        ),
        pytest.param(
            _pr(),
            T0,
            False,
            False,
            (
                [
                    ("Accepted", "True", "Accepted", "ProvisioningRequest is accepted by ClusterAutoscaler"),
                    (
                        "Provisioned",
                        "False",
                        "CapacityIsNotFound",
                        "Capacity is not found, CA will try to find it later.",
                    ),
                ],
                10.0,
            ),
            id="not found: retried next loop",
        ),
        pytest.param(
            _pr(params={"noRetry": "true"}),
            T0,
            False,
            False,
            (
                [
                    ("Accepted", "True", "Accepted", "ProvisioningRequest is accepted by ClusterAutoscaler"),
                    ("Failed", "True", "CapacityIsNotFound", "CA could not find requested capacity"),
                ],
                0.0,
            ),
            id="noRetry",
        ),
        pytest.param(
            _pr("best-effort-atomic-scale-up.autoscaling.x-k8s.io", ("Accepted", "True", T0)),
            T0,
            True,
            False,
            ([("Provisioned", "True", "CapacityIsFound", "Capacity is found in the cluster")], 600.0),
            id="atomic scale-up answers as check-capacity",
        ),
        pytest.param(_pr("other.class"), T0, True, False, ([], 0.0), id="unsupported class"),
        pytest.param(
            _pr("check-capacity.autoscaling.x-k8s.io", ("Provisioned", "True", T0)),
            T0 + timedelta(minutes=4),
            None,
            False,
            ([], 360.0),
            id="booked",
        ),
        pytest.param(
            _pr("check-capacity.autoscaling.x-k8s.io", ("Provisioned", "True", T0)),
            T0 + timedelta(minutes=10),
            None,
            False,
            (
                [
                    (
                        "BookingExpired",
                        "True",
                        "CapacityReservationTimeExpired",
                        "Capacity reservation time is expired",
                    )
                ],
                0.0,
            ),
            id="booking expired",
        ),
        pytest.param(
            _pr("check-capacity.autoscaling.x-k8s.io", ("Provisioned", "True", T0)),
            T0 + timedelta(minutes=10),
            None,
            True,
            ([], 0.0),
            id="consumed booking does not expire",
        ),
        pytest.param(
            _pr("check-capacity.autoscaling.x-k8s.io", ("Failed", "True", T0)),
            T0,
            False,
            False,
            ([], 0.0),
            id="failed is left alone",
        ),
        pytest.param(
            _pr(),
            T0 + timedelta(days=7),
            False,
            False,
            ([("Failed", "True", "Expired", "ProvisioningRequest is expired")], 0.0),
            id="never provisioned in 7 days",
        ),
    ],
)
def test_answers(
    pr: ProvisioningRequest, now: datetime, found: bool | None, consumed: bool, want: Any
) -> None:
    assert _summary(pr, now, found, consumed) == want


def _node(name: str, cpu: int, used: int = 0, labels: dict[str, str] | None = None) -> FreeNode:
    return FreeNode(name, labels or {}, (), {"cpu": cpu, "pods": 110}, {"cpu": used})


@given(st.lists(st.integers(0, 8), min_size=1, max_size=4), st.integers(1, 4), st.integers(0, 12))
def test_all_fit_is_first_fit_packing_by_whole_pods(free: list[int], cpu: int, count: int) -> None:
    nodes = [_node(f"n{i}", 8, 8 - f) for i, f in enumerate(free)]
    pods = [PodShape({"cpu": cpu, "pods": 1})] * count
    assert all_fit(nodes, pods) == (sum(f // cpu for f in free) >= count)


def test_node_selector_and_taints_count() -> None:
    pod = PodShape({"cpu": 1, "pods": 1}, {"pool": "a"})
    assert not all_fit([_node("n", 8, labels={"pool": "b"})], [pod])
    assert all_fit([_node("n", 8, labels={"pool": "a"})], [pod])


# --- on a cluster -------------------------------------------------------------------------------


def _cluster(cpu: str = "4") -> ControlPlane:
    cp = ControlPlane(seed=1, controllers="*")
    cap = {"cpu": cpu, "memory": "8Gi", "pods": "110"}
    cp.apply(
        [
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": "n1"},
                "status": {"capacity": cap, "allocatable": cap},
            }
        ]
    )
    cp.run_until_idle()
    return cp


def _request(cp: ControlPlane, name: str, cpu: str, count: int) -> None:
    cp.apply(
        [
            {
                "apiVersion": "v1",
                "kind": "PodTemplate",
                "metadata": {"name": f"pt-{name}", "namespace": "default"},
                "template": {
                    "spec": {
                        "containers": [
                            {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": cpu}}}
                        ]
                    }
                },
            },
            {
                "apiVersion": "autoscaling.x-k8s.io/v1",
                "kind": "ProvisioningRequest",
                "metadata": {"name": name, "namespace": "default"},
                "spec": {
                    "provisioningClassName": "check-capacity.autoscaling.x-k8s.io",
                    "podSets": [{"podTemplateRef": {"name": f"pt-{name}"}, "count": count}],
                },
            },
        ]
    )
    cp.run_until_idle()


def _provisioned(cp: ControlPlane, name: str) -> tuple[str, str] | None:
    pr = cp.client.get(ProvisioningRequest, name, "default")
    cond = next(
        (c for c in (pr.status.conditions if pr.status else None) or () if c.type == "Provisioned"), None
    )
    return (cond.status, cond.reason) if cond else None


def test_capacity_found_for_all_pods_at_once_or_not_then_found_once_pods_leave() -> None:
    cp = _cluster("4")
    cp.apply(
        [
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "hog", "namespace": "default"},
                "spec": {
                    "nodeName": "n1",
                    "restartPolicy": "Never",
                    "containers": [
                        {
                            "name": "c",
                            "image": "busybox",
                            "command": ["sleep", "60"],
                            "resources": {"requests": {"cpu": "3"}},
                        }
                    ],
                },
            }
        ]
    )
    cp.run_until_idle()
    _request(cp, "fits", "500m", 2)
    _request(cp, "big", "1", 2)
    assert _provisioned(cp, "fits") == ("True", "CapacityIsFound")
    assert _provisioned(cp, "big") == ("False", "CapacityIsNotFound")
    cp.advance(70)  # the hog finishes; the next autoscaler loop finds room
    cp.run_until_idle()
    cp.advance(10)
    cp.run_until_idle()
    assert _provisioned(cp, "big") == ("True", "CapacityIsFound")


def test_the_booking_expires_after_ten_minutes() -> None:
    cp = _cluster()
    _request(cp, "pr", "1", 1)
    cp.advance(9 * 60)
    cp.run_until_idle()
    conds = {c.type: c for c in cp.client.get(ProvisioningRequest, "pr", "default").status.conditions}
    assert "BookingExpired" not in conds
    cp.advance(61)
    cp.run_until_idle()
    conds = {c.type: c for c in cp.client.get(ProvisioningRequest, "pr", "default").status.conditions}
    assert (conds["BookingExpired"].status, conds["BookingExpired"].reason) == (
        "True",
        "CapacityReservationTimeExpired",
    )


def test_no_requests_no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """The simulator is in the default set and reconciles only ProvisioningRequest events: a cluster
    running pods without requests never calls it."""
    from kbatch.sim.provisioner import Provisioner

    calls: list[Any] = []
    real = Provisioner.reconcile
    monkeypatch.setattr(Provisioner, "reconcile", lambda self, req: calls.append(req) or real(self, req))
    cp = _cluster()
    assert "provisioning-request-simulator" in [c.name for c in cp.manager.controllers]
    cp.apply(
        [
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "p", "namespace": "default"},
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "c", "image": "busybox", "command": ["sleep", "5"]}],
                },
            }
        ]
    )
    cp.run_until_idle()
    cp.advance(3600)
    cp.run_until_idle()
    assert calls == []
    _request(cp, "pr", "1", 1)
    assert {r.name for r in calls} == {"pr"}  # its create, and its own status write
