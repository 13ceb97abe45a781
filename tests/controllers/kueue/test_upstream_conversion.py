"""Upstream's v1beta1 <-> v1beta2 conversion tables, as round trips through kbatch's served v1beta1.

Source: kubernetes-sigs/kueue v0.19.2 ``apis/kueue/v1beta1/{clusterqueue,localqueue,workload}_
conversion_test.go`` (``Test*ConvertTo``, ``Test*ConvertFrom``, ``Test*Conversion_RoundTrip``; case
names below are upstream's). Each case goes through the API as ``kbatch serve`` serves it (the
versioned backend over the control plane): an object is written in one version and read in the
other, so the CRD's defaults and Kueue's webhooks apply on the way, as in a cluster. Only the fields
a case is about are compared (the stored object also carries defaults and a finalizer).

Not translated: ``multikueue_conversion_test.go`` (MultiKueueCluster is not served: MultiKueue is not
modelled); the "complete ClusterQueue/LocalQueue with status" rows' ``admissionFairSharingStatus``
and ``lastUpdate`` go through the status subresource of a queue whose status the Kueue controllers
rewrite, so the status rows run with no controllers.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch import ControlPlane
from kbatch.api.base import ApiInfo
from kbatch.api.kueue_v1beta1 import CONVERSIONS, DEPRECATION_WARNING
from kbatch.api.kueue_v1beta1 import ClusterQueue as CQ1
from kbatch.api.kueue_v1beta1 import LocalQueue as LQ1
from kbatch.api.kueue_v1beta1 import Workload as WL1
from kbatch.api.kueue_v1beta2 import ClusterQueue as CQ2
from kbatch.api.kueue_v1beta2 import LocalQueue as LQ2
from kbatch.api.kueue_v1beta2 import Workload as WL2
from kbatch.server.backend import WriteOptions
from kbatch.server.facade import ControlPlaneBackend
from kbatch.server.versions import deprecation_warning, versioned

V1, V2 = "kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2"


class Api:
    """The served API in-process: create/get/update-status in either version."""

    def __init__(self, controllers: str = "kueue") -> None:
        self.cp = ControlPlane(controllers=controllers)
        self.backend = versioned(ControlPlaneBackend(self.cp))

    def create(self, info: ApiInfo, body: dict[str, Any], namespace: str | None = None) -> dict[str, Any]:
        return self.backend.create(info, namespace, body, WriteOptions())

    def get(self, info: ApiInfo, name: str, namespace: str | None = None) -> dict[str, Any]:
        return self.backend.get(info, namespace, name)

    def write_status(
        self, info: ApiInfo, name: str, status: dict[str, Any], namespace: str | None = None
    ) -> None:
        obj = self.get(info, name, namespace)
        obj["status"] = status
        self.backend.update(info, namespace, name, obj, WriteOptions(), subresource="status")


def cq(version: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": version,
        "kind": "ClusterQueue",
        "metadata": {"name": "test-clusterqueue"},
        "spec": spec,
    }


def _pick(d: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: d[k] for k in keys if k in d}


# TestClusterQueueConvertTo: created as v1beta1, read as v1beta2 (spec fields compared)
CQ_TO = [
    ("nil cohort", {}, {}),
    ("cohort to cohortName conversion", {"cohort": "test-cohort"}, {"cohortName": "test-cohort"}),
    (
        "AdmissionChecks to AdmissionChecksStrategy conversion",
        {"admissionChecks": ["check1", "check2"]},
        {"admissionChecksStrategy": {"admissionChecks": [{"name": "check1"}, {"name": "check2"}]}},
    ),
    (
        "AdmissionChecksStrategy preserved",
        {
            "admissionChecksStrategy": {
                "admissionChecks": [{"name": "strategy-check1"}, {"name": "strategy-check2"}]
            }
        },
        {
            "admissionChecksStrategy": {
                "admissionChecks": [{"name": "strategy-check1"}, {"name": "strategy-check2"}]
            }
        },
    ),
    ("empty AdmissionChecks", {"admissionChecks": []}, {}),
    (
        "FlavorFungibility Preempt to MayStopSearch",
        {"flavorFungibility": {"whenCanPreempt": "Preempt"}},
        {"flavorFungibility": {"whenCanPreempt": "MayStopSearch"}},
    ),
    (
        "FlavorFungibility Borrow to MayStopSearch",
        {"flavorFungibility": {"whenCanBorrow": "Borrow"}},
        {"flavorFungibility": {"whenCanBorrow": "MayStopSearch"}},
    ),
    (
        "FlavorFungibility MayStopSearch preserved",
        {"flavorFungibility": {"whenCanPreempt": "MayStopSearch", "whenCanBorrow": "MayStopSearch"}},
        {"flavorFungibility": {"whenCanPreempt": "MayStopSearch", "whenCanBorrow": "MayStopSearch"}},
    ),
    (
        "FlavorFungibility TryNextFlavor preserved",
        {"flavorFungibility": {"whenCanPreempt": "TryNextFlavor", "whenCanBorrow": "TryNextFlavor"}},
        {"flavorFungibility": {"whenCanPreempt": "TryNextFlavor", "whenCanBorrow": "TryNextFlavor"}},
    ),
    (
        "complete ClusterQueue with all fields",
        {
            "cohort": "prod-cohort",
            "admissionChecks": ["multikueue-check"],
            "flavorFungibility": {"whenCanPreempt": "TryNextFlavor", "whenCanBorrow": "MayStopSearch"},
            "queueingStrategy": "StrictFIFO",
        },
        {
            "cohortName": "prod-cohort",
            "admissionChecksStrategy": {"admissionChecks": [{"name": "multikueue-check"}]},
            "flavorFungibility": {"whenCanPreempt": "TryNextFlavor", "whenCanBorrow": "MayStopSearch"},
            "queueingStrategy": "StrictFIFO",
        },
    ),
]

_SPEC_KEYS = ("cohortName", "cohort", "admissionChecks", "admissionChecksStrategy", "queueingStrategy")


def _spec_view(spec: dict[str, Any], want: dict[str, Any]) -> dict[str, Any]:
    """The compared part of a stored spec: the case's keys (the CRD defaults ``queueingStrategy``),
    fungibility only in the keys it names."""
    out = _pick(spec, *(k for k in _SPEC_KEYS if k != "queueingStrategy" or k in want))
    if "flavorFungibility" in want:
        out["flavorFungibility"] = _pick(spec.get("flavorFungibility") or {}, *want["flavorFungibility"])
    return out


@pytest.mark.parametrize(("v1spec", "want"), [c[1:] for c in CQ_TO], ids=[c[0] for c in CQ_TO])
def test_cluster_queue_convert_to(v1spec: dict[str, Any], want: dict[str, Any]) -> None:
    api = Api()
    api.create(CQ1.api_info, cq(V1, **v1spec))
    got = api.get(CQ2.api_info, "test-clusterqueue")
    assert got["apiVersion"] == V2
    assert _spec_view(got["spec"], want) == want


# TestClusterQueueConvertFrom: created as v1beta2, read as v1beta1
CQ_FROM = [
    ("nil cohortName", {}, {}),
    ("cohortName to cohort conversion", {"cohortName": "test-cohort"}, {"cohort": "test-cohort"}),
    (
        "FlavorFungibility MayStopSearch preserved",
        {"flavorFungibility": {"whenCanPreempt": "MayStopSearch", "whenCanBorrow": "MayStopSearch"}},
        {"flavorFungibility": {"whenCanPreempt": "MayStopSearch", "whenCanBorrow": "MayStopSearch"}},
    ),
    (
        "FlavorFungibility TryNextFlavor preserved",
        {"flavorFungibility": {"whenCanPreempt": "TryNextFlavor", "whenCanBorrow": "TryNextFlavor"}},
        {"flavorFungibility": {"whenCanPreempt": "TryNextFlavor", "whenCanBorrow": "TryNextFlavor"}},
    ),
    (
        "complete ClusterQueue with all fields",
        {
            "cohortName": "prod-cohort",
            "admissionChecksStrategy": {"admissionChecks": [{"name": "multikueue-check"}]},
            "queueingStrategy": "StrictFIFO",
        },
        {
            "cohort": "prod-cohort",
            "admissionChecksStrategy": {"admissionChecks": [{"name": "multikueue-check"}]},
            "queueingStrategy": "StrictFIFO",
        },
    ),
]


@pytest.mark.parametrize(("v2spec", "want"), [c[1:] for c in CQ_FROM], ids=[c[0] for c in CQ_FROM])
def test_cluster_queue_convert_from(v2spec: dict[str, Any], want: dict[str, Any]) -> None:
    api = Api()
    api.create(CQ2.api_info, cq(V2, **v2spec))
    got = api.get(CQ1.api_info, "test-clusterqueue")
    assert got["apiVersion"] == V1 and "cohortName" not in got["spec"]
    assert _spec_view(got["spec"], want) == want


def test_cluster_queue_status_both_ways() -> None:
    """The status of "complete ClusterQueue with all fields": ``admissionFairSharingStatus`` (v1beta1
    only) is dropped going up; weighted share, conditions and pending count are kept both ways."""
    api = Api(controllers="")
    api.create(CQ1.api_info, cq(V1))
    condition = {
        "type": "Active",
        "status": "True",
        "reason": "Ready",
        "message": "",
        "lastTransitionTime": "2026-01-01T00:00:00Z",
    }
    api.write_status(
        CQ1.api_info,
        "test-clusterqueue",
        {
            "fairSharing": {
                "weightedShare": 100,
                "admissionFairSharingStatus": {
                    "consumedResources": {"cpu": "10"},
                    "lastUpdate": "2026-01-01T00:00:00Z",
                },
            },
            "conditions": [condition],
            "pendingWorkloads": 5,
        },
    )
    up = api.get(CQ2.api_info, "test-clusterqueue")["status"]
    assert up["fairSharing"] == {"weightedShare": 100}
    assert up["conditions"] == [condition] and up["pendingWorkloads"] == 5
    down = api.get(CQ1.api_info, "test-clusterqueue")["status"]
    assert down["fairSharing"] == {"weightedShare": 100} and down["pendingWorkloads"] == 5


def test_cluster_queue_round_trip() -> None:
    """``TestClusterQueueConversion_RoundTrip`` "complete ClusterQueue with cohort and
    FlavorFungibility" and "minimal ClusterQueue": v1beta1 in, v1beta1 out, equal where upstream's
    round trip is lossless."""
    api = Api()
    ff = {"whenCanPreempt": "TryNextFlavor", "whenCanBorrow": "MayStopSearch"}
    api.create(CQ1.api_info, cq(V1, cohort="prod", flavorFungibility=ff, queueingStrategy="StrictFIFO"))
    back = api.get(CQ1.api_info, "test-clusterqueue")["spec"]
    assert (back["cohort"], back["queueingStrategy"]) == ("prod", "StrictFIFO")
    assert _pick(back["flavorFungibility"], *ff) == ff
    minimal = {**cq(V1), "metadata": {"name": "minimal"}}
    api.create(CQ1.api_info, minimal)
    assert "cohort" not in api.get(CQ1.api_info, "minimal")["spec"]


# TestLocalQueueConvertTo / ConvertFrom / RoundTrip: status.flavorUsage <-> status.flavorsUsage
USAGE = [
    {"name": "flavor1", "resources": [{"name": "cpu", "total": "10"}, {"name": "memory", "total": "10Gi"}]},
    {"name": "flavor2", "resources": [{"name": "example.com/gpu", "total": "2"}]},
]


def _lq(version: str) -> dict[str, Any]:
    return {
        "apiVersion": version,
        "kind": "LocalQueue",
        "metadata": {"name": "test-localqueue", "namespace": "default"},
        "spec": {"clusterQueue": "cq"},
    }


@pytest.mark.parametrize(
    "usage",
    [None, [], USAGE[:1], USAGE],
    ids=[
        "nil FlavorUsage",
        "empty FlavorUsage",
        "single FlavorUsage",
        "multiple FlavorUsage with various resources",
    ],
)
def test_local_queue_flavor_usage_both_ways(usage: list[dict[str, Any]] | None) -> None:
    api = Api(controllers="")
    api.create(LQ1.api_info, _lq(V1), "default")
    status: dict[str, Any] = {"pendingWorkloads": 3, "reservingWorkloads": 2, "admittedWorkloads": 1}
    if usage is not None:
        status["flavorUsage"] = usage
    api.write_status(LQ1.api_info, "test-localqueue", status, "default")
    up = api.get(LQ2.api_info, "test-localqueue", "default")["status"]
    # an empty list: upstream's Go value is an empty slice, which its JSON omits (omitempty)
    assert "flavorUsage" not in up and (up.get("flavorsUsage") or None) == (usage or None)
    down = api.get(LQ1.api_info, "test-localqueue", "default")["status"]
    assert "flavorsUsage" not in down and (down.get("flavorUsage") or None) == (usage or None)
    assert _pick(down, "pendingWorkloads", "reservingWorkloads", "admittedWorkloads") == _pick(
        status, "pendingWorkloads", "reservingWorkloads", "admittedWorkloads"
    )


# TestWorkloadConvertTo / ConvertFrom / RoundTrip
def _wl(version: str, **spec: Any) -> dict[str, Any]:
    pod_sets = [
        {
            "name": "main",
            "count": 1,
            "template": {
                "spec": {
                    "containers": [
                        {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}
                    ],
                    "restartPolicy": "Never",
                }
            },
        }
    ]
    return {
        "apiVersion": version,
        "kind": "Workload",
        "metadata": {"name": "test-workload", "namespace": "default"},
        "spec": {"podSets": pod_sets, **spec},
    }


@pytest.mark.parametrize(
    ("v1spec", "ref"),
    [
        (
            {
                "priority": 100,
                "priorityClassSource": "scheduling.k8s.io/priorityclass",
                "priorityClassName": "low",
            },
            {"group": "scheduling.k8s.io", "kind": "PriorityClass", "name": "low"},
        ),
        (
            {
                "priority": 100,
                "priorityClassSource": "kueue.x-k8s.io/workloadpriorityclass",
                "priorityClassName": "low",
            },
            {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "low"},
        ),
    ],
    ids=["with PodPriorityClassSource", "with WorkloadPriorityClassSource"],
)
def test_workload_priority_class_both_ways(v1spec: dict[str, Any], ref: dict[str, str]) -> None:
    api = Api(controllers="")
    api.create(WL1.api_info, _wl(V1, **v1spec), "default")
    up = api.get(WL2.api_info, "test-workload", "default")["spec"]
    assert up["priorityClassRef"] == ref and "priorityClassSource" not in up and "priorityClassName" not in up
    down = api.get(WL1.api_info, "test-workload", "default")["spec"]
    assert _pick(down, *v1spec) == v1spec and "priorityClassRef" not in down


@pytest.mark.parametrize(
    "seconds",
    [None, 0, 5400],
    ids=[
        "nil AccumulatedPastExexcutionTimeSeconds",
        "zero AccumulatedPastExexcutionTimeSeconds",
        "non-zero AccumulatedPastExexcutionTimeSeconds",
    ],
)
def test_workload_accumulated_time_both_ways(seconds: int | None) -> None:
    api = Api(controllers="")
    api.create(WL1.api_info, _wl(V1), "default")
    status: dict[str, Any] = {}
    if seconds is not None:
        status["accumulatedPastExexcutionTimeSeconds"] = seconds
    api.write_status(WL1.api_info, "test-workload", status, "default")
    up = api.get(WL2.api_info, "test-workload", "default").get("status") or {}
    assert (
        up.get("accumulatedPastExecutionTimeSeconds") == seconds
        and "accumulatedPastExexcutionTimeSeconds" not in up
    )
    down = api.get(WL1.api_info, "test-workload", "default").get("status") or {}
    assert down.get("accumulatedPastExexcutionTimeSeconds") == seconds


def _admission(assignment: dict[str, Any]) -> dict[str, Any]:
    return {
        "admission": {
            "clusterQueue": "cq",
            "podSetAssignments": [
                {
                    "name": "main",
                    "count": 1,
                    "flavors": {"cpu": "default"},
                    "resourceUsage": {"cpu": "1"},
                    "topologyAssignment": assignment,
                }
            ],
        }
    }


def test_workload_topology_assignment_convert_to() -> None:
    """``TestWorkloadConvertTo`` "with TopologyAssignment": two domains become upstream's compact
    slice (``a1`` universal, ``b`` a common prefix, individual pod counts), and read back as the
    same domains ("Workload with TopologyAssignment" round trip)."""
    api = Api(controllers="")
    api.create(WL1.api_info, _wl(V1), "default")
    domains = [{"values": ["a1", "b1"], "count": 10}, {"values": ["a1", "b2"], "count": 20}]
    api.write_status(
        WL1.api_info, "test-workload", _admission({"levels": ["a", "b"], "domains": domains}), "default"
    )
    up = api.get(WL2.api_info, "test-workload", "default")["status"]["admission"]["podSetAssignments"][0]
    assert up["topologyAssignment"] == {
        "levels": ["a", "b"],
        "slices": [
            {
                "domainCount": 2,
                "valuesPerLevel": [{"universal": "a1"}, {"individual": {"prefix": "b", "roots": ["1", "2"]}}],
                "podCounts": {"individual": [10, 20]},
            }
        ],
    }
    down = api.get(WL1.api_info, "test-workload", "default")["status"]["admission"]["podSetAssignments"][0]
    assert down["topologyAssignment"] == {"levels": ["a", "b"], "domains": domains}


def test_workload_topology_assignment_convert_from_multiple_slices() -> None:
    """``TestWorkloadConvertFrom`` "with TopologyAssignment, multiple slices": prefixes, suffixes,
    universal values and a universal pod count expand into v1beta1 domains."""
    api = Api(controllers="")
    assignment = {
        "levels": ["a", "b"],
        "slices": [
            {
                "domainCount": 2,
                "valuesPerLevel": [{"universal": "a1"}, {"individual": {"prefix": "b", "roots": ["1", "2"]}}],
                "podCounts": {"individual": [10, 20]},
            },
            {
                "domainCount": 2,
                "valuesPerLevel": [
                    {"universal": "a2"},
                    {"individual": {"roots": ["first", "second"], "suffix": "-in-a2"}},
                ],
                "podCounts": {"universal": 50},
            },
        ],
    }
    api.create(WL2.api_info, _wl(V2), "default")
    api.write_status(WL2.api_info, "test-workload", _admission(assignment), "default")
    down = api.get(WL1.api_info, "test-workload", "default")["status"]["admission"]["podSetAssignments"][0]
    assert down["topologyAssignment"]["domains"] == [
        {"values": ["a1", "b1"], "count": 10},
        {"values": ["a1", "b2"], "count": 20},
        {"values": ["a2", "first-in-a2"], "count": 50},
        {"values": ["a2", "second-in-a2"], "count": 50},
    ]


def test_deprecation_warning_only_for_v1beta1() -> None:
    """The v1beta1 CRDs' ``deprecationWarning`` (``config/components/crd/bases``), the header every
    v1beta1 answer carries; v1beta2 answers carry none."""
    api = Api()
    assert deprecation_warning(api.backend.registry, CQ1.api_info) == DEPRECATION_WARNING
    assert DEPRECATION_WARNING == "This version is deprecated. Use v1beta2 instead."
    assert deprecation_warning(api.backend.registry, CQ2.api_info) is None


_value = st.text(alphabet="ab-1", min_size=0, max_size=5)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(min_value=1, max_value=3).flatmap(
        lambda n: st.lists(
            st.tuples(st.lists(_value, min_size=n, max_size=n), st.integers(min_value=0, max_value=3)),
            min_size=1,
            max_size=6,
        )
    )
)
def test_compact_encoding_decodes_to_the_same_domains(raw: list[tuple[list[str], int]]) -> None:
    """Kueue's compact encoding is lossless (``InternalSeqFrom(V1Beta2From(ta))`` gives ``ta`` back,
    ``tas_assignment_test.go``): any domains, converted up and down, come back unchanged."""
    conversion = CONVERSIONS["Workload"]
    levels = [f"l{i}" for i in range(len(raw[0][0]))]
    domains = [{"values": values, "count": count} for values, count in raw]
    v1 = {"status": _admission({"levels": levels, "domains": domains})}
    round_trip = conversion.from_storage(conversion.to_storage(v1))
    assert (
        round_trip["status"]["admission"]["podSetAssignments"][0]["topologyAssignment"]["domains"] == domains
    )
