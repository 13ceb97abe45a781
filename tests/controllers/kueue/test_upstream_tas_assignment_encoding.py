"""``pkg/util/tas/tas_assignment_test.go`` at kubernetes-sigs/kueue v0.19.2: the hostname-prefix
encoding of v1beta2 topology assignments (``TASAssignmentsEncodingByHostnamePrefix``, beta, on)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.kueue_v1beta1.topology import domains_to_slices, hostname_prefix_slices, slices_to_domains
from kbatch.api.kueue_v1beta1.topology_prefix import MAX_SLICES, domain_runs, prefix_keys

HOST = "kubernetes.io/hostname"


def _ta(hosts: list[tuple[str, int]], level: str = HOST) -> dict[str, Any]:
    return {"levels": [level], "domains": [{"values": [h], "count": c} for h, c in hosts]}


def _sl(n: int, counts: Any, prefix: str | None = None, suffix: str | None = None, roots=()) -> dict:
    ind: dict[str, Any] = {}
    if prefix:
        ind["prefix"] = prefix
    if suffix:
        ind["suffix"] = suffix
    ind["roots"] = list(roots)
    pc = {"universal": counts} if isinstance(counts, int) else {"individual": counts}
    return {"domainCount": n, "valuesPerLevel": [{"individual": ind}], "podCounts": pc}


# TestCompactTopologyAssignmentEncodingWithHostnamePrefixRuns
RUNS = {
    "GKE node pools": (
        [
            ("gke-c-pool-a-hash1-aa", 3),
            ("gke-c-pool-a-hash1-bb", 3),
            ("gke-c-pool-b-hash2-cc", 4),
            ("gke-c-pool-b-hash2-dd", 5),
        ],
        [
            _sl(2, 3, "gke-c-pool-a-hash1-", None, ["aa", "bb"]),
            _sl(2, [4, 5], "gke-c-pool-b-hash2-", None, ["cc", "dd"]),
        ],
    ),
    "AWS EKS private DNS names": (
        [
            ("ip-10-24-34-0.us-west-2.compute.internal", 2),
            ("ip-10-24-34-1.us-west-2.compute.internal", 2),
            ("ip-10-24-35-0.us-west-2.compute.internal", 3),
            ("ip-10-24-35-1.us-west-2.compute.internal", 4),
        ],
        [
            _sl(2, 2, "ip-10-24-34-", ".us-west-2.compute.internal", ["0", "1"]),
            _sl(2, [3, 4], "ip-10-24-35-", ".us-west-2.compute.internal", ["0", "1"]),
        ],
    ),
    "Azure AKS VMSS node pools": (
        [
            ("aks-nodepool1-12345678-vmss000000", 1),
            ("aks-nodepool1-12345678-vmss000001", 1),
            ("aks-nodepool2-87654321-vmss000000", 2),
            ("aks-nodepool2-87654321-vmss000001", 3),
        ],
        [
            _sl(2, 1, "aks-nodepool1-12345678-vmss00000", None, ["0", "1"]),
            _sl(2, [2, 3], "aks-nodepool2-87654321-vmss00000", None, ["0", "1"]),
        ],
    ),
    "on-premises UUID node names": (
        [
            ("550e8400-e29b-41d4-a716-446655440000", 1),
            ("6ba7b810-9dad-11d1-80b4-00c04fd430c8", 2),
            ("f47ac10b-58cc-4372-a567-0e02b2c3d479", 3),
        ],
        [
            _sl(
                3,
                [1, 2, 3],
                None,
                None,
                [
                    "550e8400-e29b-41d4-a716-446655440000",
                    "6ba7b810-9dad-11d1-80b4-00c04fd430c8",
                    "f47ac10b-58cc-4372-a567-0e02b2c3d479",
                ],
            )
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_hostname_prefix_runs(name: str) -> None:
    hosts, want = RUNS[name]
    got = hostname_prefix_slices([HOST], _ta(hosts)["domains"])
    assert got == want
    assert slices_to_domains({"levels": [HOST], "slices": got}) == _ta(hosts)


def test_without_hostname_level_one_slice() -> None:
    ta = _ta([("rack-a", 1), ("rack-b", 2)], level="cloud.example.com/rack")
    got = {"levels": ta["levels"], "slices": hostname_prefix_slices(ta["levels"], ta["domains"])}
    assert len(got["slices"]) == 1 and slices_to_domains(got) == ta


def _prefix_assignment(n: int) -> dict[str, Any]:
    """``hostnamePrefixAssignment``: half ``pool-a-node-%05d``, half ``pool-b-node-%05d``."""
    half = n // 2
    hosts = [
        (f"pool-{'a' if i < half else 'b'}-node-{(i if i < half else i - half):05d}", 1) for i in range(n)
    ]
    return _ta(hosts)


@pytest.mark.parametrize(
    ("enabled", "count", "want_runs"),
    [(True, 1, True), (True, 4, False), (True, 20, True), (False, 20, False)],
    ids=["one-slice-runs", "smaller-single", "smaller-runs", "disabled"],
)
def test_gate_and_size_fallback(enabled: bool, count: int, want_runs: bool) -> None:
    """``TestV1Beta2FromInternal_hostnamePrefixFeatureGateAndFallback``."""
    ta = _prefix_assignment(count)
    got = domains_to_slices(ta, by_hostname_prefix=enabled)
    assert len(got["slices"]) == (2 if want_runs and count > 1 else 1)
    assert slices_to_domains(got) == ta


def test_preserves_domain_order() -> None:
    hosts = [
        ("gke-c-pool-a-hash1-aa", 1),
        ("gke-c-pool-b-hash2-cc", 2),
        ("gke-c-pool-a-hash1-bb", 3),
        ("gke-c-pool-b-hash2-dd", 4),
    ]
    slices = hostname_prefix_slices([HOST], _ta(hosts)["domains"])
    assert len(slices) == 4
    assert slices_to_domains({"levels": [HOST], "slices": slices}) == _ta(hosts)


# TestReusableHostnamePrefixKeys
@pytest.mark.parametrize(
    ("hosts", "want"),
    [
        (
            [
                "gke-c-pool-a-hash1-aa",
                "gke-c-pool-a-hash1-bb",
                "gke-c-pool-b-hash2-cc",
                "gke-c-pool-b-hash2-dd",
            ],
            ["gke-c-pool-a-hash1-"] * 2 + ["gke-c-pool-b-hash2-"] * 2,
        ),
        (["node-a", "host-b"], ["", ""]),
        (["nodea", "hostb"], None),
    ],
    ids=["longest", "no-reusable", "no-delimiter"],
)
def test_reusable_prefix_keys(hosts: list[str], want: list[str] | None) -> None:
    assert prefix_keys(hosts) == want


def test_prefix_keys_back_off_to_fit_slice_limit() -> None:
    hosts = [f"a-{'y' if i % 2 else 'x'}-{i:04d}" for i in range(MAX_SLICES + 1)]
    assert prefix_keys(hosts) == ["a-"] * len(hosts)


def test_falls_back_when_no_depth_fits() -> None:
    hosts = [(f"{'b-y' if i % 2 else 'a-x'}-{i:04d}", 1) for i in range(MAX_SLICES + 1)]
    assert prefix_keys([h for h, _ in hosts]) is None
    got = {"levels": [HOST], "slices": hostname_prefix_slices([HOST], _ta(hosts)["domains"])}
    assert len(got["slices"]) == 1 and slices_to_domains(got) == _ta(hosts)


def test_large_assignment_chunks_each_run() -> None:
    """``TestV1Beta2FromInternal_largeHostnameAssignmentWithManyPools`` (2,000 pools of 100)."""
    hosts = [(f"gke-cluster-pool-{p:04d}-{p:08x}-{n:04x}", 1) for p in range(2000) for n in range(100)]
    got = domains_to_slices(_ta(hosts))
    assert [s["domainCount"] for s in got["slices"]] == [100_000, 100_000]


@pytest.mark.parametrize(
    ("count", "keys", "want"),
    [(0, None, []), (4, None, [4]), (4, ["prefix-a-", "prefix-a-", "prefix-b-", "prefix-a-"], [2, 1, 1])],
)
def test_compact_domain_runs(count: int, keys: list[str] | None, want: list[int]) -> None:
    assert [len(r) for r in domain_runs(count, keys)] == want


@given(
    st.lists(
        st.tuples(st.from_regex(r"[a-c]{1,2}(-[a-c0-9]{1,3}){0,3}", fullmatch=True), st.integers(1, 4)),
        min_size=0,
        max_size=30,
    ),
    st.booleans(),
)
def test_round_trip_property(hosts: list[tuple[str, int]], enabled: bool) -> None:
    """Any encoding decodes back to the same domains in the same order."""
    ta = _ta(hosts)
    assert slices_to_domains(domains_to_slices(ta, enabled)) == ta
