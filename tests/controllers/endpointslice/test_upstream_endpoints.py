"""kubernetes ``pkg/controller/endpoint/endpoints_controller_test.go`` rows for the pure subsets
(:mod:`kbatch.controllers.endpoint.subsets`): TestSyncEndpointsItemsPreexisting (ready pods as
addresses), TestSyncEndpointsItemsWithLabels / notReady (unready pods as notReadyAddresses),
TestSyncEndpointsProtocolTCP with several ports, TestSyncEndpointsHeadlessWithoutPort,
TestPodToEndpointAddressForService / terminating pods (only with publishNotReadyAddresses),
TestShouldPodBeInEndpoints (terminal phases, no address), and TestTruncateEndpoints."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.core_v1 import EndpointAddress, EndpointSubset, ObjectReference
from kbatch.controllers.endpoint import MAX_CAPACITY, desired_subsets, truncate

from .objects import make_pod, make_service


def _wire(subsets: list[EndpointSubset]) -> list[dict[str, Any]]:
    return [s.model_dump(by_alias=True, exclude_none=True) for s in subsets]


def _ips(subsets: list[EndpointSubset], field: str) -> list[list[str]]:
    return [[a.ip for a in getattr(s, field) or ()] for s in subsets]


def test_ready_and_unready_pods() -> None:
    subsets = desired_subsets(make_service(), [make_pod(1), make_pod(2, ready=False)])
    assert _wire(subsets) == [{
        "addresses": [{"ip": "1.2.0.6", "nodeName": "node-1",
                       "targetRef": {"kind": "Pod", "namespace": "default", "name": "pod1",
                                     "uid": "uid-pod1"}}],
        "notReadyAddresses": [{"ip": "1.2.0.7", "nodeName": "node-1",
                               "targetRef": {"kind": "Pod", "namespace": "default", "name": "pod2",
                                             "uid": "uid-pod2"}}],
        "ports": [{"name": "http", "port": 80, "protocol": "TCP"}]}]


def test_publish_not_ready_addresses() -> None:
    subsets = desired_subsets(make_service(publish_not_ready=True),
                              [make_pod(1, ready=False), make_pod(2, terminating=True)])
    assert _ips(subsets, "addresses") == [["1.2.0.6", "1.2.0.7"]]
    assert _ips(subsets, "not_ready_addresses") == [[]]


@pytest.mark.parametrize("pod", [{"terminating": True}, {"phase": "Succeeded"}, {"phase": "Failed"},
                                 {"ip": None}], ids=["terminating", "succeeded", "failed", "no-address"])
def test_pods_left_out(pod: dict[str, Any]) -> None:
    assert desired_subsets(make_service(), [make_pod(1, **pod)]) == []


def test_several_ports_in_one_subset() -> None:
    ports = [{"name": "a", "port": 80, "protocol": "TCP", "targetPort": 8080},
             {"name": "b", "port": 81, "protocol": "UDP", "targetPort": 8081}]
    [subset] = desired_subsets(make_service(ports=ports), [make_pod(1), make_pod(2)])
    assert [(p.name, p.port, p.protocol) for p in subset.ports] == [("a", 8080, "TCP"), ("b", 8081, "UDP")]
    assert [a.ip for a in subset.addresses] == ["1.2.0.6", "1.2.0.7"]


def test_headless_without_ports() -> None:
    pod = make_pod(1, hostname="h", subdomain="foo")
    [subset] = desired_subsets(make_service(headless=True, ports=[]), [pod])
    assert subset.ports is None and [(a.ip, a.hostname) for a in subset.addresses] == [("1.2.0.6", "h")]
    # a Service with a cluster IP and no ports publishes nothing
    assert desired_subsets(make_service(ports=[]), [make_pod(1)]) == []


def _addresses(n: int, prefix: str) -> list[EndpointAddress]:
    return [EndpointAddress(ip=f"{prefix}.{i // 250}.{i % 250}",
                            target_ref=ObjectReference(uid=f"{prefix}{i}")) for i in range(n)]


@pytest.mark.parametrize(("ready", "not_ready", "want"), [
    ([1000], [0], None),                              # at capacity: untouched
    ([600, 600], [0, 0], ([500, 500], [0, 0])),       # ready over capacity: proportional, rounded up
    ([500], [600], ([500], [500])),                   # not ready fills what ready leaves
    ([300, 300], [400, 200], ([300, 300], [267, 133])),
])
def test_truncate_endpoints(ready: list[int], not_ready: list[int], want: Any) -> None:
    subsets = [EndpointSubset(addresses=_addresses(r, f"10.{i}") or None,
                              not_ready_addresses=_addresses(n, f"11.{i}") or None)
               for i, (r, n) in enumerate(zip(ready, not_ready, strict=True))]
    truncated = truncate(subsets)
    assert truncated == (want is not None)
    if want is not None:
        got = ([len(s.addresses or ()) for s in subsets], [len(s.not_ready_addresses or ()) for s in subsets])
        assert got == want and sum(got[0]) + sum(got[1]) == MAX_CAPACITY
