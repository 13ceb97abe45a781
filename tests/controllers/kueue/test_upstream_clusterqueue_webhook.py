"""Upstream's ClusterQueue, Cohort and ResourceFlavor webhook tables, through kbatch's API.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/webhooks/clusterqueue_webhook_test.go``
(``TestValidateClusterQueue``, ``TestValidateClusterQueueUpdate``, ``TestValidateTotalFlavors``,
``TestValidateTotalCoveredResources``, ``TestValidateFlavorResourceCombinations``),
``cohort_webhook_test.go`` (``TestValidateCohort``) and ``resourceflavor_webhook_test.go``
(``TestValidateResourceFlavor``). Each case is created (and, for updates, updated) as a user's object
goes: the CRD schema first, then the webhooks. Upstream compares errors' types and paths; so do these
tests (``upstream_denials.causes``). ``TestValidateClusterQueue`` runs with ``ConcurrentAdmission``
on (``SetFeatureGateDuringTest``), so do these rows.

Rows an API server refuses before the webhook (the CRD's enum, ``required`` or CEL rule) check that
refusal: the fungibility "preference" rows (the CRD's CEL rule on
``spec.flavorFungibility`` refuses them first), "ConcurrentAdmissionPolicy constraints with empty
migration mode is allowed" (``migration.mode`` is required and enumerated). The two "legacy cluster
queue with invalid onFlavors" rows start from an object only an older Kueue could have stored; they
run the webhook's validation on the decoded objects. "empty queueing strategy is supported" is sent
as a Go client sends ``QueueingStrategy("")`` (``omitempty``: absent, so defaulted); an explicit
``queueingStrategy: ""`` is outside the CRD's enum and refused (``test_explicit_empty_...``).
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.errors import StatusError
from kbatch.api.features import FeatureGates
from kbatch.api.kueue_v1beta2 import ClusterQueue
from kbatch.api.strategies.kueue.schemas import DNS_SUBDOMAIN
from kbatch.controllers.kueue.webhooks.kinds import validate_cluster_queue
from kbatch.families.kueue.gates import KUEUE_GATES

from .helpers import KUEUE, flavor
from .upstream_denials import causes, refusal

CAP_ON = {"ConcurrentAdmission": True}
RG = "spec.resourceGroups"
INVALID, DUP, UNSUPPORTED = "FieldValueInvalid", "FieldValueDuplicate", "FieldValueNotSupported"
REQUIRED, FORBIDDEN = "FieldValueRequired", "FieldValueForbidden"


def cq(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": "cluster-queue"}, "spec": spec}


def fq(name: str, *resources: tuple[str, ...]) -> dict[str, Any]:
    """``MakeFlavorQuotas(name).Resource(name, nominal, borrowing, lending)``: "" leaves a limit out."""
    out = []
    for r in resources:
        q: dict[str, Any] = {"name": r[0], "nominalQuota": r[1] if len(r) > 1 else "0"}
        for key, i in (("borrowingLimit", 2), ("lendingLimit", 3)):
            if len(r) > i and r[i] != "":
                q[key] = r[i]
        out.append(q)
    return {"name": name, "resources": out}


def rg(*flavors: dict[str, Any]) -> dict[str, Any]:
    """``ResourceGroup(...)``: covered resources are the first flavor's, as the wrapper does."""
    return {"coveredResources": [r["name"] for r in flavors[0]["resources"]], "flavors": list(flavors)}


def acs(check: str, *on: str) -> dict[str, Any]:
    return {"admissionChecks": [{"name": check, "onFlavors": list(on)}]}


def cap(mode: str | None = "TryPreferredFlavors", last: str | None = None) -> dict[str, Any]:
    migration: dict[str, Any] = {} if mode is None else {"mode": mode}
    if last is not None:
        migration["constraints"] = {"lastAcceptableFlavorName": last}
    return {"migration": migration}


