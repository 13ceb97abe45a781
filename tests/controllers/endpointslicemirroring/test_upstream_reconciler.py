"""kubernetes ``pkg/controller/endpointslicemirroring/reconciler_test.go`` ``TestReconcile``, row by
row: an Endpoints (subsets, labels, annotations, uid, deletion), the mirrored slices that exist, the
number of slices after the sync and of writes it made (``expectedClientActions``), and upstream's
``expectEndpointSlices`` checks (:func:`objects.check_slices`). The metrics columns are not
translated (kbatch keeps no mirroring metrics); the skipped-address counts become the plan's."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.controllers.endpointslicemirroring import MAX_ENDPOINTS_PER_SUBSET, plan_mirror
from tests.controllers.endpointslicemirroring.objects import (
    HTTP,
    addr,
    apply_plan,
    check_slices,
    make_endpoints,
    make_slice,
    ports,
)

UID = "d8f2c1f6-5285-4b3c-b3c1-9b89f9e7ed7a"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
APPLIED = '{"apiVersion":"v1","kind":"Endpoints","subsets":[]}'
POD1 = addr("10.0.0.1", "pod-1", "node-1")
POD2 = addr("10.0.0.2", "pod-2", "node-2")
ONE = [{"ports": [HTTP], "addresses": [POD1]}]
ONE_NO_NODE = [{"ports": [HTTP], "addresses": [addr("10.0.0.1", "pod-1")]}]
POD2_NODE1 = addr("10.0.0.2", "pod-2", "node-1")
HTTPS_TCP = {"name": "https", "port": 443, "protocol": "TCP"}
OTHER_UID = "fb91e798-1875-4857-b5eb-e2c878157b4d"
READY1 = {"addresses": ["10.0.0.1"], "hostname": "pod-1", "conditions": {"ready": True}}
TWO_SUBSETS = [
    {"ports": ports(80, 443), "addresses": [POD1, POD2]},
    {"ports": ports(3000, 3001), "addresses": [addr("10.0.1.1", "pod-11", "node-1"),
                                               addr("10.0.1.2", "pod-12", "node-2"),
                                               addr("10.0.1.3", "pod-13", "node-3")]},
]
V6 = "2001:db8:{}:3333:4444:5555:6666:7777"


def _two_subsets(first: list[str], second: list[str]) -> list[dict[str, Any]]:
    return [{"ports": ports(80, 443), "addresses": [addr(ip, f"pod-{i + 1}", f"node-{i + 1}")
                                                   for i, ip in enumerate(first)]},
            {"ports": ports(3000, 3001), "addresses": [addr(ip, f"pod-1{i + 1}", f"node-{i + 1}")
                                                       for i, ip in enumerate(second)]}]


# (name, subsets, endpoints options, existing slices, max per subset, slices after, writes, skipped)
ROWS: list[tuple[str, list[dict[str, Any]], dict[str, Any], list[Any], int, int, int, int]] = [
    ("Endpoints with no subsets", [], {}, [], 0, 0, 0, 0),
    ("Endpoints with no addresses", [{"ports": [HTTP]}], {}, [], 0, 0, 0, 0),
    ("Endpoints with 1 subset, port, and address", ONE, {}, [], 0, 1, 1, 0),
    ("Endpoints with 2 subset, different port and address",
     [{"ports": [HTTP], "addresses": [POD1]},
      {"ports": [HTTPS_TCP], "addresses": [POD2_NODE1]}],
     {}, [], 0, 2, 2, 0),
    ("Endpoints with 2 subset, different port and same address",
     [{"ports": [HTTP], "addresses": [POD1]},
      {"ports": [HTTPS_TCP], "addresses": [POD1]}],
     {}, [], 0, 1, 1, 0),
    ("Endpoints with 2 subset, different address and same port",
     [{"ports": [HTTP], "addresses": [POD1]}, {"ports": [HTTP], "addresses": [POD2_NODE1]}],
     {}, [], 0, 1, 1, 0),
    ("Endpoints with 1 subset, port, and address, pending deletion", ONE, {"deleting": True}, [], 0, 0, 0, 0),
    ("Endpoints with 1 subset, port, and address and existing slice with same fields", ONE_NO_NODE,
     {"uid": UID}, [make_slice("test-ep-1", [HTTP], [READY1], owner_uid=UID)], 0, 1, 0, 0),
    ("Endpoints with 1 subset, port, and address and existing slice with same fields but different "
     "OwnerReferences", ONE_NO_NODE, {"uid": UID},
     [make_slice("test-ep-1", [HTTP], [READY1], owner_uid=OTHER_UID)], 0, 1, 1, 0),
    ("Endpoints with 1 subset, port, and address and existing slice with an additional annotation",
     ONE_NO_NODE, {}, [make_slice("test-ep-1", [HTTP], [READY1], annotations={"foo": "bar"})], 0, 1, 1, 0),
    ("Endpoints with 1 subset, port, label and address and existing slice with same fields but the label",
     ONE_NO_NODE, {"labels": {"foo": "bar"}},
     [make_slice("test-ep-1", [HTTP], [READY1], annotations={"foo": "bar"})], 0, 1, 1, 0),
    ("Endpoints with 1 subset, 2 ports, and 2 addresses",
     [{"ports": ports(80, 443), "addresses": [POD1, POD2]}], {}, [], 0, 1, 1, 0),
    ("Endpoints with 1 subset, 2 ports, and 2 not ready addresses",
     [{"ports": ports(80, 443), "notReadyAddresses": [POD1, POD2]}], {}, [], 0, 1, 1, 0),
    ("Endpoints with 1 subset, 2 ports, and 2 ready and 2 not ready addresses",
     [{"ports": ports(80, 443),
       "addresses": [addr("10.1.1.1", "pod-11", "node-1"), addr("10.1.1.2", "pod-12", "node-2")],
       "notReadyAddresses": [POD1, POD2]}], {}, [], 0, 1, 1, 0),
    ("Endpoints with 2 subsets, multiple ports and addresses", TWO_SUBSETS, {}, [], 0, 2, 2, 0),
    ("Endpoints with 2 subsets, multiple ports and addresses, existing empty EndpointSlice", TWO_SUBSETS, {},
     [make_slice("test-ep-1", ports(80, 443))], 0, 2, 2, 0),
    ("Endpoints with 2 subsets, multiple ports and addresses, existing EndpointSlice with some addresses",
     TWO_SUBSETS, {}, [make_slice("test-ep-1", ports(80, 443), [
         {"addresses": ["10.0.0.2"], "hostname": "pod-2"},
         {"addresses": ["10.0.0.1", "10.0.0.3"], "hostname": "pod-1"}])], 0, 2, 2, 0),
    ("Endpoints with 2 subsets, multiple ports and addresses, existing EndpointSlice identical to subset",
     TWO_SUBSETS, {}, [make_slice("test-ep-1", ports(80, 443), [
         dict(READY1, nodeName="node-1"),
         {"addresses": ["10.0.0.2"], "hostname": "pod-2", "nodeName": "node-2",
          "conditions": {"ready": True}}])],
     0, 2, 1, 0),
    ("Endpoints with 2 subsets, multiple ports, and dual stack addresses",
     _two_subsets([V6.format(2222), "10.0.0.2"], ["10.0.1.1", "10.0.1.2", V6.format(3333)]), {}, [], 0,
     4, 4, 0),
    ("Endpoints with 2 subsets, multiple ports, ipv6 only addresses",
     _two_subsets([V6.format(1111), V6.format(2222)], [V6.format(n) for n in (3333, 4444, 5555)]), {}, [], 0,
     2, 2, 0),
    ("Endpoints with 2 subsets, multiple ports, some invalid addresses",
     _two_subsets([V6.format(1111), "this-is-not-an-ip"],
                  ["this-is-also-not-an-ip", V6.format(4444), V6.format(5555)]), {}, [], 0, 2, 2, 2),
    ("Endpoints with 2 subsets, multiple ports, all invalid addresses",
     _two_subsets(["this-is-not-an-ip1", "this-is-not-an-ip12"],
                  ["this-is-not-an-ip11", "this-is-not-an-ip12", "this-is-not-an-ip3"]), {}, [], 0, 0, 0, 5),
    ("Endpoints with 2 subsets, 1 exceeding maxEndpointsPerSubset", TWO_SUBSETS, {}, [], 2, 2, 2, 1),
    ("The last-applied-configuration annotation should not get mirrored to created or updated endpoint "
     "slices",
     ONE_NO_NODE, {"annotations": {LAST_APPLIED: APPLIED}}, [], 0, 1, 1, 0),
    ("The last-applied-configuration annotation shouldn't get added to created endpoint slices", ONE_NO_NODE,
     {}, [], 0, 1, 1, 0),
    ("The last-applied-configuration shouldn't get mirrored to endpoint slices when it's value is empty",
     ONE_NO_NODE, {"annotations": {LAST_APPLIED: ""}}, [], 0, 1, 1, 0),
    ("Annotations other than last-applied-configuration should get correctly mirrored", ONE_NO_NODE,
     {"annotations": {LAST_APPLIED: APPLIED, "foo": "bar"}}, [], 0, 1, 1, 0),
    ("Annotation mirroring should remove the last-applied-configuration annotation from existing endpoint "
     "slices", ONE_NO_NODE, {},
     [make_slice("test-ep-1", [HTTP], [READY1], annotations={LAST_APPLIED: APPLIED})], 0, 1, 1, 0),
]


@pytest.mark.parametrize(("subsets", "options", "existing", "most", "num_slices", "writes", "skipped"),
                         [row[1:] for row in ROWS], ids=[row[0] for row in ROWS])
def test_reconcile(subsets: list[dict[str, Any]], options: dict[str, Any], existing: list[Any], most: int,
                   num_slices: int, writes: int, skipped: int) -> None:
    endpoints = make_endpoints(subsets, **options)
    most = most or MAX_ENDPOINTS_PER_SUBSET
    plan = plan_mirror(endpoints, existing, most)
    after, made = apply_plan(existing, plan)
    assert made == writes
    assert len(after) == num_slices
    assert plan.skipped == skipped
    check_slices(endpoints, after, most)
