"""Manager quota automation, upstream's table through the live controllers.

Translates kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/clusterqueue_test.go``
(``TestCQReconcile``): each row is a manager ClusterQueue ``cq1`` (check ``ac1`` → config ``config1``),
its LocalQueues and the workers' queues → the ClusterQueue's quotas and its
``MultiKueueManagerQuotaAutomation`` condition. Here the manager and workers are control planes on one
clock (workers in process), so each row also runs the event wiring that brings the reconcile about.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from kbatch.api.kueue_v1beta2 import ClusterQueue

from .quota_world import Worker, build, condition, config, cq, lq, manager, quotas, reconcile

AUTOMATED = (
    "True",
    "QuotaAutomated",
    "ClusterQueue quota is automatically managed based on MultiKueue workers.",
)


@dataclass
class Row:
    cq: dict[str, Any]
    lqs: list[dict[str, Any]]
    cfg: dict[str, Any] | None
    workers: dict[str, Worker] = field(default_factory=dict)
    check_config: str = "config1"
    want_quotas: dict[str, str] | None = None  # None: the spec is left as it was
    want_condition: tuple[str, str, str] | None = None


ROWS: dict[str, Row] = {
    "multiple resources for single LQs and CQs": Row(
        cq("cq1", [("default", {"cpu": "0", "memory": "0"})], checks=("ac1",)),
        [lq("lq1", "cq1")],
        config("config1", ["worker1", "worker2"]),
        {
            "worker1": Worker(
                [lq("lq1", "w1-cq1"), cq("w1-cq1", [("default", {"cpu": "10", "memory": "20Gi"})])]
            ),
            "worker2": Worker(
                [lq("lq1", "w2-cq1"), cq("w2-cq1", [("default", {"cpu": "5", "memory": "10Gi"})])]
            ),
        },
        want_quotas={"cpu": "15", "memory": "30Gi"},
        want_condition=AUTOMATED,
    ),
    "unrelated CQs and inactive workers are ignored": Row(
        cq("cq1", [("default", {"cpu": "0"})], checks=("ac1",)),
        [lq("lq1", "cq1")],
        config("config1", ["worker1", "worker2"]),
        {
            "worker1": Worker(
                [
                    lq("lq1", "w1-cq1"),
                    cq("w1-cq1", [("default", {"cpu": "10"})]),
                    cq("w1-cq-unrelated", [("default", {"cpu": "100"})]),
                ]
            ),
            "worker2": Worker(
                [lq("lq1", "w2-cq1"), cq("w2-cq1", [("default", {"cpu": "500"})])], inactive=True
            ),
        },
        want_quotas={"cpu": "10"},
        want_condition=AUTOMATED,
    ),
    "multiple LQs pointing to same and different CQs on workers": Row(
        cq("cq1", [("default", {"cpu": "0"})], checks=("ac1",)),
        [lq("lq1", "cq1"), lq("lq2", "cq1")],
        config("config1", ["worker1", "worker2"]),
        {
            "worker1": Worker(
                [lq("lq1", "w1-cq1"), lq("lq2", "w1-cq1"), cq("w1-cq1", [("default", {"cpu": "10"})])]
            ),
            "worker2": Worker(
                [
                    lq("lq1", "w2-cq1"),
                    lq("lq2", "w2-cq2"),
                    cq("w2-cq1", [("default", {"cpu": "5"})]),
                    cq("w2-cq2", [("default", {"cpu": "8"})]),
                ]
            ),
        },
        want_quotas={"cpu": "23"},  # 10 + 5 + 8; w1-cq1 counted once
        want_condition=AUTOMATED,
    ),
    "multiple flavors and incompatible ResourceGroups across workers": Row(
        cq("cq1", [("default", {"cpu": "0", "gpu": "0"})], checks=("ac1",)),
        [lq("lq1", "cq1")],
        config("config1", ["worker1", "worker2"]),
        {
            "worker1": Worker(
                [
                    lq("lq1", "w1-cq1"),
                    cq("w1-cq1", [("default", {"cpu": "10"})], [("gpu", {"gpu": "1"})]),
                ]
            ),
            "worker2": Worker(
                [
                    lq("lq1", "w2-cq1"),
                    cq(
                        "w2-cq1", [("default", {"cpu": "5", "gpu": "2"}), ("other", {"cpu": "4", "gpu": "1"})]
                    ),
                ]
            ),
        },
        want_quotas={"cpu": "19", "gpu": "4"},
        want_condition=AUTOMATED,
    ),
    "workers with a subset of manager resources": Row(
        cq("cq1", [("default", {"cpu": "0", "memory": "0", "gpu": "0"})], checks=("ac1",)),
        [lq("lq1", "cq1")],
        config("config1", ["worker1", "worker2"]),
        {
            "worker1": Worker(
                [lq("lq1", "w1-cq1"), cq("w1-cq1", [("default", {"cpu": "10", "memory": "20Gi"})])]
            ),
            "worker2": Worker([lq("lq1", "w2-cq1"), cq("w2-cq1", [("default", {"cpu": "5"})])]),
        },
        want_quotas={"cpu": "15", "memory": "20Gi", "gpu": "0"},
        want_condition=AUTOMATED,
    ),
    "quota automation not requested": Row(
        cq("cq1", [("default", {"cpu": "100"})], checks=("ac1",)),
        [lq("lq1", "cq1")],
        config("config1", ["worker1"], mode="Manual"),
        {
            "worker1": Worker(
                [lq("lq1", "w1-cq1"), cq("w1-cq1", [("default", {"cpu": "10", "memory": "20Gi"})])]
            )
        },
        want_condition=(
            "False",
            "NotRequested",
            "MultiKueue manager quota automation has not been requested.",
        ),
    ),
    "quota automation unsupported for multiple manager flavors": Row(
        cq("cq1", [("default", {"cpu": "0"})], [("gpu", {"gpu": "0"})], checks=("ac1",)),
        [],
        config("config1", ["worker1"]),
        want_condition=(
            "False",
            "UnsupportedConfiguration",
            "Quota automation requires that the manager-side ClusterQueue has exactly one ResourceFlavor",
        ),
    ),
    "quota automation unsupported for missing manager covered resources": Row(
        cq("cq1", [("default", {"cpu": "0"})], checks=("ac1",)),
        [lq("lq1", "cq1")],
        config("config1", ["worker1"]),
        {
            "worker1": Worker(
                [lq("lq1", "w1-cq1"), cq("w1-cq1", [("default", {"memory": "10Gi", "gpu": "2"})])]
            )
        },
        want_condition=(
            "False",
            "UnsupportedConfiguration",
            "manager-side coveredResources is missing resources configured on workers: [gpu memory]",
        ),
    ),
    "not a MultiKueue manager ClusterQueue": Row(
        cq("cq1", [("default", {"cpu": "100"})]),
        [lq("lq1", "cq1")],
        None,
    ),
    "referenced MultiKueueConfig not found": Row(
        cq("cq1", [("default", {"cpu": "100"})], checks=("ac1",)),
        [],
        None,
        check_config="config-not-found",
        want_condition=(
            "False",
            "UnsupportedConfiguration",
            "The referenced MultiKueueConfig was not found.",
        ),
    ),
}


def _groups(m: Any) -> list[dict[str, Any]]:
    return [g.to_dict() for g in m.client.get(ClusterQueue, "cq1").spec.resource_groups]


@pytest.mark.parametrize("name", list(ROWS))
def test_cq_reconcile(name: str) -> None:
    row = ROWS[name]
    m = build(manager(row.cq, row.lqs, row.cfg, row.check_config), row.workers)
    if name == "not a MultiKueue manager ClusterQueue":  # upstream starts it with the condition True
        before = m.client.get(ClusterQueue, "cq1")
        m.client.patch_status(
            ClusterQueue,
            "cq1",
            {
                "status": {
                    "conditions": [
                        *[c.to_dict() for c in before.status.conditions or ()],
                        {
                            "type": "MultiKueueManagerQuotaAutomation",
                            "status": "True",
                            "reason": "QuotaAutomated",
                            "message": AUTOMATED[2],
                            "lastTransitionTime": "2026-01-01T00:00:00Z",
                        },
                    ]
                }
            },
        )
    applied = [g for g in row.cq["spec"]["resourceGroups"]]
    reconcile(m, "cq1")
    if row.want_quotas is None:
        got = _groups(m)
        assert [{"coveredResources": g["coveredResources"], "flavors": g["flavors"]} for g in got] == applied
    else:
        assert quotas(m, "cq1") == row.want_quotas
    assert condition(m, "cq1") == row.want_condition