def create(doc: dict[str, Any], gates: dict[str, bool] | None = None) -> list[tuple[str, str]]:
    cp = ControlPlane(controllers="kueue", feature_gates=gates or {})
    return refusal(lambda: cp.apply([doc]))


def q0(field: str, flavor_index: int = 0) -> str:
    return f"{RG}[0].flavors[{flavor_index}].resources[0].{field}"


# TestValidateClusterQueue: (name, spec, want)
CREATE = [
    ("built-in resources with qualified names", cq(resourceGroups=[rg(fq("default", ("cpu",)))]), []),
    (
        "invalid resource name",
        cq(resourceGroups=[rg(fq("default", ("@cpu",)))]),
        [(INVALID, f"{RG}[0].coveredResources[0]")],
    ),
    ("admissionChecks defined", cq(admissionChecksStrategy=acs("ac1")), []),
    (
        "admissionCheckStrategy defined with a valid flavor",
        cq(resourceGroups=[rg(fq("flavor1", ("cpu",)))], admissionChecksStrategy=acs("ac1", "flavor1")),
        [],
    ),
    (
        "admissionCheckStrategy refers to a flavor that is not in quota",
        cq(admissionChecksStrategy=acs("ac1", "flavor1")),
        [(UNSUPPORTED, "spec.admissionChecksStrategy.admissionChecks[0].onFlavors[0]")],
    ),
    ("in cohort", cq(cohortName="prod"), []),
    (
        "extended resources with qualified names",
        cq(resourceGroups=[rg(fq("default", ("example.com/gpu",)))]),
        [],
    ),
    ("flavor with qualified names", cq(resourceGroups=[rg(fq("x86", ("cpu",)))]), []),
    (
        "flavor quota with negative value",
        cq(resourceGroups=[rg(fq("x86", ("cpu", "-1")))]),
        [(INVALID, q0("nominalQuota"))],
    ),
    ("flavor quota with zero value", cq(resourceGroups=[rg(fq("x86", ("cpu", "0")))]), []),
    (
        "flavor quota with borrowingLimit 0",
        cq(cohortName="cohort", resourceGroups=[rg(fq("x86", ("cpu", "1", "0")))]),
        [],
    ),
    (
        "flavor quota with negative borrowingLimit",
        cq(cohortName="cohort", resourceGroups=[rg(fq("x86", ("cpu", "1", "-1")))]),
        [(INVALID, q0("borrowingLimit"))],
    ),
    (
        "flavor quota with lendingLimit 0",
        cq(cohortName="cohort", resourceGroups=[rg(fq("x86", ("cpu", "1", "", "0")))]),
        [],
    ),
    (
        "flavor quota with negative lendingLimit",
        cq(cohortName="cohort", resourceGroups=[rg(fq("x86", ("cpu", "1", "", "-1")))]),
        [(INVALID, q0("lendingLimit"))],
    ),
    (
        "flavor quota with lendingLimit and empty cohort",
        cq(resourceGroups=[rg(fq("x86", ("cpu", "1", "", "1")))]),
        [(INVALID, q0("lendingLimit"))],
    ),
    (
        "flavor quota with lendingLimit greater than nominalQuota",
        cq(cohortName="cohort", resourceGroups=[rg(fq("x86", ("cpu", "1", "", "2")))]),
        [(INVALID, q0("lendingLimit"))],
    ),
    (
        "namespaceSelector with invalid labels",
        cq(namespaceSelector={"matchLabels": {"nospecialchars^=@": "bar"}}),
        [(INVALID, "spec.namespaceSelector.matchLabels")],
    ),
    (
        "namespaceSelector with invalid expressions",
        cq(namespaceSelector={"matchExpressions": [{"key": "key", "operator": "In"}]}),
        [(REQUIRED, "spec.namespaceSelector.matchExpressions[0].values")],
    ),
    (
        "multiple resource groups",
        cq(
            resourceGroups=[
                rg(fq("alpha", ("cpu",), ("memory",)), fq("beta", ("cpu",), ("memory",))),
                rg(fq("gamma", ("example.com/gpu",)), fq("omega", ("example.com/gpu",))),
            ]
        ),
        [],
    ),
    (
        "resources in a flavor in different order",
        cq(
            resourceGroups=[
                {
                    "coveredResources": ["cpu", "memory"],
                    "flavors": [fq("alpha", ("cpu",), ("memory",)), fq("beta", ("memory",), ("cpu",))],
                }
            ]
        ),
        [
            (INVALID, f"{RG}[0].flavors[1].resources[0].name"),
            (INVALID, f"{RG}[0].flavors[1].resources[1].name"),
        ],
    ),
    (
        "resource in more than one resource group",
        cq(resourceGroups=[rg(fq("alpha", ("cpu",), ("memory",))), rg(fq("beta", ("memory",)))]),
        [(DUP, f"{RG}[1].coveredResources[0]")],
    ),
    (
        "flavor in more than one resource group",
        cq(resourceGroups=[rg(fq("alpha", ("cpu",)), fq("beta", ("cpu",))), rg(fq("beta", ("memory",)))]),
        [(DUP, f"{RG}[1].flavors[0].name")],
    ),
    (
        "valid preemption with borrowWithinCohort",
        cq(
            preemption={
                "reclaimWithinCohort": "LowerPriority",
                "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 10},
            }
        ),
        [],
    ),
    (
        "existing cluster queue created with older Kueue version that has a nil borrowWithinCohort field",
        cq(preemption={"reclaimWithinCohort": "Never"}),
        [],
    ),
    (
        "flavorFungibility preference BorrowingOverPreemption with both TryNextFlavor is valid",
        cq(
            flavorFungibility={
                "whenCanBorrow": "TryNextFlavor",
                "whenCanPreempt": "TryNextFlavor",
                "preference": "BorrowingOverPreemption",
            }
        ),
        [],
    ),
    (
        "flavorFungibility preference PreemptionOverBorrowing with both TryNextFlavor is valid",
        cq(
            flavorFungibility={
                "whenCanBorrow": "TryNextFlavor",
                "whenCanPreempt": "TryNextFlavor",
                "preference": "PreemptionOverBorrowing",
            }
        ),
        [],
    ),
    (
        "valid ConcurrentAdmissionPolicy",
        cq(concurrentAdmissionPolicy=cap(), resourceGroups=[rg(fq("flavor1", ("cpu", "1")))]),
        [],
    ),
    (
        "ConcurrentAdmissionPolicy with StrictFIFO queueing strategy is invalid",
        cq(
            concurrentAdmissionPolicy=cap(),
            queueingStrategy="StrictFIFO",
            resourceGroups=[rg(fq("flavor1", ("cpu", "1")))],
        ),
        [(INVALID, "spec.queueingStrategy")],
    ),
    (
        "ConcurrentAdmissionPolicy with more than one ResourceGroup",
        cq(
            concurrentAdmissionPolicy=cap(),
            resourceGroups=[rg(fq("flavor1", ("cpu", "1"))), rg(fq("flavor2", ("memory", "1")))],
        ),
        [(INVALID, RG)],
    ),
    (
        "ConcurrentAdmissionPolicy with more than 16 flavors",
        cq(
            concurrentAdmissionPolicy=cap(),
            resourceGroups=[rg(*[fq(f"f{i:03d}", ("cpu", "1")) for i in range(17)])],
        ),
        [(INVALID, f"{RG}[0].flavors")],
    ),
    (
        "valid ConcurrentAdmissionPolicy with LastAcceptableFlavorName",
        cq(concurrentAdmissionPolicy=cap(last="flavor1"), resourceGroups=[rg(fq("flavor1", ("cpu", "1")))]),
        [],
    ),
    (
        "ConcurrentAdmissionPolicy constraints with RetainFirstAdmission mode is forbidden",
        cq(
            concurrentAdmissionPolicy=cap("RetainFirstAdmission", "flavor1"),
            resourceGroups=[rg(fq("flavor1", ("cpu", "1")))],
        ),
        [(FORBIDDEN, "spec.concurrentAdmissionPolicy.migration.constraints")],
    ),
    (
        "ConcurrentAdmissionPolicy with invalid LastAcceptableFlavorName",
        cq(
            concurrentAdmissionPolicy=cap(last="non-existent-flavor"),
            resourceGroups=[rg(fq("flavor1", ("cpu", "1")))],
        ),
        [(INVALID, "spec.concurrentAdmissionPolicy.migration.constraints.lastAcceptableFlavorName")],
    ),
]


