"""Upstream's ClusterQueue admission integration test (CRD schema and defaults, then the webhooks).

Source: kubernetes-sigs/kueue v0.19.2 ``test/integration/singlecluster/webhook/core/clusterqueue_test.go``
("Creating a ClusterQueue" defaults table, the two update cases, "Validate ClusterQueue on creation").
Upstream checks which layer refuses: ``BeInvalidError`` (422, the CRD schema) or ``BeForbiddenError``
(403, ``vclusterqueue.kb.io``); so do these tests. Upstream builds objects in Go and sends their JSON,
whose ``omitempty`` leaves an empty string out: ``QueueingStrategy("")`` and an empty
``ClusterQueuePreemption{}``'s policies are sent absent and get the CRD's defaults, and so they are
sent here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.errors import Forbidden, Invalid

from .helpers import KUEUE
from .test_upstream_clusterqueue_webhook import fq, rg

OK = None
FINALIZER = "kueue.x-k8s.io/resource-in-use"
DEFAULT_FUNGIBILITY = {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"}


def cq(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": "cluster-queue"}, "spec": spec}


def _outcome(action: Callable[[], Any]) -> type | None:
    try:
        action()
    except (Invalid, Forbidden) as err:
        return type(err)
    return None


def _stored(cp: ControlPlane) -> dict[str, Any]:
    return cp.server.unstructured.get(KUEUE, "ClusterQueue", "cluster-queue", None)


NEVER = {
    "withinClusterQueue": "Never",
    "reclaimWithinCohort": "Never",
    "borrowWithinCohort": {"policy": "Never"},
}
OVERRIDDEN = {
    "withinClusterQueue": "LowerPriority",
    "reclaimWithinCohort": "Any",
    "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 100},
}


@pytest.mark.parametrize(
    ("spec", "want"),
    [
        (
            {},
            {
                "queueingStrategy": "BestEffortFIFO",
                "stopPolicy": "None",
                "flavorFungibility": DEFAULT_FUNGIBILITY,
                "preemption": NEVER,
            },
        ),
        (
            {"flavorFungibility": DEFAULT_FUNGIBILITY, "preemption": OVERRIDDEN},
            {
                "queueingStrategy": "BestEffortFIFO",
                "stopPolicy": "None",
                "flavorFungibility": DEFAULT_FUNGIBILITY,
                "preemption": OVERRIDDEN,
            },
        ),
        (
            {"fairSharing": {}},
            {
                "queueingStrategy": "BestEffortFIFO",
                "stopPolicy": "None",
                "flavorFungibility": DEFAULT_FUNGIBILITY,
                "preemption": NEVER,
                "fairSharing": {"weight": "1"},
            },
        ),
    ],
    ids=["All defaults", "Preemption overridden", "Default fair sharing"],
)
def test_defaults_on_creation(spec: dict[str, Any], want: dict[str, Any]) -> None:
    cp = ControlPlane(controllers="kueue")
    cp.apply([cq(**spec)])
    stored = _stored(cp)
    assert stored["metadata"]["finalizers"] == [FINALIZER]
    got = {k: stored["spec"][k] for k in want}
    got["flavorFungibility"] = {k: got["flavorFungibility"][k] for k in DEFAULT_FUNGIBILITY}
    assert got == want


@pytest.mark.parametrize(
    ("start", "change", "want"),
    [
        ({}, lambda s: s["resourceGroups"][0]["flavors"][0].update(name="@x86"), Invalid),
        ({"queueingStrategy": "StrictFIFO"}, lambda s: s.update(queueingStrategy="BestEffortFIFO"), OK),
    ],
    ids=[
        "Should have qualified flavor names when updating",
        "Should allow to update queueingStrategy with different value",
    ],
)
def test_updates(start: dict[str, Any], change: Callable[[dict[str, Any]], Any], want: type | None) -> None:
    cp = ControlPlane(controllers="kueue")
    cp.apply([cq(resourceGroups=[rg(fq("x86", ("memory",)))], **start)])
    obj = _stored(cp)
    change(obj["spec"])
    assert _outcome(lambda: cp.server.unstructured.update(obj)) is want


def _raw(covered: list[str], *flavors: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"coveredResources": covered, "flavors": list(flavors)}]


CREATE = [
    (
        "Should have non-negative borrowing limit",
        cq(cohortName="cohort", resourceGroups=[rg(fq("x86", ("cpu", "2", "-1")))]),
        Forbidden,
    ),
    ("Should have non-negative quota value", cq(resourceGroups=[rg(fq("x86", ("cpu", "-1")))]), Forbidden),
    (
        "Should have at least one flavor",
        cq(resourceGroups=[{"coveredResources": [], "flavors": []}]),
        Invalid,
    ),
    (
        "Should have at least one resource",
        cq(resourceGroups=_raw([], {"name": "foo", "resources": []})),
        Invalid,
    ),
    ("Should have qualified flavor name", cq(resourceGroups=[rg(fq("invalid_name", ("cpu", "5")))]), Invalid),
    ("Should have qualified resource name", cq(resourceGroups=[rg(fq("x86", ("@cpu", "5")))]), Forbidden),
    (
        "Should have valid resources quantity",
        cq(resourceGroups=[rg(fq("flavor", *[(f"r{i}",) for i in range(65)]))]),
        Invalid,
    ),
    (
        "Should have valid flavors quantity",
        cq(resourceGroups=[rg(*[fq(f"f{i}", ("cpu",)) for i in range(65)])]),
        Invalid,
    ),
    (
        "Should forbid clusterQueue creation with unqualified labelSelector",
        cq(namespaceSelector={"matchLabels": {"nospecialchars^=@": "bar"}}),
        Forbidden,
    ),
    (
        "Should forbid to create clusterQueue with unknown clusterQueueingStrategy",
        cq(queueingStrategy="unknown"),
        Invalid,
    ),
    ("Should allow to create clusterQueue with empty clusterQueueingStrategy", cq(), OK),
    ("Should allow to create clusterQueue with empty preemption", cq(preemption={}), OK),
    (
        "Should allow to create clusterQueue with preemption policies",
        cq(
            preemption={"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
            flavorFungibility=DEFAULT_FUNGIBILITY,
        ),
        OK,
    ),
    (
        "Should forbid to create clusterQueue with unknown preemption.withinCohort",
        cq(preemption={"reclaimWithinCohort": "unknown"}),
        Invalid,
    ),
    (
        "Should forbid to create clusterQueue with unknown preemption.withinClusterQueue",
        cq(preemption={"withinClusterQueue": "unknown"}),
        Invalid,
    ),
    (
        "Should allow to create clusterQueue with built-in resources with qualified names",
        cq(resourceGroups=[rg(fq("default", ("cpu",)))]),
        OK,
    ),
    (
        "Should forbid to create clusterQueue with invalid resource name",
        cq(resourceGroups=[rg(fq("default", ("@cpu",)))]),
        Forbidden,
    ),
    ("Should allow to create clusterQueue with valid cohort", cq(cohortName="prod"), OK),
    ("Should forbid to create clusterQueue with invalid cohort", cq(cohortName="@prod"), Invalid),
    (
        "Should allow to create clusterQueue with extended resources with qualified names",
        cq(resourceGroups=[rg(fq("default", ("example.com/gpu",)))]),
        OK,
    ),
    (
        "Should allow to create clusterQueue with flavor with qualified names",
        cq(resourceGroups=[rg(fq("default", ("cpu",)))]),
        OK,
    ),
    (
        "Should forbid to create clusterQueue with flavor with unqualified names",
        cq(resourceGroups=[rg(fq("invalid_name", ("cpu",)))]),
        Invalid,
    ),
    (
        "Should forbid to create clusterQueue with flavor quota with negative value",
        cq(resourceGroups=[rg(fq("x86", ("cpu", "-1")))]),
        Forbidden,
    ),
    (
        "Should allow to create clusterQueue with flavor quota with zero values",
        cq(resourceGroups=[rg(fq("x86", ("cpu", "0")))]),
        OK,
    ),
    (
        "Should allow to create clusterQueue with flavor quota with borrowingLimit 0",
        cq(cohortName="cohort", resourceGroups=[rg(fq("x86", ("cpu", "1", "0")))]),
        OK,
    ),
    (
        "Should forbid to create clusterQueue with flavor quota with negative borrowingLimit",
        cq(cohortName="cohort", resourceGroups=[rg(fq("x86", ("cpu", "1", "-1")))]),
        Forbidden,
    ),
    (
        "Should forbid to create clusterQueue with flavor quota with borrowingLimit and empty cohort",
        cq(resourceGroups=[rg(fq("x86", ("cpu", "1", "1")))]),
        Invalid,
    ),
    ("Should allow to create clusterQueue with empty queueing strategy", cq(), OK),
    (
        "Should forbid to create clusterQueue with namespaceSelector with invalid labels",
        cq(namespaceSelector={"matchLabels": {"nospecialchars^=@": "bar"}}),
        Forbidden,
    ),
    (
        "Should forbid to create clusterQueue with namespaceSelector with invalid expressions",
        cq(namespaceSelector={"matchExpressions": [{"key": "key", "operator": "In"}]}),
        Forbidden,
    ),
    (
        "Should allow to create clusterQueue with multiple resource groups",
        cq(
            resourceGroups=[
                rg(fq("alpha", ("cpu",), ("memory",)), fq("beta", ("cpu",), ("memory",))),
                rg(fq("gamma", ("example.com/gpu",)), fq("omega", ("example.com/gpu",))),
            ]
        ),
        OK,
    ),
    (
        "Should forbid to create clusterQueue with resources in a flavor in different order",
        cq(
            resourceGroups=_raw(
                ["cpu", "memory"], fq("alpha", ("cpu",), ("memory",)), fq("beta", ("memory",), ("cpu",))
            )
        ),
        Forbidden,
    ),
    (
        "Should forbid to create clusterQueue missing resources in a flavor",
        cq(resourceGroups=_raw(["cpu", "memory"], fq("alpha", ("cpu",)))),
        Invalid,
    ),
    (
        "Should forbid to create clusterQueue missing resources in a flavor (2)",
        cq(resourceGroups=_raw(["cpu"], fq("alpha", ("cpu",), ("memory",)))),
        Invalid,
    ),
    (
        "Should forbid to create clusterQueue missing resources in a flavor and mismatch",
        cq(resourceGroups=_raw(["blah"], fq("alpha", ("cpu",), ("memory",)))),
        Invalid,
    ),
    (
        "Should forbid to create clusterQueue with resource in more than one resource group",
        cq(resourceGroups=[rg(fq("alpha", ("cpu",), ("memory",))), rg(fq("beta", ("memory",)))]),
        Forbidden,
    ),
    (
        "Should forbid to create clusterQueue with flavor in more than one resource group",
        cq(resourceGroups=[rg(fq("alpha", ("cpu",)), fq("beta", ("cpu",))), rg(fq("beta", ("memory",)))]),
        Forbidden,
    ),
    (
        "Should forbid to create clusterQueue missing with invalid preemption due to "
        "reclaimWithinCohort=Never, while borrowWithinCohort!=nil",
        cq(
            preemption={
                "reclaimWithinCohort": "Never",
                "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 10},
            }
        ),
        Invalid,
    ),
    (
        "Should allow to create clusterQueue with valid preemption with borrowWithinCohort",
        cq(
            preemption={
                "reclaimWithinCohort": "LowerPriority",
                "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 10},
            }
        ),
        OK,
    ),
    (
        "Should allow to create clusterQueue with existing cluster queue created with older Kueue "
        "version that has a nil borrowWithinCohort field",
        cq(preemption={"reclaimWithinCohort": "Never"}),
        OK,
    ),
    ("Should allow zero FairSharing weight", cq(fairSharing={"weight": "0"}), OK),
    ("Should allow fractional FairSharing weight", cq(fairSharing={"weight": "0.5"}), OK),
    ("Should allow small FairSharing weight", cq(fairSharing={"weight": "1m"}), OK),
    ("Should allow even smaller FairSharing weight", cq(fairSharing={"weight": "1u"}), OK),
    ("Should allow smallest FairSharing weight", cq(fairSharing={"weight": "2n"}), OK),
    ("Should forbid threshold FairSharing weight", cq(fairSharing={"weight": "1n"}), Forbidden),
    ("Should forbid collapsed FairSharing weight", cq(fairSharing={"weight": "0.0000000001"}), Forbidden),
    ("Should forbid negative FairSharing weight", cq(fairSharing={"weight": "-1"}), Forbidden),
]


@pytest.mark.parametrize(("doc", "want"), [c[1:] for c in CREATE], ids=[c[0] for c in CREATE])
def test_validate_cluster_queue_on_creation(doc: dict[str, Any], want: type | None) -> None:
    cp = ControlPlane(controllers="kueue")
    assert _outcome(lambda: cp.apply([doc])) is want
    if want is OK:  # "Validating that defaults are set"
        spec = _stored(cp)["spec"]
        assert spec["queueingStrategy"]
        assert spec["preemption"]["reclaimWithinCohort"] and spec["preemption"]["withinClusterQueue"]
