"""Upstream's Cohort admission table (CRD schema, then the webhook), through kbatch's API.

Source: kubernetes-sigs/kueue v0.19.2 ``test/integration/singlecluster/webhook/core/cohort_test.go``
("Validate Cohort on creation" entries and "Updating a Cohort"). Upstream checks which layer refuses:
``BeInvalidError`` (422, the CRD schema: patterns, ``minItems``/``maxItems``, CEL) or
``BeForbiddenError`` (403, the ``vcohort.kb.io`` webhook); so do these tests, by the error class.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.errors import Forbidden, Invalid

from .helpers import KUEUE
from .test_upstream_clusterqueue_webhook import fq, rg

OK = None


def cohort(
    name: str = "cohort", parent: str | None = None, groups: Any = None, weight: str | None = None
) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if parent is not None:
        spec["parentName"] = parent
    if groups is not None:
        spec["resourceGroups"] = groups
    if weight is not None:
        spec["fairSharing"] = {"weight": weight}
    return {"apiVersion": KUEUE, "kind": "Cohort", "metadata": {"name": name}, "spec": spec}


def _raw(covered: list[str], *flavors: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"coveredResources": covered, "flavors": list(flavors)}]


CASES = [
    ("Should allow default Cohort", cohort(), OK),
    ("Should allow valid parent name", cohort(parent="prod"), OK),
    ("Should reject invalid parent name", cohort(parent="@prod"), Invalid),
    (
        "ResourceGroup should have at least one flavor",
        cohort(groups=[{"coveredResources": [], "flavors": []}]),
        Invalid,
    ),
    (
        "FlavorQuota should have at least one resource",
        cohort(groups=_raw([], {"name": "foo", "resources": []})),
        Invalid,
    ),
    ("Should reject invalid flavor name", cohort(groups=[rg(fq("@x86", ("cpu", "5")))]), Invalid),
    (
        "Should allow valid resource name (@cpu: refused by the webhook)",
        cohort(groups=[rg(fq("x86", ("@cpu", "5")))]),
        Forbidden,
    ),
    (
        "Should reject too many flavors in resource group",
        cohort(groups=[rg(*[fq(f"f{i}", ("cpu",)) for i in range(65)])]),
        Invalid,
    ),
    (
        "Should reject too many resources in resource group",
        cohort(groups=[rg(fq("flavor", *[(f"cpu{i}",) for i in range(65)]))]),
        Invalid,
    ),
    ("Should allow resource with valid name", cohort(groups=[rg(fq("default", ("cpu",)))]), OK),
    ("Should reject resource with invalid name", cohort(groups=[rg(fq("default", ("@cpu",)))]), Forbidden),
    (
        "Should allow extended resources with valid name",
        cohort(groups=[rg(fq("default", ("example.com/gpu",)))]),
        OK,
    ),
    ("Should allow flavor with valid name", cohort(groups=[rg(fq("x86", ("cpu",)))]), OK),
    ("Should reject flavor with invalid name", cohort(groups=[rg(fq("x_86", ("cpu",)))]), Invalid),
    ("Should reject negative nominal quota", cohort(groups=[rg(fq("x86", ("cpu", "-1")))]), Forbidden),
    ("Should reject negative borrowing limit", cohort(groups=[rg(fq("x86", ("cpu", "1", "-1")))]), Forbidden),
    (
        "Should reject negative lending limit",
        cohort(groups=[rg(fq("x86", ("cpu", "1", "", "-1")))]),
        Forbidden,
    ),
    (
        "Should reject borrowingLimit when no parent",
        cohort(groups=[rg(fq("x86", ("cpu", "1", "1")))]),
        Forbidden,
    ),
    (
        "Should allow borrowingLimit 0 when parent exists",
        cohort(parent="parent", groups=[rg(fq("x86", ("cpu", "1", "0")))]),
        OK,
    ),
    (
        "Should allow borrowingLimit when parent exists",
        cohort(parent="parent", groups=[rg(fq("x86", ("cpu", "1", "1")))]),
        OK,
    ),
    (
        "Should reject lendingLimit when no parent",
        cohort(groups=[rg(fq("x86", ("cpu", "1", "", "1")))]),
        Forbidden,
    ),
    (
        "Should allow lendingLimit when parent exists",
        cohort(parent="parent", groups=[rg(fq("x86", ("cpu", "1", "", "1")))]),
        OK,
    ),
    (
        "Should allow lendingLimit 0 when parent exists",
        cohort(parent="parent", groups=[rg(fq("x86", ("cpu", "0", "", "0")))]),
        OK,
    ),
    (
        "Should allow lending limit to exceed nominal quota",
        cohort(parent="parent", groups=[rg(fq("x86", ("cpu", "3", "", "5")))]),
        OK,
    ),
    (
        "Should allow multiple resource groups",
        cohort(
            groups=[
                rg(fq("alpha", ("cpu",), ("memory",)), fq("beta", ("cpu",), ("memory",))),
                rg(fq("gamma", ("example.com/gpu",)), fq("omega", ("example.com/gpu",))),
            ]
        ),
        OK,
    ),
    (
        "Should reject resources in a flavor in different order",
        cohort(
            groups=_raw(
                ["cpu", "memory"], fq("alpha", ("cpu",), ("memory",)), fq("beta", ("memory",), ("cpu",))
            )
        ),
        Forbidden,
    ),
    (
        "Should reject missing resources in a flavor",
        cohort(groups=_raw(["cpu", "memory"], fq("alpha", ("cpu",)))),
        Invalid,
    ),
    (
        "Should reject resource not defined in resource group",
        cohort(groups=_raw(["cpu"], fq("alpha", ("cpu",), ("memory",)))),
        Invalid,
    ),
    (
        "Should reject resource in more than one resource group",
        cohort(groups=[rg(fq("alpha", ("cpu",), ("memory",))), rg(fq("beta", ("memory",)))]),
        Forbidden,
    ),
    (
        "Should reject flavor in more than one resource group",
        cohort(groups=[rg(fq("alpha", ("cpu",)), fq("beta", ("cpu",))), rg(fq("beta", ("memory",)))]),
        Forbidden,
    ),
    ("Should allow FairSharing weight", cohort(weight="1"), OK),
    ("Should allow zero FairSharing weight", cohort(weight="0"), OK),
    ("Should forbid negative FairSharing weight", cohort(weight="-1"), Forbidden),
    ("Should allow fractional FairSharing weight", cohort(weight="0.5"), OK),
    ("Should allow small FairSharing weight", cohort(weight="1m"), OK),
    ("Should allow even smaller FairSharing weight", cohort(weight="1u"), OK),
    ("Should allow smallest FairSharing weight", cohort(weight="2n"), OK),
    ("Should forbid threshold FairSharing weight", cohort(weight="1n"), Forbidden),
    ("Should forbid collapsed FairSharing weight", cohort(weight="0.0000000001"), Forbidden),
]


def _outcome(action: Any) -> type | None:
    try:
        action()
    except (Invalid, Forbidden) as err:
        return type(err)
    return None


@pytest.mark.parametrize(("doc", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_validate_cohort_on_creation(doc: dict[str, Any], want: type | None) -> None:
    cp = ControlPlane(controllers="kueue")
    assert _outcome(lambda: cp.apply([doc])) is want


@pytest.mark.parametrize(
    ("parent", "want"),
    [("cohort2", OK), ("@cohort2", Invalid)],
    ids=["Should update parent", "Should reject invalid parent"],
)
def test_updating_a_cohort(parent: str, want: type | None) -> None:
    cp = ControlPlane(controllers="kueue")
    cp.apply([cohort()])
    assert _outcome(lambda: cp.apply([cohort(parent=parent)])) is want