@pytest.mark.parametrize(("spec", "want"), [c[1:] for c in CREATE], ids=[c[0] for c in CREATE])
def test_validate_cluster_queue(spec: dict[str, Any], want: list[tuple[str, str]]) -> None:
    assert create(spec, CAP_ON) == sorted(want)


def test_cluster_queue_detail_and_bad_values() -> None:
    """The rows with ``wantDetail`` / ``wantBadValue``: the first error's message and value."""
    cp = ControlPlane(controllers="kueue", feature_gates=CAP_ON)
    rows = [
        (
            cq(
                concurrentAdmissionPolicy=cap(),
                queueingStrategy="StrictFIFO",
                resourceGroups=[rg(fq("flavor1", ("cpu", "1")))],
            ),
            'spec.queueingStrategy: Invalid value: "StrictFIFO": StrictFIFO queueing strategy cannot be '
            "used when ConcurrentAdmissionPolicy is defined",
        ),
        (
            cq(
                concurrentAdmissionPolicy=cap(),
                resourceGroups=[rg(fq("flavor1", ("cpu", "1"))), rg(fq("flavor2", ("memory", "1")))],
            ),
            "spec.resourceGroups: Invalid value: 2: must have exactly one ResourceGroup when "
            "ConcurrentAdmissionPolicy is defined",
        ),
        (
            cq(
                concurrentAdmissionPolicy=cap(),
                resourceGroups=[rg(*[fq(f"f{i:03d}", ("cpu", "1")) for i in range(17)])],
            ),
            "spec.resourceGroups[0].flavors: Invalid value: 17: cannot have more than 16 resource "
            "flavors in the ResourceGroup when ConcurrentAdmissionPolicy is defined",
        ),
        (
            cq(
                concurrentAdmissionPolicy=cap("RetainFirstAdmission", "flavor1"),
                resourceGroups=[rg(fq("flavor1", ("cpu", "1")))],
            ),
            "spec.concurrentAdmissionPolicy.migration.constraints: Forbidden: may only be set when "
            'migration.mode is "TryPreferredFlavors" (got "RetainFirstAdmission")',
        ),
        (
            cq(
                concurrentAdmissionPolicy=cap(last="non-existent-flavor"),
                resourceGroups=[rg(fq("flavor1", ("cpu", "1")))],
            ),
            "spec.concurrentAdmissionPolicy.migration.constraints.lastAcceptableFlavorName: Invalid value: "
            '"non-existent-flavor": must be one of the flavors defined in the ClusterQueue: [flavor1]',
        ),
    ]
    for doc, want in rows:
        with pytest.raises(Exception) as err:
            cp.apply([doc])
        assert str(err.value).endswith(f'"vclusterqueue.kb.io" denied the request: {want}'), str(err.value)


