"""kubectl's cells for Endpoints and EndpointSlices and the Service page's Endpoints line (k8s.io/kubernetes
``pkg/printers/internalversion/printers_test.go`` TestPrintEndpoint, TestPrintEndpointSlice rows;
k8s.io/kubectl ``describe_test.go`` formatEndpointSlices cases)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kbatch.families.core.endpoint_printers import ENDPOINT_SLICE, format_endpoints
from kbatch.families.core.service_page import format_endpoint_slices

NOW = datetime(2025, 1, 1, 0, 5, tzinfo=UTC)


def _addresses(*ips: str) -> list[dict[str, str]]:
    return [{"ip": ip} for ip in ips]


@pytest.mark.parametrize(("subsets", "want"), [
    (None, "<none>"),
    ([{"addresses": _addresses("2.3.4.5"), "ports": [{"port": 8001}]}], "2.3.4.5:8001"),
    ([{"addresses": _addresses("2.3.4.5", "3.4.5.6"), "ports": [{"port": 8001}, {"port": 8002}]}],
     "2.3.4.5:8001,3.4.5.6:8001,2.3.4.5:8002 + 1 more..."),
    ([{"addresses": _addresses("1.1.1.1", "2001:db8::1")}], "1.1.1.1,2001:db8::1"),   # headless, no ports
    ([{"addresses": _addresses("1.1.1.1"), "ports": [{"port": 80}]},
      {"addresses": _addresses("2.2.2.2", "3.3.3.3", "4.4.4.4"), "ports": [{"port": 81}]}],
     "1.1.1.1:80,2.2.2.2:81,3.3.3.3:81 + 1 more..."),
    ([{"notReadyAddresses": _addresses("1.1.1.1"), "ports": [{"port": 80}]}], ""),  # only not ready
    ([{"addresses": _addresses("2001:db8::1"), "ports": [{"port": 80}]}], "[2001:db8::1]:80"),
])
def test_endpoints_cell(subsets: Any, want: str) -> None:
    assert format_endpoints({"subsets": subsets}) == want


@pytest.mark.parametrize(("eps", "want"), [
    ({"addressType": "IPv4", "ports": [{"port": 80}], "endpoints": [{"addresses": ["10.0.0.1"]}]},
     ["IPv4", "80", "10.0.0.1"]),
    ({"addressType": "IPv4"}, ["IPv4", "<unset>", "<unset>"]),
    ({"addressType": "IPv6", "ports": [{"name": "http"}, {}, {"port": 1}, {"port": 2}],
      "endpoints": [{"addresses": ["2001:db8::1", "2001:db8::2"]},
                    {"addresses": ["2001:db8::3", "2001:db8::4"]}]},
     ["IPv6", "http,*,1 + 1 more...", "2001:db8::1,2001:db8::2,2001:db8::3 + 1 more..."]),
])
def test_endpoint_slice_cells(eps: dict[str, Any], want: list[str]) -> None:
    obj = {"metadata": {"name": "s", "creationTimestamp": "2025-01-01T00:00:00Z"}} | eps
    assert ENDPOINT_SLICE.cells(obj, NOW) == ["s", *want, "5m"]


def _slice(ports: list[dict[str, Any]] | None, *endpoints: tuple[str, bool | None]) -> dict[str, Any]:
    return {"ports": ports, "endpoints": [{"addresses": [ip], "conditions": {} if ready is None else
                                           {"ready": ready}} for ip, ready in endpoints]}


@pytest.mark.parametrize(("slices", "port", "want"), [
    ([], "http", "<none>"),
    ([_slice([{"name": "http", "port": 80}], ("1.1.1.1", True), ("2.2.2.2", False), ("3.3.3.3", None))],
     "http", "1.1.1.1:80,3.3.3.3:80"),                       # not ready left out, unknown counts as ready
    ([_slice([{"name": "other", "port": 80}], ("1.1.1.1", True))], "http", ""),
    ([_slice(None, ("1.1.1.1", True), ("2.2.2.2", True))], "http", "1.1.1.1,2.2.2.2"),  # no ports
    ([_slice([{"name": "http", "port": 80}], *((f"1.1.1.{i}", True) for i in range(5)))],
     "http", "1.1.1.0:80,1.1.1.1:80,1.1.1.2:80 + 2 more..."),
])
def test_service_endpoints_line(slices: list[dict[str, Any]], port: str, want: str) -> None:
    assert format_endpoint_slices(slices, port) == want