def test_concurrent_admission_rules_are_gated() -> None:
    """``validateConcurrentAdmissionPolicy`` returns early unless ``ConcurrentAdmission`` is on
    (its v0.19.2 default is off)."""
    doc = cq(
        concurrentAdmissionPolicy=cap(),
        queueingStrategy="StrictFIFO",
        resourceGroups=[rg(fq("flavor1", ("cpu", "1")))],
    )
    assert create(doc) == []


# Rows refused by the CRD schema before the webhook (their webhook outcome needs an object no API
# server would hand it)
SCHEMA = [
    (
        "flavorFungibility preference set but whenCanPreempt != TryNextFlavor",
        cq(
            flavorFungibility={
                "whenCanBorrow": "TryNextFlavor",
                "whenCanPreempt": "MayStopSearch",
                "preference": "BorrowingOverPreemption",
            }
        ),
        [(INVALID, "spec.flavorFungibility")],
    ),
    (
        "flavorFungibility preference set but whenCanBorrow != TryNextFlavor",
        cq(
            flavorFungibility={
                "whenCanBorrow": "MayStopSearch",
                "whenCanPreempt": "MayStopSearch",
                "preference": "BorrowingOverPreemption",
            }
        ),
        [(INVALID, "spec.flavorFungibility")],
    ),
    (
        "flavorFungibility preference PreemptionOverBorrowing but whenCanBorrow != TryNextFlavor",
        cq(
            flavorFungibility={
                "whenCanBorrow": "MayStopSearch",
                "whenCanPreempt": "TryNextFlavor",
                "preference": "PreemptionOverBorrowing",
            }
        ),
        [(INVALID, "spec.flavorFungibility")],
    ),
    (
        "ConcurrentAdmissionPolicy constraints with empty migration mode is allowed",
        cq(concurrentAdmissionPolicy=cap("", "flavor1"), resourceGroups=[rg(fq("flavor1", ("cpu", "1")))]),
        [(UNSUPPORTED, "spec.concurrentAdmissionPolicy.migration.mode")],
    ),
]


def test_empty_queueing_strategy_is_supported() -> None:
    """Sent absent (Go's ``omitempty``), it is defaulted and the webhook accepts it."""
    assert create(cq()) == []


def test_explicit_empty_queueing_strategy_is_outside_the_enum() -> None:
    assert create(cq(queueingStrategy="")) == [(UNSUPPORTED, "spec.queueingStrategy")]


@pytest.mark.parametrize("cohort", ["team-a", "org.team-b"])
def test_a_cohort_name_ending_in_a_newline_does_not_match_the_crd_pattern(cohort: str) -> None:
    """The CRD's ``pattern`` is matched as Go's regexp matches: ``$`` only at the end of the text, so
    ``"team-a\\n"`` is no DNS subdomain (Python's ``$`` also matched before the final newline)."""
    assert create(cq(cohortName=cohort)) == []
    with pytest.raises(StatusError) as info:
        ControlPlane(controllers="kueue").apply([cq(cohortName=cohort + "\n")])
    assert (f'spec.cohortName: Invalid value: "{cohort}\\n": spec.cohortName in body should match '
            f"'{DNS_SUBDOMAIN}'") in info.value.message


@pytest.mark.parametrize(("spec", "want"), [c[1:] for c in SCHEMA], ids=[c[0] for c in SCHEMA])
def test_rows_the_crd_schema_refuses_first(spec: dict[str, Any], want: list[tuple[str, str]]) -> None:
    assert create(spec, CAP_ON) == want


def _flavors(total: int, per_group: int = 64) -> list[dict[str, Any]]:
    """``makeFlavors(n)``, spread over groups of at most 64 flavors (the CRD's ``maxItems``), one
    covered resource each so no resource repeats across groups."""
    groups = []
    for start in range(0, total, per_group):
        res = f"res{start // per_group:03d}"
        groups.append(rg(*[fq(f"f{i:03d}", (res, "1")) for i in range(start, min(total, start + per_group))]))
    return groups


def _covered(total: int) -> list[dict[str, Any]]:
    """``makeCoveredResources(n)``: one flavor each; groups of at most 64 resources."""
    groups = []
    for start in range(0, total, 64):
        names = [f"res{i:03d}" for i in range(start, min(total, start + 64))]
        groups.append(
            {"coveredResources": names, "flavors": [fq(f"default{start // 64}", *[(n, "1") for n in names])]}
        )
    return groups


def _combinations(flavors: int, resources: int) -> list[dict[str, Any]]:
    names = [(f"res{j:03d}", "1") for j in range(resources)]
    return [rg(*[fq(f"f{i:03d}", *names) for i in range(flavors)])]


@pytest.mark.parametrize(
    ("groups", "want"),
    [
        (_flavors(10), []),  # TestValidateTotalFlavors "within limit (10 flavors)"
        (_flavors(256), []),  # "At limit (256 flavors)"
        (_flavors(257), [(INVALID, RG)]),  # "over limit (257 flavors)"
        (_covered(10), []),  # TestValidateTotalCoveredResources "within limit (10 covered resources)"
        (_covered(256), []),  # "At limit (256 covered resources)"
        (_covered(257), [(INVALID, RG)]),  # "over limit (257 covered resources)"
        (
            _combinations(1, 10),
            [],
        ),  # TestValidateFlavorResourceCombinations "within limit (1 flavor x 10 resources = 10)"
        (_combinations(8, 64), []),  # "at limit (8 flavors x 64 resources = 512)"
        (_combinations(9, 64), [(INVALID, f"{RG}[0]")]),  # "over limit (9 flavors x 64 resources = 576)"
    ],
)
def test_totals(groups: list[dict[str, Any]], want: list[tuple[str, str]]) -> None:
    assert create(cq(resourceGroups=groups)) == want


# TestValidateClusterQueueUpdate, through an update of a created ClusterQueue
ALPHA = [rg(fq("alpha", ("cpu", "1")))]
AC_PATH = "spec.admissionChecksStrategy.admissionChecks[0].onFlavors[0]"
UPDATE = [
    (
        "queueingStrategy can be updated",
        cq(queueingStrategy="StrictFIFO"),
        cq(queueingStrategy="BestEffortFIFO"),
        {},
        [],
    ),
    (
        "same queueingStrategy",
        cq(queueingStrategy="BestEffortFIFO"),
        cq(queueingStrategy="BestEffortFIFO"),
        {},
        [],
    ),
    (
        "valid admissionCheckStrategy can be added when the old cluster queue has no strategy",
        cq(resourceGroups=ALPHA),
        cq(resourceGroups=ALPHA, admissionChecksStrategy=acs("ac1", "alpha")),
        {},
        [],
    ),
    (
        "invalid admissionCheckStrategy is rejected when the old cluster queue has no strategy",
        cq(resourceGroups=ALPHA),
        cq(resourceGroups=ALPHA, admissionChecksStrategy=acs("ac1", "ghost")),
        {},
        [(UNSUPPORTED, AC_PATH)],
    ),
    (
        "ConcurrentAdmissionPolicy cannot be added",
        cq(resourceGroups=ALPHA),
        cq(resourceGroups=ALPHA, concurrentAdmissionPolicy=cap()),
        CAP_ON,
        [(INVALID, "spec.concurrentAdmissionPolicy")],
    ),
    (
        "ConcurrentAdmissionPolicy cannot be removed",
        cq(resourceGroups=ALPHA, concurrentAdmissionPolicy=cap()),
        cq(resourceGroups=ALPHA),
        CAP_ON,
        [(INVALID, "spec.concurrentAdmissionPolicy")],
    ),
]


@pytest.mark.parametrize(("old", "new", "gates", "want"), [c[1:] for c in UPDATE], ids=[c[0] for c in UPDATE])
def test_validate_cluster_queue_update(
    old: dict[str, Any], new: dict[str, Any], gates: dict[str, bool], want: list[tuple[str, str]]
) -> None:
    cp = ControlPlane(controllers="kueue", feature_gates=gates)
    cp.apply([old])
    assert refusal(lambda: cp.apply([new])) == want


def test_concurrent_admission_policy_is_immutable_with_the_gate_off() -> None:
    """``ValidateClusterQueueUpdate``'s ``ValidateImmutableField`` is not behind the gate."""
    cp = ControlPlane(controllers="kueue")
    cp.apply([cq(resourceGroups=ALPHA)])
    assert refusal(lambda: cp.apply([cq(resourceGroups=ALPHA, concurrentAdmissionPolicy=cap())])) == [
        (INVALID, "spec.concurrentAdmissionPolicy")
    ]


def _legacy(groups: list[dict[str, Any]], check: str, on: str, strategy: str) -> ClusterQueue:
    return ClusterQueue.model_validate(
        cq(resourceGroups=groups, queueingStrategy=strategy, admissionChecksStrategy=acs(check, on))
    )


@pytest.mark.parametrize(
    ("new", "gate", "want"),
    [
        # "legacy cluster queue with invalid onFlavors allows unrelated updates when the feature gate
        # is disabled"
        (_legacy(ALPHA, "ac1", "ghost", "BestEffortFIFO"), False, []),
        # "... rejects unrelated updates when the feature gate is enabled"
        (_legacy(ALPHA, "ac1", "ghost", "BestEffortFIFO"), True, [(UNSUPPORTED, AC_PATH)]),
        # "resourceGroup flavor change revalidates admissionCheck onFlavors for legacy cluster queue"
        (
            _legacy([rg(fq("beta", ("cpu", "1")))], "ac1", "ghost", "StrictFIFO"),
            False,
            [(UNSUPPORTED, AC_PATH)],
        ),
        # "changing invalid onFlavors for a legacy cluster queue revalidates the new ref"
        (_legacy(ALPHA, "ac1", "phantom", "StrictFIFO"), False, [(UNSUPPORTED, AC_PATH)]),
        # "changing admissionCheck name revalidates onFlavors for the new rule"
        (_legacy(ALPHA, "ac2", "ghost", "StrictFIFO"), False, [(UNSUPPORTED, AC_PATH)]),
    ],
)
def test_legacy_invalid_on_flavors(new: ClusterQueue, gate: bool, want: list[tuple[str, str]]) -> None:
    """The old object (flavor ``alpha``, a check on the absent flavor ``ghost``) cannot be created
    through the webhook now, so these rows call the webhook's validation on decoded objects."""
    old = _legacy(ALPHA, "ac1", "ghost", "StrictFIFO")
    gates = FeatureGates(KUEUE_GATES, {"RejectUpdatesToCQWithInvalidOnFlavors": gate})
    got = validate_cluster_queue(new, old, gates)
    assert sorted((e.type.reason, e.field) for e in got) == want


# TestValidateCohort
def test_cohort_lending_limit_needs_a_parent() -> None:
    """ "flavor quota with lendingLimit and empty parent" (detail compared too)."""
    doc = {
        "apiVersion": KUEUE,
        "kind": "Cohort",
        "metadata": {"name": "cohort"},
        "spec": {"resourceGroups": [rg(fq("x86", ("cpu", "1", "", "1")))]},
    }
    cp = ControlPlane(controllers="kueue")
    with pytest.raises(Exception) as err:
        cp.apply([doc])
    assert causes(err.value) == [(INVALID, q0("lendingLimit"))]
    assert "must be nil when parent is empty" in str(err.value)


# TestValidateResourceFlavor
@pytest.mark.parametrize(
    ("labels", "taints", "want"),
    [
        (None, None, []),  # empty
        ({"foo": "bar"}, [{"key": "spot", "value": "true", "effect": "NoSchedule"}], []),  # valid
        ({"@abc": "foo"}, None, [(INVALID, "spec.nodeLabels")]),  # invalid label name
        ({"foo": "@abc"}, None, [(INVALID, "spec.nodeLabels")]),  # invalid label value
    ],
    ids=["empty", "valid", "invalid label name", "invalid label value"],
)
def test_validate_resource_flavor(
    labels: dict[str, str] | None, taints: list[dict[str, str]] | None, want: list[tuple[str, str]]
) -> None:
    cp = ControlPlane(controllers="kueue")
    assert refusal(lambda: cp.apply([flavor("resource-flavor", labels=labels, taints=taints)])) == want
